// nvidia-smi parsing on real captures (tests/data/nvidia-smi, from the nvidia_gpu_exporter
// project, MIT): H100, H100 with MIG, H200, RTX 2080 Super on Linux and Windows, idle and loaded.
#include "monitor/NvidiaSmiParser.h"

#include <QDir>
#include <QFile>
#include <QTest>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace {

QByteArray capture(const QString &file) {
    QFile f(QStringLiteral(SIGNALBOX_TEST_DATA) + u"/nvidia-smi/"_s + file);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing capture %s", qPrintable(file));
    return f.readAll();
}

// The body of the capture section titled e.g. "load :: query-gpu".
QByteArray section(const QByteArray &text, const QByteArray &title) {
    const qsizetype at = text.indexOf(QByteArray("# ").append(title));
    if (at < 0)
        return {};
    const qsizetype start = text.indexOf("\n####", at);
    const qsizetype bodyStart = text.indexOf('\n', start + 1) + 1;
    const qsizetype end = text.indexOf("\n####", bodyStart);
    return text.mid(bodyStart, end < 0 ? -1 : end - bodyStart);
}

} // namespace

class TestNvidiaSmi final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyCapture_data();
    void everyCapture();
    void loadedH100Values();
    void migCapture();
    void computeApps();
    void windowsProcessNamesWithCommas();
    void subsetAnyOrderAndOldFieldNames();
    void pmonOnEveryCapture_data() { everyCapture_data(); }
    void pmonOnEveryCapture();
    void pmonColumnsAndBadRows();
    void badInput_data();
    void badInput();
};

void TestNvidiaSmi::everyCapture_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QByteArray>("phase");
    for (const QString &file : QDir(QStringLiteral(SIGNALBOX_TEST_DATA) + u"/nvidia-smi"_s)
                                   .entryList({u"*.txt"_s}, QDir::Files)) {
        for (const QByteArray &phase : {QByteArray("idle"), QByteArray("load")})
            QTest::newRow(qPrintable(file + u' ' + QString::fromLatin1(phase))) << file << phase;
    }
}

void TestNvidiaSmi::everyCapture() {
    QFETCH(QString, file);
    QFETCH(QByteArray, phase);
    const QByteArray text = capture(file);
    const auto gpus =
        sb::NvidiaSmi::parseQueryGpu(section(text, QByteArray(phase).append(" :: query-gpu")));
    QVERIFY2(gpus.ok(), qPrintable(gpus.error()));
    QVERIFY(!gpus->empty());
    for (const sb::GpuReading &gpu : *gpus) {
        QVERIFY(gpu.index.has_value());
        QVERIFY(gpu.name.startsWith(u"NVIDIA"_s));
        QVERIFY(gpu.uuid.startsWith(u"GPU-"_s));
        QVERIFY(gpu.memoryTotalMiB.value_or(0) > 1000);
        QVERIFY(gpu.memoryUsedMiB.has_value());
        QVERIFY(gpu.temperatureC.value_or(0) > 0);
        QVERIFY(gpu.smClockMHz.has_value());
        QVERIFY(gpu.pstate.startsWith(u'P'));
        QVERIFY(gpu.fields.size() > 100); // every queried field is kept
        QVERIFY(!gpu.unavailable.isEmpty());
    }
    const auto apps = sb::NvidiaSmi::parseComputeApps(
        section(text, QByteArray(phase).append(" :: query-compute-apps")));
    QVERIFY2(apps.ok(), qPrintable(apps.error()));
}

void TestNvidiaSmi::loadedH100Values() {
    const QByteArray text = capture(u"linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt"_s);
    const auto gpus = sb::NvidiaSmi::parseQueryGpu(section(text, "load :: query-gpu"));
    QVERIFY(gpus.ok());
    QCOMPARE(gpus->size(), std::size_t(1));
    const sb::GpuReading &gpu = gpus->front();
    QCOMPARE(gpu.name, u"NVIDIA H100 80GB HBM3"_s);
    QCOMPARE(gpu.index.value(), 0);
    QVERIFY(gpu.utilizationGpu.value() > 50); // gpu-burn was running
    QVERIFY(gpu.memoryUsedMiB.value() > 5000);
    QVERIFY(gpu.powerDrawW.value() > 100);
    QVERIFY(gpu.powerLimitW.value() >= 300);
    QCOMPARE(gpu.fields.value(u"driver_version"_s).toString(), u"590.48.01"_s);
    QVERIFY(gpu.fields.value(u"fan.speed"_s).isNull()); // [N/A] on a passively cooled board
    QCOMPARE(gpu.unavailable.value(u"fan.speed"_s).toString(), u"[N/A]"_s);
}

void TestNvidiaSmi::migCapture() {
    const QByteArray text = capture(u"linux-x86_64__nvidia-h100-mig__590.48.01.txt"_s);
    const auto gpus = sb::NvidiaSmi::parseQueryGpu(section(text, "load :: query-gpu"));
    QVERIFY(gpus.ok());
    QCOMPARE(gpus->front().fields.value(u"mig.mode.current"_s).toString(), u"Enabled"_s);
}

void TestNvidiaSmi::computeApps() {
    const QByteArray text = capture(u"linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt"_s);
    const auto apps = sb::NvidiaSmi::parseComputeApps(section(text, "load :: query-compute-apps"));
    QVERIFY(apps.ok());
    QCOMPARE(apps->size(), std::size_t(3));
    QCOMPARE(apps->at(2).processName, u"./gpu_burn"_s);
    QCOMPARE(apps->at(2).usedMemoryMiB.value(), 15690.0);
    QVERIFY(apps->at(0).gpuUuid.startsWith(u"GPU-"_s));
    QVERIFY(apps->at(0).pid > 0);
}

void TestNvidiaSmi::windowsProcessNamesWithCommas() {
    const QByteArray csv = "pid, process_name, used_gpu_memory [MiB]\n"
                           "12444, C:\\Program Files\\App, Inc\\app.exe, [N/A]\n"
                           "2056, python3, 1024 MiB\n";
    const auto apps = sb::NvidiaSmi::parseComputeApps(csv);
    QVERIFY2(apps.ok(), qPrintable(apps.error()));
    QCOMPARE(apps->at(0).processName, u"C:\\Program Files\\App, Inc\\app.exe"_s);
    QVERIFY(!apps->at(0).usedMemoryMiB);
    QCOMPARE(apps->at(1).usedMemoryMiB.value(), 1024.0);
}

void TestNvidiaSmi::subsetAnyOrderAndOldFieldNames() {
    // Older drivers call the throttle reasons clocks_throttle_reasons.*, and accept clocks.sm.
    const QByteArray csv = "memory.used [MiB], index, clocks_throttle_reasons.sw_power_cap, "
                           "clocks.current.sm [MHz], utilization.gpu [%]\n"
                           "100 MiB, 1, Active, 1410 MHz, [Not Supported]\n";
    const auto gpus = sb::NvidiaSmi::parseQueryGpu(csv);
    QVERIFY2(gpus.ok(), qPrintable(gpus.error()));
    const sb::GpuReading &gpu = gpus->front();
    QCOMPARE(gpu.index.value(), 1);
    QCOMPARE(gpu.memoryUsedMiB.value(), 100.0);
    QCOMPARE(gpu.smClockMHz.value(), 1410.0);
    QVERIFY(!gpu.utilizationGpu);
    QCOMPARE(gpu.unavailable.value(u"utilization.gpu"_s).toString(), u"[Not Supported]"_s);
    QCOMPARE(gpu.clockEventReasons, QStringList{u"sw_power_cap"_s});
}

void TestNvidiaSmi::pmonOnEveryCapture() {
    QFETCH(QString, file);
    QFETCH(QByteArray, phase);
    const QByteArray text = section(capture(file), phase + " :: pmon");
    QVERIFY(!text.isEmpty());
    const auto rows = sb::NvidiaSmi::parsePmon(text);
    QVERIFY2(rows, qPrintable(rows.error()));
    // The capture samples five times; each process is kept once, with its last row.
    const auto apps =
        sb::NvidiaSmi::parseComputeApps(section(capture(file), phase + " :: query-compute-apps"));
    QVERIFY(apps);
    for (const sb::PmonRow &row : *rows) {
        QVERIFY(row.pid > 0);
        QCOMPARE(std::count_if(
                     rows->begin(), rows->end(),
                     [&](const auto &r) { return r.pid == row.pid && r.gpuIndex == row.gpuIndex; }),
                 1);
    }
    if (phase == "idle" && !file.startsWith(u"windows"_s) && !file.contains(u"2080"_s))
        QVERIFY(rows->empty()); // "-" in every cell of an idle GPU
    if (file.contains(u"h100-80gb"_s) && phase == "load") {
        QCOMPARE(rows->size(), std::size_t(3));
        const auto burn = std::find_if(rows->begin(), rows->end(),
                                       [](const auto &r) { return r.command == u"gpu_burn"_s; });
        QVERIFY(burn != rows->end());
        QCOMPARE(burn->smPercent.value(), 99.0);
        QCOMPARE(burn->memoryPercent.value(), 10.0);
        QCOMPARE(burn->type, u"C"_s);
        QVERIFY(!rows->front().smPercent); // memhog: "-"
    }
    if (file.startsWith(u"windows"_s) && phase == "load") {
        QVERIFY(std::any_of(rows->begin(), rows->end(), [](const auto &r) {
            return r.command == u"NVIDIA Share.exe"_s && r.type == u"C+G"_s;
        }));
    }
}

void TestNvidiaSmi::pmonColumnsAndBadRows() {
    // -s um adds frame-buffer memory before the command; older drivers lack jpg and ofa.
    const auto um = sb::NvidiaSmi::parsePmon(
        "# gpu        pid  type    sm   mem   enc   dec    fb   command\n"
        "# Idx          #   C/G     %     %     %     %    MB   name\n"
        "    1      31337     C    42     7     -     -  8000   python train.py\n"
        "    1      31337     C    44     8     -     -  8000   python train.py\n");
    QVERIFY(um);
    QCOMPARE(um->size(), std::size_t(1));
    QCOMPARE(um->front().gpuIndex, 1);
    QCOMPARE(um->front().smPercent.value(), 44.0);
    QCOMPARE(um->front().command, u"python train.py"_s);
    QVERIFY(!sb::NvidiaSmi::parsePmon("    0  12  C  5  5  x\n")); // no header
    QVERIFY(!sb::NvidiaSmi::parsePmon("# gpu pid type sm command\n 0 12\n"));
    QVERIFY(!sb::NvidiaSmi::parsePmon("# gpu pid type sm command\n x 12 C 5 y\n"));
    const auto odd = sb::NvidiaSmi::parsePmon("# gpu pid type sm command\n 0 12 C nan y\n"
                                              " 0 -1 C 5 y\n 0 13 C 1e999 z\n");
    QVERIFY(odd);
    QCOMPARE(odd->size(), std::size_t(2));
    QVERIFY(!odd->front().smPercent && !odd->back().smPercent);
    QVERIFY(sb::NvidiaSmi::parsePmon("").value().empty());
}

void TestNvidiaSmi::badInput_data() {
    QTest::addColumn<QByteArray>("csv");
    QTest::addColumn<QString>("message");
    QTest::newRow("driver mismatch")
        << QByteArray("Failed to initialize NVML: Driver/library version mismatch\nNVML library "
                      "version: 535.183\n")
        << u"Driver/library version mismatch"_s;
    QTest::newRow("empty") << QByteArray("\n") << u"printed nothing"_s;
    QTest::newRow("no header") << QByteArray("0, 45, 100 MiB\n") << u"header"_s;
    QTest::newRow("short row") << QByteArray("index, memory.used [MiB]\n0\n") << u"line 2"_s;
    QTest::newRow("garbled row") << QByteArray("index, memory.used [MiB]\n0, 1, 2\n")
                                 << u"line 2"_s;
}

void TestNvidiaSmi::badInput() {
    QFETCH(QByteArray, csv);
    QFETCH(QString, message);
    const auto gpus = sb::NvidiaSmi::parseQueryGpu(csv);
    QVERIFY(!gpus.ok());
    QVERIFY2(gpus.error().contains(message), qPrintable(gpus.error()));
}

QTEST_APPLESS_MAIN(TestNvidiaSmi)
#include "tst_nvidiasmi.moc"
