#pragma once

#include "BackendName.h"
#include "util/Result.h"

#include <QDateTime>
#include <QJsonObject>
#include <QMap>
#include <QMetaType>
#include <QStringList>

#include <optional>

namespace sb {

// In this order: the states from Succeeded on are ends (isFinished); a job never leaves one.
enum class JobState { Queued, Running, Succeeded, Failed, Stopped };

// Whether a job (or one trial of it) has ended: succeeded, failed or stopped.
constexpr bool isFinished(JobState state) {
    return state >= JobState::Succeeded;
}

QString jobStateName(JobState state);           // as stored and sent: "queued", "running", …
QString jobStateText(JobState state);           // as shown: the name in the user's language
JobState jobStateFromName(const QString &name); // Queued for a name it does not know

// The options only a Kubernetes cluster reads.
struct KubeOptions {
    QString image;
    QString cpu;              // per worker, Kubernetes quantities ("8", "500m"); empty: no request
    QString memory;           // "32Gi"
    QString queue;            // a Kueue LocalQueue; empty: none
    int backoffLimit = 0;     // retries of a failed pod
    int deadlineSeconds = 0;  // activeDeadlineSeconds; 0: none
    QList<int> failExitCodes; // exit codes that fail the job at once, without retries
    int ttlSeconds = -1;      // ttlSecondsAfterFinished: delete that long after the end; -1: keep
    QString jobTemplate;      // a job template of the config: node selector, tolerations, ...
    bool tfConfig = false;    // workers also get TF_CONFIG, for TensorFlow's MultiWorkerMirrored

    QJsonObject toJson() const;
    static KubeOptions fromJson(const QJsonObject &json);
};

// The options only a Slurm cluster reads; empty ones leave the cluster's defaults.
struct SlurmOptions {
    QString partition;
    QString account;
    QString qos;
    QString timeLimit;     // as sbatch --time takes it: "90", "4:00:00", "2-00:00:00"
    int cpusPerTask = 0;   // 0: the partition's default
    QString memory;        // per node, as sbatch --mem takes it: "64G"
    QString constraint;    // node features, sbatch --constraint
    QString gpuType;       // the GRES type, "h100" in gpu:h100:4; empty: any
    QString dependency;    // as sbatch --dependency takes it: "afterok:1234"
    QStringList extraArgs; // further sbatch options, each one argument ("--exclusive")
    QString script;        // the batch script as edited by hand; empty: generated from the above

    QJsonObject toJson() const;
    static SlurmOptions fromJson(const QJsonObject &json);
};

// What to run: an argument vector (never shell text), where, and with which environment. The
// backend is named, never guessed; each backend reads the common fields and its own options.
struct JobSpec {
    QString name;
    QStringList command;
    QString workingDirectory;
    QMap<QString, QString> environment;
    // The backend that runs it ("local", "ssh", "kubernetes", "slurm"), and where within it:
    // empty for this computer; an SSH node's name, or kAnyNode for any of `nodes` with `gpus`
    // free; a cluster's name.
    QString backend = BackendName::kLocal;
    QString target;
    QStringList nodes;     // with kAnyNode: the nodes it may run on; empty: every node
    int gpus = 0;          // GPUs per worker, passed as CUDA_VISIBLE_DEVICES on a node
    int workers = 1;       // on a cluster, more than one: torchrun's rendezvous variables are set
    QString codeDirectory; // a local directory copied to where it runs first (honouring .gitignore)
    // > 0: on a cluster, one job of this many independent trials (a sweep's), `workers` at a
    // time; each index is its own run, "<job>-<index>", and fails alone.
    int trials = 0;
    KubeOptions kube;
    SlurmOptions slurm;

    static constexpr QStringView kAnyNode = u"*";

    QJsonObject toJson() const;
    // Also reads the flat form written before the backend was named (migrated on the next save).
    static JobSpec fromJson(const QJsonObject &json);
};

// A job as every backend reports it, for the one jobs table.
struct Job {
    QString id;      // unique within its backend
    QString backend; // as JobSpec::backend
    QString node;    // where it runs: a node or a cluster
    JobSpec spec;
    JobState state = JobState::Queued;
    QDateTime submitted;
    QDateTime started;
    QDateTime finished;
    std::optional<int> exitCode;
    QString logPath;
    QString message;                 // why it is queued or failed, in the researcher's words
    qint64 processGroup = 0;         // on its node: stop signals it, insights recognise it
    QString gpuIds;                  // the CUDA_VISIBLE_DEVICES it got, e.g. "0,1"
    QString clusterJobId;            // its id on a Slurm cluster; empty until submitted
    QMap<int, JobState> indexStates; // a job of trials: each completion index's state
    bool foreign = false;            // a cluster's job not submitted from Signalbox; never saved

    bool finishedState() const { return isFinished(state); }
    QJsonObject toJson() const;
    static Job fromJson(const QJsonObject &json);
};

// The most trials one job of trials holds: Kubernetes' limit on an Indexed Job's completions with
// a per-index backoff limit, above Slurm's largest MaxArraySize.
inline constexpr int kMaxTrials = 100000;
// "0-2,5" (an Indexed Job's completedIndexes, a Slurm array's task ids) as 0, 1, 2, 5; indexes
// past kMaxTrials are left out.
QList<int> parseIndexes(const QString &ranges);

// Ends a job that could not run or be followed as failed, now, saying why.
void markFailed(Job &job, const QString &why);

// The job of `jobs` with this id; null when there is none.
Job *findJob(QList<Job> &jobs, const QString &id);
const Job *findJob(const QList<Job> &jobs, const QString &id);
// The local copy of a job's output (Job::logPath), whole.
Result<QByteArray> readJobLog(const Job &job);

// What a job is called before it has an id: its name, else its program's base name.
QString jobBaseName(const JobSpec &spec);
// `text` made safe as a name, at most `maxLength` characters, with no '-' at either end; empty
// when nothing is left. Files: letters, digits, '.', '_' and '-' (a job id, a file name).
// Kubernetes: lower-case letters, digits and single '-' (an object name, RFC 1123).
enum class NameRules { Files, Kubernetes };
QString safeName(const QString &text, NameRules rules, int maxLength);
// `base`, made unique: "-" and six random hex digits.
QString withRandomSuffix(const QString &base);
// A fresh id, readable and safe as a file name: the job's name and a random suffix.
QString newJobId(const JobSpec &spec);
// The job history kept by each backend in its data directory (a missing file: no jobs).
// The history in a state file; a broken file is kept aside and `problem` says so.
QList<Job> loadJobs(const QString &path, QString *problem);
// Replaces the file atomically; an error says why it could not.
Status saveJobs(const QString &path, const QList<Job> &jobs);

} // namespace sb

Q_DECLARE_METATYPE(sb::Job)
