#include "monitor/GpuInsights.h"
#include "monitor/LocalSampler.h"
#include "monitor/SampleScript.h"

#include <QFile>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

QByteArray frame(double time, const QByteArray &gpuSection, const QByteArray &extra = {}) {
    QByteArray f = "@sb:frame " + QByteArray::number(time, 'f', 3) + "\n";
    f += "@sb:stat\ncpu  100 0 100 800 0 0 0 0\ncpu0 50 0 50 400 0 0 0 0\n"
         "cpu1 50 0 50 400 0 0 0 0\n";
    f += "@sb:meminfo\nMemTotal: 1000 kB\nMemAvailable: 250 kB\nSwapTotal: 0 kB\n";
    f += "@sb:loadavg\n1.5 1.0 0.5 2/300 1234\n";
    f += "@sb:top-cpu\n  4242 alice    99.5  2.0 123456 01:02:03 python train.py --lr 0.1\n"
         "garbled line\n";
    f += "@sb:top-memory\n  4242 alice    99.5  2.0 123456 01:02:03 python train.py --lr 0.1\n";
    f += gpuSection + extra + "@sb:end\n";
    return f;
}

} // namespace

class TestSampleScript : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void framesFromAStream();
    void gpuProcessesJoinedWithOwners();
    void brokenPieces();
    void scriptRunsLocally();
    void insights();
};

void TestSampleScript::framesFromAStream() {
    sb::SampleFrameReader reader;
    const QByteArray stream =
        "Welcome to the lab!\n" + frame(10, "@sb:no-gpu\n") + frame(11, "@sb:no-gpu\n");
    // Byte by byte: frames come out whole, whatever the chunking.
    std::vector<sb::SampleFrame> frames;
    for (char c : stream) {
        reader.feed(QByteArrayView(&c, 1));
        while (auto f = reader.next())
            frames.push_back(*f);
    }
    QCOMPARE(frames.size(), std::size_t(2));
    QCOMPARE(frames[1].time, 11.0);
    sb::NodeSampleBuilder builder;
    const sb::NodeSample first = builder.build(frames[0]);
    QVERIFY2(first.error.isEmpty(), qPrintable(first.error));
    QCOMPARE(first.corePercent.size(), std::size_t(2));
    QCOMPARE(first.memory.availableKiB, quint64(250));
    QCOMPARE(first.load.tasks, 300);
    QCOMPARE(first.topCpu.size(), std::size_t(1)); // the garbled line is skipped
    QCOMPARE(first.topCpu.front().user, u"alice"_s);
    QCOMPARE(first.topCpu.front().command, u"python train.py --lr 0.1"_s);
    QCOMPARE(first.topCpu.front().cpuTime, u"01:02:03"_s);
    QCOMPARE(first.topCpu.front().rssKiB, quint64(123456));
    QVERIFY(!first.hasNvidiaSmi);
}

void TestSampleScript::gpuProcessesJoinedWithOwners() {
    QFile capture(QStringLiteral(SIGNALBOX_TEST_DATA) + u"/nvidia-smi-query-gpu.csv"_s);
    QVERIFY(capture.open(QIODevice::ReadOnly));
    const QByteArray gpus = capture.readAll();
    const QByteArray uuid = "GPU-00000000-0000-0000-0000-000000000000"; // index 0
    // pmon's rows name the GPU by index; compute-apps by uuid.
    auto gpu = [&](int ticks) -> QByteArray {
        return "@sb:gpu\n" + gpus + "@sb:gpu-exit\n0\n" +
               "@sb:apps\ngpu_uuid, pid, process_name, used_gpu_memory [MiB]\n" + uuid +
               ", 4242, python, 1000 MiB\n" + uuid + ", 77, /opt/x, 10 MiB\n" +
               "@sb:pmon\n# gpu         pid   type     sm    mem    enc    dec    command\n"
               "# Idx           #    C/G      %      %      %      %    name\n"
               "    0       4242     C     87     31      -      -    python\n" +
               "@sb:app-owners\n 4242  4240   3723 2097152 alice    python train.py --lr 0.1\n" +
               "@sb:app-cpu\n100\n4242 (py thon) R 1 4240 4240 0 -1 4194304 1 0 0 0 " +
               QByteArray::number(ticks) + " 50 0 0 20 0 9 0 1 2 3\n";
    };
    sb::SampleFrameReader reader;
    sb::NodeSampleBuilder builder;
    reader.feed(frame(1, gpu(1000)));
    const sb::NodeSample first = builder.build(*reader.next());
    QVERIFY(!first.gpuProcesses.empty());
    QVERIFY(!first.gpuProcesses[0].cpuPercent); // no earlier reading yet
    reader.feed(frame(3, gpu(1300)));
    const sb::NodeSample s = builder.build(*reader.next());
    QVERIFY(s.hasNvidiaSmi);
    QVERIFY2(s.gpuError.isEmpty(), qPrintable(s.gpuError));
    QCOMPARE(s.gpus.size(), std::size_t(1));
    QCOMPARE(s.gpuProcesses.size(), std::size_t(2));
    const sb::GpuProcess &python = s.gpuProcesses[0];
    QCOMPARE(python.user, u"alice"_s);
    QCOMPARE(python.command, u"python train.py --lr 0.1"_s);
    QCOMPARE(python.processGroup, qint64(4240));
    QCOMPARE(python.usedMemoryMiB.value(), 1000.0);
    QCOMPARE(python.smPercent.value(), 87.0);
    QCOMPARE(python.memoryBandwidthPercent.value(), 31.0);
    QCOMPARE(python.elapsedSeconds.value(), qint64(3723));
    QCOMPARE(python.rssKiB.value(), quint64(2097152));
    QCOMPARE(python.cpuPercent.value(), 150.0); // 300 ticks at 100 Hz over 2 s
    const sb::GpuProcess &other = s.gpuProcesses[1];
    QVERIFY(other.user.isEmpty()); // in another container: no owner visible
    QVERIFY(!other.smPercent && !other.cpuPercent && !other.rssKiB);
}

void TestSampleScript::brokenPieces() {
    sb::SampleFrameReader reader;
    reader.feed(frame(1, "@sb:gpu\nFailed to initialize NVML: Driver/library version mismatch\n"
                         "@sb:gpu-exit\n18\n@sb:apps\n@sb:app-owners\n"));
    const sb::NodeSample mismatch = sb::NodeSampleBuilder().build(*reader.next());
    QVERIFY(mismatch.error.isEmpty()); // the CPU side is fine
    QVERIFY(mismatch.gpuError.contains(u"Driver/library version mismatch"_s));

    reader.feed(frame(2, "@sb:gpu\n@sb:gpu-exit\n124\n"));
    QVERIFY(sb::NodeSampleBuilder().build(*reader.next()).gpuError.contains(u"did not answer"_s));

    QByteArray noProc = frame(3, "@sb:no-gpu\n");
    noProc.replace("MemAvailable", "MemFree");
    reader.feed(noProc);
    QVERIFY(sb::NodeSampleBuilder().build(*reader.next()).error.contains(u"meminfo"_s));

    // A frame that never ends does not grow the buffer without bound.
    sb::SampleFrameReader endless;
    const QByteArray junk(1 << 20, 'x');
    for (int i = 0; i < 8; ++i)
        endless.feed(junk);
    QVERIFY(!endless.next());
    endless.feed(QByteArray("\n" + frame(4, "@sb:no-gpu\n")));
    QVERIFY(endless.next().has_value());
}

void TestSampleScript::scriptRunsLocally() {
    // The real script against this machine's /proc, with no nvidia-smi: a CPU-only node.
    sb::LocalSampler sampler(u"/proc"_s, 1000, u"/nonexistent/nvidia-smi"_s);
    sampler.sampleNow();
    const sb::NodeSample s = sampler.sampleNow();
    QVERIFY2(s.error.isEmpty(), qPrintable(s.error));
    QVERIFY(!s.hasNvidiaSmi);
    QVERIFY(!s.topCpu.empty());
    QVERIFY(!s.topMemory.empty());
    QVERIFY(s.topMemory.front().rssKiB >= s.topMemory.back().rssKiB);
}

void TestSampleScript::insights() {
    auto sampleAt = [](double t, double gpuBusy, double cpuBusy, bool held) {
        sb::NodeSample s;
        s.time = t;
        s.cpuPercent = cpuBusy;
        sb::GpuReading gpu;
        gpu.index = 0;
        gpu.uuid = u"GPU-a"_s;
        gpu.utilizationGpu = gpuBusy;
        s.gpus = {gpu};
        if (held) {
            sb::GpuProcess p;
            p.gpuUuid = u"GPU-a"_s;
            p.pid = 4242;
            p.processGroup = 4240;
            p.usedMemoryMiB = 20480;
            p.command = u"python train.py"_s;
            s.gpuProcesses = {p};
        }
        return s;
    };
    // Idle and held: said once there is enough history, naming our run.
    sb::GpuInsights idle;
    std::vector<sb::GpuInsight> found;
    for (int t = 0; t <= 12; ++t)
        found = idle.update(sampleAt(t, 0, 5, true), {{4240, u"resnet-lr0.1"_s}});
    QCOMPARE(found.size(), std::size_t(1));
    QCOMPARE(found.front().kind, sb::GpuInsight::Kind::IdleButHeld);
    QVERIFY2(found.front().text.contains(u"run resnet-lr0.1"_s), qPrintable(found.front().text));
    QVERIFY(found.front().text.contains(u"20.0 GiB"_s));
    // One busy reading in the window clears it.
    QVERIFY(idle.update(sampleAt(13, 80, 5, true)).empty());
    // Idle but free: nothing to say.
    sb::GpuInsights free;
    for (int t = 0; t <= 12; ++t)
        found = free.update(sampleAt(t, 0, 5, false));
    QVERIFY(found.empty());
    // Starving GPU, saturated CPUs: input-bound.
    sb::GpuInsights starving;
    for (int t = 0; t <= 12; ++t)
        found = starving.update(sampleAt(t, 25, 98, true));
    QCOMPARE(found.size(), std::size_t(1));
    QCOMPARE(found.front().kind, sb::GpuInsight::Kind::InputBound);
    QVERIFY(found.front().text.contains(u"input-bound"_s));
    QVERIFY(found.front().text.contains(u"python train.py (pid 4242"_s));
}

QTEST_GUILESS_MAIN(TestSampleScript)
#include "tst_samplescript.moc"
