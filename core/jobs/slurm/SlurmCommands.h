#pragma once

#include "config/Config.h"
#include "jobs/Job.h"
#include "jobs/JobBackend.h"
#include "util/Result.h"

#include <QDateTime>
#include <QList>
#include <QString>

#include <optional>

namespace sb {

// What Signalbox says to a Slurm login node and how it reads the answers: pure functions, so
// every form is tested on real and hand-written outputs without a cluster. The text forms of
// squeue (-o) and sacct (-p) read the same on every Slurm release, unlike --json, whose filters
// 22.05 ignores (every job of the cluster, every poll) and whose schema changes by release.
// A job's name is anyone's text (sbatch takes newlines, '|', escapes), so a poll's answer is cut
// by a key of its own: a random token, sent on stdin rather than in the arguments every user of
// the login node can read, that marks each section and ends each field. No field can hold the
// key, so no field can make a row, a section or another job.

// One job as squeue or sacct reports it.
struct SlurmJobRow {
    QString jobId;  // "1234", or "1234_7" for an array task
    QString state;  // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, OUT_OF_MEMORY, ...
    QString reason; // why it is pending (squeue); "None" otherwise
    QString user;
    QString partition;
    QString nodes;    // the node list; empty while pending
    QString gres;     // GPUs asked for, as squeue's %b or sacct's AllocTRES show them
    QString elapsed;  // [D-]HH:MM:SS, as Slurm writes it
    QString timeLeft; // squeue only
    QDateTime start;  // started, or the estimated start of a pending job; invalid when unknown
    QDateTime submitted;
    QDateTime end;               // sacct only
    std::optional<int> exitCode; // sacct only: the batch script's exit code
    int signal = 0;              // the signal that ended it, if any
    QString name;
};

// A poll's key: 32 random hex digits, new for every poll.
QByteArray slurmPollKey();
// Rows of squeue's and sacct's outputs in the poll's formats, each field ended by "|KEY|" and
// each record by "|KEY|\n". A record without exactly its fields, or whose job id is no job id,
// is skipped and counted in `unreadable`; the others are read all the same.
QList<SlurmJobRow> parseSqueue(const QByteArray &output, QByteArrayView key,
                               int *unreadable = nullptr);
QList<SlurmJobRow> parseSacct(const QByteArray &output, QByteArrayView key,
                              int *unreadable = nullptr);

// Slurm's state in Signalbox's words: queued, running, or how it ended.
JobState slurmJobState(const QString &state);
// What a researcher reads for a row: "waiting: all GPUs of the partition are in use (est.
// start 14:05)", "ran out of memory", "hit its time limit (4:00:00)", ...
QString slurmMessage(const SlurmJobRow &row);
// A pending reason in plain words ("Resources" -> "waiting for free nodes or GPUs").
QString pendingReasonInWords(const QString &reason);

// "1234_7" and "1234_[8-15%2]" (an array's task and its pending tasks) are of job "1234".
QString slurmBaseJobId(const QString &jobId);
// The array task ids a row stands for: 7; 8 to 15; none for a job that is no array task.
QList<int> slurmArrayTasks(const QString &jobId);

// The batch script of a job: #SBATCH lines from the spec's Slurm options and the cluster's
// defaults, the run's environment and working directory, then the command as an argument vector
// quoted for the shell (with several workers, one task per node under srun, with torchrun's
// rendezvous variables). Values that sbatch would read as more than one option are refused.
// With `trials`, a job array: task i runs trials[i] (shell text ending in exec), `spec.workers`
// tasks at once. A script edited by hand (SlurmOptions::script) is taken as it is.
Result<QString> slurmBatchScript(const JobSpec &spec, const SlurmClusterConfig &cluster,
                                 const QList<QString> &trials = {});

// Scripts run on the login node (sh -c SCRIPT NAME ARGS...), exposed for tests of their quoting.
// submit: WORKSPACE ID LOG DIRECTORY [prepare]; the batch script on stdin; sbatch names the job
// ID, writes its output to WORKSPACE/ID/LOG (a pattern: "log-%a" for an array's tasks), sets
// SIGNALBOX_RUN to ID and starts it in DIRECTORY (if not empty). Prints the Slurm job id and the
// run's directory, one per line. With "prepare", submits nothing (slurmrestd will) and prints
// the run's directory, the directory to start in, and the login shell's PATH, one per line.
QString slurmSubmitScript();
// poll: reads the poll's key from stdin (slurmPollInput), prints squeue's rows, "@@KEY sacct",
// sacct's rows for `accountingIds`, then for each log that grew "@@KEY log INDEX BYTES" and its
// new bytes. Append PATH OFFSET pairs of the logs to follow (paths relative to the workspace:
// "ID/log") to slurmPollArguments(). Without `askQueue`, only the logs (the queue comes from
// slurmrestd). squeue gets its format, which holds the key, from SQUEUE_FORMAT: the environment
// of another user's process is not theirs to read, its arguments are.
QString slurmPollScript();
QStringList slurmPollArguments(const QString &workspace, bool allUsers,
                               const QStringList &accountingIds, bool askQueue = true);
QByteArray slurmPollInput(QByteArrayView key);

// One log's new bytes from a poll's output.
struct SlurmLogChunk {
    int index = 0;
    QByteArray data;
};
struct SlurmPoll {
    QList<SlurmJobRow> queue;
    QList<SlurmJobRow> accounting;
    bool queueFailed = false;      // squeue could not answer (the controller is down)
    bool accountingFailed = false; // sacct could not answer (no accounting on this cluster)
    QList<SlurmLogChunk> logs;
    int unreadable = 0; // records of squeue or sacct that did not parse, each skipped alone
    QString error;      // why the queue is not known (an answer cut off), with queueFailed
};
// A poll's answer read with its key; an answer without the key's sections is a failed one.
SlurmPoll parseSlurmPoll(const QByteArray &output, QByteArrayView key);

// What a researcher weighs before choosing where to run.
struct SlurmPartitionGpus {
    QString partition;
    QString type; // the GRES type ("h100"); empty where the cluster names none
    int total = 0;
    int free = 0; // on nodes that take jobs (not down or drained), not allocated
};
struct SlurmClusterState {
    QList<SlurmPartitionGpus> gpus; // by partition, then type
    QStringList fairShare;          // "account 0.50": the user's fair share per account
    QString summary() const;        // "gpu: 6 of 8 h100 free · fair share lab-ml 0.50"
};
// cluster state: sinfo per node with its GRES and GRES in use, then "@@sshare" and sshare's rows.
QString slurmClusterStateScript();
SlurmClusterState parseSlurmClusterState(const QByteArray &output);

// "gpu[1-3,7],login" -> gpu1 gpu2 gpu3 gpu7 login (Slurm's host lists, one bracket a name; a
// range over 10,000 names is refused as empty).
QStringList expandSlurmHostlist(const QString &hostlist);
// A running job's GPUs read beside it: its GPUs per node from `scontrol show job -d`, then one
// step (`srun --overlap`, a task per node, labelled) runs the sampling script once on each.
// The argument vector for the login node; `job` is the Slurm job id.
QStringList slurmJobGpusCommand(const QString &job);
// That output as one sample per node, each with only the job's GPUs and their processes;
// `builderFor(node)` keeps each node's previous reading (none: every reading stands alone).
using SampleBuilderFor = std::function<NodeSampleBuilder &(const QString &where)>;
Result<std::vector<JobNodeSample>> parseSlurmJobGpus(const QByteArray &output,
                                                     const SampleBuilderFor &builderFor = {});

} // namespace sb
