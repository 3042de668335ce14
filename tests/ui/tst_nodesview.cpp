// The GPU dashboard on real SSH nodes: an H100, an H100 with MIG, a CPU-only node, an H100 that
// sits idle while processes hold it, and one that cannot be reached.
#include "../support/SshNodes.h"
#include "NodeCard.h"
#include "NodesView.h"
#include "monitor/NodeMonitor.h"

#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTest>
#include <QTimer>

using namespace Qt::StringLiterals;

class TestNodesView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void dashboardOfRealNodes();
    void addingANodeTestsTheConnection();
};

void TestNodesView::dashboardOfRealNodes() {
    SshNodes harness({u"h100=linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt"_s,
                      u"h100-mig=linux-x86_64__nvidia-h100-mig__590.48.01.txt"_s, u"cpu-only"_s,
                      u"h100-idle=linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt@idle"_s});
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
    QTRY_VERIFY_WITH_TIMEOUT(card(u"h100"_s)->lastSample().gpus.size() == 1 &&
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
    // not free; none of these nodes has a free GPU).
    view.setFilter(u"gpu_burn"_s, u"all"_s);
    QStringList shown;
    for (const sb::NodeCard *c : view.visibleCards())
        shown << c->node();
    QCOMPARE(shown, (QStringList{u"h100"_s, u"h100-idle"_s, u"h100-mig"_s}));
    view.setFilter({}, u"free"_s);
    for (const sb::NodeCard *c : view.visibleCards())
        QVERIFY(c->freeGpus() > 0);
    view.setFilter({}, u"all"_s);
    view.setSort(u"busy"_s);
    QCOMPARE(view.visibleCards().front()->node(), u"h100"_s);
    view.setSort(u"name"_s);

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
    QTimer::singleShot(200, [&] {
        auto *dialog = qobject_cast<QDialog *>(QApplication::activeModalWidget());
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
    QCOMPARE(said.size(), 2);
    QVERIFY2(said[0].contains(u"SHA256:"_s), qPrintable(said[0]));
    QVERIFY2(said[1].contains(u"cannot connect"_s), qPrintable(said[1]));
    QVERIFY(monitor.nodes().isEmpty()); // cancelled: nothing added
}

QTEST_MAIN(TestNodesView)
#include "tst_nodesview.moc"
