// System series: node samples downsampled into the node's history run and our runs' system
// series, bucket by bucket.
#include "monitor/SystemSeries.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace {

sb::NodeSample sampleAt(double time, double busy, double cpu = 0) {
    sb::NodeSample s;
    s.time = time;
    s.cpuPercent = 10;
    s.memory = {.totalKiB = 1000, .availableKiB = 250};
    for (int i = 0; i < 2; ++i) {
        sb::GpuReading gpu;
        gpu.index = i;
        gpu.uuid = u"GPU-%1"_s.arg(i);
        gpu.utilizationGpu = i == 0 ? busy : 0;
        gpu.memoryUsedMiB = 40;
        gpu.memoryTotalMiB = 80;
        gpu.powerDrawW = 300;
        gpu.temperatureC = 60;
        s.gpus.push_back(gpu);
    }
    sb::GpuProcess ours;
    ours.gpuUuid = u"GPU-0"_s;
    ours.pid = 41;
    ours.processGroup = 40;
    ours.cpuPercent = cpu;
    ours.rssKiB = 2 * 1024 * 1024;
    s.gpuProcesses.push_back(ours);
    // A second process of the run; it uses GPU 0 and GPU 1, so it is listed twice.
    sb::GpuProcess second = ours;
    second.pid = 42;
    second.cpuPercent = 10;
    second.rssKiB = 1024 * 1024;
    s.gpuProcesses.push_back(second);
    second.gpuUuid = u"GPU-1"_s;
    s.gpuProcesses.push_back(second);
    return s;
}

} // namespace

class TestSystemSeries final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void bucketsOfTheNodeAndOurRuns();
    void hostileReadings();
};

void TestSystemSeries::bucketsOfTheNodeAndOurRuns() {
    sb::SystemSeries series(10);
    const QHash<qint64, QString> runs{{40, u"lr-0.1"_s}};
    series.add(u"gpu-a"_s, sampleAt(1000, 50, 100), runs);
    series.add(u"gpu-a"_s, sampleAt(1005, 100, 200), runs);
    QVERIFY(series.takeClosed(1009).empty()); // the bucket 1000..1010 is still open
    // A sample in the next bucket closes the first; the insight marks the run's timeline.
    const sb::GpuInsight idle{sb::GpuInsight::Kind::IdleButHeld, u"GPU-0"_s, 0, u"idle"_s};
    series.add(u"gpu-a"_s, sampleAt(1012, 0), runs, {idle});
    auto closed = series.takeClosed(1012);
    const auto &node = closed.at(u"@node/gpu-a"_s);
    QCOMPARE(node.at(u"gpu0/utilization"_s).size(), std::size_t(1));
    QCOMPARE(node.at(u"gpu0/utilization"_s).front().step, 1000.0);
    QCOMPARE(node.at(u"gpu0/utilization"_s).front().value, 75.0); // the bucket's mean
    QCOMPARE(node.at(u"gpu1/utilization"_s).front().value, 0.0);
    QCOMPARE(node.at(u"gpu0/memory"_s).front().value, 50.0);
    QCOMPARE(node.at(u"memory"_s).front().value, 75.0);
    QCOMPARE(node.at(u"cpu"_s).front().value, 10.0);
    const auto &run = closed.at(u"lr-0.1"_s);
    QCOMPARE(run.at(u"system/gpu0/utilization"_s).front().value, 75.0);
    QCOMPARE(run.at(u"system/gpu1/utilization"_s).front().value, 0.0); // its second process's
    QCOMPARE(run.at(u"system/cpu"_s).front().value, 160.0);            // the two-GPU process once
    QCOMPARE(run.at(u"system/rss"_s).front().value, 3.0);
    QCOMPARE(run.at(u"system/idle_but_held"_s).front().value, 0.0);
    // Later, everything left open is closed; a run that ended leaves nothing behind.
    closed = series.takeClosed(std::numeric_limits<double>::infinity());
    QCOMPARE(closed.at(u"lr-0.1"_s).at(u"system/idle_but_held"_s).front().value, 1.0);
    QCOMPARE(closed.at(u"lr-0.1"_s).at(u"system/gpu0/utilization"_s).front().step, 1010.0);
    QVERIFY(series.takeClosed(std::numeric_limits<double>::infinity()).empty());
}

void TestSystemSeries::hostileReadings() {
    sb::SystemSeries series(0); // a resolution under a second becomes a second
    QCOMPARE(series.resolution(), 1.0);
    sb::NodeSample broken = sampleAt(1000, 50);
    broken.error = u"cannot read /proc/stat"_s;
    series.add(u"n"_s, broken, {});
    sb::NodeSample nan = sampleAt(std::nan(""), 50);
    series.add(u"n"_s, nan, {});
    QVERIFY(series.takeClosed(std::numeric_limits<double>::infinity()).empty());
    // Non-finite readings are skipped, not averaged in; a clock that goes back adds nothing.
    sb::NodeSample odd = sampleAt(2000, std::numeric_limits<double>::infinity());
    odd.cpuPercent = std::nan("");
    series.add(u"n"_s, odd, {});
    series.add(u"n"_s, sampleAt(2000.5, 20), {});
    series.add(u"n"_s, sampleAt(1990, 90), {});
    const auto closed = series.takeClosed(std::numeric_limits<double>::infinity());
    QCOMPARE(closed.at(u"@node/n"_s).at(u"gpu0/utilization"_s).size(), std::size_t(1));
    QCOMPARE(closed.at(u"@node/n"_s).at(u"gpu0/utilization"_s).front().value, 20.0);
    QCOMPARE(closed.at(u"@node/n"_s).at(u"cpu"_s).front().value, 10.0);
}

QTEST_GUILESS_MAIN(TestSystemSeries)
#include "tst_systemseries.moc"
