#include "jobs/LocalBackend.h"
#include "jobs/MetricLineForwarder.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using sb::Job;
using sb::JobState;

namespace {

// Waits (spinning the event loop) for the job to reach a finished state and returns it.
Job waitFinished(sb::LocalBackend &backend, const QString &id, int timeoutMs = 20000) {
    Job last;
    QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        for (const Job &job : backend.jobs()) {
            if (job.id == id)
                last = job;
        }
        if (last.finishedState())
            break;
        QTest::qWait(20);
    }
    return last;
}

sb::JobSpec shell(const QString &script, const QString &name = u"t"_s) {
    return {.name = name, .command = {u"/bin/sh"_s, u"-c"_s, script}};
}

} // namespace

class TestLocalBackend final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void runsAndCapturesOutput();
    void recordsFailure();
    void stopTerminatesTheProcessGroup();
    void stopEscalatesToKill();
    void stoppedJustBeforeQuittingReadsStopped();
    void refusesBadSpecs();
    void runsOutliveSignalbox();
    void brokenHistoryIsKeptAside_data();
    void brokenHistoryIsKeptAside();
    void argumentsAreNeverShellText();
    void forwarderKeepsOnlyMetricLines();
    void endedRunsLeaveTheHistory();

private:
    sb::LocalBackend::Options options(int graceMs = 5000) const {
        return {m_dir.path(), graceMs, {{u"SIGNALBOX_COLLECTOR"_s, u"http://127.0.0.1:1"_s}}};
    }
    QTemporaryDir m_dir;
};

void TestLocalBackend::runsAndCapturesOutput() {
    sb::LocalBackend backend(options());
    QSignalSpy appended(&backend, &sb::JobBackend::logAppended);
    const auto id = backend.submit(
        shell(u"echo out; echo err >&2; echo run=$SIGNALBOX_RUN c=$SIGNALBOX_COLLECTOR"_s));
    QVERIFY(id.ok());
    const Job job = waitFinished(backend, *id);
    QCOMPARE(job.state, JobState::Succeeded);
    QCOMPARE(job.exitCode.value(), 0);
    QVERIFY(job.started.isValid() && job.finished.isValid());
    const auto log = backend.log(*id);
    QVERIFY(log.ok());
    QVERIFY(log->contains("out\n"));
    QVERIFY(log->contains("err\n"));
    QVERIFY(log->contains(QByteArray("run=").append(id->toUtf8())));
    QVERIFY(log->contains("c=http://127.0.0.1:1"));
    QVERIFY(!appended.isEmpty());
}

void TestLocalBackend::recordsFailure() {
    sb::LocalBackend backend(options());
    const auto id = backend.submit(shell(u"exit 3"_s));
    const Job job = waitFinished(backend, *id);
    QCOMPARE(job.state, JobState::Failed);
    QCOMPARE(job.exitCode.value(), 3);
    QVERIFY(job.message.contains(u"3"_s));

    const auto missing = backend.submit({.name = u"m"_s, .command = {u"/nonexistent/program"_s}});
    QVERIFY(missing.ok());
    const Job notStarted = waitFinished(backend, *missing);
    QCOMPARE(notStarted.state, JobState::Failed);
    QVERIFY(notStarted.message.contains(u"could not start"_s));
}

void TestLocalBackend::stopTerminatesTheProcessGroup() {
    sb::LocalBackend backend(options());
    // The child sleeps in a grandchild, as a data loader worker would.
    const auto id = backend.submit(shell(u"sleep 300 & echo started; wait"_s));
    QTRY_VERIFY(backend.log(*id)->contains("started"));
    QVERIFY(backend.stop(*id).ok());
    const Job job = waitFinished(backend, *id);
    QCOMPARE(job.state, JobState::Stopped);
    QVERIFY(!backend.stop(*id).ok());
}

void TestLocalBackend::stopEscalatesToKill() {
    sb::LocalBackend backend(options(300));
    const auto id =
        backend.submit(shell(u"trap '' TERM; echo ready; while true; do sleep 0.1; done"_s));
    QTRY_VERIFY(backend.log(*id)->contains("ready"));
    QVERIFY(backend.stop(*id).ok());
    const Job job = waitFinished(backend, *id);
    QCOMPARE(job.state, JobState::Stopped);
}

// "Stop them and quit": the app is gone before the run ends; the next start still says stopped.
void TestLocalBackend::stoppedJustBeforeQuittingReadsStopped() {
    QTemporaryDir own;
    const sb::LocalBackend::Options ownOptions{own.path(), 5000, {}};
    QString id;
    {
        sb::LocalBackend backend(ownOptions);
        id = *backend.submit(shell(u"echo ready; sleep 300"_s));
        QTRY_VERIFY(backend.log(id)->contains("ready"));
        QVERIFY(backend.stop(id));
    } // quits at once
    sb::LocalBackend reopened(ownOptions);
    const Job job = waitFinished(reopened, id);
    QCOMPARE(job.state, JobState::Stopped);
    QCOMPARE(job.exitCode.value_or(-1), 128 + SIGTERM);
}

void TestLocalBackend::refusesBadSpecs() {
    sb::LocalBackend backend(options());
    QVERIFY(!backend.submit({.name = u"x"_s}).ok());
    const auto bad = backend.submit(
        {.name = u"x"_s, .command = {u"/bin/true"_s}, .workingDirectory = u"/no/such/dir"_s});
    QVERIFY(!bad.ok());
    QVERIFY(bad.error().contains(u"/no/such/dir"_s));
}

void TestLocalBackend::brokenHistoryIsKeptAside_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::newRow("truncated") << QByteArray(R"([{"id": "a", "state": "succ)");
    QTest::newRow("binary") << QByteArray("\x00\xff\xfe\x01 garbage", 13);
    QTest::newRow("wrong type") << QByteArray(R"({"id": "a"})");
    QTest::newRow("directory") << QByteArray();
}

void TestLocalBackend::brokenHistoryIsKeptAside() {
    QFETCH(QByteArray, content);
    QTemporaryDir own;
    const QString path = own.filePath(u"jobs.json"_s);
    if (content.isEmpty()) {
        QVERIFY(QDir().mkpath(path + u"/inside"_s));
    } else {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
    }
    QString id;
    {
        sb::LocalBackend backend({own.path(), 5000, {}});
        QVERIFY(backend.jobs().isEmpty());
        QVERIFY2(backend.restoreProblem().contains(u"kept as"_s),
                 qPrintable(backend.restoreProblem()));
        id = *backend.submit(shell(u"exit 0"_s));
        waitFinished(backend, id);
    }
    // The only copy of the old history is where the message says, untouched; the new one works.
    const QStringList aside = QDir(own.path()).entryList({u"jobs.json.broken-*"_s});
    QCOMPARE(aside.size(), 1);
    if (!content.isEmpty()) {
        QFile kept(own.filePath(aside.front()));
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), content);
    }
    sb::LocalBackend reopened({own.path(), 5000, {}});
    QVERIFY(reopened.restoreProblem().isEmpty());
    QCOMPARE(reopened.jobs().size(), 1);
    QCOMPARE(QFileInfo(path).permissions() & (QFile::ReadOther | QFile::ReadGroup),
             QFile::Permissions());
}

// A run outlives Signalbox: the next start follows it from where its log was, to its end; a run
// that vanished without an exit code (its wrapper killed too, as by a restart of the computer)
// says so.
void TestLocalBackend::runsOutliveSignalbox() {
    QTemporaryDir own; // a history of its own, without the other tests' jobs
    const sb::LocalBackend::Options ownOptions{own.path(), 5000, {}};
    const QString go = own.filePath(u"go"_s);
    QString finishedId, runningId, doomedId;
    {
        sb::LocalBackend backend(ownOptions);
        finishedId = *backend.submit(shell(u"exit 0"_s));
        waitFinished(backend, finishedId);
        runningId = *backend.submit(
            shell(u"echo before; while [ ! -e \"$0\" ]; do sleep 0.05; done; echo after; exit 4"_s
                      .replace(u"$0"_s, go)));
        doomedId = *backend.submit(shell(u"echo doomed; sleep 300"_s));
        auto running = [&](const QString &id) {
            const QList<Job> jobs = backend.jobs();
            return std::any_of(jobs.begin(), jobs.end(), [&](const Job &j) {
                return j.id == id && j.state == JobState::Running;
            });
        };
        QTRY_VERIFY(running(runningId) && running(doomedId));
        QTRY_VERIFY(backend.log(runningId)->contains("before\n"));
        QCOMPARE(backend.unfinished(), 2);
    } // Signalbox quits; the runs go on
    QFile(go).open(QIODevice::WriteOnly);
    // The doomed run and the wrapper that would record its end are killed, as by a reboot.
    QProcess::execute(u"pkill"_s, {u"-KILL"_s, u"-f"_s, u"signalbox-run .*"_s + doomedId});
    sb::LocalBackend reopened(ownOptions);
    for (const Job &job : reopened.jobs()) {
        if (job.id == doomedId) {
            QTRY_VERIFY(job.processGroup > 0);
            ::kill(-static_cast<pid_t>(job.processGroup), SIGKILL);
        }
    }
    QCOMPARE(reopened.jobs().size(), 3);
    const Job ran = waitFinished(reopened, runningId);
    QCOMPARE(ran.state, JobState::Failed);
    QCOMPARE(ran.exitCode.value_or(-1), 4);
    QCOMPARE(reopened.log(runningId).value(), QByteArray("before\nafter\n"));
    const Job lost = waitFinished(reopened, doomedId);
    QCOMPARE(lost.state, JobState::Failed);
    QVERIFY2(lost.message.contains(u"without an exit code"_s), qPrintable(lost.message));
    QVERIFY(!lost.exitCode);
    QCOMPARE(reopened.unfinished(), 0);
}

void TestLocalBackend::argumentsAreNeverShellText() {
    sb::LocalBackend backend(options());
    const QString hostile = u"; touch pwned; $(touch pwned2) 'quote\" \nnewline"_s;
    const auto id =
        backend.submit({u"args"_s, {u"/usr/bin/printf"_s, u"[%s]"_s, hostile}, m_dir.path(), {}});
    waitFinished(backend, *id);
    QCOMPARE(QString::fromUtf8(*backend.log(*id)), u"[%1]"_s.arg(hostile));
    QVERIFY(!QFile::exists(m_dir.path() + u"/pwned"_s));
    QVERIFY(!QFile::exists(m_dir.path() + u"/pwned2"_s));
}

void TestLocalBackend::forwarderKeepsOnlyMetricLines() {
    sb::MetricLineForwarder forwarder(nullptr);
    QCOMPARE(forwarder.takeMetricLines(u"j"_s, "hello\n@signalbox {\"loss\":"), QByteArray());
    QCOMPARE(forwarder.takeMetricLines(u"j"_s, " 1}\nmore\n"),
             QByteArray("@signalbox {\"loss\": 1}\n"));
    QCOMPARE(forwarder.takeMetricLines(u"other"_s, "@signalbox {\"a\": 2}\r\n"),
             QByteArray("@signalbox {\"a\": 2}\r\n"));
}

void TestLocalBackend::endedRunsLeaveTheHistory() {
    QString running; // started by an earlier Signalbox: it goes on without one
    {
        sb::LocalBackend earlier(options());
        const auto id = earlier.submit(shell(u"sleep 30"_s));
        QVERIFY(id);
        running = *id;
        QTRY_VERIFY(sb::findJob(earlier.jobs(), running)->state == JobState::Running);
    }
    sb::LocalBackend backend(options());
    const auto ended = backend.submit(shell(u"echo bye"_s));
    QVERIFY(ended);
    const Job done = waitFinished(backend, *ended);
    const QString directory = QFileInfo(done.logPath).path();
    QVERIFY(QFileInfo::exists(directory));
    // A run still going is not forgotten: it would go on unseen.
    const sb::Status refused = backend.forget(running);
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(u"stop it first"_s), qPrintable(refused.error()));
    QVERIFY(!backend.forget(u"no-such-run"_s));
    QSignalSpy removed(&backend, &sb::JobBackend::jobRemoved);
    QVERIFY(backend.forget(*ended));
    QCOMPARE(removed.size(), 1);
    QVERIFY(!sb::findJob(backend.jobs(), *ended));
    QVERIFY(!QFileInfo::exists(directory)); // its output and exit code went with it
    // And it stays gone at the next start; the other run is still followed.
    sb::LocalBackend again(options());
    QVERIFY(!sb::findJob(again.jobs(), *ended));
    QVERIFY(sb::findJob(again.jobs(), running));
    QVERIFY(again.stop(running));
    QTRY_VERIFY(sb::findJob(again.jobs(), running)->finishedState());
}

QTEST_GUILESS_MAIN(TestLocalBackend)
#include "tst_localbackend.moc"
