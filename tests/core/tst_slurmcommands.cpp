// What Signalbox says to a Slurm login node and how it reads the answers, on outputs in the
// shapes Slurm 22.05 printed in tests/harness/slurmcluster.py (the integration test runs them
// for real).
#include "jobs/slurm/SlurmCommands.h"

#include <QTest>

using namespace Qt::StringLiterals;

class TestSlurmCommands : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void hostlistsAndJobGpus();
    void readsSqueueAndSacct();
    void hostileNamesMakeNoRows();
    void statesAndMessagesInPlainWords();
    void pollOutputWithLogs();
    void batchScriptQuotesAndRefuses();
    void arraysAndTheirTasks();
    void clusterStateFromSinfoAndSshare();
};

namespace {

constexpr QByteArrayView kKey = "0123456789abcdef0123456789abcdef";

// One record as squeue (SQUEUE_FORMAT "%i|KEY|%T|KEY|...") and sacct (-p, --delimiter "|KEY|")
// print it in a poll: each field ended by "|KEY|", then a newline.
QByteArray keyed(const QList<QByteArray> &fields, QByteArrayView key = kKey) {
    QByteArray record;
    for (const QByteArray &field : fields)
        record += field + '|' + key.toByteArray() + '|';
    return record + '\n';
}

QByteArray marker(const char *section) {
    return "@@" + kKey.toByteArray() + ' ' + section + '\n';
}

} // namespace

void TestSlurmCommands::readsSqueueAndSacct() {
    const QByteArray squeue =
        keyed({"7", "PENDING", "Resources", "alice", "gpu", "", "gres:gpu:1", "0:00", "1-00:00:00",
               "2026-11-24T03:10:00", "2026-11-23T22:01:02", "waits"}) +
        keyed({"6", "RUNNING", "None", "alice", "gpu", "gpu[1-2]", "gres:gpu:4", "1:02",
               "UNLIMITED", "2026-11-23T22:00:00", "2026-11-23T21:59:58", "name|with|bars"}) +
        "garbage line\n" +
        keyed({"12_3", "COMPLETED", "None", "bob", "short", "gpu1", "N/A", "0:05", "0:55", "N/A",
               "Unknown", "arr"});
    int unreadable = 0;
    const QList<sb::SlurmJobRow> rows = sb::parseSqueue(squeue, kKey, &unreadable);
    QCOMPARE(rows.size(), 2);
    QCOMPARE(unreadable, 1); // the garbage line made the record after it unreadable, only it
    QCOMPARE(rows[0].jobId, u"7"_s);
    QCOMPARE(rows[0].reason, u"Resources"_s);
    QCOMPARE(rows[0].start, QDateTime(QDate(2026, 11, 24), QTime(3, 10)));
    QCOMPARE(rows[1].name, u"name|with|bars"_s);
    QCOMPARE(rows[1].nodes, u"gpu[1-2]"_s);
    const QList<sb::SlurmJobRow> array =
        sb::parseSqueue(keyed({"12_3", "COMPLETED", "None", "bob", "short", "gpu1", "N/A", "0:05",
                               "0:55", "N/A", "Unknown", "arr"}),
                        kKey);
    QCOMPARE(array.size(), 1);
    QCOMPARE(array[0].jobId, u"12_3"_s);
    QVERIFY(array[0].gres.isEmpty() && !array[0].start.isValid());

    const QByteArray sacct =
        keyed({"2", "FAILED", "root", "gpu", "gpu1", "billing=1,cpu=1,gres/gpu=2,mem=4000M,node=1",
               "00:00:01", "2026-11-23T21:37:52", "2026-11-23T21:37:51", "2026-11-23T21:37:53",
               "3:0", "wrap"}) +
        keyed({"5", "CANCELLED by 0", "root", "gpu", "None assigned", "", "00:00:00", "None",
               "2026-11-23T21:40:00", "2026-11-23T21:40:02", "0:0", "waits"}) +
        keyed({"9", "FAILED", "root", "gpu", "gpu2", "cpu=1", "00:00:09", "2026-11-23T21:41:00",
               "2026-11-23T21:41:00", "2026-11-23T21:41:09", "0:9", "killed"});
    const QList<sb::SlurmJobRow> done = sb::parseSacct(sacct, kKey);
    QCOMPARE(done.size(), 3);
    QCOMPARE(done[0].exitCode.value(), 3);
    QCOMPARE(done[0].gres, u"gpu:2"_s);
    QCOMPARE(done[0].end, QDateTime(QDate(2026, 11, 23), QTime(21, 37, 53)));
    QCOMPARE(done[1].state, u"CANCELLED"_s);
    QVERIFY(done[1].nodes.isEmpty() && !done[1].start.isValid());
    QCOMPARE(done[2].signal, 9);
    // Another key's records are no records of this poll.
    QVERIFY(sb::parseSacct(sacct, "fedcba9876543210fedcba9876543210").isEmpty());
}

// Another user's job names, as sbatch takes them (newlines, the poll's markers, '|', tabs,
// escapes, bidi overrides), forge no row, no section and no other job: each is one row, its
// name as written; our running job stays running. The forgeries of issue 29 in bytes.
void TestSlurmCommands::hostileNamesMakeNoRows() {
    const QByteArray ours =
        keyed({"41", "RUNNING", "None", "me", "gpu", "gpu1", "gres:gpu:1", "5:00", "UNLIMITED",
               "2026-11-23T22:00:00", "2026-11-23T21:59:58", "mine"});
    const QList<QByteArray> names{
        // a fake 8-H100 job of alice running on gpu9, and ours shown queued
        "x\n99|RUNNING|None|alice|gpu|gpu9|gres:gpu:h100:8|1:00|UNLIMITED|N/A|N/A|fake\n"
        "41|PENDING|Resources|me|gpu||N/A|0:00|1:00|N/A|N/A|pwned",
        // ours "failed: exit 137", in the old markers and in this poll's with a guessed key
        "y\n@@sacct\n41|FAILED|me|gpu|gpu1||00:00:01|N/A|N/A|N/A|137:0|mine\n",
        "z\n@@" + kKey.first(8).toByteArray() + " sacct\n@@squeue-failed\n@@log 0 5\nhello",
        "tab\there|bar\x1b]0;retitled\x07\x1b[2J\xe2\x80\xaertl\xe2\x81\xa6iso",
        "|" + kKey.toByteArray().first(31) + "|\n"};
    QByteArray queue = ours;
    for (qsizetype i = 0; i < names.size(); ++i)
        queue += keyed({QByteArray::number(50 + i), "PENDING", "Priority", "mallory", "gpu", "",
                        "N/A", "0:00", "1:00", "N/A", "N/A", names[i]});
    const QByteArray output = queue + marker("sacct") +
                              keyed({"40", "COMPLETED", "me", "gpu", "gpu1", "", "00:00:01", "N/A",
                                     "N/A", "N/A", "0:0", "done\n@@sacct-failed"}) +
                              marker("log 0 6") + "line1\n";
    const sb::SlurmPoll poll = sb::parseSlurmPoll(output, kKey);
    QVERIFY(!poll.queueFailed && !poll.accountingFailed && poll.error.isEmpty());
    QCOMPARE(poll.unreadable, 0);
    QCOMPARE(poll.queue.size(), 1 + names.size());
    QCOMPARE(poll.queue[0].jobId, u"41"_s);
    QCOMPARE(sb::slurmJobState(poll.queue[0].state), sb::JobState::Running);
    for (qsizetype i = 0; i < names.size(); ++i) {
        const sb::SlurmJobRow &row = poll.queue[1 + i];
        QCOMPARE(row.jobId, QString::number(50 + i));
        QCOMPARE(row.user, u"mallory"_s);
        QCOMPARE(row.name, QString::fromUtf8(names[i]));
    }
    QCOMPARE(poll.accounting.size(), 1);
    QCOMPARE(poll.accounting[0].jobId, u"40"_s);
    QCOMPARE(poll.logs.size(), 1);
    QCOMPARE(poll.logs[0].data, QByteArray("line1\n"));

    // A record that lost a field (or was cut off) is passed over alone.
    QByteArray cut = ours + keyed({"60", "RUNNING"}) + ours;
    cut.chop(10);
    const sb::SlurmPoll partial = sb::parseSlurmPoll(cut + marker("sacct"), kKey);
    QCOMPARE(partial.queue.size(), 1);
    QCOMPARE(partial.unreadable, 2);
    // An answer without its key's sections says nothing of the queue.
    const sb::SlurmPoll unkeyed = sb::parseSlurmPoll(ours + "@@sacct\n", kKey);
    QVERIFY(unkeyed.queueFailed && unkeyed.queue.isEmpty() && !unkeyed.error.isEmpty());
    QVERIFY(sb::parseSlurmPoll(output, {}).queueFailed);
    QVERIFY(sb::slurmPollKey() != sb::slurmPollKey());
    QCOMPARE(sb::slurmPollKey().size(), 32);
}

void TestSlurmCommands::statesAndMessagesInPlainWords() {
    QCOMPARE(sb::slurmJobState(u"PENDING"_s), sb::JobState::Queued);
    QCOMPARE(sb::slurmJobState(u"COMPLETING"_s), sb::JobState::Running);
    QCOMPARE(sb::slurmJobState(u"COMPLETED"_s), sb::JobState::Succeeded);
    QCOMPARE(sb::slurmJobState(u"PREEMPTED"_s), sb::JobState::Stopped);
    QCOMPARE(sb::slurmJobState(u"OUT_OF_MEMORY"_s), sb::JobState::Failed);
    QCOMPARE(sb::slurmJobState(u"TIMEOUT"_s), sb::JobState::Failed);
    sb::SlurmJobRow row{.jobId = u"1"_s, .state = u"PENDING"_s, .reason = u"QOSMaxGRESPerUser"_s};
    QCOMPARE(sb::slurmMessage(row), u"you already use all the GPUs your QoS allows"_s);
    row.reason = u"Priority"_s;
    row.start = QDateTime(QDate(2026, 11, 24), QTime(3, 10));
    QCOMPARE(sb::slurmMessage(row),
             u"waiting behind jobs of higher priority (estimated start 2026-11-24 03:10)"_s);
    QCOMPARE(sb::pendingReasonInWords(u"SomethingNew"_s), u"waiting (SomethingNew)"_s);
    row = {.state = u"RUNNING"_s, .nodes = u"gpu1"_s, .timeLeft = u"3:59:00"_s};
    QCOMPARE(sb::slurmMessage(row), u"on gpu1, 3:59:00 left"_s);
    row = {.state = u"FAILED"_s, .exitCode = 0, .signal = 9};
    QCOMPARE(sb::slurmMessage(row), u"killed by signal 9"_s);
    QCOMPARE(sb::slurmMessage({.state = u"TIMEOUT"_s}), u"hit its time limit"_s);
    QCOMPARE(sb::slurmMessage({.state = u"OUT_OF_MEMORY"_s}), u"ran out of memory (raise --mem)"_s);
}

void TestSlurmCommands::pollOutputWithLogs() {
    const QByteArray output = keyed({"6", "RUNNING", "None", "alice", "gpu", "gpu1", "N/A", "0:10",
                                     "UNLIMITED", "N/A", "N/A", "a"}) +
                              marker("sacct") +
                              keyed({"5", "COMPLETED", "alice", "gpu", "gpu1", "", "00:00:01",
                                     "N/A", "N/A", "N/A", "0:0", "b"}) +
                              marker("log 0 12") + "line-1\n@@log" + marker("log 2 5") +
                              "abc"; // cut off: read again from the same offset
    const sb::SlurmPoll poll = sb::parseSlurmPoll(output, kKey);
    QVERIFY(!poll.queueFailed && !poll.accountingFailed);
    QCOMPARE(poll.queue.size(), 1);
    QCOMPARE(poll.accounting.size(), 1);
    QCOMPARE(poll.logs.size(), 1);
    QCOMPARE(poll.logs[0].index, 0);
    QCOMPARE(poll.logs[0].data, QByteArray("line-1\n@@log")); // bytes, not markers
    const sb::SlurmPoll down = sb::parseSlurmPoll(
        marker("squeue-failed") + marker("sacct") + marker("sacct-failed"), kKey);
    QVERIFY(down.queueFailed && down.accountingFailed && down.queue.isEmpty());
    QCOMPARE(down.unreadable, 0);
}

void TestSlurmCommands::batchScriptQuotesAndRefuses() {
    const sb::SlurmClusterConfig cluster{.name = u"hpc"_s,
                                         .login = u"login"_s,
                                         .partition = u"gpu"_s,
                                         .account = u"lab-ml"_s,
                                         .timeLimit = u"4:00:00"_s};
    sb::JobSpec spec{.name = u"r"_s,
                     .command = {u"python3"_s, u"train.py"_s, u"--note"_s, u"it's $(fun)"_s},
                     .workingDirectory = u"/scratch/my runs"_s,
                     .environment = {{u"LR"_s, u"0.1; rm -rf ~"_s}},
                     .backend = u"slurm"_s,
                     .target = u"hpc"_s,
                     .gpus = 8};
    spec.slurm.partition = u"h100"_s;
    spec.slurm.gpuType = u"h100"_s;
    spec.slurm.memory = u"64G"_s;
    spec.slurm.extraArgs = {u"--exclusive"_s};
    const QString script = sb::slurmBatchScript(spec, cluster).value();
    for (const QString &line :
         {u"#SBATCH --partition=h100"_s, u"#SBATCH --account=lab-ml"_s, u"#SBATCH --time=4:00:00"_s,
          u"#SBATCH --nodes=1"_s, u"#SBATCH --gpus-per-node=h100:8"_s, u"#SBATCH --mem=64G"_s,
          u"#SBATCH --exclusive"_s, u"export LR='0.1; rm -rf ~'"_s,
          u"cd -- '/scratch/my runs' || exit 1"_s,
          u"exec python3 train.py --note 'it'\\''s $(fun)'"_s})
        QVERIFY2(script.contains(line + u'\n'), qPrintable(line + u"\n---\n"_s + script));
    QVERIFY(!script.contains(u"srun"_s));

    spec.workers = 4;
    const QString wide = sb::slurmBatchScript(spec, cluster).value();
    QVERIFY(wide.contains(u"#SBATCH --nodes=4\n"_s) &&
            wide.contains(u"#SBATCH --ntasks-per-node=1\n"_s));
    QVERIFY(wide.contains(u"MASTER_ADDR"_s) && wide.contains(u"exec srun"_s));

    for (const auto &[field, value] :
         {std::pair{&sb::SlurmOptions::partition, u"gpu --wrap=x"_s},
          std::pair{&sb::SlurmOptions::memory, u"64G\n#SBATCH --uid=0"_s},
          std::pair{&sb::SlurmOptions::constraint, u"a'b"_s}}) {
        sb::JobSpec bad = spec;
        bad.slurm.*field = value;
        QVERIFY2(!sb::slurmBatchScript(bad, cluster), qPrintable(value));
    }
    sb::JobSpec bad = spec;
    bad.slurm.extraArgs = {u"--exclusive --uid=0"_s};
    QVERIFY(!sb::slurmBatchScript(bad, cluster));
    bad.slurm.extraArgs = {u"-x"_s};
    QVERIFY(!sb::slurmBatchScript(bad, cluster));

    // Edited by hand: the user's script goes as it is, checks and all left to sbatch.
    sb::JobSpec edited = spec;
    edited.slurm.script = u"#!/bin/sh\n#SBATCH --exclusive\nsrun hostname\n"_s;
    QCOMPARE(sb::slurmBatchScript(edited, cluster).value(), edited.slurm.script);
}

void TestSlurmCommands::arraysAndTheirTasks() {
    QCOMPARE(sb::slurmBaseJobId(u"12_[4-9%2]"_s), u"12"_s);
    QCOMPARE(sb::slurmBaseJobId(u"12"_s), u"12"_s);
    QCOMPARE(sb::slurmArrayTasks(u"12_3"_s), QList<int>{3});
    QCOMPARE(sb::slurmArrayTasks(u"12_[1-2,4%2]"_s), (QList<int>{1, 2, 4}));
    QVERIFY(sb::slurmArrayTasks(u"12"_s).isEmpty());
    QCOMPARE(sb::slurmArrayTasks(u"12_[0-999999999]"_s).size(), sb::kMaxTrials); // bounded

    const sb::SlurmClusterConfig cluster{.name = u"hpc"_s, .login = u"login"_s};
    sb::JobSpec spec{.command = {u"python3"_s, u"train.py"_s},
                     .backend = u"slurm"_s,
                     .target = u"hpc"_s,
                     .gpus = 1,
                     .workers = 2,
                     .trials = 3};
    spec.slurm.script = u"ignored for an array"_s;
    const QString script =
        sb::slurmBatchScript(spec, cluster, {u"exec a 'x y'\n"_s, u"exec b\n"_s, u"exec c\n"_s})
            .value();
    for (const QString &line :
         {u"#SBATCH --array=0-2%2"_s, u"#SBATCH --nodes=1"_s, u"#SBATCH --gpus-per-node=1"_s,
          u"export SIGNALBOX_TRIAL_INDEX=\"$SLURM_ARRAY_TASK_ID\""_s,
          u"case $SLURM_ARRAY_TASK_ID in"_s, u"0)\nexec a 'x y'\n;;"_s, u"2)\nexec c\n;;"_s})
        QVERIFY2(script.contains(line + u'\n'), qPrintable(line + u"\n---\n"_s + script));
    QVERIFY(!script.contains(u"srun"_s) && !script.contains(u"ignored"_s));
}

// In the shapes Slurm 22.05's sinfo --Format and sshare --parsable2 print them, plus GRES forms
// of other clusters (untyped, several types, socket bindings) written by hand.
void TestSlurmCommands::clusterStateFromSinfoAndSshare() {
    const QByteArray output = "gpu|gpu1|mixed|gpu:h100:4|gpu:h100:2(IDX:0,2)|\n"
                              "gpu|gpu2|idle|gpu:h100:4(S:0-1)|gpu:h100:0(IDX:N/A)|\n"
                              "gpu|gpu3|drained|gpu:h100:4|gpu:h100:0(IDX:N/A)|\n"
                              "mixed|n1|allocated+|gpu:a100:2,gpu:v100:1,shard:8|"
                              "gpu:a100:2(IDX:0-1),gpu:v100:0(IDX:N/A)|\n"
                              "old|n2|idle|gpu:2|gpu:1|\n"
                              "cpu|c1|idle|(null)|gpu:0|\n"
                              "@@sshare\nroot|\n root|0.000000\n lab-ml|\n  lab-ml|0.500000\n";
    const sb::SlurmClusterState state = sb::parseSlurmClusterState(output);
    QCOMPARE(state.gpus.size(), 4);
    auto find = [&](const QString &partition, const QString &type) {
        for (const sb::SlurmPartitionGpus &g : state.gpus) {
            if (g.partition == partition && g.type == type)
                return g;
        }
        return sb::SlurmPartitionGpus{};
    };
    QCOMPARE(find(u"gpu"_s, u"h100"_s).total, 12);
    QCOMPARE(find(u"gpu"_s, u"h100"_s).free, 6); // 2 on gpu1, 4 on gpu2; drained gpu3 none
    QCOMPARE(find(u"mixed"_s, u"a100"_s).free, 0);
    QCOMPARE(find(u"mixed"_s, u"v100"_s).free, 1);
    QCOMPARE(find(u"old"_s, QString()).free, 1);
    QCOMPARE(state.fairShare, (QStringList{u"root 0.00"_s, u"lab-ml 0.50"_s}));
    QVERIFY2(state.summary().startsWith(u"gpu: 6 of 12 h100 GPUs free · "_s),
             qPrintable(state.summary()));
    QVERIFY(state.summary().endsWith(u"fair share root 0.00, lab-ml 0.50"_s));
}

void TestSlurmCommands::hostlistsAndJobGpus() {
    QCOMPARE(sb::expandSlurmHostlist(u"gpu[1-3,7],login,n[08-10]x"_s),
             (QStringList{u"gpu1"_s, u"gpu2"_s, u"gpu3"_s, u"gpu7"_s, u"login"_s, u"n08x"_s,
                          u"n09x"_s, u"n10x"_s}));
    QVERIFY(sb::expandSlurmHostlist(u"n[0-99999999]"_s).isEmpty()); // refused, not allocated
    QVERIFY(sb::expandSlurmHostlist(u"n[5-1]"_s).isEmpty());
    QVERIFY(sb::expandSlurmHostlist({}).isEmpty());

    // Two nodes: the job holds GPUs 1 and 3 on gpu1; gpu2's task printed no frame.
    const QByteArray frame = "@sb:frame 100.5\n@sb:stat\ncpu 1 2 3 4 5 6 7 8\n"
                             "@sb:meminfo\nMemTotal: 100 kB\nMemAvailable: 50 kB\n"
                             "SwapTotal: 0 kB\nSwapFree: 0 kB\n@sb:loadavg\n0.1 0.2 0.3 1/2 3\n"
                             "@sb:gpu\nindex, uuid, utilization.gpu [%]\n0, GPU-a, 5 %\n"
                             "1, GPU-b, 90 %\n2, GPU-c, 0 %\n3, GPU-d, 80 %\n@sb:gpu-exit\n0\n"
                             "@sb:apps\ngpu_uuid, pid, process_name, used_gpu_memory [MiB]\n"
                             "GPU-a, 7, other, 1 MiB\nGPU-b, 8, python, 2 MiB\n@sb:end\n";
    QByteArray output = "   Nodes=gpu1 CPU_IDs=0 Mem=4000 GRES=gpu:h100:2(IDX:1,3)\n@@steps\n";
    for (const QByteArray &line : QByteArray("@sb:host gpu1\n").append(frame).split('\n'))
        output += "0: " + line + "\n";
    output += "1: @sb:host gpu2\n1: slurmstepd: error: something\n";
    const auto samples = sb::parseSlurmJobGpus(output);
    QVERIFY2(samples, qPrintable(samples.error()));
    QCOMPARE(samples->size(), std::size_t(2));
    const sb::JobNodeSample &first = samples->front();
    QCOMPARE(first.where, u"gpu1"_s);
    QCOMPARE(first.sample.gpus.size(), std::size_t(2));
    QCOMPARE(first.sample.gpus.front().uuid, u"GPU-b"_s);
    QCOMPARE(first.sample.gpuProcesses.size(), std::size_t(1)); // the other user's GPU left out
    QCOMPARE(samples->back().where, u"gpu2"_s);
    QVERIFY(samples->back().sample.error.contains(u"no sample"_s));

    QVERIFY(!sb::parseSlurmJobGpus("garbage"));
    QVERIFY(sb::parseSlurmJobGpus("@@steps\n@@not-running\n").error().contains(u"not running"_s));
    const auto refused = sb::parseSlurmJobGpus("@@steps\nsrun: error: Unable to create step\n");
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(u"Unable to create step"_s), qPrintable(refused.error()));
}

QTEST_GUILESS_MAIN(TestSlurmCommands)
#include "tst_slurmcommands.moc"
