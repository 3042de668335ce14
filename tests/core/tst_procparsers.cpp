#include "monitor/LocalSampler.h"
#include "monitor/ProcParsers.h"

#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {
// Captured from a 4-core Debian machine.
constexpr QByteArrayView kStat = "cpu  4705 150 1120 1637820 410 0 57 0 0 0\n"
                                 "cpu0 1400 12 300 409100 100 0 40 0 0 0\n"
                                 "cpu1 1100 50 270 409600 110 0 5 0 0 0\n"
                                 "cpu2 1105 44 280 409500 100 0 6 0 0 0\n"
                                 "cpu3 1100 44 270 409620 100 0 6 0 0 0\n"
                                 "intr 1234 0 0\nctxt 5678\nbtime 1700000000\n";
constexpr QByteArrayView kMeminfo = "MemTotal:       24567892 kB\nMemFree:        20000000 kB\n"
                                    "MemAvailable:   22000000 kB\nBuffers:          100000 kB\n"
                                    "SwapTotal:       2097148 kB\nSwapFree:        2000000 kB\n";
} // namespace

class TestProcParsers final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void stat();
    void statMalformed_data();
    void statMalformed();
    void meminfo();
    void loadavg_data();
    void loadavg();
    void usage();
    void samplerReadsARoot();
    void samplerRunsNvidiaSmi();
    void processTicks();
};

void TestProcParsers::stat() {
    const auto cpus = sb::parseProcStat(kStat);
    QVERIFY(cpus.ok());
    QCOMPARE(cpus->size(), std::size_t(5));
    QCOMPARE(cpus->at(1).user, quint64(1400));
    QCOMPARE(cpus->at(1).softirq, quint64(40));
    QCOMPARE(cpus->at(0).idleAll(), quint64(1637820 + 410));
}

void TestProcParsers::statMalformed_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("no cpu lines") << QByteArray("intr 1 2 3\n");
    QTest::newRow("too few fields") << QByteArray("cpu 1 2\n");
    QTest::newRow("garbage number") << QByteArray("cpu 1 2 x 4 5\n");
}

void TestProcParsers::statMalformed() {
    QFETCH(QByteArray, text);
    const auto cpus = sb::parseProcStat(text);
    QVERIFY(!cpus.ok());
    QVERIFY(cpus.error().contains(u"/proc/stat"_s));
}

void TestProcParsers::meminfo() {
    const auto m = sb::parseMemInfo(kMeminfo);
    QVERIFY(m.ok());
    QCOMPARE(m->totalKiB, quint64(24567892));
    QCOMPARE(m->availableKiB, quint64(22000000));
    QCOMPARE(m->swapFreeKiB, quint64(2000000));
    QVERIFY(!sb::parseMemInfo("MemTotal: 5 kB\n").ok()); // kernels before 3.14 lack MemAvailable
}

void TestProcParsers::loadavg_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<double>("one");
    QTest::addColumn<int>("tasks");
    QTest::newRow("normal") << QByteArray("0.52 0.58 0.59 2/1042 12345\n") << true << 0.52 << 1042;
    QTest::newRow("truncated") << QByteArray("0.52 0.58") << false << 0.0 << 0;
    QTest::newRow("garbage") << QByteArray("a b c 1/2 3") << false << 0.0 << 0;
}

void TestProcParsers::loadavg() {
    QFETCH(QByteArray, text);
    QFETCH(bool, valid);
    QFETCH(double, one);
    QFETCH(int, tasks);
    const auto load = sb::parseLoadAvg(text);
    QCOMPARE(load.ok(), valid);
    if (valid) {
        QCOMPARE(load->one, one);
        QCOMPARE(load->tasks, tasks);
    }
}

void TestProcParsers::usage() {
    std::vector<sb::CpuTimes> before(1), after(1);
    before[0].user = 100;
    before[0].idle = 900;
    after[0].user = 175; // +75 busy
    after[0].idle = 925; // +25 idle
    const auto usage = sb::cpuUsagePercent(before, after);
    QCOMPARE(usage.size(), std::size_t(1));
    QCOMPARE(usage[0], 75.0);
    QVERIFY(sb::cpuUsagePercent(before, {}).empty()); // a CPU went away: no reading
    QCOMPARE(sb::cpuUsagePercent(before, before)[0], 0.0);
}

void TestProcParsers::samplerReadsARoot() {
    QTemporaryDir root;
    auto write = [&](const QString &name, QByteArrayView text) {
        QFile f(root.path() + u'/' + name);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text.toByteArray());
    };
    write(u"stat"_s, kStat);
    write(u"meminfo"_s, kMeminfo);
    write(u"loadavg"_s, "1.00 0.50 0.25 3/100 42\n");
    sb::LocalSampler sampler(root.path());
    auto first = sampler.sampleNow();
    QVERIFY2(first.error.isEmpty(), qPrintable(first.error));
    QCOMPARE(first.corePercent.size(), std::size_t(4));
    QCOMPARE(first.load.one, 1.0);
    write(u"loadavg"_s, "garbage");
    const auto broken = sampler.sampleNow();
    QVERIFY(broken.error.contains(u"loadavg"_s));
    QFile::remove(root.path() + u"/meminfo"_s);
    QVERIFY(sampler.sampleNow().error.contains(u"meminfo"_s));
    // The real /proc of this machine parses too.
    sb::LocalSampler local;
    const auto real = local.sampleNow();
    QVERIFY2(real.error.isEmpty(), qPrintable(real.error));
    QVERIFY(!real.corePercent.empty());
    QVERIFY(real.memory.totalKiB > 0);
}

void TestProcParsers::samplerRunsNvidiaSmi() {
    // Fake nvidia-smi programs: one replays a real H200 capture and notes its arguments, one
    // fails as a node with a half-upgraded driver does, one hangs.
    QTemporaryDir dir;
    auto script = [&](const QString &name, const QString &body) {
        const QString path = dir.path() + u'/' + name;
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return QString();
        f.write(QString(u"#!/bin/sh\n"_s + body + u"\n"_s).toUtf8());
        f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
        return path;
    };
    const QString capture = QStringLiteral(SIGNALBOX_TEST_DATA) + u"/nvidia-smi-query-gpu.csv"_s;
    // This test's own process stands for a training process on the GPU.
    const QString pid = QString::number(QCoreApplication::applicationPid());
    const QString replay = script(
        u"replay"_s,
        u"echo \"$@\" >> %1/args; case \"$*\" in *--query-gpu*) cat %2;;\n"
        "*--query-compute-apps*) printf 'gpu_uuid, pid, process_name, used_gpu_memory [MiB]\\n"
        "GPU-00000000-0000-0000-0000-000000000000, %3, tst, 100 MiB\\n';;\n"
        "pmon*) printf '# gpu pid type sm mem command\\n# Idx # C/G %% %% name\\n"
        " 0 %3 C 55 12 tst\\n';; esac"_s.arg(dir.path(), capture, pid));
    sb::LocalSampler sampler(u"/proc"_s, 1000, replay);
    sampler.sampleNow();
    const auto sample = sampler.sampleNow();
    QCOMPARE(sample.gpuProcesses.size(), std::size_t(1));
    const sb::GpuProcess &self = sample.gpuProcesses.front();
    QCOMPARE(self.smPercent.value(), 55.0);
    QCOMPARE(self.memoryBandwidthPercent.value(), 12.0);
    QVERIFY(self.rssKiB.value() > 0);
    QVERIFY(self.elapsedSeconds.value() >= 0);
    QVERIFY(self.cpuPercent.value() >= 0); // read between the two samples
    QVERIFY(!self.user.isEmpty());
    QVERIFY(self.command.contains(u"tst_procparsers"_s));
    QVERIFY2(sample.gpuError.isEmpty(), qPrintable(sample.gpuError));
    QCOMPARE(sample.gpus.size(), std::size_t(1));
    QCOMPARE(sample.gpus.front().name, u"NVIDIA H200"_s);
    QVERIFY(sample.gpus.front().memoryTotalMiB.value() > 100000);
    QFile args(dir.path() + u"/args"_s);
    QVERIFY(args.open(QIODevice::ReadOnly));
    QCOMPARE(args.readLine().trimmed(),
             (u"--query-gpu="_s + sb::SampleScript::gpuFields().join(u',') + u" --format=csv"_s)
                 .toUtf8());

    const QString broken =
        script(u"broken"_s,
               u"echo 'Failed to initialize NVML: Driver/library version mismatch'; exit 18"_s);
    const auto mismatch = sb::LocalSampler(u"/proc"_s, 1000, broken).sampleNow();
    QVERIFY(mismatch.error.isEmpty()); // the CPU side still reads
    QVERIFY(mismatch.gpus.empty());
    QVERIFY(mismatch.gpuError.contains(u"Driver/library version mismatch"_s));

    const QString hung = script(u"hung"_s, u"exec sleep 60"_s);
    const auto timedOut = sb::LocalSampler(u"/proc"_s, 1000, hung).sampleNow();
    QVERIFY(timedOut.gpuError.contains(u"did not answer"_s));
}

void TestProcParsers::processTicks() {
    QFile self(u"/proc/self/stat"_s);
    QVERIFY(self.open(QIODevice::ReadOnly));
    double rate = 0;
    const auto real = sb::parseProcessTicks(QByteArray("100\n").append(self.readAll()), &rate);
    QCOMPARE(rate, 100.0);
    QCOMPARE(real.size(), std::size_t(1));
    QCOMPARE(real.front().pid, QCoreApplication::applicationPid());
    // A command name with spaces and parentheses; garbage lines skipped; no rate.
    const auto odd = sb::parseProcessTicks(
        "x\n7 (a) b (c) R 1 7 7 0 -1 0 0 0 0 0 30 12 0 0 20 0 1 0 5 6 7\n(\n8 (z) R 1\n))\n",
        &rate);
    QCOMPARE(rate, 0.0);
    QCOMPARE(odd.size(), std::size_t(1));
    QCOMPARE(odd.front().ticks, quint64(42));
}

QTEST_GUILESS_MAIN(TestProcParsers)
#include "tst_procparsers.moc"
