#pragma once

#include "SlurmCommands.h"
#include "SlurmRest.h"
#include "SlurmTransport.h"
#include "config/Config.h"
#include "jobs/JobBackend.h"
#include "jobs/JobHistory.h"
#include "monitor/NodeMonitor.h"

#include <QHash>
#include <QSet>
#include <QTimer>

namespace sb {

// Runs jobs on Slurm clusters through their login nodes: over the login node's one SSH
// connection (the node monitor's, with its host key check, agent, keys and ProxyJump), sbatch
// submits a generated batch script, and one poll per cluster every `pollMs` (2 s by default: one
// squeue, plus one sacct while jobs have just left the queue) follows every view's jobs at once,
// with the new bytes of the logs of running jobs in the same round trip. Finished jobs come from
// sacct, since squeue forgets them after MinJobAge. A login node that does not answer is said so
// on the jobs; they go on over there and are picked up again by offset.
// A cluster with `rest_url` is driven through slurmrestd instead (the same poll interval: one
// jobs list, plus one accounting question per job that has just left the queue); its code and
// logs still go over the login node's SSH, which slurmrestd does not serve. The two ways of
// speaking to a cluster are its SlurmTransport; this class follows the jobs.
class SlurmBackend final : public JobBackend {
    Q_OBJECT
public:
    struct Options {
        QString dataDir; // the job history and local copies of the logs
        int pollMs = 2000;
    };
    SlurmBackend(NodeMonitor *monitor, Options options, QObject *parent = nullptr);

    void setClusters(const QList<SlurmClusterConfig> &clusters);
    QStringList clusters() const;
    // The batch script a spec becomes, for the New-run dialog to show.
    Result<QString> batchScript(const JobSpec &spec) const;
    // Asks the cluster whether it would take the spec (sbatch --test-only, nothing submitted):
    // `done(error)` on `receiver`'s thread, with sbatch's words, or an empty error and when and
    // where it would start.
    void check(const JobSpec &spec, QObject *receiver,
               std::function<void(const QString &error, const QString &estimate)> done) const;

    // What a researcher weighs before choosing where to run: each partition's free and total
    // GPUs by type (sinfo) and the user's fair share (sshare), in one round trip.
    void clusterState(const QString &cluster, QObject *receiver,
                      std::function<void(const Result<SlurmClusterState> &)> done) const;

    QString name() const override { return BackendName::kSlurm; }
    // A sweep's trials go as one job array; Slurm's default MaxArraySize allows 1001 tasks.
    Capabilities capabilities() const override {
        return {.trialsInOneJob = 1001,
                .foreignJobs = true,
                .jobGpus = true,
                .gpusAndCode = true,
                .workers = true,
                .preview = true,
                .validate = true,
                .availability = true};
    }
    QStringList targets() const override { return clusters(); }
    // The cluster's free GPUs and the user's fair share (clusterState()), in a line.
    void askAvailability(const QString &target, QObject *receiver,
                         AvailabilityDone done) const override {
        clusterState(target, receiver, [done = std::move(done)](const auto &state) {
            done(state ? Result<QString>(state->summary()) : Result<QString>(state.failure()));
        });
    }
    Result<QString> preview(const JobSpec &spec) const override { return batchScript(spec); }
    // sbatch --test-only (check()).
    void validate(const RunDraft &draft, QObject *receiver, ValidateDone done) override {
        check(draft.spec, receiver,
              [done = std::move(done)](const QString &error, const QString &) {
                  if (!error.isEmpty())
                      return done(fail(tr("The cluster would refuse it: %1").arg(error)));
                  done(QVariant());
              });
    }
    // A step beside the job's (srun --overlap, a task per node) runs the sampling script once.
    void sampleGpus(const QString &id, QObject *receiver, JobSamplesDone done) const override;
    Result<QString> submit(const JobSpec &spec) override;
    Result<QString> submitTrials(const JobSpec &spec, const QList<QString> &scripts) override;
    Status stopIndex(const QString &id, int index) override;
    QList<Job> jobs() const override;
    Status stop(const QString &id) override;
    // Its directory in the cluster's workspace stays, as Slurm's own output files would.
    Status forget(const QString &id) override;
    Result<QByteArray> log(const QString &id) const override;
    void describe(const QString &id, QObject *receiver,
                  std::function<void(const QString &text)> done) const override;
    void setAllJobs(bool all) override;
    bool allJobs() const override { return m_allUsers; }

private:
    // A log a poll reads: a job's, or one task's of an array (index >= 0).
    struct LogTarget {
        QString job;
        int index = -1;
    };
    Job *find(const QString &id);
    const SlurmClusterConfig *cluster(const QString &name) const;
    void update(const Job &job);
    Result<QString> enqueue(const JobSpec &spec, const QList<QString> &trials);
    void sendSubmission(const QString &id, const QString &script, const QString &directory);
    // sbatch's or slurmrestd's answer: the Slurm job id, or why the job was refused.
    void submitted(const QString &id, const Result<QString> &clusterJobId);
    void cancel(const Job &job, const QString &clusterJobId);
    void poll();
    void pollCluster(const SlurmClusterConfig &cluster);
    void received(const QString &cluster, const QList<LogTarget> &read, const SlurmPoll &poll);
    void apply(Job *job, const SlurmJobRow &row, bool final);
    void applyArray(Job *job, const SlurmPoll &poll);
    // One task's new output: kept whole in its own file, and its complete lines, "[i] " first,
    // in the job's log (where the metric forwarder reads each task as its own run).
    void appendTaskLog(const Job &job, int index, const QByteArray &data, bool ended);
    void showForeign(const QString &cluster, const QList<SlurmJobRow> &rows);
    // Says on the cluster's unfinished jobs why they are not followed now.
    void unreachable(const QString &cluster, const QString &message);

    NodeMonitor *m_monitor;
    Options m_options;
    QList<SlurmClusterConfig> m_clusters;
    QHash<QString, SlurmTransport *> m_transports; // per cluster; owned as children
    JobHistory m_history;
    QList<Job> m_jobs;                             // submitted from Signalbox, kept in the history
    QHash<QString, QHash<QString, Job>> m_foreign; // per cluster, by Slurm job id
    QSet<QString> m_polling;                       // clusters with a poll in flight
    QSet<QString> m_askAccounting;                 // ours that ended or left squeue: ask sacct
    QSet<QString> m_tail; // ended jobs (id) and tasks (id/index) whose log's end is to fetch
    QHash<QString, QByteArray> m_taskLines; // per id/index: a task's output after its last line
    QSet<QString> m_cancelOnSubmit;         // stopped while sbatch was still answering
    QSet<QString> m_cancelledTasks;         // id/index: array tasks stopped alone
    QHash<QString, int> m_unrecorded;       // id/index: answers without a record of it
    QHash<QString, QString> m_clientOn;     // per cluster: where the Python client was put
    bool m_allUsers = false;
    QTimer m_poll;
};

} // namespace sb
