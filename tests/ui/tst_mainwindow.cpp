// The whole window, offscreen, on a real embedded collector and a real local run; every main
// view is saved as a PNG under <build>/screenshots/ to be looked at.
#include "../support/DialogAnswers.h"
#include "CurvesView.h"
#include "JobsView.h"
#include "LogdirsDialog.h"
#include "MainWindow.h"
#include "NodesView.h"
#include "Notifier.h"
#include "SettingsDialog.h"
#include "SweepsView.h"
#include "Theme.h"
#include "Translations.h"
#include "charts/CurveChart.h"
#include "client/CollectorClient.h"
#include "collector/AccessList.h"
#include "collector/EmbeddedCollector.h"
#include "jobs/JobsModel.h"
#include "jobs/MetricLineForwarder.h"
#include "jobs/local/LocalBackend.h"
#include "metrics/RunsModel.h"
#include "monitor/LocalSampler.h"
#include "monitor/NodeMonitor.h"
#include "tensorboard/LogdirFeeds.h"
#include "util/Files.h"
#include "util/Log.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QSysInfo>
#include <QTabWidget>
#include <QTableWidget>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <cmath>
#include <csignal>

using namespace Qt::StringLiterals;

// A window's parts with no collector to reach (a refused port) and runs on this computer.
struct Offline {
    QTemporaryDir dir;
    sb::CollectorClient client{QUrl(u"http://127.0.0.1:9"_s), {}};
    sb::LocalBackend local{{dir.path(), 2000, {}}};
    sb::BackendRegistry registry;
    sb::JobsModel jobs{&registry};
    sb::NodeMonitor monitor;
    Offline() { registry.add(&local); }
};

// A window on `client`, with this computer's backend and no nodes, shown.
struct ShownWindow {
    ShownWindow(sb::CollectorClient *client, const QString &dir)
        : local({dir, 2000, {}})
        , jobs{&registry}
        , window(client, &jobs, &monitor, dir + u"/signalbox.yaml"_s) {
        registry.add(&local);
        window.show();
    }
    sb::LocalBackend local;
    sb::BackendRegistry registry;
    sb::JobsModel jobs;
    sb::NodeMonitor monitor;
    sb::MainWindow window;
};

class TestMainWindow final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void rendersEveryView();
    void refusedCollectorShowsBannerThenRecovers();
    void aRefusedTokenIsAskedForAndTheStatusBarSaysWhoAndWhere();
    void opensATensorBoardLogdir();
    void closingWithRunsGoingAsks();
    void menusShortcutsAndWhatIsRemembered();
    void jobsFilterAndDoubleClickToCurves();
    void darkAndLightThemes();
    void aNewRunStartsFromTheLastOnesChoices();
    void emptyViewsSayTheNextStep();
    void sweepTrialsFoldUnderOneRow();
    void readsInSimplifiedChinese();
    void settingsApplyAtOnceAndAreRemembered();

private:
    QTemporaryDir m_settings; // this run's QSettings, not the user's
};

void TestMainWindow::initTestCase() {
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settings.path());
}

void TestMainWindow::rendersEveryView() {
    QTemporaryDir dir;
    sb::Collector::Options options;
    options.dataDir = dir.path() + u"/collector"_s;
    auto embedded = sb::EmbeddedCollector::start(options);
    QVERIFY2(embedded.ok(), embedded.ok() ? "" : qPrintable(embedded.error()));
    sb::CollectorClient client((*embedded)->url(), (*embedded)->token());

    // Three runs of a noisy decaying loss, pushed like the Python client does.
    for (int r = 0; r < 3; ++r) {
        QJsonArray steps, loss, acc;
        for (int i = 0; i < 20000; ++i) {
            steps.append(i);
            const double noise = std::sin(i * 12.9898 + r) * 43758.5453;
            loss.append(2.0 * std::exp(-i / (3000.0 + 2000 * r)) +
                        0.1 * (noise - std::floor(noise)));
            acc.append(1 - std::exp(-i / (2500.0 + 1500 * r)));
        }
        const QJsonObject push{
            {u"run"_s, u"resnet-lr%1"_s.arg(r)},
            {u"info"_s, QJsonObject{{u"config"_s, QJsonObject{{u"lr"_s, 0.1 * (r + 1)}}},
                                    {u"status"_s, u"finished"_s}}},
            {u"series"_s,
             QJsonObject{{u"loss"_s, QJsonObject{{u"step"_s, steps}, {u"value"_s, loss}}},
                         {u"accuracy"_s, QJsonObject{{u"step"_s, steps}, {u"value"_s, acc}}}}}};
        bool done = false;
        client.push(QJsonDocument(push).toJson(), this, [&](const sb::Result<qint64> &reply) {
            QVERIFY2(reply.ok(), reply.ok() ? "" : qPrintable(reply.error()));
            done = true;
        });
        QTRY_VERIFY(done);
    }

    sb::LocalBackend local({dir.path(), 2000, {}});
    sb::BackendRegistry registry;
    sb::JobsModel jobs{&registry};
    registry.add(&local);
    sb::MetricLineForwarder forwarder(&client);
    forwarder.watch(&local);
    QSignalSpy problems(&forwarder, &sb::MetricLineForwarder::problem);
    // A run that prints metric lines (and one it garbles): they reach the collector through the
    // job's output.
    const auto job = local.submit({u"printer"_s,
                                   {u"/bin/sh"_s, u"-c"_s,
                                    u"for i in 1 2 3 4 5; do echo \"@signalbox {\\\"step\\\": $i, "
                                    u"\\\"loss\\\": 0.$i}\"; done; "
                                    "echo '@signalbox {broken'; echo done"_s},
                                   {},
                                   {}});
    QVERIFY(job.ok());

    sb::NodeMonitor monitor;
    sb::MainWindow window(&client, &jobs, &monitor, dir.path() + u"/signalbox.yaml"_s);
    window.resize(1400, 860);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // The local node with a GPU: a fake nvidia-smi replays a real H200 capture.
    const QString fakeSmi = dir.path() + u"/nvidia-smi"_s;
    {
        QFile f(fakeSmi);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("#!/bin/sh\ncat " + QByteArray(SIGNALBOX_TEST_DATA) +
                "/nvidia-smi-query-gpu.csv\n");
        f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
    }
    sb::LocalSampler sampler(u"/proc"_s, 1000, fakeSmi);
    window.nodes()->addSample(u"localhost"_s, sampler.sampleNow());
    QTest::qWait(200);
    window.nodes()->addSample(u"localhost"_s, sampler.sampleNow());

    sb::CurvesView *curves = window.curves();
    QTRY_VERIFY_WITH_TIMEOUT(curves->runsModel()->rowCount() == 4, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(curves->charts().size() == 2, 10000);
    // Every chart fills in, downsampled to its plot's width: at most four points per pixel column
    // (after the layout settles, the last request matches the final width).
    auto settled = [&] {
        const QList<sb::CurveChart *> charts = curves->charts();
        return std::all_of(charts.begin(), charts.end(), [](sb::CurveChart *c) {
            const QList<sb::Curve> &shown = c->curves();
            return c->drawnLines() >= 6 &&
                   std::all_of(shown.begin(), shown.end(), [&](const sb::Curve &curve) {
                       return curve.points.size() <= 4 * c->plotWidth() &&
                              curve.rawPoints.size() <= 4 * c->plotWidth();
                   });
        });
    };
    QTRY_VERIFY_WITH_TIMEOUT(settled(), 10000);

    // The job that only printed metric lines: its run gets the job's final status and host.
    auto printerStatus = [&] {
        sb::RunsModel *runs = curves->runsModel();
        for (int row = 0; row < runs->rowCount(); ++row) {
            if (runs->runAt(row) == *job)
                return QString(runs->index(row, 1).data().toString() + u"@"_s +
                               runs->index(row, 2).data().toString());
        }
        return QString();
    };
    QTRY_COMPARE_WITH_TIMEOUT(printerStatus(), u"finished@"_s + QSysInfo::machineHostName(), 10000);
    QTRY_COMPARE(problems.size(), 1); // the garbled line is reported, the others are stored
    QVERIFY(problems.front().front().toString().contains(u"not stored"_s));
    QCOMPARE(curves->runsModel()->pointCount(*job, u"loss"_s), 5);

    const QString shots = QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots"_s;
    QDir().mkpath(shots);
    QVERIFY(window.grab().save(shots + u"/main-window.png"_s));
    QVERIFY(curves->grab().save(shots + u"/curves-view.png"_s));
    window.showView(u"Jobs"_s);
    window.jobs()->selectRun(*job);
    QTest::qWait(300);
    QVERIFY(window.grab().save(shots + u"/jobs-view.png"_s));
    window.showView(u"Nodes"_s);
    QVERIFY(window.grab().save(shots + u"/nodes-view.png"_s));
    window.showError(u"collector at 127.0.0.1:9: Connection refused"_s);
    window.showView(u"Curves"_s);
    QVERIFY(window.grab().save(shots + u"/error-banner.png"_s));
    qInfo("screenshots saved under %s", qPrintable(shots));
}

void TestMainWindow::refusedCollectorShowsBannerThenRecovers() {
    quint16 port = 0;
    {
        QTcpServer probe; // a port nothing listens on, for now
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        port = probe.serverPort();
    }
    QUrl url;
    url.setScheme(u"http"_s);
    url.setHost(u"127.0.0.1"_s);
    url.setPort(port);
    sb::CollectorClient client(url, {});
    QTemporaryDir dir;
    ShownWindow shown(&client, dir.path());
    sb::MainWindow &window = shown.window;
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *banner = window.findChild<QLabel *>(u"banner"_s);
    QVERIFY(banner);
    QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), 5000);
    QVERIFY2(banner->text().contains(u"refused"_s, Qt::CaseInsensitive),
             qPrintable(banner->text()));
    QVERIFY(banner->text().contains(QString::number(port)));
    // A problem of another kind stays beside it, and after it is gone.
    window.showError(u"Run history: jobs.json was kept aside"_s);
    QVERIFY(banner->text().contains(u"refused"_s, Qt::CaseInsensitive));
    QVERIFY(banner->text().contains(u"jobs.json"_s));
    const QString shots = QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots"_s;
    QDir().mkpath(shots);
    QVERIFY(window.grab().save(shots + u"/collector-refused.png"_s));

    sb::Collector::Options options;
    options.dataDir = dir.path() + u"/collector"_s;
    options.port = port;
    auto collector = sb::Collector::start(options);
    QVERIFY2(collector.ok(), qPrintable(collector.error()));
    QTRY_VERIFY_WITH_TIMEOUT(!banner->text().contains(u"refused"_s, Qt::CaseInsensitive), 5000);
    QVERIFY(banner->isVisible());
    QVERIFY(banner->text().contains(u"jobs.json"_s));
    // Its Dismiss link closes it.
    const qsizetype href = banner->text().indexOf(u"href=\""_s) + 6;
    Q_EMIT banner->linkActivated(
        banner->text().mid(href, banner->text().indexOf(u'"', href) - href));
    QVERIFY(!banner->isVisible());
}

// A collector with users (a lab's): no token is refused, the banner offers to enter one, and
// once taken the status bar says the project, the user and that they may only read.
void TestMainWindow::aRefusedTokenIsAskedForAndTheStatusBarSaysWhoAndWhere() {
    QTemporaryDir dir;
    const QString usersFile = dir.filePath(u"users.json"_s);
    sb::AccessList users;
    QVERIFY(users.addUser(u"alice"_s));
    QVERIFY(users.grant(u"alice"_s, u"vision"_s, sb::AccessList::Right::Read));
    const auto token = users.issueToken(u"alice"_s, {});
    QVERIFY(token);
    QVERIFY(sb::writeFileAtomically(usersFile, users.toJson()));
    sb::Collector::Options options;
    options.dataDir = dir.path() + u"/collector"_s;
    options.usersFile = usersFile;
    options.project = u"vision"_s;
    auto collector = sb::Collector::start(options);
    QVERIFY2(collector.ok(), qPrintable(collector.error()));

    sb::CollectorClient client((*collector)->url(), {});
    client.setProject(u"vision"_s);
    ShownWindow shown(&client, dir.path());
    sb::MainWindow &window = shown.window;
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *banner = window.findChild<QLabel *>(u"banner"_s);
    QTRY_VERIFY_WITH_TIMEOUT(banner->text().contains(u"refused the token"_s), 5000);
    QVERIFY2(banner->text().contains(u"Enter a token"_s), qPrintable(banner->text()));

    window.useCollectorToken(*token, false);
    auto *facts = window.findChild<QLabel *>(u"collectorFacts"_s);
    QVERIFY(facts);
    QTRY_VERIFY_WITH_TIMEOUT(facts->text().contains(u"alice"_s), 5000);
    QVERIFY2(facts->text().contains(u"project vision"_s), qPrintable(facts->text()));
    QVERIFY(facts->text().contains(u"read only"_s));
    QTRY_VERIFY_WITH_TIMEOUT(!banner->text().contains(u"refused the token"_s), 5000);
    const QString shots = QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots"_s;
    QDir().mkpath(shots);
    QVERIFY(window.grab().save(shots + u"/lab-read-only.png"_s));
    // Another project's reader only: said in the banner, as the user and the project.
    QVERIFY(users.grant(u"alice"_s, u"vision"_s, sb::AccessList::Right::None));
    QVERIFY(users.grant(u"alice"_s, u"nlp"_s, sb::AccessList::Right::Read));
    QVERIFY(sb::writeFileAtomically(usersFile, users.toJson()));
    window.useCollectorToken(*token, false);
    QTRY_VERIFY_WITH_TIMEOUT(banner->text().contains(u"alice may not read project vision"_s), 5000);
}

// "Open TensorBoard logdir…" in the curves view: the checked-in logdir's runs join the curves.
void TestMainWindow::opensATensorBoardLogdir() {
    QTemporaryDir dir;
    sb::Collector::Options options;
    options.dataDir = dir.path() + u"/collector"_s;
    auto embedded = sb::EmbeddedCollector::start(options);
    QVERIFY2(embedded.ok(), embedded.ok() ? "" : qPrintable(embedded.error()));
    sb::CollectorClient client((*embedded)->url(), (*embedded)->token());
    sb::BackendRegistry registry;
    sb::JobsModel jobs{&registry};
    sb::NodeMonitor monitor;
    sb::LogdirFeeds feeds(&client, &monitor, dir.path() + u"/logdirs.json"_s);
    sb::MainWindow window(&client, &jobs, &monitor, dir.path() + u"/signalbox.yaml"_s);
    window.setLogdirFeeds(&feeds);
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    auto *open = window.curves()->findChild<QPushButton *>(u"openLogdir"_s);
    QVERIFY(open && open->isVisible());
    open->click();
    sb::LogdirsDialog *dialog = window.logdirsDialog();
    QVERIFY(dialog && dialog->isVisible());
    auto *source = dialog->findChild<QLineEdit *>();
    auto *message = dialog->findChild<QLabel *>(u"message"_s);
    QVERIFY(source && message);
    // A refusal says why in the dialog and keeps what was typed.
    source->setText(u"/no/such/logdir"_s);
    QTest::keyClick(source, Qt::Key_Return);
    QVERIFY(message->isVisible());
    QVERIFY2(message->text().contains(u"no such directory"_s), qPrintable(message->text()));
    QCOMPARE(source->text(), u"/no/such/logdir"_s);

    const QString logdir = QStringLiteral(SIGNALBOX_TEST_DATA "/tfevents/logdir");
    source->setText(logdir);
    QTest::keyClick(source, Qt::Key_Return);
    QVERIFY(!message->isVisible());
    auto *table = dialog->findChild<QTableWidget *>();
    QCOMPARE(table->rowCount(), 1);
    QCOMPARE(table->item(0, 0)->text(), logdir);
    QTRY_VERIFY_WITH_TIMEOUT(table->item(0, 5)->text().startsWith(u"read at"_s), 10000);

    sb::RunsModel *runs = window.curves()->runsModel();
    auto named = [&] {
        QStringList names;
        for (int row = 0; row < runs->rowCount(); ++row)
            names << runs->runAt(row);
        names.sort();
        return names;
    };
    QTRY_COMPARE_WITH_TIMEOUT(
        named(),
        (QStringList{u"logdir"_s, u"logdir/nested/a/b"_s, u"logdir/simple"_s, u"logdir/tensors"_s}),
        10000);
    const QString shots = QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots"_s;
    QDir().mkpath(shots);
    QTest::qWait(500);
    QVERIFY(window.grab().save(shots + u"/tensorboard-logdir.png"_s));
    QVERIFY(dialog->grab().save(shots + u"/tensorboard-logdir-dialog.png"_s));
}

// Closing the window with a run going on this computer asks: cancel keeps the window, keep
// lets the run go on without Signalbox, stop ends it.
void TestMainWindow::closingWithRunsGoingAsks() {
    Offline offline;
    const auto id = offline.local.submit({.name = u"long"_s, .command = {u"sleep"_s, u"300"_s}});
    QVERIFY(id);
    auto group = [&] {
        for (const sb::Job &job : offline.local.jobs()) {
            if (job.id == *id)
                return job.state == sb::JobState::Running ? job.processGroup : qint64(0);
        }
        return qint64(0);
    };
    QTRY_VERIFY(group() > 0);
    // Answers the question when it comes, with the button named so.
    DialogAnswers dialogs;
    auto answer = [&dialogs](const QString &button) {
        dialogs.expect(u"the quit question"_s, [button](QDialog *dialog) {
            auto *box = qobject_cast<QMessageBox *>(dialog);
            QVERIFY(box && box->objectName() == u"quitQuestion"_s);
            box->grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/quit.png"_s);
            QCOMPARE(box->text(), u"A run on this computer is still going."_s);
            for (QAbstractButton *b : box->buttons()) {
                if (b->text().remove(u'&') == button)
                    return b->click();
            }
            QFAIL(qPrintable(u"no button "_s + button));
        });
    };
    for (const QString &choice : {u"Cancel"_s, u"Keep them running"_s}) {
        sb::MainWindow window(&offline.client, &offline.jobs, &offline.monitor,
                              offline.dir.path() + u"/signalbox.yaml"_s);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        answer(choice);
        const bool closed = window.close();
        QVERIFY(dialogs.answered());
        QCOMPARE(closed, choice != u"Cancel"_s);
        QCOMPARE(window.isVisible(), !closed);
        QCOMPARE(::kill(static_cast<pid_t>(group()), 0), 0); // it goes on either way
    }
    sb::MainWindow window(&offline.client, &offline.jobs, &offline.monitor,
                          offline.dir.path() + u"/signalbox.yaml"_s);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // The empty log pane says why it is empty.
    auto *log = window.jobs()->findChild<QPlainTextEdit *>();
    QCOMPARE(log->placeholderText(), u"Select a run to follow its output"_s);
    window.jobs()->selectRun(*id);
    QCOMPARE(log->placeholderText(), u"No output yet"_s);
    answer(u"Stop them and quit"_s);
    QVERIFY(window.close());
    QVERIFY(dialogs.answered());
    QTRY_VERIFY_WITH_TIMEOUT(offline.local.jobs().front().state == sb::JobState::Stopped, 10000);
    QVERIFY(window.close()); // nothing going: no question
    QTRY_COMPARE(log->placeholderText(), u"It printed nothing (stopped)"_s);
}

void TestMainWindow::menusShortcutsAndWhatIsRemembered() {
    Offline offline;
    const QString config = offline.dir.path() + u"/signalbox.yaml"_s;
    QSettings().setValue(u"notify/waitMinutes"_s, 45);
    QSettings().setValue(u"notify/2"_s, false); // "a run was stopped": off
    {
        sb::MainWindow window(&offline.client, &offline.jobs, &offline.monitor, config);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // The notifications as chosen before: times and kinds.
        QCOMPARE(window.notifier()->options().waitMinutes, 45);
        QCOMPARE(window.notifier()->options().stallMinutes, 30);
        QVERIFY(!window.notifier()->isEnabled(sb::Notifier::Kind::Stopped));
        QVERIFY(window.notifier()->isEnabled(sb::Notifier::Kind::Failed));
        QSettings().remove(u"notify"_s);
        // Every action has its place in a menu, with the usual shortcuts.
        QStringList menus;
        QHash<QString, QKeySequence> shortcuts;
        for (QAction *menu : window.menuBar()->actions()) {
            menus << menu->text().remove(u'&');
            for (QAction *action : menu->menu()->actions())
                shortcuts.insert(action->text().remove(u'&'), action->shortcut());
        }
        QCOMPARE(menus, (QStringList{u"File"_s, u"View"_s, u"Help"_s}));
        QCOMPARE(shortcuts.value(u"New run…"_s), QKeySequence(QKeySequence::New));
        QCOMPARE(shortcuts.value(u"Quit"_s), QKeySequence(QKeySequence::Quit));
        QCOMPARE(
            window.menuBar()->actions().first()->menu()->actions().last()->shortcuts().value(1),
            QKeySequence(QKeySequence::Close)); // Ctrl+W: the one window closes, asking
        QCOMPARE(shortcuts.value(u"Find"_s), QKeySequence(QKeySequence::Find));
        QCOMPARE(shortcuts.value(u"How to log metrics"_s),
                 QKeySequence(QKeySequence::HelpContents));
        QVERIFY(shortcuts.contains(u"About Signalbox"_s));
        auto *tabs = window.findChild<QTabWidget *>();
        QTest::keyClick(&window, Qt::Key_3, Qt::ControlModifier);
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(window.nodes()));
        QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier); // the curves' filter, focused
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(window.curves()));
        QTRY_COMPARE(QApplication::focusWidget(),
                     static_cast<QWidget *>(window.curves()->findChild<QLineEdit *>(u"filter"_s)));
        // F1 explains how to log metrics; the About box names the versions.
        DialogAnswers dialogs;
        dialogs.expect(u"how to log metrics"_s, [](QDialog *dialog) {
            auto *box = qobject_cast<QMessageBox *>(dialog);
            QVERIFY(box && box->objectName() == u"howToLog"_s);
            QVERIFY2(box->text().contains(u"@signalbox"_s), qPrintable(box->text()));
            box->close();
        });
        QTest::keyClick(&window, Qt::Key_F1);
        QVERIFY(dialogs.answered());
        dialogs.expect(u"the About box"_s, [](QDialog *dialog) {
            auto *box = qobject_cast<QMessageBox *>(dialog);
            QVERIFY(box && box->objectName() == u"about"_s);
            QVERIFY2(box->text().contains(u"libssh"_s) && box->text().contains(u"libcurl"_s) &&
                         box->text().contains(QString::fromLatin1(qVersion())),
                     qPrintable(box->text()));
            box->grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/about.png"_s);
            box->close();
        });
        for (QAction *menu : window.menuBar()->actions()) {
            for (QAction *action : menu->menu()->actions()) {
                if (action->text().remove(u'&') == u"About Signalbox"_s)
                    action->trigger();
            }
        }
        QVERIFY(dialogs.answered());
        // Set up as a researcher likes it, then closed.
        window.curves()->findChild<QSlider *>(u"smoothing"_s)->setValue(85);
        window.curves()->findChild<QComboBox *>(u"xAxis"_s)->setCurrentIndex(2);
        window.curves()->findChild<QCheckBox *>(u"logY"_s)->setChecked(true);
        window.jobs()->findChild<QSplitter *>(u"jobsSplitter"_s)->setSizes({100, 500});
        window.resize(1000, 700);
        window.activateWindow(); // the boxes took it
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(window.jobs()));
    }
    // The next start is as it was left.
    sb::MainWindow again(&offline.client, &offline.jobs, &offline.monitor, config);
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QCOMPARE(again.size(), QSize(1000, 700));
    QCOMPARE(again.findChild<QTabWidget *>()->currentWidget(),
             static_cast<QWidget *>(again.jobs()));
    QCOMPARE(again.curves()->findChild<QSlider *>(u"smoothing"_s)->value(), 85);
    QCOMPARE(again.curves()->findChild<QComboBox *>(u"xAxis"_s)->currentIndex(), 2);
    QVERIFY(again.curves()->findChild<QCheckBox *>(u"logY"_s)->isChecked());
    const QList<int> sizes = again.jobs()->findChild<QSplitter *>(u"jobsSplitter"_s)->sizes();
    QVERIFY2(sizes.size() == 2 && sizes[0] < sizes[1], qPrintable(QString::number(sizes.value(0))));
    // A settings file from elsewhere with nonsense in it changes nothing and breaks nothing.
    {
        QSettings settings;
        settings.setValue(u"remembered/xAxis"_s, 99);
        settings.setValue(u"remembered/jobsSplitter"_s, QByteArray("garbage"));
        settings.setValue(u"window/geometry"_s, QByteArray("\x00\x01"));
    }
    sb::MainWindow odd(&offline.client, &offline.jobs, &offline.monitor, config);
    QCOMPARE(odd.curves()->findChild<QComboBox *>(u"xAxis"_s)->currentIndex(), 0);
}

void TestMainWindow::jobsFilterAndDoubleClickToCurves() {
    Offline offline;
    const auto alpha = offline.local.submit({.name = u"alpha"_s, .command = {u"true"_s}});
    const auto beta = offline.local.submit({.name = u"beta"_s, .command = {u"false"_s}});
    QVERIFY(alpha && beta);
    sb::MainWindow window(&offline.client, &offline.jobs, &offline.monitor,
                          offline.dir.path() + u"/signalbox.yaml"_s);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.showView(u"jobs"_s);
    auto *table = window.jobs()->findChild<QTreeView *>();
    QTRY_COMPARE(table->model()->rowCount(), 2);
    // Ctrl+F finds the offline.jobs' own filter; it narrows the table to what matches anywhere in a
    // row.
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
    auto *filter = window.jobs()->findChild<QLineEdit *>(u"filter"_s);
    QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget *>(filter));
    QTest::keyClicks(filter, u"ALPHA"_s);
    QCOMPARE(table->model()->rowCount(), 1);
    QCOMPARE(table->model()->index(0, sb::JobsModel::Name).data().toString(), *alpha);
    QTRY_VERIFY(table->model()->index(0, sb::JobsModel::State).data().toString() == u"succeeded"_s);
    filter->setText(u"failed"_s); // a state's words match too
    QCOMPARE(table->model()->rowCount(), 1);
    QCOMPARE(table->model()->index(0, sb::JobsModel::Name).data().toString(), *beta);
    // Selecting through the filter picks the right job (the Stop button's target).
    table->setCurrentIndex(table->model()->index(0, 0));
    QSignalSpy curves(window.jobs(), &sb::JobsView::curvesRequested);
    const QRect cell = table->visualRect(table->model()->index(0, sb::JobsModel::Name));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center()); // as a hand does
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(curves.size(), 1);
    QCOMPARE(curves.first().first().toStringList(), QStringList{*beta});
    QCOMPARE(window.findChild<QTabWidget *>()->currentWidget(),
             static_cast<QWidget *>(window.curves()));
    window.grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) +
                       u"/screenshots/offline.jobs-filter.png"_s);

    // Delete in the table removes the ended run from the history; its output goes with it.
    window.showView(u"jobs"_s);
    filter->clear();
    QTRY_COMPARE(table->model()->rowCount(), 2);
    const QString log = sb::findJob(offline.local.jobs(), *beta)->logPath;
    QVERIFY(QFileInfo::exists(log));
    for (int row = 0; row < 2; ++row) {
        if (table->model()->index(row, 0).data().toString() == *beta)
            table->setCurrentIndex(table->model()->index(row, 0));
    }
    table->setFocus();
    QTest::keyClick(table, Qt::Key_Delete);
    QTRY_COMPARE(table->model()->rowCount(), 1);
    QCOMPARE(table->model()->index(0, 0).data().toString(), *alpha);
    QVERIFY(!sb::findJob(offline.local.jobs(), *beta));
    QTRY_VERIFY(!QFileInfo::exists(log)); // removed once the history without it is written
}

void TestMainWindow::darkAndLightThemes() {
    QTemporaryDir dir;
    sb::CollectorClient client(QUrl(u"http://127.0.0.1:9"_s), {});
    sb::BackendRegistry registry;
    sb::JobsModel jobs{&registry};
    sb::NodeMonitor monitor;
    sb::MainWindow window(&client, &jobs, &monitor, dir.path() + u"/signalbox.yaml"_s);
    sb::CurveChart chart(u"loss"_s);
    auto choose = [&window](const QString &name) {
        for (QAction *menu : window.menuBar()->actions()) {
            for (QAction *item : menu->menu()->actions()) {
                if (!item->menu() || item->text().remove(u'&') != u"Theme"_s)
                    continue;
                for (QAction *theme : item->menu()->actions()) {
                    if (theme->text().remove(u'&') == name)
                        theme->trigger();
                }
            }
        }
    };
    choose(u"Dark"_s);
    QVERIFY(sb::isDark(QApplication::palette()));
    // The charts follow: their background, labels and grid come from the palette.
    QTRY_COMPARE(chart.chart()->backgroundBrush().color(),
                 QApplication::palette().color(QPalette::Base));
    QVERIFY(chart.chart()->axes().first()->labelsBrush().color().lightnessF() > 0.5);
    QCOMPARE(QSettings().value(u"window/theme"_s).toInt(), static_cast<int>(sb::Theme::Dark));
    choose(u"Light"_s);
    QVERIFY(!sb::isDark(QApplication::palette()));
    QTRY_VERIFY(chart.chart()->axes().first()->labelsBrush().color().lightnessF() < 0.5);
    // Errors stay readable on both.
    QVERIFY(sb::problemColor(QApplication::palette()).lightnessF() < 0.5);
    choose(u"As the system"_s);
    QSettings().remove(u"window/theme"_s);
}

void TestMainWindow::aNewRunStartsFromTheLastOnesChoices() {
    QTemporaryDir dir;
    sb::LocalBackend local({dir.path(), 2000, {}});
    sb::BackendRegistry registry;
    sb::JobsModel jobs{&registry};
    registry.add(&local);
    sb::JobsView view(&jobs);
    view.setNodeNames([] { return QStringList{u"gpu-box"_s}; });
    QSettings().remove(u"newRun/last"_s);
    // Fills in and runs, through the dialog as a person would; then opens it again.
    QString seen;
    DialogAnswers dialogs;
    auto runWith = [&](const QString &command) {
        dialogs.expect(u"the New-run dialog"_s, [&seen, command](QDialog *dialog) {
            QVERIFY(dialog);
            auto *commandField = dialog->findChild<QLineEdit *>(u"command"_s);
            seen = commandField->text() + u'|' + dialog->findChild<QLineEdit *>(u"name"_s)->text();
            if (command.isEmpty())
                return dialog->reject();
            commandField->setText(command);
            dialog->findChild<QLineEdit *>(u"name"_s)->setText(u"first"_s);
            dialog->accept();
        });
        view.newRun();
        QVERIFY(dialogs.answered());
    };
    runWith(u"sh -c 'echo one'"_s);
    QCOMPARE(seen, u"|"_s); // nothing yet
    QTRY_COMPARE(local.jobs().size(), 1);
    runWith({});
    QCOMPARE(seen, u"sh -c 'echo one'|"_s); // the same command, a name of its own
    // "Any node" asks for at least one GPU.
    dialogs.expect(u"the New-run dialog"_s, [](QDialog *dialog) {
        QVERIFY(dialog);
        auto *where = dialog->findChild<QComboBox *>(u"where"_s);
        where->setCurrentIndex(where->findData(sb::JobSpec::kAnyNode.toString()));
        QCOMPARE(dialog->findChild<QSpinBox *>(u"gpus"_s)->value(), 1);
        dialog->reject();
    });
    view.newRun();
    QVERIFY(dialogs.answered());
    QSettings().remove(u"newRun/last"_s);
}

void TestMainWindow::emptyViewsSayTheNextStep() {
    Offline offline;
    sb::MainWindow window(&offline.client, &offline.jobs, &offline.monitor,
                          offline.dir.path() + u"/signalbox.yaml"_s);
    window.resize(1200, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // Jobs: how to start a run, and where clusters would come from.
    auto *jobsHint = window.jobs()->findChild<QLabel *>(u"emptyState"_s);
    QVERIFY(jobsHint && !jobsHint->isHidden());
    QVERIFY2(jobsHint->text().contains(u"No runs yet"_s), qPrintable(jobsHint->text()));
    // A link starts the New-run dialog, as the button does.
    DialogAnswers dialogs;
    dialogs.expect(u"the New-run dialog"_s, [](QWidget *dialog) {
        QVERIFY(dialog && dialog->inherits("sb::NewRunDialog"));
        dialog->close();
    });
    Q_EMIT jobsHint->linkActivated(u"new"_s);
    QVERIFY(dialogs.answered());
    const auto id = offline.local.submit({.name = u"one"_s, .command = {u"true"_s}});
    QVERIFY(id);
    QTRY_VERIFY(jobsHint->isHidden());
    window.jobs()->findChild<QLineEdit *>(u"filter"_s)->setText(u"<nothing>"_s);
    QTRY_VERIFY(!jobsHint->isHidden());
    QCOMPARE(jobsHint->text(), u"No run matches “\u2068&lt;nothing&gt;\u2069”."_s);
    // Nodes: add or import, and where nodes are kept.
    window.showView(u"nodes"_s);
    auto *nodesHint = window.nodes()->findChild<QLabel *>(u"emptyState"_s);
    QVERIFY(nodesHint && nodesHint->isVisible());
    QVERIFY(nodesHint->text().contains(u"href=\"import\""_s));
    QVERIFY(nodesHint->text().contains(offline.dir.path() + u"/signalbox.yaml"_s));
    // Sweeps: how to open one, with the examples' folder.
    window.showView(u"sweeps"_s);
    auto *sweepsHint = window.sweeps()->findChild<QLabel *>(u"emptyState"_s);
    QVERIFY(sweepsHint && sweepsHint->isVisible());
    QVERIFY(sweepsHint->text().contains(u"examples/sweeps"_s));
    window.grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/empty-sweeps.png"_s);
    // Help ▸ Open log folder: said plainly when this session writes no log.
    sb::LogFile::uninstall();
    QAction *logFolder = nullptr;
    for (QAction *action : window.menuBar()->findChildren<QAction *>()) {
        if (action->text().remove(u'&') == u"Open log folder"_s)
            logFolder = action;
    }
    QVERIFY(logFolder);
    logFolder->trigger();
    auto *banner = window.findChild<QLabel *>(u"banner"_s);
    QVERIFY(banner->text().contains(u"This session writes no log file."_s));
}

void TestMainWindow::sweepTrialsFoldUnderOneRow() {
    Offline offline;
    QStringList trials;
    for (int i = 0; i < 3; ++i) {
        sb::JobSpec spec{.name = u"lr-grid-abc123-%1"_s.arg(i), .command = {u"true"_s}};
        spec.environment.insert(u"SIGNALBOX_SWEEP"_s, u"lr-grid-abc123"_s);
        const auto id = offline.local.submit(spec);
        QVERIFY(id);
        trials << *id;
    }
    const auto own = offline.local.submit({.name = u"mine"_s, .command = {u"true"_s}});
    QVERIFY(own);
    sb::MainWindow window(&offline.client, &offline.jobs, &offline.monitor,
                          offline.dir.path() + u"/signalbox.yaml"_s);
    window.resize(1200, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.showView(u"jobs"_s);
    auto *table = window.jobs()->findChild<QTreeView *>();
    QAbstractItemModel *rows = table->model();
    // The user's own run on top, the sweep's three under one folded row.
    QCOMPARE(rows->rowCount(), 2);
    QCOMPARE(rows->index(0, 0).data(sb::JobsModel::JobIdRole).toString(), *own);
    const QModelIndex sweep = rows->index(1, 0);
    QCOMPARE(rows->rowCount(sweep), 3);
    QVERIFY(!table->isExpanded(sweep));
    QTRY_COMPARE(sweep.siblingAtColumn(sb::JobsModel::State).data().toString(), u"3 succeeded"_s);
    // A double-click on the sweep opens every trial's curves.
    QSignalSpy curves(window.jobs(), &sb::JobsView::curvesRequested);
    const QRect cell = table->visualRect(sweep);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center()); // as a hand does
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(curves.size(), 1);
    QStringList newestFirst = trials;
    std::reverse(newestFirst.begin(), newestFirst.end());
    QCOMPARE(curves.first().first().toStringList(), newestFirst);
    // Opening a trial (from a notification) unfolds its sweep and selects it.
    window.showView(u"jobs"_s);
    window.jobs()->selectRun(trials[1]);
    QVERIFY(table->isExpanded(rows->index(1, 0)));
    QCOMPARE(table->currentIndex().data(sb::JobsModel::JobIdRole).toString(), trials[1]);
    window.grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/jobs-sweep.png"_s);
    // The filter finds the sweep by name and keeps all of its trials; a trial keeps its sweep.
    auto *filter = window.jobs()->findChild<QLineEdit *>(u"filter"_s);
    filter->setText(u"lr-grid"_s);
    QCOMPARE(rows->rowCount(), 1);
    QCOMPARE(rows->rowCount(rows->index(0, 0)), 3);
    filter->setText(trials[2]);
    QCOMPARE(rows->rowCount(), 1);
    QCOMPARE(rows->rowCount(rows->index(0, 0)), 1);
    filter->clear();
    // From the curves: a run's job and output; a run logged from elsewhere is said so.
    window.showView(u"curves"_s);
    Q_EMIT window.curves()->jobRequested(trials[0]);
    QCOMPARE(window.findChild<QTabWidget *>()->currentWidget(),
             static_cast<QWidget *>(window.jobs()));
    QCOMPARE(table->currentIndex().data(sb::JobsModel::JobIdRole).toString(), trials[0]);
    window.showView(u"curves"_s);
    Q_EMIT window.curves()->jobRequested(u"from-a-notebook"_s);
    QCOMPARE(window.findChild<QTabWidget *>()->currentWidget(),
             static_cast<QWidget *>(window.curves()));
    QVERIFY(window.statusBar()->currentMessage().contains(u"from-a-notebook"_s));
}

void TestMainWindow::readsInSimplifiedChinese() {
    QVERIFY(sb::installTranslations(QLocale(u"zh_CN"_s)));
    Offline offline;
    const auto id = offline.local.submit({.name = u"train"_s, .command = {u"true"_s}});
    QVERIFY(id);
    {
        sb::MainWindow window(&offline.client, &offline.jobs, &offline.monitor,
                              offline.dir.path() + u"/signalbox.yaml"_s);
        window.resize(1200, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *tabs = window.findChild<QTabWidget *>();
        QCOMPARE(tabs->tabText(0), u"曲线"_s);
        QCOMPARE(window.menuBar()->actions().first()->text(), u"文件(&F)"_s);
        window.showView(u"jobs"_s); // by its stable name, whatever the language
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(window.jobs()));
        QCOMPARE(offline.jobs.headerData(sb::JobsModel::State, Qt::Horizontal).toString(),
                 u"状态"_s);
        QTRY_COMPARE(offline.jobs.index(0, sb::JobsModel::State).data().toString(), u"已成功"_s);
        window.grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/zh_CN-jobs.png"_s);
    }
    QVERIFY(!sb::installTranslations(QLocale(QLocale::English))); // English is the source
    QCOMPARE(offline.jobs.index(0, sb::JobsModel::State).data().toString(), u"succeeded"_s);
}

void TestMainWindow::settingsApplyAtOnceAndAreRemembered() {
    Offline offline;
    sb::MainWindow window(&offline.client, &offline.jobs, &offline.monitor,
                          offline.dir.path() + u"/signalbox.yaml"_s);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QAction *settings = nullptr;
    for (QAction *action : window.menuBar()->actions().first()->menu()->actions()) {
        if (action->text().remove(u'&') == u"Settings…"_s)
            settings = action;
    }
    QVERIFY(settings);
    QCOMPARE(settings->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Comma));
    bool checked = false;
    DialogAnswers dialogs;
    dialogs.expect(u"the settings"_s, [&](QDialog *dialog) {
        QVERIFY(dialog && dialog->objectName() == u"settings"_s);
        // A kind of notification off, a time changed: the notifier has them at once.
        for (auto *box : dialog->findChildren<QCheckBox *>()) {
            if (box->text() == sb::Notifier::describe(sb::Notifier::Kind::Succeeded))
                box->setChecked(false);
        }
        dialog->findChild<QSpinBox *>(u"stallMinutes"_s)->setValue(90);
        QVERIFY(!window.notifier()->isEnabled(sb::Notifier::Kind::Succeeded));
        QCOMPARE(window.notifier()->options().stallMinutes, 90);
        // The theme as View ▸ Theme has it, and the menu agrees after a change here.
        auto *theme = dialog->findChild<QComboBox *>(u"theme"_s);
        theme->setCurrentIndex(2);
        QVERIFY(sb::isDark(QApplication::palette()));
        // The language: remembered for the next start.
        auto *language = dialog->findChild<QComboBox *>(u"language"_s);
        language->setCurrentIndex(language->findData(u"zh_CN"_s));
        QCOMPARE(sb::SettingsDialog::language(), u"zh_CN"_s);
        dialog->grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/settings.png"_s);
        theme->setCurrentIndex(1);
        language->setCurrentIndex(0);
        checked = true;
        dialog->close();
    });
    settings->trigger();
    QVERIFY(dialogs.answered());
    QVERIFY(checked);
    QVERIFY(!sb::isDark(QApplication::palette()));
    QCOMPARE(sb::SettingsDialog::language(), QString());
    // A new window reads them back.
    sb::MainWindow again(&offline.client, &offline.jobs, &offline.monitor,
                         offline.dir.path() + u"/signalbox.yaml"_s);
    QVERIFY(!again.notifier()->isEnabled(sb::Notifier::Kind::Succeeded));
    QCOMPARE(again.notifier()->options().stallMinutes, 90);
    QSettings().remove(u"notify"_s);
    QSettings().remove(u"window/theme"_s);
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
