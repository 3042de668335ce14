// slurmrestd's answers and requests: real answers of Slurm 22.05's v0.0.38 (captured from
// tests/harness/slurmcluster.py --rest: an array with a pending range, a job that failed with
// exit code 3, one killed by SIGKILL, one cancelled while it waited), the later versions' forms
// written here from the documented schema, and the batch script read into a job description.
#include "jobs/slurm/SlurmCommands.h"
#include "jobs/slurm/SlurmRest.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

QByteArray capture(const QString &name) {
    QFile file(QStringLiteral(SIGNALBOX_TEST_DATA) + u"/slurmrest/"_s + name);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

const sb::SlurmJobRow *row(const QList<sb::SlurmJobRow> &rows, const QString &id) {
    for (const sb::SlurmJobRow &r : rows) {
        if (r.jobId == id)
            return &r;
    }
    return nullptr;
}

} // namespace

class TestSlurmRest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsTheControllersJobs();
    void readsAccounting();
    void readsTheLaterVersionsForms();
    void errorsAndEmptyAnswers();
    void batchScriptBecomesAJobDescription();
    void refusesWhatItCannotCarry();
    void neverSendsATokenInClear();
};

void TestSlurmRest::readsTheControllersJobs() {
    const QByteArray body = capture(u"jobs-22.05.json"_s);
    QVERIFY(!body.isEmpty());
    const QDateTime started = QDateTime::fromSecsSinceEpoch(1795487003);
    const auto rows = sb::parseSlurmRestJobs(body, u"nobody"_s, started.addSecs(65));
    QVERIFY2(rows, qPrintable(rows.error()));
    QCOMPARE(rows->size(), 7);
    // An array's running tasks and its pending range, named as squeue names them.
    const sb::SlurmJobRow *task = row(*rows, u"7_0"_s);
    QVERIFY(task && row(*rows, u"7_1"_s));
    QCOMPARE(task->state, u"RUNNING"_s);
    QCOMPARE(task->nodes, u"gpu1"_s);
    QCOMPARE(task->gres, u"gres:gpu:h100:1"_s);
    QCOMPARE(task->start, started);
    QCOMPARE(task->elapsed, u"1:05"_s);
    QCOMPARE(task->timeLeft, u"3:55"_s); // a 5-minute limit
    QCOMPARE(sb::slurmMessage(*task), u"on gpu1, 3:55 left"_s);
    const sb::SlurmJobRow *pending = row(*rows, u"7_[2-3%2]"_s);
    QVERIFY(pending);
    QCOMPARE(sb::slurmArrayTasks(pending->jobId), (QList<int>{2, 3}));
    QCOMPARE(pending->reason, u"JobArrayTaskLimit"_s);
    const sb::SlurmJobRow *waits = row(*rows, u"8"_s);
    QVERIFY(waits);
    QCOMPARE(waits->reason, u"Resources"_s);
    QVERIFY(waits->start.isValid()); // the estimated start
    QVERIFY(waits->elapsed.isEmpty());
    QVERIFY(!row(*rows, u"10"_s)->start.isValid());
    // Someone else's view: none of these are theirs; all users': every job.
    QCOMPARE(sb::parseSlurmRestJobs(body, u"alice"_s, started)->size(), 0);
    QCOMPARE(sb::parseSlurmRestJobs(body, {}, started)->size(), 7);
}

void TestSlurmRest::readsAccounting() {
    const auto rows = sb::parseSlurmRestAccounting(capture(u"accounting-22.05.json"_s));
    QVERIFY2(rows, qPrintable(rows.error()));
    QCOMPARE(rows->size(), 6);
    const sb::SlurmJobRow *task = row(*rows, u"7_2"_s); // the array's own record is task 2
    QVERIFY(task && row(*rows, u"7_0"_s) && row(*rows, u"7_1"_s));
    QCOMPARE(task->state, u"COMPLETED"_s);
    QCOMPARE(task->exitCode.value_or(-1), 0);
    QCOMPARE(task->gres, u"gpu:1"_s);
    QVERIFY(task->start.isValid() && task->end > task->start);
    QCOMPARE(task->elapsed, u"0:30"_s);
    // 22.05 writes exit code 0 for a job that exited 3 (sacct says 3:0): no code rather than
    // a wrong one.
    const sb::SlurmJobRow *failed = row(*rows, u"8"_s);
    QCOMPARE(failed->state, u"FAILED"_s);
    QVERIFY(!failed->exitCode);
    QCOMPARE(sb::slurmMessage(*failed), u"failed (Slurm gave no exit code)"_s);
    const sb::SlurmJobRow *killed = row(*rows, u"9"_s);
    QCOMPARE(killed->signal, 9);
    QCOMPARE(sb::slurmMessage(*killed), u"killed by signal 9"_s);
    const sb::SlurmJobRow *cancelled = row(*rows, u"10"_s);
    QCOMPARE(sb::slurmJobState(cancelled->state), sb::JobState::Stopped);
    QVERIFY(cancelled->nodes.isEmpty()); // "None assigned"
}

void TestSlurmRest::readsTheLaterVersionsForms() {
    // v0.0.40 on: states are lists, numbers say whether they are set, signals have an "id".
    const QByteArray jobs = R"({"jobs": [
      {"job_id": 41, "array_job_id": {"set": true, "infinite": false, "number": 40},
       "array_task_id": {"set": true, "infinite": false, "number": 3},
       "array_task_string": "", "job_state": ["RUNNING"], "state_reason": "None",
       "user_name": "alice", "partition": "gpu", "nodes": "gpu7", "name": "sweep",
       "tres_per_node": "gres/gpu:2",
       "start_time": {"set": true, "infinite": false, "number": 1795487000},
       "submit_time": {"set": true, "infinite": false, "number": 1795486990},
       "time_limit": {"set": true, "infinite": true, "number": 0}},
      {"job_id": 40, "array_job_id": {"set": true, "infinite": false, "number": 40},
       "array_task_id": {"set": false, "infinite": false, "number": 0},
       "array_task_string": "4-9%2", "job_state": ["PENDING"], "state_reason": "Priority",
       "user_name": "alice", "partition": "gpu", "nodes": "", "name": "sweep",
       "start_time": {"set": true, "infinite": false, "number": 0}}],
      "errors": [], "warnings": []})";
    const auto rows =
        sb::parseSlurmRestJobs(jobs, u"alice"_s, QDateTime::fromSecsSinceEpoch(1795487000 + 3725));
    QVERIFY2(rows, qPrintable(rows.error()));
    QCOMPARE(rows->size(), 2);
    QCOMPARE(rows->at(0).jobId, u"40_3"_s);
    QCOMPARE(rows->at(0).state, u"RUNNING"_s);
    QCOMPARE(rows->at(0).elapsed, u"1:02:05"_s);
    QCOMPARE(rows->at(0).timeLeft, u"UNLIMITED"_s);
    QCOMPARE(rows->at(1).jobId, u"40_[4-9%2]"_s);
    QVERIFY(!rows->at(1).start.isValid());

    const QByteArray accounting = R"({"jobs": [
      {"job_id": 43, "array": {"job_id": 0, "task_id": {"set": false, "infinite": false,
       "number": 0}, "task": ""}, "state": {"current": ["OUT_OF_MEMORY"], "reason": "None"},
       "exit_code": {"status": ["SIGNALED"], "return_code": {"set": false, "infinite": false,
       "number": 0}, "signal": {"id": {"set": true, "infinite": false, "number": 9},
       "name": "KILL"}}, "time": {"elapsed": 86461, "start": 1795400000, "end": 1795486461,
       "submission": 1795399990}, "nodes": "gpu3", "user": "alice", "partition": "gpu",
       "name": "big", "tres": {"allocated": [{"type": "gres", "name": "gpu", "id": 1001,
       "count": 8}]}},
      {"job_id": 44, "array": {"job_id": 44, "task_id": {"set": false, "infinite": false,
       "number": 0}, "task": "0x3F0"}, "state": {"current": ["PENDING"], "reason": "None"},
       "exit_code": {"status": ["PENDING"], "return_code": {"set": false, "infinite": false,
       "number": 0}}, "time": {"elapsed": 0}, "nodes": "None assigned", "user": "alice",
       "partition": "gpu", "name": "arr"}], "errors": []})";
    const auto done = sb::parseSlurmRestAccounting(accounting);
    QVERIFY2(done, qPrintable(done.error()));
    QCOMPARE(done->size(), 2);
    QCOMPARE(done->at(0).state, u"OUT_OF_MEMORY"_s);
    QCOMPARE(done->at(0).signal, 9);
    QVERIFY(!done->at(0).exitCode);
    QCOMPARE(done->at(0).elapsed, u"1-00:01:01"_s);
    QCOMPARE(done->at(0).gres, u"gpu:8"_s);
    QCOMPARE(done->at(1).jobId, u"44_[4-9]"_s); // the pending tasks' bitmap as a range
}

void TestSlurmRest::errorsAndEmptyAnswers() {
    // A job accounting has no record of is no job, not a failure.
    const auto nothing = sb::parseSlurmRestAccounting(capture(u"accounting-nothing-22.05.json"_s));
    QVERIFY2(nothing, qPrintable(nothing.error()));
    QVERIFY(nothing->isEmpty());
    const QByteArray refused =
        R"({"errors": [{"description": "unable to kill JobId=abc with signal 9: Invalid job id )"
        R"(specified", "error_number": 2017, "error": "Invalid job id specified",)"
        R"( "source": "slurm_kill_job"}]})";
    QCOMPARE(sb::slurmRestErrors(refused),
             u"unable to kill JobId=abc with signal 9: Invalid job id specified "
             "(slurm_kill_job)"_s);
    QVERIFY(sb::slurmRestErrors(R"({"errors": []})").isEmpty());
    for (const QByteArray &garbage :
         {QByteArray("Authentication failure"), QByteArray("[1,2]"), QByteArray("{\"jobs\": 3}"),
          QByteArray("{\"jobs\": [{\"job_id\": \"x\"}"), QByteArray()}) {
        QVERIFY(!sb::parseSlurmRestJobs(garbage, {}, QDateTime::currentDateTime()));
        QVERIFY(!sb::slurmRestErrors(garbage).isEmpty() || garbage == "{\"jobs\": 3}");
    }
    // Hostile values: absurd numbers and types read as unknown, never as a crash.
    const auto odd = sb::parseSlurmRestJobs(
        R"({"jobs": [{"job_id": 1e300, "job_state": 7, "start_time": -5, "time_limit": "x",
             "array_job_id": {"set": true, "number": "y"}, "user_name": null},
            {"job_id": 0}, 5, null]})",
        {}, QDateTime::currentDateTime());
    QVERIFY2(odd, qPrintable(odd.error()));
    for (const sb::SlurmJobRow &r : *odd)
        QVERIFY(!r.start.isValid());
}

void TestSlurmRest::batchScriptBecomesAJobDescription() {
    sb::JobSpec spec{.name = u"train"_s,
                     .command = {u"python3"_s, u"train.py"_s, u"--lr=0.1"_s},
                     .backend = u"slurm"_s,
                     .target = u"lab"_s,
                     .gpus = 2,
                     .workers = 2};
    spec.slurm.partition = u"gpu"_s;
    spec.slurm.timeLimit = u"1-02:03:04"_s;
    spec.slurm.memory = u"16G"_s;
    spec.slurm.cpusPerTask = 4;
    spec.slurm.gpuType = u"h100"_s;
    spec.slurm.dependency = u"afterok:12"_s;
    const auto script = sb::slurmBatchScript(spec, {.name = u"lab"_s, .account = u"ml"_s});
    QVERIFY2(script, qPrintable(script.error()));
    const sb::SlurmRestSubmission job{
        .name = u"train-1"_s,
        .output = u"/ws/train-1/log"_s,
        .directory = u"/ws/code"_s,
        .environment = {{u"SIGNALBOX_RUN"_s, u"train-1"_s}, {u"PATH"_s, u"/usr/bin:/bin"_s}}};
    const auto v38 = sb::slurmRestSubmitBody(*script, job, u"v0.0.38"_s);
    QVERIFY2(v38, qPrintable(v38.error()));
    QCOMPARE(v38->value("script"_L1).toString(), *script);
    const QJsonObject d = v38->value("job"_L1).toObject();
    QCOMPARE(d.value("partition"_L1).toString(), u"gpu"_s);
    QCOMPARE(d.value("account"_L1).toString(), u"ml"_s);
    QCOMPARE(d.value("time_limit"_L1).toInt(), 24 * 60 + 2 * 60 + 4); // 3:04 rounds up
    QCOMPARE(d.value("memory_per_node"_L1).toInt(), 16384);
    QCOMPARE(d.value("cpus_per_task"_L1).toInt(), 4);
    QCOMPARE(d.value("gpus_per_node"_L1).toString(), u"h100:2"_s);
    QCOMPARE(d.value("tasks_per_node"_L1).toInt(), 1);
    QCOMPARE(d.value("nodes"_L1).toArray(), (QJsonArray{2, 2}));
    QCOMPARE(d.value("tasks"_L1).toInt(), 2); // else 22.05 gives it one node
    QCOMPARE(d.value("dependency"_L1).toString(), u"afterok:12"_s);
    QCOMPARE(d.value("name"_L1).toString(), u"train-1"_s);
    QCOMPARE(d.value("standard_output"_L1).toString(), u"/ws/train-1/log"_s);
    QCOMPARE(d.value("standard_error"_L1).toString(), u"/ws/train-1/log"_s);
    QCOMPARE(d.value("current_working_directory"_L1).toString(), u"/ws/code"_s);
    QCOMPARE(d.value("environment"_L1).toObject().value("SIGNALBOX_RUN"_L1).toString(),
             u"train-1"_s);

    // Later versions: numbers that may be unset, the environment as a list, the script inside.
    const auto v41 = sb::slurmRestSubmitBody(*script, job, u"v0.0.41"_s);
    QVERIFY2(v41, qPrintable(v41.error()));
    QVERIFY(!v41->contains("script"_L1));
    const QJsonObject l = v41->value("job"_L1).toObject();
    QCOMPARE(l.value("script"_L1).toString(), *script);
    QCOMPARE(l.value("time_limit"_L1).toObject().value("number"_L1).toInt(), 1564);
    QVERIFY(l.value("time_limit"_L1).toObject().value("set"_L1).toBool());
    QCOMPARE(l.value("nodes"_L1).toString(), u"2"_s);
    QVERIFY(l.value("environment"_L1).toArray().contains(u"SIGNALBOX_RUN=train-1"_s));

    // A script edited by hand, with short options and the forms people write; its own name,
    // output and directory give way to Signalbox's, as on sbatch's command line.
    const QString edited = u"#!/bin/bash\n"
                           "#SBATCH -p short -t 90 --mem 512M\n"
                           "# a comment\n"
                           "#SBATCH -J mine -o /tmp/x.out --chdir=/elsewhere\n"
                           "#SBATCH --nodes=1-3 -G 4 --qos=high\n"
                           "\n"
                           "srun python3 train.py\n"
                           "#SBATCH --exclusive\n"_s; // after the first command: a comment
    const auto mine =
        sb::slurmRestSubmitBody(edited, {.name = u"n"_s, .output = u"/o"_s}, u"v0.0.38"_s);
    QVERIFY2(mine, qPrintable(mine.error()));
    const QJsonObject m = mine->value("job"_L1).toObject();
    QCOMPARE(m.value("partition"_L1).toString(), u"short"_s);
    QCOMPARE(m.value("time_limit"_L1).toInt(), 90);
    QCOMPARE(m.value("memory_per_node"_L1).toInt(), 512);
    QCOMPARE(m.value("name"_L1).toString(), u"n"_s);
    QCOMPARE(m.value("standard_output"_L1).toString(), u"/o"_s);
    QCOMPARE(m.value("current_working_directory"_L1).toString(), u"/elsewhere"_s);
    QCOMPARE(m.value("nodes"_L1).toArray(), (QJsonArray{1, 3}));
    QCOMPARE(m.value("gpus"_L1).toString(), u"4"_s);
    QCOMPARE(m.value("qos"_L1).toString(), u"high"_s);
}

void TestSlurmRest::refusesWhatItCannotCarry() {
    for (const auto &[line, named] : std::initializer_list<std::pair<const char *, const char *>>{
             {"#SBATCH --exclusive", "--exclusive"},
             {"#SBATCH --export=NONE", "--export=NONE"},
             {"#SBATCH --time=soon", "soon"},
             {"#SBATCH --mem=lots", "lots"},
             {"#SBATCH --nodes=two", "two"},
             {"#SBATCH --cpus-per-task=99999999999", "99999999999"},
             {"#SBATCH --partition", "no value"}}) {
        const auto body = sb::slurmRestSubmitBody(
            u"#!/bin/sh\n%1\ntrue\n"_s.arg(QLatin1StringView(line)), {}, u"v0.0.38"_s);
        QVERIFY2(!body, line);
        QVERIFY2(body.error().contains(QLatin1StringView(named)), qPrintable(body.error()));
        QCOMPARE(body.errorCode(), sb::ErrorCode::InvalidInput);
    }
}

void TestSlurmRest::neverSendsATokenInClear() {
    // http only to this computer; elsewhere, every request is refused before it is sent.
    sb::SlurmRestClient remote(QUrl(u"http://slurm.example.org:6820"_s), u"alice"_s);
    remote.setToken(u"secret"_s);
    QString error;
    remote.poll(false, {}, [&](const sb::Result<sb::SlurmPoll> &answer) {
        error = answer ? u"answered"_s : answer.error();
    });
    QTRY_VERIFY(!error.isEmpty());
    QVERIFY2(error.contains(u"https"_s), qPrintable(error));
    sb::SlurmRestClient notUrl(QUrl(u"ftp://127.0.0.1/"_s), u"alice"_s);
    error.clear();
    notUrl.cancel(u"12"_s,
                  [&](const sb::Status &done) { error = done ? u"done"_s : done.error(); });
    QTRY_VERIFY(!error.isEmpty());
    QVERIFY2(error.contains(u"not an http(s) URL"_s), qPrintable(error));
    // A user name that would smuggle a header of its own is never sent.
    sb::SlurmRestClient smuggler(QUrl(u"http://127.0.0.1:9"_s), u"alice\r\nX-Evil: 1"_s);
    error.clear();
    smuggler.cancel(u"12"_s,
                    [&](const sb::Status &done) { error = done ? u"done"_s : done.error(); });
    QTRY_VERIFY(!error.isEmpty());
    QVERIFY2(error.contains(u"control characters"_s), qPrintable(error));
    // A port nothing listens on: said, not hung.
    sb::SlurmRestClient closed(QUrl(u"http://127.0.0.1:9"_s), u"alice"_s);
    error.clear();
    closed.poll(false, {}, [&](const sb::Result<sb::SlurmPoll> &answer) {
        error = answer ? u"answered"_s : answer.error();
    });
    QTRY_VERIFY_WITH_TIMEOUT(!error.isEmpty(), 30000);
    QVERIFY2(error.contains(u"cannot reach slurmrestd"_s), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestSlurmRest)
#include "tst_slurmrest.moc"
