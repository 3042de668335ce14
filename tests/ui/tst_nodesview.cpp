// The GPU dashboard on real SSH nodes: an H100, an H100 with MIG, a CPU-only node, an H100 that
// sits idle while processes hold it, and one that cannot be reached.
#include "../support/DialogAnswers.h"
#include "../support/SshNodes.h"
#include "CurvesView.h"
#include "FleetTable.h"
#include "GpuDrawing.h"
#include "NodeCard.h"
#include "NodeHistory.h"
#include "NodesView.h"
#include "charts/CurveChart.h"
#include "client/CollectorClient.h"
#include "collector/EmbeddedCollector.h"
#include "fleet/SystemHistory.h"
#include "monitor/NodeMonitor.h"

#include "monitor/NvidiaSmiParser.h"

#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

class TestNodesView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void dashboardOfRealNodes();
    void addingANodeTestsTheConnection();
    void historyKeptInTheCollectorAcrossARestart();
    void aGpuHeldForARunIsNotFree();
};

void TestNodesView::dashboardOfRealNodes() {
    SshNodes harness({u"h100=linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt"_s,
                      u"h100-mig=linux-x86_64__nvidia-h100-mig__590.48.01.txt"_s, u"cpu-only"_s,
                      u"h100-idle=linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt@idle"_s,
                      u"h100x8=linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt*8"_s});
    QVERIFY2(harness.error().isEmpty(), qPrintable(harness.error()));
    QVERIFY(harness.trustAll());
    QList<sb::NodeConfig> nodes;
    for (const auto &n : harness.nodes())
        nodes << harness.config(n.name);
    sb::NodeConfig down;
    down.name = u"gpu-down"_s;
    down.host = u"127.0.0.1"_s;
    down.port = 1; // nothing listens there
    nodes << down;

    const QString configPath = harness.dir() + u"/signalbox.yaml"_s;
    sb::NodeMonitor monitor({harness.knownHostsFile()});
    sb::NodesView view(&monitor, configPath);
    // The first placeholder on the 8-GPU node stands for one of our runs (its own group).
    qint64 runGroup = 0;
    for (const auto &n : harness.nodes())
        if (n.name == u"h100x8"_s)
            runGroup = n.gpuPids.value(0);
    view.setRunLookup([runGroup](const QString &node) {
        return node == u"h100x8"_s ? QHash<qint64, QString>{{runGroup, u"lr-0.1"_s}}
                                   : QHash<qint64, QString>();
    });
    monitor.startLocal();
    monitor.setNodes(nodes);
    view.resize(1500, 1900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    auto card = [&](const QString &name) -> sb::NodeCard * {
        return view.findChild<sb::NodeCard *>(u"node-"_s + name);
    };
    QTRY_VERIFY_WITH_TIMEOUT(card(u"h100"_s) && card(u"h100-mig"_s) && card(u"cpu-only"_s) &&
                                 card(u"h100-idle"_s) && card(u"gpu-down"_s),
                             10000);
    QTRY_VERIFY_WITH_TIMEOUT(card(u"h100x8"_s) &&
                                 card(u"h100x8"_s)->lastSample().gpus.size() == 8 &&
                                 card(u"h100"_s)->lastSample().gpus.size() == 1 &&
                                 card(u"h100-mig"_s)->lastSample().gpus.size() == 1 &&
                                 card(u"h100-idle"_s)->lastSample().gpus.size() == 1 &&
                                 card(u"cpu-only"_s)->lastSample().memory.totalKiB > 0,
                             20000);
    QCOMPARE(card(u"h100"_s)->status().state, sb::NodeStatus::State::Connected);
    QTRY_COMPARE_WITH_TIMEOUT(card(u"gpu-down"_s)->status().state,
                              sb::NodeStatus::State::Unreachable, 15000);
    QVERIFY(card(u"gpu-down"_s)->status().message.contains(u"cannot connect"_s));
    QVERIFY(!card(u"cpu-only"_s)->lastSample().hasNvidiaSmi);
    QCOMPARE(card(u"h100-mig"_s)
                 ->lastSample()
                 .gpus.front()
                 .fields.value(u"mig.mode.current"_s)
                 .toString(),
             u"Enabled"_s);

    // Filter: by what runs there, and by free GPUs (the idle H100 is held by processes, so
    // not free; only the 8-GPU node has free GPUs).
    view.setFilter(u"gpu_burn"_s, u"all"_s);
    QStringList shown;
    for (const sb::NodeCard *c : view.visibleCards())
        shown << c->node();
    QCOMPARE(shown, (QStringList{u"h100"_s, u"h100-idle"_s, u"h100-mig"_s, u"h100x8"_s}));
    view.setFilter({}, u"free"_s);
    QCOMPARE(view.visibleCards().size(), 1);
    QCOMPARE(view.visibleCards().front()->freeGpus(), 2);
    view.setFilter({}, u"all"_s);
    view.setSort(u"busy"_s);
    QCOMPARE(view.visibleCards().front()->node(), u"h100"_s);
    view.setSort(u"name"_s);

    // Each process in detail: pmon's SM share, and from the node's /proc and ps its CPU now,
    // resident set and age.
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const auto &processes = card(u"h100"_s)->lastSample().gpuProcesses;
            const auto burn = std::find_if(processes.begin(), processes.end(), [](const auto &p) {
                return p.command.contains(u"gpu_burn"_s);
            });
            return burn != processes.end() && burn->smPercent == 99.0 && burn->cpuPercent &&
                   burn->rssKiB > 0u && burn->elapsedSeconds >= 0 && burn->user == u"root"_s;
        }(),
        10000);
    for (const sb::GpuProcess &p : card(u"h100"_s)->lastSample().gpuProcesses) {
        if (!p.command.contains(u"gpu_burn"_s))
            continue;
        const QString detail = sb::processDetail(p, {});
        QVERIFY2(detail.contains(u"SM 99% · memory bandwidth 10%"_s) &&
                     detail.contains(u"pid %1 · root"_s.arg(p.pid)) &&
                     detail.contains(u"running for 0:00:"_s),
                 qPrintable(detail));
        QVERIFY(sb::processDetail(p, u"lr-0.1"_s).startsWith(u"Signalbox run lr-0.1"_s));
    }

    // The compact dashboard: the model once per node, a row per GPU, the unreachable node as
    // one line, and the fleet in one sentence by the one free-GPU rule.
    view.setLayoutMode(u"compact"_s);
    QTRY_COMPARE_WITH_TIMEOUT(view.fleetSummaryText(),
                              u"2 of 11 GPUs free on 6 nodes · 1 unreachable"_s, 10000);
    sb::FleetTable *fleet = view.fleetTable();
    QTRY_VERIFY(fleet->isVisible() && !fleet->rowTexts().isEmpty());
    const QStringList rows = fleet->rowTexts();
    const qsizetype eight = rows.indexOf(
        QRegularExpression(u"^h100x8  8 × NVIDIA H100 80GB HBM3 · 2 of 8 free · CPU .*"_s));
    QVERIFY2(eight >= 0, qPrintable(rows.join(u'\n')));
    for (int gpu = 0; gpu < 8; ++gpu)
        QVERIFY2(rows.value(eight + 1 + gpu).startsWith(QString::number(gpu) + u"  "_s),
                 qPrintable(rows.value(eight + 1 + gpu)));
    QVERIFY(rows.value(eight + 1).contains(u"run lr-0.1 (root) 2.5 GiB"_s));
    QVERIFY(rows.value(eight + 1).contains(u"root:gpu_burn --config experiments/h…"_s));
    QVERIFY(rows.value(eight + 8).endsWith(u"free"_s));
    QVERIFY(!rows.value(eight + 9).startsWith(u"7  "_s)); // the next node
    const QStringList downRows = rows.filter(u"gpu-down"_s);
    QCOMPARE(downRows.size(), 1);
    QVERIFY(downRows.front().contains(u"cannot connect"_s));
    // gpustat's density: the 8-GPU node takes nine text lines.
    QVERIFY(fleet->sizeHint().height() <= rows.size() * (fleet->fontMetrics().height() + 4) + 4);
    // Our run is a link to its curves.
    QSignalSpy opened(&view, &sb::NodesView::runActivated);
    fleet->resize(1500, fleet->sizeHint().height());
    fleet->repaint();
    const int y = static_cast<int>(eight + 1) * (fleet->fontMetrics().height() + 4) + 2 +
                  fleet->fontMetrics().height() / 2;
    for (int x = 200; x < 1500 && opened.isEmpty(); x += 10)
        QTest::mouseClick(fleet, Qt::LeftButton, {}, QPoint(x, y));
    QCOMPARE(opened.value(0).value(0).toString(), u"lr-0.1"_s);
    const QString compactShots = QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots"_s;
    QDir().mkpath(compactShots);
    QVERIFY(view.grab().save(compactShots + u"/nodes-compact.png"_s));
    view.setLayoutMode(u"cards"_s);

    // After ten seconds of history, the idle-but-held GPU is pointed out.
    auto idleInsight = [&] {
        const auto &found = card(u"h100-idle"_s)->insights();
        return found.size() == 1 && found.front().kind == sb::GpuInsight::Kind::IdleButHeld;
    };
    QTRY_VERIFY_WITH_TIMEOUT(idleInsight(), 30000);
    QVERIFY(card(u"h100"_s)->insights().empty()); // busy: nothing to point out
    QVERIFY(card(u"h100-idle"_s)->insights().front().text.contains(u"gpu_burn"_s));
    const QString shots = QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots"_s;
    QDir().mkpath(shots);
    QVERIFY(view.grab().save(shots + u"/nodes-dashboard.png"_s));
    qInfo("saved %s", qPrintable(shots + u"/nodes-dashboard.png"_s));
}

void TestNodesView::addingANodeTestsTheConnection() {
    SshNodes harness({u"box"_s});
    QVERIFY2(harness.error().isEmpty(), qPrintable(harness.error()));
    QVERIFY(harness.trustAll());
    sb::NodeMonitor monitor({harness.knownHostsFile()});
    sb::NodesView view(&monitor, harness.dir() + u"/signalbox.yaml"_s);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const sb::NodeConfig box = harness.config(u"box"_s);
    // Filled in as a person would, tested twice (the real node, then a port nobody listens on).
    QStringList said;
    DialogAnswers dialogs;
    dialogs.expect(u"the new node"_s, [&](QDialog *dialog) {
        QVERIFY(dialog);
        dialog->findChild<QLineEdit *>(u"host"_s)->setText(box.host);
        dialog->findChild<QSpinBox *>(u"port"_s)->setValue(box.port);
        dialog->findChild<QLineEdit *>(u"user"_s)->setText(box.user);
        dialog->findChild<QLineEdit *>(u"keyFile"_s)->setText(box.identityFile);
        auto *tested = dialog->findChild<QLabel *>(u"tested"_s);
        auto *test = dialog->findChild<QPushButton *>(u"testConnection"_s);
        test->click();
        QTRY_VERIFY_WITH_TIMEOUT(tested->text().startsWith(u"Connected"_s), 15000);
        said << tested->text();
        dialog->findChild<QSpinBox *>(u"port"_s)->setValue(1);
        test->click();
        QTRY_VERIFY_WITH_TIMEOUT(!tested->text().startsWith(u"Connecting"_s), 15000);
        said << tested->text();
        dialog->reject();
    });
    view.findChild<QPushButton *>(u"addNode"_s)->click();
    QVERIFY(dialogs.answered());
    QCOMPARE(said.size(), 2);
    QVERIFY2(said[0].contains(u"SHA256:"_s), qPrintable(said[0]));
    QVERIFY2(said[1].contains(u"cannot connect"_s), qPrintable(said[1]));
    QVERIFY(monitor.nodes().isEmpty()); // cancelled: nothing added
}

void TestNodesView::historyKeptInTheCollectorAcrossARestart() {
    // A real node's samples go into a real collector (embedded: its own thread, HTTP on
    // loopback) as system series; the collector and the app's side stop; a new collector on the
    // same store serves the node's history to the history window.
    SshNodes harness({u"h100x8=linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt*8"_s});
    QVERIFY2(harness.error().isEmpty(), qPrintable(harness.error()));
    QVERIFY(harness.trustAll());
    QTemporaryDir store;
    sb::Collector::Options options;
    options.dataDir = store.path();
    {
        auto collector = sb::EmbeddedCollector::start(options);
        QVERIFY2(collector, qPrintable(collector.error()));
        sb::CollectorClient client((*collector)->url(), (*collector)->token());
        sb::NodeMonitor monitor({harness.knownHostsFile()});
        // Its first placeholder process stands for one of our runs.
        const qint64 runGroup = harness.nodes().front().gpuPids.value(0);
        sb::SystemHistory history(
            &client, &monitor,
            [runGroup](const QString &) {
                return QHash<qint64, QString>{{runGroup, u"lr-0.1"_s}};
            },
            1); // a point a second, for the test
        monitor.setNodes({harness.config(u"h100x8"_s)});
        QSignalSpy sampled(&monitor, &sb::NodeMonitor::sampled);
        QTRY_VERIFY_WITH_TIMEOUT(sampled.size() >= 4, 20000);
        history.flush(true);
        QStringList stored;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                client.metrics({sb::nodeHistoryRun(u"h100x8"_s)}, &client,
                               [&](sb::Result<QStringList> m) { stored = m ? *m : QStringList(); });
                QTest::qWait(100);
                return stored.contains(u"gpu7/utilization"_s);
            }(),
            10000);
        QVERIFY(stored.contains(u"cpu"_s) && stored.contains(u"gpu0/temperature"_s) &&
                stored.contains(u"gpu3/power"_s));
    }
    auto collector = sb::EmbeddedCollector::start(options);
    QVERIFY2(collector, qPrintable(collector.error()));
    sb::CollectorClient client((*collector)->url(), (*collector)->token());
    sb::NodeHistory window(&client, u"h100x8"_s);
    QSignalSpy refreshed(&window, &sb::NodeHistory::refreshed);
    window.setSpan(604800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTRY_VERIFY_WITH_TIMEOUT(!refreshed.isEmpty() && window.charts().front()->curves().size() == 8,
                             10000);
    QCOMPARE(window.charts().front()->curves().front().run, u"GPU 0"_s);
    QVERIFY(!window.charts().front()->curves().front().points.isEmpty());
    QCOMPARE(window.charts().back()->curves().size(), 2); // CPU and memory
    // A busy GPU and a free one, as the node said.
    QVERIFY(window.charts().front()->curves().front().points.front().y() > 50);
    QCOMPARE(window.charts().front()->curves().back().points.front().y(), 0.0);
    const QString shots = QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots"_s;
    QVERIFY(window.grab().save(shots + u"/node-history.png"_s));
    // The run's system charts in the curves view, after its own metrics, on a time axis; the
    // node's history run is not listed among the researcher's runs.
    sb::CurvesView curves(&client);
    curves.resize(1400, 1600); // every chart in sight: only those are fetched
    curves.show();
    curves.refresh();
    curves.showCurvesOf({u"lr-0.1"_s});
    auto chartOf = [&](const QString &metric) -> sb::CurveChart * {
        for (sb::CurveChart *chart : curves.findChildren<sb::CurveChart *>())
            if (chart->metricName() == metric && !chart->curves().isEmpty())
                return chart;
        return nullptr;
    };
    QTRY_VERIFY_WITH_TIMEOUT(chartOf(u"system/gpu0/utilization"_s) && chartOf(u"system/rss"_s) &&
                                 chartOf(u"system/cpu"_s),
                             15000);
    QVERIFY(!chartOf(u"system/gpu1/utilization"_s)); // not its GPU
    QVERIFY(chartOf(u"system/gpu0/utilization"_s)->curves().front().points.front().x() > 1.7e9);
    QVERIFY(curves.findChildren<sb::CurveChart *>().size() >= 6);
    QVERIFY(curves.grab().save(shots + u"/run-system.png"_s));

    // A node with no history yet says so.
    sb::NodeHistory none(&client, u"never-seen"_s);
    QSignalSpy noneRefreshed(&none, &sb::NodeHistory::refreshed);
    QTRY_VERIFY(!noneRefreshed.isEmpty());
    QVERIFY(none.statusText().startsWith(u"No history of never-seen yet"_s));
}

QTEST_MAIN(TestNodesView)
#include "tst_nodesview.moc"

// An idle GPU that Signalbox gave a run still starting (copying its code, say): the dashboard
// says whose it is and counts it as taken, as the scheduler does.
void TestNodesView::aGpuHeldForARunIsNotFree() {
    QFile capture(QStringLiteral(SIGNALBOX_TEST_DATA "/nvidia-smi-query-gpu.csv"));
    QVERIFY(capture.open(QIODevice::ReadOnly));
    auto gpus = sb::NvidiaSmi::parseQueryGpu(capture.readAll());
    QVERIFY(gpus.ok() && gpus->size() == 1);
    sb::NodeSample sample;
    sample.hasNvidiaSmi = true;
    sample.gpus = *gpus;
    sample.gpus[0].utilizationGpu = 0;
    sample.gpus[0].memoryUsedMiB = 0;
    QVERIFY(sb::isFreeGpu(sample.gpus[0], sample)); // idle: free unless held
    sb::NodeMonitor monitor;
    sb::NodesView view(&monitor, {});
    QHash<int, QString> held;
    view.setReservedGpusLookup([&held](const QString &) { return held; });
    view.resize(1000, 700);
    view.show();
    view.setLayoutMode(u"compact"_s);
    view.addSample(u"box"_s, sample);
    QTRY_VERIFY2(view.fleetSummaryText().startsWith(u"1 of 1 GPUs free"_s),
                 qPrintable(view.fleetSummaryText()));
    held.insert(*sample.gpus[0].index, u"lr-0.1"_s);
    view.addSample(u"box"_s, sample);
    QTRY_VERIFY2(view.fleetSummaryText().startsWith(u"0 of 1 GPUs free"_s),
                 qPrintable(view.fleetSummaryText()));
    QTRY_VERIFY(!view.fleetTable()->rowTexts().isEmpty());
    const QStringList rows = view.fleetTable()->rowTexts();
    const qsizetype box = rows.indexOf(QRegularExpression(u"^box .*"_s));
    QVERIFY2(box >= 0 && rows.value(box + 1).endsWith(u"reserved for lr-0.1"_s),
             qPrintable(rows.join(u'\n')));
}
