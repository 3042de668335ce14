#include "client/CollectorClient.h"
#include "collector/EmbeddedCollector.h"
#include "jobs/Backends.h"
#include "jobs/MetricLineForwarder.h"
#include "jobs/local/LocalBackend.h"
#include "util/Paths.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/stat.h>

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
    void aRunCutOffByQuittingHasNoEndTime();
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
    void theEmbeddedCollectorsSecretReachesItsRunsAndNoOneElse();

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
    // Its output and exit code go with it, once the history without it is on disk.
    QTRY_VERIFY(!QFileInfo::exists(directory));
    // And it stays gone at the next start (once the history, written off the GUI thread, says
    // so); the other run is still followed.
    QString unread;
    QTRY_VERIFY(!sb::findJob(sb::loadJobs(m_dir.filePath(u"jobs.json"_s), &unread), *ended));
    sb::LocalBackend again(options());
    QVERIFY(!sb::findJob(again.jobs(), *ended));
    QVERIFY(sb::findJob(again.jobs(), running));
    QVERIFY(again.stop(running));
    QTRY_VERIFY(sb::findJob(again.jobs(), running)->finishedState());
}

namespace {

// The collector's health as this client gets it: an error's message, or empty for a success.
QString healthError(sb::CollectorClient &client) {
    std::optional<sb::Result<sb::Health>> answer;
    QObject context;
    client.health(&context, [&](sb::Result<sb::Health> health) { answer.emplace(health); });
    QDeadlineTimer deadline(10000);
    while (!answer && !deadline.hasExpired())
        QTest::qWait(10);
    return !answer ? u"no answer"_s : answer->ok() ? QString() : answer->error();
}

mode_t modeOf(const QString &path) {
    struct stat info {};
    return ::lstat(QFile::encodeName(path).constData(), &info) == 0 ? info.st_mode & 07777 : 0;
}

} // namespace

// Finding 9 of issue 29: the embedded collector answered anyone on this machine, and any web
// page. Now it has a secret of its own that every request must bear; its runs get it in their
// environment, and the same user's scripts and CLI find it in a private runtime directory.
void TestLocalBackend::theEmbeddedCollectorsSecretReachesItsRunsAndNoOneElse() {
    QTemporaryDir runtime;
    qputenv("XDG_RUNTIME_DIR", QFile::encodeName(runtime.path()));
    qputenv("KUBECONFIG", QFile::encodeName(runtime.filePath(u"no-kubeconfig"_s)));
    qunsetenv("SIGNALBOX_COLLECTOR");
    sb::Collector::Options collectorOptions;
    collectorOptions.dataDir = m_dir.filePath(u"collector"_s);
    auto started = sb::EmbeddedCollector::start(collectorOptions);
    QVERIFY2(started, qPrintable(started.error()));
    const auto &embedded = *started;
    const QString secret = embedded->token();
    QCOMPARE(secret.size(), 64); // 32 bytes from the system's generator, in hex
    QVERIFY(QByteArray::fromHex(secret.toLatin1()).toHex() == secret.toLatin1());

    sb::CollectorClient stranger(embedded->url(), QString());
    QVERIFY2(healthError(stranger).contains(u"401"_s) || healthError(stranger).contains(u"token"_s),
             qPrintable(healthError(stranger)));
    sb::CollectorClient guessing(embedded->url(), QString(64, u'0'));
    QVERIFY(!healthError(guessing).isEmpty());
    sb::CollectorClient owner(embedded->url(), secret);
    QCOMPARE(healthError(owner), QString());

    // A run launched by the app's backends gets the collector and its secret.
    sb::Backends backends(&owner, {m_dir.filePath(u"backends"_s),
                                   m_dir.filePath(u"none.yaml"_s),
                                   {},
                                   embedded->url().toString(),
                                   false,
                                   secret});
    const auto id = backends.local().submit(
        shell(u"echo \"collector=$SIGNALBOX_COLLECTOR token=$SIGNALBOX_TOKEN\""_s));
    QVERIFY2(id, qPrintable(id.error()));
    QCOMPARE(waitFinished(backends.local(), *id).state, JobState::Succeeded);
    QVERIFY2(backends.local().log(*id)->contains(
                 u"collector=%1 token=%2"_s.arg(embedded->url().toString(), secret).toUtf8()),
             backends.local().log(*id)->constData());

    // Published for the same user's scripts and CLI: the token file is the owner's alone.
    QVERIFY(!sb::publishedCollector());
    QVERIFY(sb::publishCollector(embedded->url(), secret));
    const QString directory = runtime.filePath(u"signalbox"_s);
    QCOMPARE(sb::runtimeDirectory(false).value(), directory);
    QCOMPARE(modeOf(directory), mode_t(0700));
    QCOMPARE(modeOf(directory + u"/collector.token"_s), mode_t(0600));
    const auto published = sb::publishedCollector();
    QVERIFY(published);
    QCOMPARE(published->url, embedded->url());
    QCOMPARE(published->token, secret);
    QCOMPARE(sb::defaultCollectorUrl(), embedded->url());
    QUrl viaLocalhost = embedded->url();
    viaLocalhost.setHost(u"localhost"_s);
    QCOMPARE(sb::publishedCollectorToken(viaLocalhost), secret);
    // Never to another port or another host, where someone else may listen.
    QUrl otherPort = embedded->url();
    otherPort.setPort(embedded->url().port() == 1 ? 2 : 1);
    QCOMPARE(sb::publishedCollectorToken(otherPort), QString());
    QUrl otherHost = embedded->url();
    otherHost.setHost(u"collector.example"_s);
    QCOMPARE(sb::publishedCollectorToken(otherHost), QString());

    // A directory others may write to is not trusted; nor a file left by an app that is gone.
    QVERIFY(QFile::setPermissions(directory, QFile::Permissions(0x7777)));
    QVERIFY(!sb::runtimeDirectory(false));
    QVERIFY(!sb::publishedCollector());
    QVERIFY(
        QFile::setPermissions(directory, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    QFile stale(directory + u"/collector.url"_s);
    QVERIFY(stale.open(QIODevice::WriteOnly));
    stale.write(embedded->url().toString().toUtf8() + "\n999999999\n"); // above any pid_max
    stale.close();
    QVERIFY(!sb::publishedCollector());
    QCOMPARE(sb::defaultCollectorUrl(), QUrl(u"http://127.0.0.1:7410"_s));

    // Withdrawn when the app quits, unless another app published since.
    QVERIFY(sb::publishCollector(embedded->url(), secret));
    sb::withdrawCollector(otherPort);
    QVERIFY(sb::publishedCollector());
    sb::withdrawCollector(embedded->url());
    QVERIFY(!sb::publishedCollector());
    QVERIFY(!QFileInfo::exists(directory + u"/collector.token"_s));
    qunsetenv("XDG_RUNTIME_DIR");
    qunsetenv("KUBECONFIG");
}

void TestLocalBackend::aRunCutOffByQuittingHasNoEndTime() {
    QTemporaryDir own;
    Job old; // run by a Signalbox of before, in-process: gone with it
    old.id = u"old-run"_s;
    old.backend = u"local"_s;
    old.spec.command = {u"true"_s};
    old.state = JobState::Running;
    old.started = QDateTime::currentDateTime().addSecs(-60);
    old.logPath = own.filePath(u"old-run.log"_s);
    QVERIFY(sb::saveJobs(own.filePath(u"jobs.json"_s), {old}));
    const sb::LocalBackend::Options ownOptions{own.path(), 5000, {}};
    sb::LocalBackend reopened(ownOptions);
    const Job *lost = sb::findJob(reopened.jobs(), old.id);
    QVERIFY(lost);
    QCOMPARE(lost->state, JobState::Failed);
    QCOMPARE(lost->message, u"Signalbox quit while this run was going"_s);
    QVERIFY(!lost->finished.isValid()); // when it ended is not known
}

QTEST_GUILESS_MAIN(TestLocalBackend)
#include "tst_localbackend.moc"
