// What Signalbox says to a Slurm login node and how it reads the answers, on outputs in the
// shapes Slurm 22.05 printed in tests/harness/slurmcluster.py (the integration test runs them
// for real).
#include "jobs/SlurmCommands.h"

#include <QTest>

using namespace Qt::StringLiterals;

class TestSlurmCommands : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void hostlistsAndJobGpus();
    void readsSqueueAndSacct();
    void statesAndMessagesInPlainWords();
    void pollOutputWithLogs();
    void batchScriptQuotesAndRefuses();
    void arraysAndTheirTasks();
    void clusterStateFromSinfoAndSshare();
};

void TestSlurmCommands::readsSqueueAndSacct() {
    const QByteArray squeue =
        "7|PENDING|Resources|alice|gpu||gres:gpu:1|0:00|1-00:00:00|2026-11-24T03:10:00|"
        "2026-11-23T22:01:02|waits\n"
        "6|RUNNING|None|alice|gpu|gpu[1-2]|gres:gpu:4|1:02|UNLIMITED|2026-11-23T22:00:00|"
        "2026-11-23T21:59:58|name|with|bars\n"
        "garbage line\n"
        "12_3|COMPLETED|None|bob|short|gpu1|N/A|0:05|0:55|N/A|Unknown|arr\n";
    const QList<sb::SlurmJobRow> rows = sb::parseSqueue(squeue);
    QCOMPARE(rows.size(), 3);
    QCOMPARE(rows[0].jobId, u"7"_s);
    QCOMPARE(rows[0].reason, u"Resources"_s);
    QCOMPARE(rows[0].start, QDateTime(QDate(2026, 11, 24), QTime(3, 10)));
    QCOMPARE(rows[1].name, u"name|with|bars"_s);
    QCOMPARE(rows[1].nodes, u"gpu[1-2]"_s);
    QCOMPARE(rows[2].jobId, u"12_3"_s);
    QVERIFY(rows[2].gres.isEmpty() && !rows[2].start.isValid());

    const QByteArray sacct = "2|FAILED|root|gpu|gpu1|billing=1,cpu=1,gres/gpu=2,mem=4000M,node=1|"
                             "00:00:01|2026-11-23T21:37:52|2026-11-23T21:37:51|"
                             "2026-11-23T21:37:53|3:0|wrap\n"
                             "5|CANCELLED by 0|root|gpu|None assigned||00:00:00|None|"
                             "2026-11-23T21:40:00|2026-11-23T21:40:02|0:0|waits\n"
                             "9|FAILED|root|gpu|gpu2|cpu=1|00:00:09|2026-11-23T21:41:00|"
                             "2026-11-23T21:41:00|2026-11-23T21:41:09|0:9|killed\n";
    const QList<sb::SlurmJobRow> done = sb::parseSacct(sacct);
    QCOMPARE(done.size(), 3);
    QCOMPARE(done[0].exitCode.value(), 3);
    QCOMPARE(done[0].gres, u"gpu:2"_s);
    QCOMPARE(done[0].end, QDateTime(QDate(2026, 11, 23), QTime(21, 37, 53)));
    QCOMPARE(done[1].state, u"CANCELLED"_s);
    QVERIFY(done[1].nodes.isEmpty() && !done[1].start.isValid());
    QCOMPARE(done[2].signal, 9);
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
    const QByteArray output = "6|RUNNING|None|alice|gpu|gpu1|N/A|0:10|UNLIMITED|N/A|N/A|a\n"
                              "@@sacct\n"
                              "5|COMPLETED|alice|gpu|gpu1||00:00:01|N/A|N/A|N/A|0:0|b\n"
                              "@@log 0 12\nline-1\n@@log"
                              "@@log 2 5\nabc"; // cut off: read again from the same offset
    const sb::SlurmPoll poll = sb::parseSlurmPoll(output);
    QVERIFY(!poll.queueFailed && !poll.accountingFailed);
    QCOMPARE(poll.queue.size(), 1);
    QCOMPARE(poll.accounting.size(), 1);
    QCOMPARE(poll.logs.size(), 1);
    QCOMPARE(poll.logs[0].index, 0);
    QCOMPARE(poll.logs[0].data, QByteArray("line-1\n@@log")); // bytes, not markers
    const sb::SlurmPoll down = sb::parseSlurmPoll("@@squeue-failed\n@@sacct\n@@sacct-failed\n");
    QVERIFY(down.queueFailed && down.accountingFailed && down.queue.isEmpty());
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
