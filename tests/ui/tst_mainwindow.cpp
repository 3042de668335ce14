// The whole window, offscreen, on a real embedded collector and a real local run; every main
// view is saved as a PNG under <build>/screenshots/ to be looked at.
#include "../support/WindowFixture.h"
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
#include "collector/EmbeddedCollector.h"
#include "jobs/JobsModel.h"
#include "jobs/LocalBackend.h"
#include "jobs/MetricLineForwarder.h"
#include "metrics/CollectorClient.h"
#include "metrics/RunColors.h"
#include "metrics/RunsModel.h"
#include "monitor/LocalSampler.h"
#include "monitor/NodeMonitor.h"
#include "tensorboard/LogdirFeeds.h"
#include "util/Log.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QGridLayout>
#include <QImage>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
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
#include <QTableView>
#include <QTableWidget>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

#include <cmath>
#include <csignal>

using namespace Qt::StringLiterals;

// A window's parts with no collector to reach (a refused port) and runs on this computer.
struct Offline {
    QTemporaryDir dir;
    sb::CollectorClient client{QUrl(u"http://127.0.0.1:9"_s), {}};
    sb::LocalBackend local{{dir.path(), 2000, {}}};
    sb::JobsModel jobs;
    sb::NodeMonitor monitor;
    Offline() { jobs.addBackend(&local); }
};

class TestMainWindow final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void rendersEveryView();
    void refusedCollectorShowsBannerThenRecovers();
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
    void theFilterDrivesTheChartsAndColoursStay();
    void groupedRunsDrawAsOneCurveWithABand();
    void tagsNotesAndSummaryColumns();
    void anotherMetricAsTheXAxis();

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
    sb::JobsModel jobs;
    jobs.addBackend(&local);
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
    sb::LocalBackend local({dir.path(), 2000, {}});
    sb::JobsModel jobs;
    jobs.addBackend(&local);
    sb::NodeMonitor monitor;
    sb::MainWindow window(&client, &jobs, &monitor, dir.path() + u"/signalbox.yaml"_s);
    window.show();
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

// "Open TensorBoard logdir…" in the curves view: the checked-in logdir's runs join the curves.
void TestMainWindow::opensATensorBoardLogdir() {
    QTemporaryDir dir;
    sb::Collector::Options options;
    options.dataDir = dir.path() + u"/collector"_s;
    auto embedded = sb::EmbeddedCollector::start(options);
    QVERIFY2(embedded.ok(), embedded.ok() ? "" : qPrintable(embedded.error()));
    sb::CollectorClient client((*embedded)->url(), (*embedded)->token());
    sb::JobsModel jobs;
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
    auto answer = [](const QString &button) {
        QTimer::singleShot(200, [button] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
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
        QTimer::singleShot(200, [] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            QVERIFY(box && box->objectName() == u"howToLog"_s);
            QVERIFY2(box->text().contains(u"@signalbox"_s), qPrintable(box->text()));
            box->close();
        });
        QTest::keyClick(&window, Qt::Key_F1);
        QTimer::singleShot(200, [] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
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
    QVERIFY(!QFileInfo::exists(log));
}

void TestMainWindow::darkAndLightThemes() {
    QTemporaryDir dir;
    sb::CollectorClient client(QUrl(u"http://127.0.0.1:9"_s), {});
    sb::JobsModel jobs;
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
    sb::JobsModel jobs;
    jobs.addBackend(&local);
    sb::JobsView view(&jobs);
    view.setNodeNames([] { return QStringList{u"gpu-box"_s}; });
    QSettings().remove(u"newRun/last"_s);
    // Fills in and runs, through the dialog as a person would; then opens it again.
    QString seen;
    auto runWith = [&](const QString &command) {
        QTimer::singleShot(100, [&seen, command] {
            auto *dialog = qobject_cast<QDialog *>(QApplication::activeModalWidget());
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
    };
    runWith(u"sh -c 'echo one'"_s);
    QCOMPARE(seen, u"|"_s); // nothing yet
    QTRY_COMPARE(local.jobs().size(), 1);
    runWith({});
    QCOMPARE(seen, u"sh -c 'echo one'|"_s); // the same command, a name of its own
    // "Any node" asks for at least one GPU.
    QTimer::singleShot(100, [] {
        auto *dialog = qobject_cast<QDialog *>(QApplication::activeModalWidget());
        QVERIFY(dialog);
        auto *where = dialog->findChild<QComboBox *>(u"where"_s);
        where->setCurrentIndex(where->findData(sb::JobSpec::kAnyNode.toString()));
        QCOMPARE(dialog->findChild<QSpinBox *>(u"gpus"_s)->value(), 1);
        dialog->reject();
    });
    view.newRun();
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
    QTimer::singleShot(200, [] {
        QWidget *dialog = QApplication::activeModalWidget();
        QVERIFY(dialog && dialog->inherits("sb::NewRunDialog"));
        dialog->close();
    });
    Q_EMIT jobsHint->linkActivated(u"new"_s);
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
    QTimer::singleShot(200, [&] {
        auto *dialog = qobject_cast<QDialog *>(QApplication::activeModalWidget());
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

void TestMainWindow::theFilterDrivesTheChartsAndColoursStay() {
    QSettings().remove(u"remembered"_s); // steps on the x axis, whatever an earlier test left
    QTemporaryDir dir;
    QVERIFY(sb::RunColors::shared().load(dir.filePath(u"run-colors.json"_s)));
    sb::Collector::Options options;
    options.dataDir = dir.path() + u"/collector"_s;
    auto embedded = sb::EmbeddedCollector::start(options);
    QVERIFY2(embedded.ok(), embedded.ok() ? "" : qPrintable(embedded.error()));
    sb::CollectorClient client((*embedded)->url(), (*embedded)->token());
    // alpha logs loss and accuracy, beta loss, gamma bleu.
    const QList<std::pair<QString, QStringList>> runs{{u"alpha"_s, {u"loss"_s, u"accuracy"_s}},
                                                      {u"beta"_s, {u"loss"_s}},
                                                      {u"gamma"_s, {u"bleu"_s}}};
    for (const auto &[run, metrics] : runs) {
        QJsonObject series;
        for (const QString &metric : metrics)
            series.insert(metric, QJsonObject{{u"step"_s, QJsonArray{0, 1, 2}},
                                              {u"value"_s, QJsonArray{1.0, 0.5, 0.25}}});
        bool done = false;
        client.push(QJsonDocument(QJsonObject{{u"run"_s, run}, {u"series"_s, series}}).toJson(),
                    this, [&done](const sb::Result<qint64> &reply) { done = reply.ok(); });
        QTRY_VERIFY(done);
    }
    sb::JobsModel jobs;
    sb::NodeMonitor monitor;
    sb::MainWindow window(&client, &jobs, &monitor, dir.path() + u"/signalbox.yaml"_s);
    window.resize(1400, 860);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.showView(u"curves"_s); // whichever tab an earlier window was left on
    sb::CurvesView *curves = window.curves();
    auto charted = [curves] {
        QStringList metrics;
        for (const sb::CurveChart *chart : curves->charts())
            metrics << chart->metricName();
        metrics.sort();
        return metrics;
    };
    auto drawnOn = [curves](const QString &metric) {
        QStringList drawn;
        for (const sb::CurveChart *chart : curves->charts()) {
            for (const sb::Curve &curve : chart->curves()) {
                if (chart->metricName() == metric)
                    drawn << curve.run;
            }
        }
        drawn.sort();
        return drawn;
    };
    QTRY_COMPARE(charted(), (QStringList{u"accuracy"_s, u"bleu"_s, u"loss"_s}));
    QTRY_COMPARE(drawnOn(u"loss"_s), (QStringList{u"alpha"_s, u"beta"_s}));
    QTRY_COMPARE(drawnOn(u"bleu"_s), QStringList{u"gamma"_s});
    // Three runs, three of the palette's colours, kept in the data dir.
    QSet<QString> colours;
    for (const QString &run : {u"alpha"_s, u"beta"_s, u"gamma"_s}) {
        const auto colour = sb::RunColors::shared().existing(run);
        QVERIFY2(colour && sb::RunColors::palette().mid(0, 3).contains(*colour), qPrintable(run));
        colours << *colour;
    }
    QCOMPARE(colours.size(), 3);
    auto *legend = curves->findChild<QLabel *>(u"legend"_s);
    QTRY_VERIFY(legend->isVisible() && legend->text().contains(u"gamma"_s));
    window.grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/curves-legend.png"_s);

    // A regular expression: the charts draw what the table shows; a chart none of them logs goes.
    auto *filter = curves->findChild<QLineEdit *>(u"filter"_s);
    auto *regex = curves->findChild<QToolButton *>(u"regex"_s);
    regex->setChecked(true);
    filter->setText(u"^(alpha|beta)$"_s);
    QTRY_COMPARE(charted(), (QStringList{u"accuracy"_s, u"loss"_s}));
    QTRY_VERIFY(!legend->text().contains(u"gamma"_s));
    // One that does not parse matches nothing, and says why.
    filter->setText(u"(alpha"_s);
    QTRY_COMPARE(charted(), QStringList());
    QVERIFY(!filter->toolTip().isEmpty());
    QTRY_VERIFY(legend->isHidden());
    // Plain text again: "gamma" alone, its one chart.
    regex->setChecked(false);
    filter->setText(u"gamma"_s);
    QTRY_COMPARE(charted(), QStringList{u"bleu"_s});
    QVERIFY(filter->toolTip().isEmpty());
    // The legend can be put away.
    curves->findChild<QCheckBox *>(u"showLegend"_s)->setChecked(false);
    QVERIFY(legend->isHidden());
    filter->clear();
    QTRY_COMPARE(charted().size(), 3);
    // The user's colour: every chart repaints with it, and it is kept.
    QVERIFY(sb::RunColors::shared().setColor(u"beta"_s, u"#000000"_s));
    auto blackBeta = [curves] {
        const QList<sb::CurveChart *> charts = curves->charts(); // a copy: iterated once
        return std::any_of(charts.cbegin(), charts.cend(), [](const sb::CurveChart *chart) {
            return std::any_of(chart->curves().cbegin(), chart->curves().cend(),
                               [](const sb::Curve &c) {
                                   return c.run == u"beta"_s && c.color == QColor(Qt::black);
                               });
        });
    };
    QTRY_VERIFY(blackBeta());
    curves->findChild<QCheckBox *>(u"showLegend"_s)->setChecked(true);

    // Two runs selected: the keys of their configs that differ, side by side.
    for (const auto &[run, lr] : {std::pair{u"alpha"_s, 0.1}, std::pair{u"beta"_s, 0.2}}) {
        const QJsonObject info{{u"config"_s, QJsonObject{{u"lr"_s, lr}, {u"seed"_s, 7}}}};
        bool done = false;
        client.push(QJsonDocument(QJsonObject{{u"run"_s, run}, {u"info"_s, info}}).toJson(), this,
                    [&done](const sb::Result<qint64> &reply) { done = reply.ok(); });
        QTRY_VERIFY(done);
    }
    auto *runsTable = curves->findChild<QTableView *>();
    QTRY_VERIFY(!curves->runsModel()->info(u"beta"_s).config.isEmpty());
    runsTable->clearSelection();
    for (int row = 0; row < runsTable->model()->rowCount(); ++row) {
        const QModelIndex index = runsTable->model()->index(row, 0);
        if (index.data(sb::RunsModel::RunNameRole).toString() != u"gamma"_s)
            runsTable->selectionModel()->select(index, QItemSelectionModel::Select |
                                                           QItemSelectionModel::Rows);
    }
    runsTable->findChild<QAction *>(u"compareConfigs"_s)->trigger();
    auto *diff = window.findChild<QDialog *>(u"configDiff"_s);
    QVERIFY(diff);
    auto *table = diff->findChild<QTableWidget *>();
    QCOMPARE(table->rowCount(), 1); // lr; seed is the same
    QCOMPARE(table->verticalHeaderItem(0)->text(), u"lr"_s);
    QStringList values{table->item(0, 0)->text(), table->item(0, 1)->text()};
    values.sort();
    QCOMPARE(values, (QStringList{u"0.1"_s, u"0.2"_s}));
    diff->grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/config-diff.png"_s);
    diff->close();

    // Each chart's own options: log y on one chart alone; another pinned first, full width.
    auto chartOf = [curves](const QString &metric) {
        for (sb::CurveChart *chart : curves->charts()) {
            if (chart->metricName() == metric)
                return chart;
        }
        return static_cast<sb::CurveChart *>(nullptr);
    };
    auto choose = [](sb::CurveChart *chart, const QString &option) {
        Q_EMIT chart->optionsMenu()->aboutToShow();
        chart->optionsMenu()->findChild<QAction *>(option)->trigger();
    };
    choose(chartOf(u"loss"_s), u"logY"_s);
    QVERIFY(chartOf(u"loss"_s)->logY());
    QVERIFY(!chartOf(u"accuracy"_s)->logY());
    choose(chartOf(u"bleu"_s), u"pinned"_s);
    choose(chartOf(u"bleu"_s), u"fullWidth"_s);
    auto place = [](sb::CurveChart *chart) {
        auto *grid = qobject_cast<QGridLayout *>(chart->parentWidget()->layout());
        int row = -1, column = -1, rows = 0, columns = 0;
        grid->getItemPosition(grid->indexOf(chart), &row, &column, &rows, &columns);
        return QList<int>{row, column, columns};
    };
    QTRY_COMPARE(place(chartOf(u"bleu"_s)), (QList<int>{0, 0, 2})); // first, across both
    QCOMPARE(place(chartOf(u"accuracy"_s)), (QList<int>{1, 0, 1}));
    QCOMPARE(place(chartOf(u"loss"_s)), (QList<int>{1, 1, 1}));
    window.grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/curves-pinned.png"_s);
    // Remembered: a new window arranges them so again.
    {
        sb::MainWindow again(&client, &jobs, &monitor, dir.path() + u"/signalbox.yaml"_s);
        again.show();
        QTRY_COMPARE(again.curves()->charts().size(), 3);
        for (sb::CurveChart *chart : again.curves()->charts()) {
            QCOMPARE(chart->logY(), chart->metricName() == u"loss"_s);
            QCOMPARE(chart->pinned(), chart->metricName() == u"bleu"_s);
        }
    }
    // Metrics with prefixes come in sections that fold away (and are not fetched while folded).
    QJsonObject prefixed;
    for (const QString &metric : {u"train/loss"_s, u"train/acc"_s, u"val/loss"_s})
        prefixed.insert(
            metric, QJsonObject{{u"step"_s, QJsonArray{0, 1}}, {u"value"_s, QJsonArray{1.0, 0.5}}});
    bool pushed = false;
    client.push(
        QJsonDocument(QJsonObject{{u"run"_s, u"delta"_s}, {u"series"_s, prefixed}}).toJson(), this,
        [&pushed](const sb::Result<qint64> &reply) { pushed = reply.ok(); });
    QTRY_VERIFY(pushed);
    QTRY_COMPARE(curves->charts().size(), 6);
    auto *train = curves->findChild<QToolButton *>(u"section:train"_s);
    QVERIFY(train && curves->findChild<QToolButton *>(u"section:val"_s));
    QVERIFY(train->text().startsWith(u"train/"_s) && train->text().contains(u"(2)"_s));
    QVERIFY(!chartOf(u"train/acc"_s)->isHidden());
    train->click(); // folded
    QVERIFY(chartOf(u"train/acc"_s)->isHidden() && chartOf(u"train/loss"_s)->isHidden());
    QVERIFY(!chartOf(u"val/loss"_s)->isHidden());
    window.grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) +
                       u"/screenshots/curves-sections.png"_s);
    train->click();
    QVERIFY(!chartOf(u"train/acc"_s)->isHidden());
    QSettings().remove(u"charts"_s);

    // Export: every point of the shown runs and charted metrics, as JSON Lines or long CSV.
    filter->setText(u"alpha"_s);
    QTRY_COMPARE(charted(), (QStringList{u"accuracy"_s, u"loss"_s}));
    QSignalSpy exported(curves, &sb::CurvesView::exported);
    curves->exportPoints(dir.filePath(u"points.jsonl"_s));
    QTRY_COMPARE(exported.size(), 1);
    QFile jsonl(dir.filePath(u"points.jsonl"_s));
    QVERIFY(jsonl.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = jsonl.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 6); // 2 metrics x 3 points
    QSet<QString> metrics;
    for (const QByteArray &line : lines) {
        const QJsonObject point = QJsonDocument::fromJson(line).object();
        QCOMPARE(point.value(u"run"_s).toString(), u"alpha"_s);
        QVERIFY(point.value(u"value"_s).isDouble() && point.value(u"step"_s).isDouble());
        metrics.insert(point.value(u"metric"_s).toString());
    }
    QCOMPARE(metrics, (QSet<QString>{u"accuracy"_s, u"loss"_s}));
    curves->exportPoints(dir.filePath(u"points.csv"_s));
    QTRY_COMPARE(exported.size(), 2);
    QFile csv(dir.filePath(u"points.csv"_s));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QByteArray> rows = csv.readAll().trimmed().split('\n');
    QCOMPARE(rows.first(), QByteArray("run,metric,step,value,wall_time"));
    QCOMPARE(rows.size(), 7);
    QVERIFY(rows[1].startsWith("alpha,"));
    filter->clear();
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"

void TestMainWindow::groupedRunsDrawAsOneCurveWithABand() {
    WindowFixture fixture;
    // Two learning rates, three seeds each; and a run of no config.
    auto push = [&](const QString &run, const QJsonObject &config, int offset) {
        QJsonArray steps, values;
        for (int i = 0; i < 50; ++i) { // seeds 0.1 apart at every step
            steps.append(i * 10);
            values.append(config.value(u"lr"_s).toDouble() * 10 - i * 0.01 + offset * 0.1);
        }
        const QJsonObject body{
            {u"run"_s, run},
            {u"info"_s, QJsonObject{{u"config"_s, config}}},
            {u"series"_s,
             QJsonObject{{u"loss"_s, QJsonObject{{u"step"_s, steps}, {u"value"_s, values}}}}}};
        QVERIFY(fixture.push(body));
    };
    for (int seed = 0; seed < 3; ++seed) {
        for (const double lr : {0.1, 0.3})
            push(u"lr%1-seed%2"_s.arg(lr).arg(seed), QJsonObject{{u"lr"_s, lr}, {u"seed"_s, seed}},
                 seed);
    }
    push(u"baseline"_s, {}, 0);
    const auto shown = fixture.window();
    sb::MainWindow &window = *shown;
    sb::CurvesView *curves = window.curves();
    auto loss = [curves]() -> const sb::CurveChart * {
        for (const sb::CurveChart *chart : curves->charts()) {
            if (chart->metricName() == u"loss"_s)
                return chart;
        }
        return nullptr;
    };
    auto drawn = [&loss] {
        QStringList names;
        if (loss()) {
            for (const sb::Curve &curve : loss()->curves())
                names << curve.run + (curve.members.isEmpty()
                                          ? u""_s
                                          : u" ×%1"_s.arg(curve.members.size()));
        }
        names.sort();
        return names;
    };
    QTRY_COMPARE(drawn().size(), 7);

    // Grouped by the key "lr", ticked in the menu's dialog: two groups of three, and the baseline.
    auto *button = curves->findChild<QToolButton *>(u"group"_s);
    QTimer::singleShot(0, this, [curves] {
        auto *keys = curves->findChild<QListWidget *>(u"groupKeys"_s);
        QVERIFY(keys);
        QCOMPARE(keys->count(), 2); // lr, seed
        QVERIFY(keys->item(0)->text().contains(u"2 values"_s));
        keys->item(0)->setCheckState(Qt::Checked);
        keys->parentWidget()
            ->findChild<QDialogButtonBox *>()
            ->button(QDialogButtonBox::Ok)
            ->click();
    });
    button->menu()->findChild<QAction *>(u"groupBy1"_s)->trigger();
    const QStringList grouped{u"baseline"_s, u"lr=0.1 ×3"_s, u"lr=0.3 ×3"_s};
    QTRY_COMPARE(drawn(), grouped);
    QVERIFY(button->text().contains(u"lr"_s));
    const sb::Curve group = *std::find_if(loss()->curves().cbegin(), loss()->curves().cend(),
                                          [](const auto &c) { return c.run == u"lr=0.1"_s; });
    QVERIFY(!group.lower.isEmpty() && group.lower.size() == group.upper.size());
    QVERIFY(group.lower.last().y() < group.points.last().y() &&
            group.points.last().y() < group.upper.last().y());
    QCOMPARE(group.color.name(), sb::RunColors::shared().colorOf(group.members.first()));
    window.grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/curves-groups.png"_s);
    // The chart for a paper: SVG keeps lines as vectors and says which curve is which; PNG at
    // twice the asked size. Both laid out at the asked size, the chart on screen untouched.
    {
        QSignalSpy exported(curves, &sb::CurvesView::exported);
        auto *chart = const_cast<sb::CurveChart *>(loss());
        const QSize onScreen = chart->size();
        const QString svgPath = fixture.dir.filePath(u"loss.svg"_s);
        curves->exportChart(chart, svgPath, QSize(800, 500));
        QCOMPARE(exported.size(), 1);
        QFile svg(svgPath);
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray text = svg.readAll();
        QVERIFY(text.contains("<svg") && text.contains("viewBox=\"0 0 800 500\""));
        QVERIFY(text.contains("lr=0.3") && text.contains("baseline"));   // the legend
        QVERIFY(text.contains("<polyline") && !text.contains("<image")); // vector curves
        const QString pngPath =
            QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/curves-export.png"_s;
        curves->exportChart(chart, pngPath, QSize(800, 500));
        QCOMPARE(QImage(pngPath).size(), QSize(1600, 1000));
        QCOMPARE(chart->size(), onScreen);
        curves->exportChart(chart, fixture.dir.filePath(u"tiny.png"_s), QSize(10, 10));
        QCOMPARE(exported.size(), 2); // refused, and said so
    }

    // The band's kind and the centre: three seeds 0.1 apart are ± 0.1 (std), ± 0.1/√3 (stderr),
    // and 0.2 wide from the smallest to the largest.
    const qsizetype middle = group.points.size() / 2;
    QVERIFY(std::abs(group.upper[middle].y() - group.lower[middle].y() - 0.2) < 1e-9);
    auto middleWidth = [&loss] {
        for (const sb::Curve &curve : loss()->curves()) {
            const qsizetype at = curve.lower.size() / 2;
            if (curve.run == u"lr=0.1"_s && !curve.lower.isEmpty())
                return curve.upper[at].y() - curve.lower[at].y();
        }
        return 0.0;
    };
    button->menu()->findChild<QAction *>(u"band:stderr"_s)->trigger();
    QTRY_VERIFY(std::abs(middleWidth() - 0.2 / std::sqrt(3.0)) < 1e-9);
    button->menu()->findChild<QAction *>(u"band:minmax"_s)->trigger();
    button->menu()->findChild<QAction *>(u"center:median"_s)->trigger();
    QTRY_VERIFY(std::abs(middleWidth() - 0.2) < 1e-9);
    QCOMPARE(curves->grouping().center, sb::GroupCenter::Median);
    button->menu()->findChild<QAction *>(u"band:none"_s)->trigger();
    QTRY_COMPARE(middleWidth(), 0.0);

    // The legend's link unfolds a group into its runs, and folds it back.
    auto *legend = curves->findChild<QLabel *>(u"legend"_s);
    QTRY_VERIFY(legend->text().contains(u"group:lr%3D0.1"_s));
    Q_EMIT legend->linkActivated(u"group:lr%3D0.1"_s);
    QTRY_COMPARE(drawn(), (QStringList{u"baseline"_s, u"lr0.1-seed0"_s, u"lr0.1-seed1"_s,
                                       u"lr0.1-seed2"_s, u"lr=0.3 ×3"_s}));
    Q_EMIT legend->linkActivated(u"group:lr%3D0.1"_s);
    QTRY_COMPARE(drawn(), grouped);
    // A click on a group's curve selects its runs in the table.
    Q_EMIT const_cast<sb::CurveChart *>(loss())->runClicked(u"lr=0.3"_s);
    auto *table = curves->findChild<QTableView *>();
    QStringList selected;
    for (const QModelIndex &row : table->selectionModel()->selectedRows())
        selected << row.data(sb::RunsModel::RunNameRole).toString();
    selected.sort();
    QCOMPARE(selected, (QStringList{u"lr0.3-seed0"_s, u"lr0.3-seed1"_s, u"lr0.3-seed2"_s}));
    // The table's action unfolds the current run's group.
    table->setCurrentIndex(table->selectionModel()->selectedRows().first());
    table->findChild<QAction *>(u"toggleGroup"_s)->trigger();
    QTRY_COMPARE(drawn().size(), 5);

    // By a name pattern, and remembered by the next window; no groups again draws every run.
    sb::RunGrouping byName;
    byName.by = sb::RunGrouping::By::Pattern;
    byName.pattern = u"(.*)-seed\\d"_s;
    curves->setGrouping(byName);
    QTRY_COMPARE(drawn(), (QStringList{u"baseline"_s, u"lr0.1 ×3"_s, u"lr0.3 ×3"_s}));
    QCOMPARE(fixture.window()->curves()->grouping().pattern, byName.pattern);
    button->menu()->findChild<QAction *>(u"groupBy0"_s)->trigger();
    QTRY_COMPARE(drawn().size(), 7);
}

void TestMainWindow::tagsNotesAndSummaryColumns() {
    WindowFixture fixture;
    for (const QString &run : {u"first"_s, u"second"_s}) {
        const QJsonObject body{
            {u"run"_s, run},
            {u"series"_s,
             QJsonObject{{u"loss"_s, QJsonObject{{u"step"_s, QJsonArray{0, 1, 2}},
                                                 {u"value"_s, QJsonArray{3.0, 0.5, 1.0}}}}}}};
        QVERIFY(fixture.push(body));
    }
    const auto window = fixture.window();
    sb::CurvesView *curves = window->curves();
    auto *table = curves->findChild<QTableView *>();
    QTRY_COMPARE(table->model()->rowCount(), 2);
    const int lossColumn = 5;
    // The smallest value of each run's loss rather than its last.
    auto *statistic = curves->findChild<QComboBox *>(u"statistic"_s);
    statistic->setCurrentIndex(statistic->findData(int(sb::RunsModel::Statistic::Min)));
    QCOMPARE(table->model()->headerData(lossColumn, Qt::Horizontal).toString(), u"loss (min)"_s);
    QTRY_COMPARE(table->model()->index(0, lossColumn).data().toString(), u"0.5"_s);
    statistic->setCurrentIndex(statistic->findData(int(sb::RunsModel::Statistic::Last)));
    QCOMPARE(table->model()->index(0, lossColumn).data().toString(), u"1"_s);

    // Tags and a note on a run, from its context menu: kept by the collector, found by the filter.
    QModelIndex second;
    for (int row = 0; row < 2; ++row) {
        if (table->model()->index(row, 0).data(sb::RunsModel::RunNameRole) == u"second"_s)
            second = table->model()->index(row, 0);
    }
    table->setCurrentIndex(second);
    table->findChild<QAction *>(u"annotate"_s)->trigger();
    auto *dialog = curves->findChild<QDialog *>(u"annotateRun"_s);
    QVERIFY(dialog);
    dialog->findChild<QLineEdit *>(u"tags"_s)->setText(u"ablation, , no-warmup, ablation"_s);
    dialog->findChild<QPlainTextEdit *>(u"note"_s)->setPlainText(u"Warmup off: diverged twice"_s);
    dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Save)->click();
    QTRY_COMPARE(curves->runsModel()->info(u"second"_s).tags,
                 (QStringList{u"ablation"_s, u"no-warmup"_s}));
    QCOMPARE(curves->runsModel()->info(u"second"_s).note, u"Warmup off: diverged twice"_s);
    curves->findChild<QLineEdit *>(u"filter"_s)->setText(u"diverged"_s);
    QTRY_COMPARE(table->model()->rowCount(), 1);
    QCOMPARE(table->model()->index(0, 0).data(sb::RunsModel::RunNameRole).toString(), u"second"_s);
    curves->findChild<QLineEdit *>(u"filter"_s)->clear();
}

void TestMainWindow::anotherMetricAsTheXAxis() {
    WindowFixture fixture;
    // Two runs at different batch sizes: the same steps are different numbers of epochs.
    for (const auto &[run, batch] : {std::pair{u"small"_s, 1.0}, std::pair{u"large"_s, 4.0}}) {
        QJsonArray steps, losses, epochs;
        for (int step = 0; step < 20; ++step) {
            steps.append(step);
            losses.append(1.0 / (1 + step * batch));
            epochs.append(step * batch / 10);
        }
        const QJsonObject body{
            {u"run"_s, run},
            {u"series"_s,
             QJsonObject{{u"loss"_s, QJsonObject{{u"step"_s, steps}, {u"value"_s, losses}}},
                         {u"epoch"_s, QJsonObject{{u"step"_s, steps}, {u"value"_s, epochs}}}}}};
        QVERIFY(fixture.push(body));
    }
    const auto window = fixture.window();
    sb::CurvesView *curves = window->curves();
    auto *xAxis = curves->findChild<QComboBox *>(u"xAxis"_s);
    QTRY_VERIFY(xAxis->findData(u"epoch"_s) >= 0);
    xAxis->setCurrentIndex(xAxis->findData(u"epoch"_s));
    // On the loss chart, each run ends at its last epoch, not at step 19.
    auto lastX = [curves](const QString &run) {
        for (const sb::CurveChart *chart : curves->charts()) {
            for (const sb::Curve &curve : chart->curves()) {
                if (chart->metricName() == u"loss"_s && curve.run == run && !curve.points.isEmpty())
                    return curve.points.last().x();
            }
        }
        return -1.0;
    };
    QTRY_COMPARE(lastX(u"large"_s), 7.6);
    QTRY_COMPARE(lastX(u"small"_s), 1.9);
    // Remembered by name for the next window, whose metrics arrive later.
    const auto again = fixture.window();
    auto *againX = again->curves()->findChild<QComboBox *>(u"xAxis"_s);
    QTRY_COMPARE(againX->currentData().toString(), u"epoch"_s);
    xAxis->setCurrentIndex(0); // steps again
    QTRY_COMPARE(lastX(u"small"_s), 19.0);
}
