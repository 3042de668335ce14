// Slurm jobs against a real cluster (tests/harness/slurmcluster.py: slurmctld, two slurmd's with
// fake GPUs, slurmdbd on MariaDB), reached through a real sshd login node: submit, pending with
// its reason, running, ended from sacct, exit codes, cancel, two nodes, hostile arguments, a
// second Signalbox, a restart and a hung login node, another user's hostile job names.
#include "../support/SshNodes.h"
#include "client/CollectorClient.h"
#include "collector/EmbeddedCollector.h"
#include "jobs/JobsModel.h"
#include "jobs/MetricLineForwarder.h"
#include "jobs/slurm/SlurmBackend.h"
#include "sweeps/Sweep.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace {

// A monitor connected to the login node and a Slurm backend on it, as in the app.
struct App {
    sb::NodeMonitor monitor;
    sb::SlurmBackend backend;
    App(const SshNodes &cluster, const QString &dataDir)
        : monitor({cluster.knownHostsFile()})
        , backend(&monitor, {dataDir, 500}) {
        monitor.setNodes({cluster.config(u"login"_s)});
        backend.setClusters({{.name = u"lab"_s, .login = u"login"_s}});
    }
    std::optional<sb::Job> job(const QString &id) const {
        for (const sb::Job &j : backend.jobs()) {
            if (j.id == id)
                return j;
        }
        return std::nullopt;
    }
    sb::JobState state(const QString &id) const {
        const auto j = job(id);
        return j ? j->state : sb::JobState::Queued;
    }
    QString message(const QString &id) const {
        const auto j = job(id);
        return j ? j->message : QString();
    }
    QString log(const QString &id) const { return QString::fromUtf8(backend.log(id).value()); }
};

sb::JobSpec slurmJob(const QString &name, const QStringList &command, int gpus = 0) {
    return {
        .name = name, .command = command, .backend = u"slurm"_s, .target = u"lab"_s, .gpus = gpus};
}

} // namespace

class TestSlurmBackend : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void runsOnAGpuNodeAndEndsFromAccounting();
    void exitCodesAndRefusals();
    void aSubmissionOutlivesASettingsChange();
    void pendingReasonCancelTwoNodesAndASecondSignalbox();
    void followsAcrossARestartAndAHungLoginNode();
    void aSweepRunsAsOneJobArray();
    void codeEditedScriptTimeLimitAndDependency();
    void endsFromAccountingWhileSqueueStillListsIt();
    void throughSlurmrestd();
    void aTokenFileThatIsAFifoIsRefused();
    void anotherUsersHostileJobNames();

private:
    std::unique_ptr<SshNodes> m_cluster;
};

void TestSlurmBackend::initTestCase() {
    // slurmrestd runs its jobs as a user of their own, which only root can make.
    m_cluster = std::make_unique<SshNodes>(
        geteuid() == 0 ? QStringList{u"--rest"_s} : QStringList{}, u"slurmcluster.py"_s);
    QVERIFY2(m_cluster->error().isEmpty(), qPrintable(m_cluster->error()));
    QVERIFY(m_cluster->trustAll());
}

void TestSlurmBackend::runsOnAGpuNodeAndEndsFromAccounting() {
    QTemporaryDir data;
    App app(*m_cluster, data.path());
    // Every argument stays one literal word in the batch script.
    const QStringList hostile{
        u"a b"_s, u"$(touch /tmp/sb-pwned)"_s, u"'; exit 9; '"_s, u"\"q\""_s, u"`id`"_s, u"*"_s};
    const auto id = app.backend.submit(slurmJob(
        u"train/resnet 50"_s,
        QStringList{u"sh"_s, u"-c"_s,
                    u"echo \"run=$SIGNALBOX_RUN gpus=$SLURM_GPUS_ON_NODE node=$SLURMD_NODENAME\"; "
                    "printf '<%s>' \"$@\"; echo; echo 'sb:metric {\"loss\": 0.5}'; "
                    "python3 -c 'import signalbox, signalbox.tensorboard; "
                    "print(\"client at\", signalbox.__file__)'"_s,
                    u"x"_s} +
            hostile,
        2));
    QVERIFY2(id, qPrintable(id.error()));
    QTRY_VERIFY_WITH_TIMEOUT(!app.job(*id)->clusterJobId.isEmpty(), 20000);
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*id), sb::JobState::Succeeded, 30000);
    const sb::Job done = *app.job(*id);
    QCOMPARE(done.exitCode.value_or(-1), 0);
    QCOMPARE(done.gpuIds, u"gpu:2"_s); // from sacct's AllocTRES: it left squeue (MinJobAge 2 s)
    QVERIFY(done.started.isValid() && done.finished >= done.started);
    QTRY_VERIFY_WITH_TIMEOUT(app.log(*id).contains(u"<a b><$(touch /tmp/sb-pwned)><'; exit 9; '>"
                                                   "<\"q\"><`id`><*>"_s),
                             10000);
    QVERIFY2(app.log(*id).contains(u"run=%1 gpus=2 node=gpu"_s.arg(*id)), qPrintable(app.log(*id)));
    QVERIFY(!QFile::exists(u"/tmp/sb-pwned"_s));
    // The client, adapters and all, imported from the one file it travels as.
    QVERIFY2(app.log(*id).contains(u"client at "_s) &&
                 app.log(*id).contains(u"/signalbox.zip/signalbox/__init__.py"_s),
             qPrintable(app.log(*id)));

    // An unsafe option value never reaches sbatch.
    sb::JobSpec bad = slurmJob(u"bad"_s, {u"true"_s});
    bad.slurm.partition = u"gpu --wrap=reboot"_s;
    const auto refused = app.backend.submit(bad);
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(u"not a single Slurm value"_s), qPrintable(refused.error()));
    bad.slurm.partition.clear();
    bad.environment.insert(u"A B"_s, u"1"_s);
    QVERIFY(!app.backend.submit(bad));

    // Removed from the history with its local output; the cluster's files are the cluster's.
    QVERIFY(app.backend.forget(*id));
    QVERIFY(!app.job(*id));
    QTRY_VERIFY(!QFile::exists(done.logPath)); // once the history without it is on disk
    QVERIFY(!app.backend.forget(*id));
}

void TestSlurmBackend::aSubmissionOutlivesASettingsChange() {
    QTemporaryDir data;
    App app(*m_cluster, data.path());
    const auto id = app.backend.submit(slurmJob(u"changed"_s, {u"true"_s}));
    QVERIFY(id);
    // Spoken to another way from now on (a new transport) while sbatch may still be answering.
    sb::SlurmClusterConfig changed{.name = u"lab"_s, .login = u"login"_s};
    changed.restViaLogin = true;
    app.backend.setClusters({changed});
    QTRY_VERIFY_WITH_TIMEOUT(!app.job(*id)->clusterJobId.isEmpty(), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*id), sb::JobState::Succeeded, 60000);
}

void TestSlurmBackend::exitCodesAndRefusals() {
    QTemporaryDir data;
    App app(*m_cluster, data.path());
    // Asked first, nothing submitted: sbatch --test-only's verdict.
    QString error = u"-"_s;
    QString estimate;
    app.backend.check(slurmJob(u"t"_s, {u"true"_s}, 2), this,
                      [&](const QString &e, const QString &when) {
                          error = e;
                          estimate = when;
                      });
    QTRY_VERIFY_WITH_TIMEOUT(error != u"-"_s, 20000);
    QVERIFY2(error.isEmpty() && estimate.contains(u"to start at"_s), qPrintable(error + estimate));
    sb::JobSpec tooBig = slurmJob(u"t"_s, {u"true"_s}, 64);
    error = u"-"_s;
    app.backend.check(tooBig, this, [&](const QString &e, const QString &) { error = e; });
    QTRY_VERIFY_WITH_TIMEOUT(error != u"-"_s, 20000);
    QVERIFY2(error.contains(u"not available"_s, Qt::CaseInsensitive) ||
                 error.contains(u"Requested node configuration"_s),
             qPrintable(error));
    const auto failing =
        app.backend.submit(slurmJob(u"fails"_s, {u"sh"_s, u"-c"_s, u"echo dying; exit 3"_s}));
    QVERIFY(failing);
    // sbatch itself refuses a partition the cluster does not have: the job says why.
    sb::JobSpec nowhere = slurmJob(u"nowhere"_s, {u"true"_s});
    nowhere.slurm.partition = u"nonesuch"_s;
    const auto refused = app.backend.submit(nowhere);
    QVERIFY(refused);
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*refused), sb::JobState::Failed, 20000);
    QVERIFY2(app.message(*refused).contains(u"sbatch refused it"_s) &&
                 app.message(*refused).contains(u"partition"_s, Qt::CaseInsensitive),
             qPrintable(app.message(*refused)));
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*failing), sb::JobState::Failed, 30000);
    QCOMPARE(app.job(*failing)->exitCode.value_or(-1), 3);
    QCOMPARE(app.message(*failing), u"exit code 3"_s);
    QTRY_VERIFY_WITH_TIMEOUT(app.log(*failing).contains(u"dying"_s), 10000);
}

void TestSlurmBackend::pendingReasonCancelTwoNodesAndASecondSignalbox() {
    QTemporaryDir data;
    App app(*m_cluster, data.path());
    // Every GPU of both nodes, one task per node with the rendezvous variables.
    sb::JobSpec wide =
        slurmJob(u"ddp"_s,
                 {u"sh"_s, u"-c"_s,
                  u"echo \"rank=$RANK node_rank=$NODE_RANK world=$WORLD_SIZE master=$MASTER_ADDR "
                  "on=$SLURMD_NODENAME\"; sleep 120"_s},
                 4);
    wide.workers = 2;
    const auto big = app.backend.submit(wide);
    QVERIFY(big);
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*big), sb::JobState::Running, 120000);
    QTRY_VERIFY_WITH_TIMEOUT(app.log(*big).contains(u"rank=1 node_rank=1 world=2 master=gpu1"_s),
                             20000);
    QVERIFY2(app.log(*big).contains(u"rank=0 node_rank=0 world=2 master=gpu1 on=gpu1"_s),
             qPrintable(app.log(*big)));
    QVERIFY2(app.message(*big).startsWith(u"on gpu[1-2]"_s), qPrintable(app.message(*big)));

    // What the New-run dialog shows: no GPU of the partition is free now.
    std::optional<sb::Result<sb::SlurmClusterState>> state;
    app.backend.clusterState(u"lab"_s, this, [&](const auto &got) { state = got; });
    QTRY_VERIFY_WITH_TIMEOUT(state.has_value(), 20000);
    QVERIFY2(*state, qPrintable(state->error()));
    QVERIFY2((*state)->summary().startsWith(u"gpu: 0 of 8 h100 GPUs free · short: 0 of 8 h100"_s),
             qPrintable((*state)->summary()));
    QVERIFY2((*state)->summary().contains(u"fair share root "_s), qPrintable((*state)->summary()));

    // The job's GPUs, read beside it (srun --overlap, a task per node): both nodes, each with
    // the four GPUs the job holds there, from the nodes' nvidia-smi.
    QVERIFY(app.backend.capabilities().jobGpus);
    std::optional<sb::Result<std::vector<sb::JobNodeSample>>> gpus;
    app.backend.sampleGpus(*big, this, [&](const auto &got) { gpus = got; });
    QTRY_VERIFY_WITH_TIMEOUT(gpus.has_value(), 30000);
    QVERIFY2(*gpus, qPrintable(gpus->error()));
    QCOMPARE((*gpus)->size(), std::size_t(2));
    QStringList where;
    for (const sb::JobNodeSample &node : **gpus) {
        where << node.where;
        QVERIFY2(node.sample.error.isEmpty(), qPrintable(node.sample.error));
        QCOMPARE(node.sample.gpus.size(), std::size_t(4));
        QCOMPARE(node.sample.gpus.front().name, u"NVIDIA H100 80GB HBM3"_s);
        QVERIFY(node.sample.memory.totalKiB > 0);
    }
    where.sort();
    QCOMPARE(where, (QStringList{u"gpu1"_s, u"gpu2"_s}));

    // No GPU is left: the next job waits, and says why in plain words.
    const auto small = app.backend.submit(slurmJob(u"waits"_s, {u"true"_s}, 1));
    QVERIFY(small);
    QTRY_VERIFY_WITH_TIMEOUT(app.message(*small).startsWith(u"waiting for free nodes or GPUs"_s) ||
                                 app.message(*small).startsWith(u"waiting behind"_s),
                             20000);
    QCOMPARE(app.state(*small), sb::JobState::Queued);
    // Describe says where it stands in the queue, when it may start and why (sprio).
    QString described;
    app.backend.describe(*small, this, [&](const QString &text) { described = text; });
    QTRY_VERIFY_WITH_TIMEOUT(!described.isEmpty(), 20000);
    for (const QString &part : {u"JobState=PENDING"_s,
                                u"Waiting: 1 of 1 jobs in the queue of "
                                "partition gpu"_s,
                                u"Estimated start: "_s, u"Priority factors (sprio):"_s,
                                u"FAIRSHARE"_s, u"Batch script:"_s})
        QVERIFY2(described.contains(part), qPrintable(part + u"\n---\n"_s + described));

    // A second Signalbox with its own history finds the user's jobs on the cluster.
    QTemporaryDir otherData;
    App other(*m_cluster, otherData.path());
    const QString bigThere = u"%1 (lab job %2)"_s.arg(*big, app.job(*big)->clusterJobId);
    QTRY_VERIFY_WITH_TIMEOUT(other.job(bigThere).has_value(), 20000);
    QCOMPARE(other.state(bigThere), sb::JobState::Running);
    QCOMPARE(other.job(bigThere)->spec.name, *big);

    // Cancelling the pending job, then the running one.
    QVERIFY(app.backend.stop(*small));
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*small), sb::JobState::Stopped, 30000);
    QVERIFY(app.backend.stop(*big));
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*big), sb::JobState::Stopped, 30000);
    QCOMPARE(app.message(*big), u"cancelled"_s);
    QVERIFY(app.job(*big)->exitCode.value_or(-1) != 0); // never "exit 0" for a cancelled job
    // Once it has left the queue, the other Signalbox no longer shows it.
    QTRY_VERIFY_WITH_TIMEOUT(!other.job(bigThere).has_value(), 30000);
}

void TestSlurmBackend::followsAcrossARestartAndAHungLoginNode() {
    QTemporaryDir data;
    QTemporaryDir shared; // the cluster's nodes share this machine's filesystem
    const QString go = shared.filePath(u"go"_s);
    // Half the lines, then it waits for the test's word, so it is surely running meanwhile.
    const QString counter =
        u"i=0; while [ $i -lt 40 ]; do [ $i -eq 20 ] && while [ ! -e \"$0\" ]; do sleep 0.2; "
        "done; echo line-$i; i=$((i+1)); sleep 0.1; done"_s;
    QString id;
    {
        App app(*m_cluster, data.path());
        const auto submitted =
            app.backend.submit(slurmJob(u"counter"_s, {u"sh"_s, u"-c"_s, counter, go}));
        QVERIFY(submitted);
        id = *submitted;
        QTRY_VERIFY_WITH_TIMEOUT(app.log(id).contains(u"line-3\n"_s), 30000);
    } // Signalbox quits while the job runs on

    App app(*m_cluster, data.path());
    QCOMPARE(app.state(id), sb::JobState::Running);
    QTRY_VERIFY_WITH_TIMEOUT(app.log(id).contains(u"line-19\n"_s), 30000);
    QVERIFY(m_cluster->command(u"stop login"_s));
    QTRY_VERIFY_WITH_TIMEOUT(app.message(id).startsWith(u"cannot reach the login node"_s), 30000);
    QCOMPARE(app.state(id), sb::JobState::Running); // it goes on over there
    QVERIFY(m_cluster->command(u"cont login"_s));
    QFile(go).open(QIODevice::WriteOnly);
    QTRY_COMPARE_WITH_TIMEOUT(app.state(id), sb::JobState::Succeeded, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(app.log(id).contains(u"line-39\n"_s), 10000);
    // Followed by offset: every line once, none lost.
    for (int i = 0; i < 40; ++i)
        QCOMPARE(app.log(id).count(u"line-%1\n"_s.arg(i)), 1);
}

// A grid sweep on the cluster as one job array, one task at a time, its metric lines read from
// each task's output into a real embedded collector, the best trial found from them; one task
// cancelled while it runs and one while it waits, each alone.
void TestSlurmBackend::aSweepRunsAsOneJobArray() {
    QTemporaryDir data;
    App app(*m_cluster, data.path());
    sb::BackendRegistry registry;
    sb::JobsModel jobs{&registry};
    registry.add(&app.backend);
    sb::Collector::Options options;
    options.dataDir = data.filePath(u"collector"_s);
    options.port = 0;
    auto collector = sb::EmbeddedCollector::start(options);
    QVERIFY2(collector, qPrintable(collector.error()));
    sb::CollectorClient client((*collector)->url(), (*collector)->token());
    sb::MetricLineForwarder forwarder(&client);
    forwarder.watch(&app.backend);

    QFile train(data.filePath(u"train.py"_s));
    QVERIFY(train.open(QIODevice::WriteOnly));
    train.write("import json, os, sys, time\n"
                "q = float(sys.argv[1].split('=')[1])\n"
                "print('trial', os.environ['SIGNALBOX_RUN'], os.environ['SIGNALBOX_TRIAL_INDEX'],"
                " json.loads(os.environ['SIGNALBOX_TRIAL_PARAMETERS']), flush=True)\n"
                "if q == 5:\n    time.sleep(600)\n"
                "for step in range(3):\n"
                "    print('@signalbox ' + json.dumps({'step': step, 'loss': q + 1 / (step + 1)}),"
                " end='' if step == 2 else '\\n', flush=True)\n"); // the last line unfinished
    train.close();
    const QByteArray yaml = "name: on-slurm\nmethod: grid\nprogram: " + train.fileName().toUtf8() +
                            "\nmetric: {name: loss}\nparameters:\n  q: {values: [5, 1, 5, 2]}\n"
                            "signalbox: {slurm: lab, parallelism: 1, gpus_per_trial: 1, "
                            "time_limit: \"0:10:00\"}\n";
    auto parsed = sb::SweepSpec::parse(yaml, data.filePath(u"sweep.yaml"_s));
    QVERIFY2(parsed, qPrintable(parsed.error()));
    auto created =
        sb::Sweep::create(*parsed, &jobs, &client, {data.filePath(u"sweeps"_s), 42, 200});
    QVERIFY2(created, qPrintable(created.error()));
    std::unique_ptr<sb::Sweep> sweep(*created);
    sweep->start();
    QCOMPARE(sweep->trials().size(), 4);
    const QString id = sweep->trials().first().jobId;
    for (const sb::Trial &trial : sweep->trials())
        QCOMPARE(trial.jobId, id); // one job array for all four
    QCOMPARE(app.job(id)->spec.trials, 4);

    // Task 0 runs (and would for ten minutes); task 2 waits its turn behind it.
    QTRY_COMPARE_WITH_TIMEOUT(sweep->trials()[0].state, sb::JobState::Running, 120000);
    QCOMPARE(app.job(id)->indexStates.value(2), sb::JobState::Queued);
    QVERIFY2(app.message(id).contains(u"1 of 4 trials running"_s), qPrintable(app.message(id)));
    // One row in the jobs table, unfolding into a row per trial, named as its run.
    const QModelIndex row = jobs.indexOf(u"slurm"_s, id);
    QCOMPARE(jobs.rowCount(row), 4);
    const QModelIndex second = jobs.index(1, sb::JobsModel::Name, row);
    QCOMPARE(second.data().toString(), id + u"-1"_s);
    QCOMPARE(second.data(sb::JobsModel::TrialRole).toInt(), 1);
    QCOMPARE(second.data(sb::JobsModel::JobIdRole).toString(), id);
    QCOMPARE(jobs.parent(second), row);
    QCOMPARE(jobs.index(0, sb::JobsModel::State, row).data().toString(), u"running"_s);
    // A second Signalbox sees the array as one job too, its tasks from squeue's rows.
    QTemporaryDir otherData;
    App other(*m_cluster, otherData.path());
    const QString there = u"%1 (lab job %2)"_s.arg(id, app.job(id)->clusterJobId);
    QTRY_VERIFY_WITH_TIMEOUT(other.job(there).has_value(), 20000);
    QCOMPARE(other.job(there)->indexStates.size(), 4);
    QCOMPARE(other.job(there)->indexStates.value(0), sb::JobState::Running);
    QCOMPARE(other.job(there)->indexStates.value(3), sb::JobState::Queued);

    // Task 2 is stopped from the other Signalbox (Slurm keeps no record of a task cancelled
    // before it started), task 0 from this one.
    QVERIFY(other.backend.stopIndex(there, 2));
    QVERIFY(app.backend.stopIndex(id, 0));
    QTRY_VERIFY_WITH_TIMEOUT(sweep->state() == sb::Sweep::State::Finished, 120000);
    QCOMPARE(sweep->trials()[0].state, sb::JobState::Stopped);
    QCOMPARE(sweep->trials()[2].state, sb::JobState::Stopped);
    for (int i : {1, 3}) {
        const sb::Trial &trial = sweep->trials()[i];
        QCOMPARE(trial.state, sb::JobState::Succeeded);
        QCOMPARE(trial.values.size(), 3); // the unfinished last line too, once the task ended
    }
    QCOMPARE(sweep->trials()[sweep->bestTrial()].parameters[u"q"_s].toInt(), 1);
    QCOMPARE(app.state(id), sb::JobState::Stopped);
    QVERIFY2(app.message(id) == u"4 trials: 2 succeeded, 0 failed, 2 stopped"_s,
             qPrintable(app.message(id)));
    // Each task's output in the job's log, its lines marked with its index, and in a file of
    // its own.
    const QString log = app.log(id);
    QVERIFY2(log.contains(u"[1] trial %1-1 1 {'q': 1}\n"_s.arg(id)), qPrintable(log));
    QVERIFY2(log.contains(u"[3] @signalbox {\"step\": 2, \"loss\": 2.33"_s), qPrintable(log));
    QVERIFY(!log.contains(u"[2] "_s));
    QFile task(data.filePath(u"slurm-logs/%1.3.log"_s.arg(id)));
    QVERIFY(task.open(QIODevice::ReadOnly));
    QVERIFY(task.readAll().startsWith(QByteArray("trial " + id.toUtf8() + "-3 3 ")));
}

// The code directory goes to the cluster's workspace over SFTP and the job starts in it; a
// script edited by hand goes as written; the time limit ends a job as Slurm's TIMEOUT, in plain
// words; a job waiting on another is cancelled before it starts.
void TestSlurmBackend::codeEditedScriptTimeLimitAndDependency() {
    QTemporaryDir data;
    App app(*m_cluster, data.path());
    sb::JobSpec slow = slurmJob(u"slow"_s, {u"sleep"_s, u"300"_s});
    slow.slurm.timeLimit = u"1"_s; // a minute; the cluster's OverTimeLimit is 0
    const auto timed = app.backend.submit(slow);
    QVERIFY(timed);

    QTemporaryDir code;
    QFile file(code.filePath(u"data file.txt"_s));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("shipped\n");
    file.close();
    sb::JobSpec spec = slurmJob(u"shipped"_s, {u"cat"_s, u"data file.txt"_s});
    spec.codeDirectory = code.path();
    const auto id = app.backend.submit(spec);
    QVERIFY2(id, qPrintable(id.error()));
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*id), sb::JobState::Succeeded, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(app.log(*id).contains(u"shipped\n"_s), 10000);
    sb::JobSpec edited = spec;
    edited.slurm.script =
        u"#!/bin/sh\n#SBATCH --gpus-per-node=1\n"
        "echo \"edited $SIGNALBOX_RUN $SLURM_GPUS_ON_NODE\"\ncat 'data file.txt'\n"_s;
    const auto mine = app.backend.submit(edited);
    QVERIFY(mine);
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*mine), sb::JobState::Succeeded, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(app.log(*mine).contains(u"edited %1 1\nshipped\n"_s.arg(*mine)),
                             10000);
    spec.codeDirectory = code.filePath(u"nonesuch"_s);
    QVERIFY(!app.backend.submit(spec));

    QTRY_COMPARE_WITH_TIMEOUT(app.state(*timed), sb::JobState::Running, 120000);
    sb::JobSpec after = slurmJob(u"after"_s, {u"true"_s});
    after.slurm.dependency = u"afterok:"_s + app.job(*timed)->clusterJobId;
    const auto waiting = app.backend.submit(after);
    QVERIFY(waiting);
    QTRY_VERIFY_WITH_TIMEOUT(
        app.message(*waiting).startsWith(u"waiting for the jobs it depends on"_s), 30000);
    QVERIFY(app.backend.stop(*waiting));
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*waiting), sb::JobState::Stopped, 30000);
    QVERIFY(!app.job(*waiting)->started.isValid()); // it never started
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*timed), sb::JobState::Failed, 150000);
    QCOMPARE(app.message(*timed), u"hit its time limit"_s);
    QVERIFY(!app.job(*timed)->exitCode || *app.job(*timed)->exitCode != 0);
}

// With Slurm's default MinJobAge (300 s), an ended job stays in squeue without its exit code:
// the end comes from sacct all the same, at once.
void TestSlurmBackend::endsFromAccountingWhileSqueueStillListsIt() {
    SshNodes cluster({u"300"_s}, u"slurmcluster.py"_s);
    QVERIFY2(cluster.error().isEmpty(), qPrintable(cluster.error()));
    QVERIFY(cluster.trustAll());
    QTemporaryDir data;
    App app(cluster, data.path());
    const auto id = app.backend.submit(slurmJob(u"fails"_s, {u"sh"_s, u"-c"_s, u"exit 3"_s}));
    QVERIFY(id);
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*id), sb::JobState::Failed, 30000);
    QCOMPARE(app.job(*id)->exitCode.value_or(-1), 3);
}

void TestSlurmBackend::throughSlurmrestd() {
    const QJsonObject harness = m_cluster->description();
    if (!harness.contains(u"rest"_s))
        QSKIP("slurmrestd runs jobs as a user of their own: the harness makes one as root only");
    QTemporaryDir data;
    App app(*m_cluster, data.path());
    // The REST user logs in to the same login node; its token comes from `scontrol token`
    // there, since the config names no token file.
    sb::NodeConfig login = m_cluster->config(u"login"_s);
    login.name = u"login-rest"_s;
    login.user = harness.value(u"restUser"_s).toString();
    app.monitor.setNodes({login});
    const sb::SlurmClusterConfig rest{.name = u"lab"_s,
                                      .login = u"login-rest"_s,
                                      .workspace = harness.value(u"restWorkspace"_s).toString(),
                                      .restUrl = harness.value(u"rest"_s).toString()};
    app.backend.setClusters({rest});

    const auto id = app.backend.submit(slurmJob(
        u"over rest"_s,
        {u"sh"_s, u"-c"_s,
         u"echo \"run=$SIGNALBOX_RUN user=$(id -un) gpus=$SLURM_GPUS_ON_NODE\"; printf '<%s>' \"$@\""_s,
         u"x"_s, u"a b"_s, u"$(id)"_s},
        1));
    QVERIFY2(id, qPrintable(id.error()));
    QTRY_VERIFY_WITH_TIMEOUT(
        !app.job(*id)->clusterJobId.isEmpty() || app.state(*id) == sb::JobState::Failed, 20000);
    QVERIFY2(app.state(*id) != sb::JobState::Failed, qPrintable(app.message(*id)));
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*id), sb::JobState::Succeeded, 30000);
    QCOMPARE(app.job(*id)->exitCode.value_or(-1), 0);
    QCOMPARE(app.job(*id)->gpuIds, u"gpu:1"_s); // from accounting, through slurmdb's REST API
    QTRY_VERIFY_WITH_TIMEOUT(app.log(*id).contains(u"<a b><$(id)>"_s), 10000);
    QVERIFY2(app.log(*id).contains(u"run=%1 user=%2 gpus=1"_s.arg(*id, login.user)),
             qPrintable(app.log(*id)));

    // Waiting, cancelled; a failure; an array whose tasks are followed one by one.
    sb::JobSpec big = slurmJob(u"big"_s, {u"sleep"_s, u"600"_s}, 4);
    big.workers = 2;
    const auto blocker = app.backend.submit(big);
    const auto waits = app.backend.submit(big);
    const auto failing =
        app.backend.submit(slurmJob(u"fails"_s, {u"sh"_s, u"-c"_s, u"echo dying; exit 3"_s}));
    QVERIFY(blocker && waits && failing);
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*blocker), sb::JobState::Running, 120000);
    QVERIFY2(app.message(*blocker).startsWith(u"on gpu[1-2]"_s) &&
                 !app.message(*blocker).contains(u"left"_s), // no time limit
             qPrintable(app.message(*blocker)));
    QTRY_VERIFY_WITH_TIMEOUT(app.message(*waits).startsWith(u"waiting"_s), 20000);
    QVERIFY(app.backend.stop(*waits));
    QVERIFY(app.backend.stop(*blocker));
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*waits), sb::JobState::Stopped, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*blocker), sb::JobState::Stopped, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*failing), sb::JobState::Failed, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(app.log(*failing).contains(u"dying"_s), 10000);

    sb::JobSpec trials = slurmJob(u"sweep"_s, {u"true"_s});
    trials.trials = 3;
    trials.workers = 2;
    QList<QString> scripts;
    for (int i = 0; i < 3; ++i)
        scripts << u"exec sh -c 'echo \"trial %1 of $SIGNALBOX_RUN\"; exit %2'"_s.arg(i).arg(
            i == 1 ? 4 : 0);
    const auto array = app.backend.submitTrials(trials, scripts);
    QVERIFY2(array, qPrintable(array.error()));
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*array), sb::JobState::Failed, 40000);
    QCOMPARE(app.job(*array)->indexStates.value(0), sb::JobState::Succeeded);
    QCOMPARE(app.job(*array)->indexStates.value(1), sb::JobState::Failed);
    QCOMPARE(app.job(*array)->indexStates.value(2), sb::JobState::Succeeded);
    QTRY_VERIFY_WITH_TIMEOUT(app.log(*array).contains(u"[2] trial 2 of %1"_s.arg(*array)), 10000);

    // What slurmrestd cannot carry is refused at once, with its name.
    sb::JobSpec exclusive = slurmJob(u"x"_s, {u"true"_s});
    exclusive.slurm.extraArgs = {u"--exclusive"_s};
    const auto refused = app.backend.submit(exclusive);
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(u"--exclusive"_s), qPrintable(refused.error()));

    // Through the login node's SSH connection: to slurmrestd's Unix socket there, and to its
    // TCP port as seen from there (no token in clear on the way).
    for (const QString &url : {QString(u"unix:"_s + harness.value(u"restSocket"_s).toString()),
                               harness.value(u"rest"_s).toString()}) {
        sb::SlurmClusterConfig tunnelled = rest;
        tunnelled.restUrl = url;
        tunnelled.restViaLogin = true;
        app.backend.setClusters({tunnelled});
        const auto through = app.backend.submit(
            slurmJob(u"through ssh"_s, {u"sh"_s, u"-c"_s, u"echo tunnelled $SIGNALBOX_RUN"_s}));
        QVERIFY(through);
        QTRY_COMPARE_WITH_TIMEOUT(app.state(*through), sb::JobState::Succeeded, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(app.log(*through).contains(u"tunnelled "_s + *through), 10000);
    }

    // A token that is not the user's: every job says so, and nothing else is lost.
    QFile token(data.filePath(u"token"_s));
    QVERIFY(token.open(QIODevice::WriteOnly));
    token.write("SLURM_JWT=eyJhbGciOiJIUzI1NiJ9.e30.forged\n");
    token.close();
    sb::SlurmClusterConfig forged = rest;
    forged.restTokenFile = token.fileName();
    app.backend.setClusters({forged});
    const auto denied = app.backend.submit(slurmJob(u"denied"_s, {u"true"_s}));
    QVERIFY(denied);
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*denied), sb::JobState::Failed, 20000);
    QVERIFY2(app.message(*denied).contains(u"slurmrestd"_s) &&
                 app.message(*denied).contains(u"token"_s),
             qPrintable(app.message(*denied)));
    QCOMPARE(app.state(*id), sb::JobState::Succeeded);
}

// Issue 30: rest_token_file is read as every file named by path is, a regular file of bounded
// size, off the GUI thread. A FIFO with no writer (opening it as a plain file waits for ever)
// fails the job with a clear error, and a timer on this thread ticks on meanwhile. The login
// node prepares the run's directory; no slurmrestd is asked.
void TestSlurmBackend::aTokenFileThatIsAFifoIsRefused() {
    QTemporaryDir data;
    const QString fifo = data.filePath(u"token"_s);
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    App app(*m_cluster, data.path());
    app.backend.setClusters({{.name = u"lab"_s,
                              .login = u"login"_s,
                              .restUrl = u"http://127.0.0.1:9"_s,
                              .restTokenFile = fifo}});
    int ticks = 0;
    QTimer ticker;
    connect(&ticker, &QTimer::timeout, this, [&ticks] { ++ticks; });
    ticker.start(10);
    const auto id = app.backend.submit(slurmJob(u"piped"_s, {u"true"_s}));
    QVERIFY2(id, qPrintable(id.error()));
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*id), sb::JobState::Failed, 30000);
    QVERIFY2(app.message(*id).contains(u"rest_token_file"_s) &&
                 app.message(*id).contains(u"not a regular file"_s),
             qPrintable(app.message(*id)));
    QVERIFY(ticks > 0);
}

// Another user of the cluster names jobs to forge rows (issue 29, finding 15): newlines with rows
// of squeue's and sacct's old formats, the poll's section markers, tabs, '|', terminal escapes,
// bidi overrides. With every user's jobs shown, our running job stays running and followed to
// its real end, no row is made up, and each hostile job is one row named as its owner wrote.
void TestSlurmBackend::anotherUsersHostileJobNames() {
    const QJsonObject harness = m_cluster->description();
    const QString user = harness.value(u"otherUser"_s).toString();
    if (user.isEmpty())
        QSKIP("a second Unix user submits the hostile jobs: the harness makes one as root only");
    QTemporaryDir data;
    QTemporaryDir shared;
    const QString go = shared.filePath(u"go"_s);
    App app(*m_cluster, data.path());
    app.backend.setAllJobs(true);
    const auto id = app.backend.submit(
        slurmJob(u"followed"_s,
                 {u"sh"_s, u"-c"_s,
                  u"echo started; while [ ! -e \"$0\" ]; do sleep 0.2; done; echo done"_s, go}));
    QVERIFY2(id, qPrintable(id.error()));
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*id), sb::JobState::Running, 120000);
    QTRY_VERIFY_WITH_TIMEOUT(app.log(*id).contains(u"started\n"_s), 20000);
    const QString ours = app.job(*id)->clusterJobId;

    const QStringList names{
        u"x\n99|RUNNING|None|alice|gpu|gpu9|gres:gpu:h100:8|1:00|UNLIMITED|N/A|N/A|fake"_s,
        u"y\n%1|PENDING|Resources|root|gpu||N/A|0:00|1:00|N/A|N/A|you wait"_s.arg(ours),
        u"z\n@@sacct\n%1|FAILED|root|gpu|gpu1||00:00:01|N/A|N/A|N/A|137:0|followed\n"_s.arg(ours),
        u"@@squeue-failed\n@@sacct-failed"_s,
        u"tab\there|bar\x1b]0;retitled\x07\x1b[2J"_s,
        u"\u202Eevil\u2066 isolate \u200F"_s};
    QHash<QString, QString> hostile; // Slurm job id -> name
    for (const QString &name : names) {
        QProcess sbatch;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"SLURM_CONF"_s, harness.value(u"slurmConf"_s).toString());
        sbatch.setProcessEnvironment(env);
        // Held: it waits in the queue for ever, taking nothing from our job.
        sbatch.start(u"runuser"_s, {u"-u"_s, user, u"--"_s, u"sbatch"_s, u"--parsable"_s,
                                    u"--hold"_s, u"--chdir=/tmp"_s, u"--output=/dev/null"_s,
                                    u"--job-name="_s + name, u"--wrap=sleep 300"_s});
        QVERIFY(sbatch.waitForFinished(30000));
        const QString job = QString::fromUtf8(sbatch.readAllStandardOutput()).trimmed();
        QVERIFY2(sbatch.exitCode() == 0 && !job.isEmpty(),
                 qPrintable(QString::fromUtf8(sbatch.readAllStandardError())));
        hostile.insert(job, name);
    }
    auto foreign = [&] {
        QList<sb::Job> jobs;
        for (const sb::Job &job : app.backend.jobs()) {
            if (job.foreign)
                jobs << job;
        }
        return jobs;
    };
    auto listed = [&] {
        int found = 0;
        for (const sb::Job &job : foreign())
            found += hostile.contains(job.clusterJobId) ? 1 : 0;
        return found;
    };
    QTRY_COMPARE_WITH_TIMEOUT(listed(), static_cast<int>(hostile.size()), 30000);
    for (const sb::Job &job : foreign()) {
        QVERIFY2(job.clusterJobId != u"99"_s && job.spec.name != u"fake"_s &&
                     !job.message.contains(u"alice"_s) && job.clusterJobId != ours,
                 qPrintable(job.id));
        if (!hostile.contains(job.clusterJobId))
            continue; // another test's job, still in the queue
        QCOMPARE(job.spec.name, hostile.value(job.clusterJobId)); // one row, named as written
        QCOMPARE(job.state, sb::JobState::Queued);
        QVERIFY2(job.message.endsWith(u"(%1)"_s.arg(user)), qPrintable(job.message));
        QVERIFY2(!job.id.contains(u'\n') && !job.id.contains(u'\x1b'), qPrintable(job.id));
    }
    QCOMPARE(app.state(*id), sb::JobState::Running);
    QVERIFY2(app.message(*id).startsWith(u"on gpu"_s), qPrintable(app.message(*id)));

    // Still followed: its output to the end, and its real end from accounting.
    QFile(go).open(QIODevice::WriteOnly);
    QTRY_COMPARE_WITH_TIMEOUT(app.state(*id), sb::JobState::Succeeded, 60000);
    QCOMPARE(app.job(*id)->exitCode.value_or(-1), 0);
    QTRY_VERIFY_WITH_TIMEOUT(app.log(*id).contains(u"done\n"_s), 10000);
    QProcess scancel;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"SLURM_CONF"_s, harness.value(u"slurmConf"_s).toString());
    scancel.setProcessEnvironment(env);
    scancel.start(u"scancel"_s, hostile.keys());
    QVERIFY(scancel.waitForFinished(30000));
}

QTEST_GUILESS_MAIN(TestSlurmBackend)
#include "tst_slurmbackend.moc"
