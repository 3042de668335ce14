#include "MainWindow.h"
#include "OutsideText.h"
#include "util/PlainText.h"

#include "CurvesView.h"
#include "JobsView.h"
#include "Keychain.h"
#include "LogdirsDialog.h"
#include "NodesView.h"
#include "Notifier.h"
#include "Remembered.h"
#include "Settings.h"
#include "SettingsDialog.h"
#include "SweepsView.h"
#include "Theme.h"
#include "client/CollectorClient.h"
#include "jobs/JobsModel.h"
#include "kube/KubeClient.h"
#include "ssh/SshSession.h"
#include "util/Log.h"

#include <QActionGroup>
#include <QCheckBox>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QStatusBar>
#include <QSystemTrayIcon>
#include <QTabWidget>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>

namespace sb {

using namespace Qt::StringLiterals;

namespace {
const QString kRecovery = QStringLiteral("recovery"); // the banner's topic for the store's repairs
const QString kToken = QStringLiteral("token"); // the collector refused the token (or its lack)
} // namespace

MainWindow::MainWindow(CollectorClient *collector, JobsModel *jobs, NodeMonitor *monitor,
                       const QString &configPath, QWidget *parent)
    : QMainWindow(parent)
    , m_jobModel(jobs)
    , m_tabs(new QTabWidget)
    , m_banner(new QLabel)
    , m_collector(collector)
    , m_collectorFacts(new QLabel)
    , m_curves(new CurvesView(collector))
    , m_jobs(new JobsView(jobs, configPath))
    , m_nodes(new NodesView(monitor, configPath))
    , m_sweeps(new SweepsView(jobs, collector))
    , m_notifier(new Notifier(jobs, {}, this)) {
    setWindowTitle(u"Signalbox"_s);
    PlainTips::install(QCoreApplication::instance());
    setWindowIcon(QIcon(u":/icons/signalbox.svg"_s));

    // Views are found by these names (--view, showView), never by their translated titles.
    m_curves->setObjectName(u"curves"_s);
    m_jobs->setObjectName(u"jobs"_s);
    m_nodes->setObjectName(u"nodes"_s);
    m_sweeps->setObjectName(u"sweeps"_s);
    m_tabs->addTab(m_curves, tr("Curves"));
    m_tabs->addTab(m_jobs, tr("Jobs"));
    m_tabs->addTab(m_nodes, tr("Nodes"));
    m_tabs->addTab(m_sweeps, tr("Sweeps"));
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        qCDebug(lcUi).noquote() << u"view"_s << m_tabs->currentWidget()->objectName();
    });

    m_banner->setObjectName(u"banner"_s);
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet(
        u"background:#fdecea; color:#611a15; padding:6px; border-radius:3px;"_s);
    m_banner->hide();

    auto *central = new QWidget;
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(6, 6, 6, 0);
    layout->addWidget(m_banner);
    layout->addWidget(m_tabs);
    setCentralWidget(central);
    // Where the metrics come from, for good (messages come and go beside it).
    m_collectorFacts->setObjectName(u"collectorFacts"_s);
    m_collectorFacts->setTextFormat(Qt::PlainText);
    statusBar()->addPermanentWidget(m_collectorFacts);
    m_collectorFacts->setText(tr("Collector: %1").arg(collector->url().toString()));
    showCollectorFacts(true);
    connect(collector, &CollectorClient::tokenRefused, this, [this] {
        showProblem(u"collector"_s, {});
        showProblem(kToken, tr("The collector at %1 refused the token: a lab's administrator "
                               "gives one with `signalbox-collector users add`.")
                                .arg(m_collector->url().toString()));
    });
    connect(collector, &CollectorClient::tokenAccepted, this, [this] {
        showProblem(kToken, {});
        showCollectorFacts();
    });
    // Rights change while the window is open (granted, taken away): said within a minute.
    auto *facts = new QTimer(this);
    connect(facts, &QTimer::timeout, this, [this] { showCollectorFacts(); });
    facts->start(60'000);
    connect(m_banner, &QLabel::linkActivated, this, [this, collector](const QString &link) {
        const QString topic = QString::fromUtf8(QByteArray::fromPercentEncoding(link.toUtf8()));
        if (topic == kToken) {
            askForToken();
            return;
        }
        if (topic != kRecovery) {
            showProblem(topic, {});
            return;
        }
        collector->acknowledgeRecovery(this, [this](const Result<qint64> &done) {
            showProblem(kRecovery, done ? QString() : done.error());
        });
    });

    connect(m_curves, &CurvesView::collectorError, this, [this](const QString &message) {
        // While the token is refused, every read fails for that one reason: its banner says it.
        const bool refused =
            std::any_of(m_problems.cbegin(), m_problems.cend(),
                        [](const auto &problem) { return problem.first == kToken; });
        if (message.isEmpty() || !refused)
            showProblem(u"collector"_s, message);
    });
    connect(m_jobs, &JobsView::error, this, &MainWindow::showError);
    connect(m_nodes, &NodesView::error, this, &MainWindow::showError);
    connect(m_sweeps, &SweepsView::error, this, &MainWindow::showError);
    connect(m_curves, &CurvesView::jobRequested, this, [this](const QString &run) {
        if (!m_jobs->selectRun(run)) {
            statusBar()->showMessage(
                tr("No job in the Jobs tab made %1: it was logged from outside Signalbox").arg(run),
                8000);
            return;
        }
        showView(u"jobs"_s);
    });
    connect(m_notifier, &Notifier::openRun, this, [this](const QString &, const QString &id) {
        showView(u"jobs"_s);
        m_jobs->selectRun(id);
        showNormal();
        raise();
        activateWindow();
    });
    connect(m_notifier, &Notifier::notified, this, [this](Notifier::Kind, const QString &title) {
        statusBar()->showMessage(title, 10000);
    });
    if (m_notifier->tray())
        connect(m_notifier->tray(), &QSystemTrayIcon::activated, this, [this] {
            showNormal();
            raise();
            activateWindow();
        });
    const auto showCurves = [this](const QStringList &runs) {
        qCDebug(lcUi).noquote() << u"curves of"_s << runs.join(u", "_s);
        m_curves->showCurvesOf(runs);
        showView(u"curves"_s);
    };
    connect(m_jobs, &JobsView::curvesRequested, this, showCurves);
    connect(m_sweeps, &SweepsView::curvesRequested, this, showCurves);
    connect(m_nodes, &NodesView::runActivated, this,
            [showCurves](const QString &run) { showCurves({run}); });
    m_jobs->setNodeNames([monitor] {
        QStringList names;
        for (const NodeConfig &node : monitor->nodes())
            names << node.name;
        return names;
    });
    createMenus();
    // The first time, as large as fits well: on a scaled (high-DPI) laptop screen 1400×860
    // logical pixels can be more than the screen.
    if (!restoreGeometry(readSetting(Setting::WindowGeometry).toByteArray()))
        resize(QSize(1400, 860).boundedTo(screen()->availableGeometry().size() * 0.9));
    m_tabs->setCurrentIndex(readSetting(Setting::WindowTab).toInt());
    restoreRemembered(this);
}

MainWindow::~MainWindow() {
    writeSetting(Setting::WindowGeometry, saveGeometry());
    writeSetting(Setting::WindowTab, m_tabs->currentIndex());
    saveRemembered(this);
}

void MainWindow::createMenus() {
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New run…"), QKeySequence::New, this, [this] {
        showView(u"jobs"_s);
        m_jobs->newRun();
    });
    file->addAction(tr("&Open sweep…"), QKeySequence::Open, this, [this] {
        showView(u"sweeps"_s);
        m_sweeps->chooseFile();
    });
    QAction *logdir = file->addAction(tr("Open TensorBoard &logdir…"), this, [this] {
        if (LogdirsDialog *dialog = logdirsDialog()) {
            dialog->show();
            dialog->raise();
        }
    });
    connect(file, &QMenu::aboutToShow, this, [this, logdir] { logdir->setEnabled(m_feeds); });
    file->addSeparator();
    file->addAction(tr("&Settings…"), QKeySequence(Qt::CTRL | Qt::Key_Comma), this,
                    [this] { SettingsDialog(m_notifier, m_themes, this).exec(); });
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    // Ctrl+W closes the one window too: the same question when runs are going.
    quit->setShortcuts({QKeySequence(QKeySequence::Quit), QKeySequence(QKeySequence::Close)});

    QMenu *view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < m_tabs->count(); ++i) {
        view->addAction(m_tabs->tabText(i), QKeySequence(Qt::CTRL | (Qt::Key_1 + i)), this,
                        [this, i] { m_tabs->setCurrentIndex(i); });
    }
    view->addSeparator();
    // The filter of the view on screen; the curves' when it has none.
    view->addAction(tr("&Find"), QKeySequence::Find, this, [this] {
        auto *filter = m_tabs->currentWidget()->findChild<QLineEdit *>(u"filter"_s);
        if (!filter) {
            m_tabs->setCurrentWidget(m_curves);
            filter = m_curves->findChild<QLineEdit *>(u"filter"_s);
        }
        filter->setFocus(Qt::ShortcutFocusReason);
        filter->selectAll();
    });

    // What the desktop is told, and when: chosen in Settings, remembered.
    m_notifier->loadSettings();

    // Light or dark: the desktop's, or chosen here; remembered.
    QMenu *themes = view->addMenu(tr("&Theme"));
    auto *themeGroup = new QActionGroup(themes);
    const auto chosen = static_cast<Theme>(std::clamp(readSetting(Setting::Theme).toInt(), 0, 2));
    for (const auto &[theme, name] :
         {std::pair{Theme::System, tr("As the &system")}, std::pair{Theme::Light, tr("&Light")},
          std::pair{Theme::Dark, tr("&Dark")}}) {
        QAction *action = themes->addAction(name);
        m_themes << action;
        action->setCheckable(true);
        action->setChecked(theme == chosen);
        themeGroup->addAction(action);
        connect(action, &QAction::triggered, this, [chose = theme] {
            applyTheme(chose);
            writeSetting(Setting::Theme, static_cast<int>(chose));
        });
    }
    if (chosen != Theme::System)
        applyTheme(chosen);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("How to &log metrics"), QKeySequence::HelpContents, this,
                    &MainWindow::showHowToLog);
    help->addAction(tr("Open log &folder"), this, [this] {
        if (LogFile::path().isEmpty())
            showError(tr("This session writes no log file."));
        else
            SettingsDialog::openLogFolder();
    });
    help->addAction(tr("&About Signalbox"), this, &MainWindow::showAbout);
}

void MainWindow::showHowToLog() {
    QMessageBox box(QMessageBox::Information, tr("How to log metrics"),
                    tr("<p>From Python, with the client that ships with Signalbox "
                       "(<code>pip install clients/python</code>, standard library only; "
                       "adapters for Lightning, Hugging Face, Keras and TensorBoard's "
                       "<code>SummaryWriter</code> in <code>signalbox.integrations</code> and "
                       "<code>signalbox.tensorboard</code>):</p>"
                       "<pre>import signalbox\n"
                       "signalbox.init(config={\"lr\": 0.01})\n"
                       "signalbox.log({\"train/loss\": loss}, step=step)</pre>"
                       "<p>From any language, print a metric line; every other line is left "
                       "alone:</p>"
                       "<pre>@signalbox {\"step\": 12, \"loss\": 0.25}</pre>"
                       "<p>Runs started from Signalbox get <code>SIGNALBOX_RUN</code> and "
                       "<code>SIGNALBOX_COLLECTOR</code>. TensorBoard event files are read too: "
                       "File ▸ Open TensorBoard logdir.</p>"),
                    QMessageBox::Close, this);
    box.setObjectName(u"howToLog"_s);
    box.setTextFormat(Qt::RichText);
    box.exec();
}

void MainWindow::showAbout() {
    QMessageBox box(QMessageBox::NoIcon, tr("About Signalbox"),
                    tr("<h3>Signalbox %1</h3><p>One window on all the compute you train on: "
                       "runs here, on SSH nodes, Kubernetes and Slurm; GPUs; learning curves; "
                       "sweeps.</p><p>Qt %2 · %3<br>%4</p>")
                        .arg(QCoreApplication::applicationVersion(),
                             QString::fromLatin1(qVersion()), libsshVersion().toHtmlEscaped(),
                             libcurlVersion().toHtmlEscaped()),
                    QMessageBox::Close, this);
    box.setObjectName(u"about"_s);
    box.setIconPixmap(windowIcon().pixmap(64, 64));
    box.exec();
}

void MainWindow::showView(const QString &name) {
    for (int i = 0; i < m_tabs->count(); ++i) {
        if (m_tabs->widget(i)->objectName().compare(name, Qt::CaseInsensitive) == 0)
            m_tabs->setCurrentIndex(i);
    }
}

void MainWindow::setLogdirFeeds(LogdirFeeds *feeds) {
    m_feeds = feeds;
    m_curves->offerLogdirs();
    connect(m_curves, &CurvesView::logdirsRequested, this, [this] {
        logdirsDialog()->show();
        logdirsDialog()->raise();
    });
}

LogdirsDialog *MainWindow::logdirsDialog() {
    if (!m_logdirs && m_feeds)
        m_logdirs = new LogdirsDialog(m_feeds, this);
    return m_logdirs;
}

void MainWindow::showError(const QString &message) {
    showProblem(message, message);
}

void MainWindow::showCollectorFacts(bool atStart) {
    m_collector->health(this, [this, atStart](const Result<Health> &health) {
        if (health) {
            Q_EMIT collectorHealth(*health);
            // A lab's: which project, as whom, and whether this user may change anything.
            QStringList facts{tr("Collector: %1").arg(m_collector->url().toString())};
            if (health->lab.value(u"serves"_s).toBool())
                facts << tr("lab store");
            if (!health->project.isEmpty() && health->project != u"default"_s)
                facts << tr("project %1").arg(health->project);
            if (!health->user.isEmpty())
                facts << health->user;
            if (health->access == u"read"_s)
                facts << tr("read only");
            m_collectorFacts->setText(facts.join(u" · "_s));
            // Said when it changes: a banner dismissed stays away while nothing new is to say.
            if (std::exchange(m_access, health->access) != health->access)
                showProblem(u"access"_s,
                            health->access != u"none"_s
                                ? QString()
                                : tr("%1 may not read project %2 on this collector: its "
                                     "administrator grants rights with `signalbox-collector "
                                     "users grant`")
                                      .arg(health->user, health->project));
        }
        const QStringList notes = health && atStart ? health->recovery : QStringList();
        if (notes.isEmpty())
            return;
        // Shown at every start until the person says they read it.
        showProblem(kRecovery, tr("The collector repaired its store: %1").arg(notes.join(u"; "_s)));
    });
}

void MainWindow::askForToken() {
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Collector token"));
    auto *layout = new QVBoxLayout(&dialog);
    auto *label = new QLabel(tr("The token for %1:").arg(m_collector->url().toString()));
    label->setTextFormat(Qt::PlainText);
    auto *secret = new QLineEdit;
    secret->setObjectName(u"token"_s);
    secret->setEchoMode(QLineEdit::Password);
    auto *keep = new QCheckBox(tr("Keep it in the system keychain"));
    keep->setChecked(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    for (QWidget *widget : std::initializer_list<QWidget *>{label, secret, keep, buttons})
        layout->addWidget(widget);
    if (dialog.exec() == QDialog::Accepted && !secret->text().trimmed().isEmpty())
        useCollectorToken(secret->text().trimmed(), keep->isChecked());
}

void MainWindow::useCollectorToken(const QString &token, bool keep) {
    m_collector->setToken(token);
    Q_EMIT collectorTokenChanged(token);
    showProblem(kToken, {});
    showCollectorFacts(); // and a refusal of this one is said again
    if (keep)
        keychain::write(keychain::collectorToken(m_collector->url().toString()), token, this,
                        [this](const QString &failed) {
                            if (!failed.isEmpty())
                                showError(
                                    tr("The keychain did not keep the token: %1").arg(failed));
                        });
}

void MainWindow::showProblem(const QString &topic, const QString &message) {
    const auto it = std::find_if(m_problems.begin(), m_problems.end(),
                                 [&topic](const auto &problem) { return problem.first == topic; });
    if (!message.isEmpty() && (it == m_problems.end() || it->second != message))
        qCWarning(lcUi).noquote() << message; // what the banner said, for a bug report
    else if (message.isEmpty() && it != m_problems.end())
        qCInfo(lcUi).noquote() << u"cleared:"_s << it->second;
    if (it != m_problems.end() && message.isEmpty())
        m_problems.erase(it);
    else if (it != m_problems.end())
        it->second = message;
    else if (!message.isEmpty())
        m_problems.append({topic, message});
    updateBanner();
}

void MainWindow::updateBanner() {
    QStringList lines;
    for (const auto &[topic, message] : std::as_const(m_problems)) {
        lines << u"%1 <a href=\"%2\">%3</a>"_s.arg(
            htmlOf(message), QString::fromUtf8(QUrl::toPercentEncoding(topic)),
            topic == kToken ? tr("Enter a token…") : tr("Dismiss"));
    }
    m_banner->setText(lines.join(u"<br>"_s));
    m_banner->setVisible(!lines.isEmpty());
}

void MainWindow::closeEvent(QCloseEvent *event) {
    const QList<JobBackend *> here = m_jobModel->registry()->with(
        [](const JobBackend::Capabilities &can) { return can.thisComputer; });
    int going = 0;
    for (const JobBackend *backend : here)
        going += backend->unfinished();
    if (going == 0)
        return event->accept();
    QMessageBox box(QMessageBox::Question, tr("Quit Signalbox"),
                    going == 1 ? tr("A run on this computer is still going.")
                               : tr("%1 runs on this computer are still going.").arg(going),
                    QMessageBox::NoButton, this);
    box.setObjectName(u"quitQuestion"_s);
    box.setInformativeText(tr("They can go on without Signalbox: the next start follows them "
                              "again, output and curves included. Or stop them now (SIGTERM)."));
    QPushButton *keep = box.addButton(tr("Keep them running"), QMessageBox::AcceptRole);
    QPushButton *stop = box.addButton(tr("Stop them and quit"), QMessageBox::DestructiveRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(keep);
    box.exec();
    if (box.clickedButton() == stop)
        for (JobBackend *backend : here)
            backend->stopAll();
    if (box.clickedButton() == keep || box.clickedButton() == stop)
        event->accept();
    else
        event->ignore();
}

} // namespace sb
