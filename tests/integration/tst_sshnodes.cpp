// Nodes over real SSH: sshd instances on loopback with a fake nvidia-smi replaying real captures.
#include "../support/SshNodes.h"
#include "monitor/NodeConnection.h"
#include "ssh/ShellQuote.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace Qt::StringLiterals;
using State = sb::NodeStatus::State;

namespace {

const QString kH100 = u"linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt"_s;

// The latest status and sample of one connection.
struct Watch {
    sb::NodeStatus status;
    std::optional<sb::NodeSample> sample;
    int samples = 0;
    explicit Watch(sb::NodeConnection *c) {
        QObject::connect(c, &sb::NodeConnection::statusChanged, c,
                         [this](const QString &, const sb::NodeStatus &s) { status = s; });
        QObject::connect(c, &sb::NodeConnection::sampled, c,
                         [this](const QString &, const sb::NodeSample &s) {
                             sample = s;
                             ++samples;
                         });
    }
};

} // namespace

class TestSshNodes : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void unknownHostAskedThenSampled();
    void changedHostKeyRefused();
    void hungNodeMarkedUnreachableAndRecovers();
    void hostileArgumentsStayLiteral();
    void cpuOnlyNodeAndBrokenDriver();
    void encryptedKeyAsksForItsPassphrase();
    void refusedConnectionRetriesWithBackoff();
};

void TestSshNodes::unknownHostAskedThenSampled() {
    SshNodes nodes({u"h100="_s + kH100});
    QVERIFY2(nodes.error().isEmpty(), qPrintable(nodes.error()));
    sb::NodeConnection connection(nodes.config(u"h100"_s), {nodes.knownHostsFile()});
    Watch watch(&connection);
    connection.start();
    // Never trusted: the connection stops at the host key and shows its fingerprint.
    QTRY_COMPARE_WITH_TIMEOUT(watch.status.state, State::HostKeyUnknown, 15000);
    QCOMPARE(watch.status.fingerprint, nodes.node(u"h100"_s).fingerprint);
    QCOMPARE(watch.samples, 0);
    // A different fingerprint than the one shown is not a reason to trust.
    connection.trustHostKey(u"SHA256:not-the-one-shown"_s);
    QTest::qWait(1500);
    QCOMPARE(watch.status.state, State::HostKeyUnknown);
    connection.trustHostKey(watch.status.fingerprint);
    QTRY_VERIFY_WITH_TIMEOUT(watch.samples >= 3, 20000);
    QCOMPARE(watch.status.state, State::Connected);
    const sb::NodeSample &s = *watch.sample;
    QVERIFY2(s.error.isEmpty(), qPrintable(s.error));
    QVERIFY(!s.corePercent.empty());
    QVERIFY(s.memory.totalKiB > 0);
    QVERIFY(!s.topCpu.empty());
    QVERIFY(!s.topMemory.empty());
    QVERIFY(s.hasNvidiaSmi);
    QVERIFY2(s.gpuError.isEmpty(), qPrintable(s.gpuError));
    QCOMPARE(s.gpus.size(), std::size_t(1));
    QCOMPARE(s.gpus.front().name, u"NVIDIA H100 80GB HBM3"_s);
    QVERIFY(s.gpus.front().utilizationGpu.has_value());
    // Compute processes joined with their owner and full command line on the node.
    QCOMPARE(s.gpuProcesses.size(), std::size_t(nodes.node(u"h100"_s).gpuPids.size()));
    for (const sb::GpuProcess &p : s.gpuProcesses) {
        QVERIFY(nodes.node(u"h100"_s).gpuPids.contains(p.pid));
        QVERIFY(!p.user.isEmpty());
        QVERIFY2(p.command.contains(u"--config experiments/h100.yaml"_s), qPrintable(p.command));
    }
    // The fake replays the capture with utilization moving from second to second.
    QSet<double> seen;
    for (int i = 0; i < 4; ++i) {
        const int before = watch.samples;
        QTRY_VERIFY_WITH_TIMEOUT(watch.samples > before, 5000);
        seen.insert(watch.sample->gpus.front().utilizationGpu.value_or(-1));
    }
    QVERIFY(seen.size() >= 2);
    QVERIFY(watch.status.lastSeen.isValid());
}

void TestSshNodes::changedHostKeyRefused() {
    SshNodes nodes({u"box"_s});
    QVERIFY2(nodes.error().isEmpty(), qPrintable(nodes.error()));
    QVERIFY(nodes.trustAll());
    sb::NodeConnection connection(nodes.config(u"box"_s), {nodes.knownHostsFile()});
    Watch watch(&connection);
    connection.start();
    QTRY_VERIFY_WITH_TIMEOUT(watch.samples >= 1, 15000);
    // The node comes back with another key: Signalbox refuses and says what to do.
    QVERIFY(nodes.command(u"rekey box"_s));
    QTRY_COMPARE_WITH_TIMEOUT(watch.status.state, State::HostKeyChanged, 30000);
    QVERIFY(watch.status.message.contains(u"changed"_s));
    QVERIFY(watch.status.message.contains(u"ssh-keygen -R"_s));
    const int samples = watch.samples;
    QTest::qWait(3000);
    QCOMPARE(watch.samples, samples); // no retries that could leak anything to that server
}

void TestSshNodes::hungNodeMarkedUnreachableAndRecovers() {
    SshNodes nodes({u"h100="_s + kH100});
    QVERIFY2(nodes.error().isEmpty(), qPrintable(nodes.error()));
    QVERIFY(nodes.trustAll());
    sb::NodeConnection connection(nodes.config(u"h100"_s), {nodes.knownHostsFile(), 4, 4});
    Watch watch(&connection);
    connection.start();
    QTRY_VERIFY_WITH_TIMEOUT(watch.samples >= 2, 15000);

    // Measure how long the event loop goes without running a 10 ms timer during the hang.
    QElapsedTimer tick;
    qint64 worstGapMs = 0;
    QTimer probe;
    probe.setInterval(10);
    QObject::connect(&probe, &QTimer::timeout,
                     [&] { worstGapMs = std::max(worstGapMs, tick.restart()); });
    QVERIFY(nodes.command(u"stop h100"_s));
    QElapsedTimer hung;
    hung.start();
    tick.start();
    probe.start();
    QTRY_COMPARE_WITH_TIMEOUT(watch.status.state, State::Unreachable, 10000);
    const qint64 detectedMs = hung.elapsed();
    QVERIFY2(watch.status.message.contains(u"no answer"_s), qPrintable(watch.status.message));
    QTest::qWait(3000); // a reconnect attempt runs into the hung sshd meanwhile
    probe.stop();
    qInfo("hung node marked unreachable after %.2f s (limit %.1f s); longest event-loop gap "
          "during the hang: %lld ms",
          detectedMs / 1000.0, std::chrono::duration<double>(connection.silenceLimit()).count(),
          worstGapMs);
    // Behaviour, not timing: a GUI thread that blocked on the network would stall for the
    // whole connect timeout (4 s); it must keep turning.
    QVERIFY(worstGapMs < 1000);

    QVERIFY(nodes.command(u"cont h100"_s));
    const int before = watch.samples;
    QTRY_VERIFY_WITH_TIMEOUT(watch.status.state == State::Connected && watch.samples > before + 1,
                             30000);
}

void TestSshNodes::hostileArgumentsStayLiteral() {
    SshNodes nodes({u"box"_s});
    QVERIFY2(nodes.error().isEmpty(), qPrintable(nodes.error()));
    QVERIFY(nodes.trustAll());
    sb::NodeConnection connection(nodes.config(u"box"_s), {nodes.knownHostsFile()});
    connection.start();
    const QString marker = nodes.dir() + u"/pwned"_s;
    const QStringList hostile{u"; touch %1"_s.arg(marker),
                              u"$(touch %1)"_s.arg(marker),
                              u"`touch %1`"_s.arg(marker),
                              u"it's \"quoted\" \\ and 'single'"_s,
                              u"line one\nline two; touch %1"_s.arg(marker),
                              u"$HOME ~ * ?"_s,
                              u"|| touch %1 &"_s.arg(marker),
                              u""_s,
                              u"-n"_s,
                              u"ünïcödé ✓"_s};
    std::optional<sb::Result<sb::ExecResult>> result;
    connection.exec(sb::shellCommand(QStringList{u"printf"_s, u"%s\\0"_s} + hostile), this,
                    [&](const sb::Result<sb::ExecResult> &r) { result = r; });
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 20000);
    QVERIFY2(result->ok(), qPrintable(result->error()));
    QCOMPARE((*result)->exitCode, 0);
    QList<QByteArray> words = (*result)->out.split('\0');
    QCOMPARE(words.takeLast(), QByteArray()); // after the final separator
    QCOMPARE(words.size(), hostile.size());
    for (qsizetype i = 0; i < hostile.size(); ++i)
        QCOMPARE(QString::fromUtf8(words[i]), hostile[i]);
    QVERIFY(!QFile::exists(marker));
    // Quoted twice (a command for `sh -c`, itself one argument) is still literal.
    result.reset();
    const QString inner = sb::shellCommand(QStringList{u"printf"_s, u"%s"_s, hostile[1]});
    connection.exec(sb::shellCommand({u"sh"_s, u"-c"_s, inner}), this,
                    [&](const sb::Result<sb::ExecResult> &r) { result = r; });
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 20000);
    QCOMPARE(QString::fromUtf8((*result)->out), hostile[1]);
    QVERIFY(!QFile::exists(marker));
}

void TestSshNodes::cpuOnlyNodeAndBrokenDriver() {
    SshNodes nodes({u"cpu"_s, u"broken="_s + kH100});
    QVERIFY2(nodes.error().isEmpty(), qPrintable(nodes.error()));
    QVERIFY(nodes.trustAll());
    // A node whose driver was upgraded under a loaded module.
    QFile smi(nodes.dir() + u"/broken/bin/nvidia-smi"_s);
    QVERIFY(smi.open(QIODevice::WriteOnly | QIODevice::Truncate));
    smi.write("#!/bin/sh\necho 'Failed to initialize NVML: Driver/library version mismatch'\n"
              "echo 'NVML library version: 590.48'\nexit 18\n");
    smi.close();
    sb::NodeConnection cpu(nodes.config(u"cpu"_s), {nodes.knownHostsFile()});
    sb::NodeConnection broken(nodes.config(u"broken"_s), {nodes.knownHostsFile()});
    Watch cpuWatch(&cpu);
    Watch brokenWatch(&broken);
    cpu.start();
    broken.start();
    QTRY_VERIFY_WITH_TIMEOUT(cpuWatch.samples >= 2 && brokenWatch.samples >= 2, 20000);
    QVERIFY(!cpuWatch.sample->hasNvidiaSmi);
    QVERIFY(cpuWatch.sample->gpus.empty());
    QVERIFY(cpuWatch.sample->gpuError.isEmpty());
    QVERIFY(!cpuWatch.sample->corePercent.empty());
    QCOMPARE(brokenWatch.status.state, State::Connected); // the node is fine, its GPUs are not
    QVERIFY(brokenWatch.sample->gpuError.contains(u"Driver/library version mismatch"_s));
    QVERIFY(brokenWatch.sample->memory.totalKiB > 0);
}

void TestSshNodes::encryptedKeyAsksForItsPassphrase() {
    SshNodes nodes({u"box"_s});
    QVERIFY2(nodes.error().isEmpty(), qPrintable(nodes.error()));
    QVERIFY(nodes.trustAll());
    // A key protected by a passphrase, authorized on the node.
    const QString key = nodes.dir() + u"/locked_ed25519"_s;
    QVERIFY(QProcess::execute(u"ssh-keygen"_s, {u"-q"_s, u"-t"_s, u"ed25519"_s, u"-N"_s,
                                                u"open sesame"_s, u"-f"_s, key}) == 0);
    QFile pub(key + u".pub"_s);
    QFile authorized(nodes.dir() + u"/authorized_keys"_s);
    QVERIFY(pub.open(QIODevice::ReadOnly) && authorized.open(QIODevice::Append));
    authorized.write(pub.readAll());
    authorized.close();
    sb::NodeConfig config = nodes.config(u"box"_s);
    config.identityFile = key;
    sb::NodeConnection connection(config, {nodes.knownHostsFile()});
    Watch watch(&connection);
    connection.start();
    QTRY_COMPARE_WITH_TIMEOUT(watch.status.state, State::NeedsPassphrase, 15000);
    QCOMPARE(watch.status.keyFile, key);
    QVERIFY(watch.status.message.contains(u"needs its passphrase"_s));
    connection.setPassphrase(u"wrong"_s);
    QTRY_VERIFY_WITH_TIMEOUT(watch.status.message.contains(u"not right"_s), 15000);
    QCOMPARE(watch.status.state, State::NeedsPassphrase);
    connection.setPassphrase(u"open sesame"_s);
    QTRY_VERIFY_WITH_TIMEOUT(watch.samples >= 1, 15000);
    QCOMPARE(watch.status.state, State::Connected);
}

void TestSshNodes::refusedConnectionRetriesWithBackoff() {
    SshNodes nodes({u"box"_s});
    QVERIFY2(nodes.error().isEmpty(), qPrintable(nodes.error()));
    QVERIFY(nodes.trustAll());
    QVERIFY(nodes.command(u"kill box"_s)); // a dead node: the port refuses
    sb::NodeConnection connection(nodes.config(u"box"_s), {nodes.knownHostsFile(), 4, 2});
    Watch watch(&connection);
    int attempts = 0;
    QObject::connect(&connection, &sb::NodeConnection::statusChanged, &connection,
                     [&](const QString &, const sb::NodeStatus &s) {
                         attempts += s.state == State::Connecting;
                     });
    connection.start();
    QTRY_COMPARE_WITH_TIMEOUT(watch.status.state, State::Unreachable, 10000);
    QVERIFY2(watch.status.message.contains(u"refused"_s), qPrintable(watch.status.message));
    // A job's command while the node is down fails at once with the reason, not after a hang.
    std::optional<sb::Result<sb::ExecResult>> result;
    connection.exec(u"true"_s, this, [&](const sb::Result<sb::ExecResult> &r) { result = r; });
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 10000);
    QVERIFY(!result->ok());
    QVERIFY(result->error().contains(u"box"_s));
    QTRY_VERIFY_WITH_TIMEOUT(attempts >= 3, 15000); // it keeps trying, backing off
    QVERIFY(nodes.command(u"start box"_s));
    QTRY_VERIFY_WITH_TIMEOUT(watch.samples >= 1, 15000);
    QCOMPARE(watch.status.state, State::Connected);
}

QTEST_GUILESS_MAIN(TestSshNodes)
#include "tst_sshnodes.moc"
