#pragma once

#include "JobBackend.h"
#include "SlurmCommands.h"
#include "config/Config.h"
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

    QString name() const override { return QStringLiteral("slurm"); }
    Capabilities capabilities() const override {
        return {.trialsInOneJob = 0, .foreignJobs = true};
    }
    Result<QString> submit(const JobSpec &spec) override;
    QList<Job> jobs() const override;
    Status stop(const QString &id) override;
    Result<QByteArray> log(const QString &id) const override;
    void describe(const QString &id, QObject *receiver,
                  std::function<void(const QString &text)> done) const override;
    void setAllJobs(bool all) override;
    bool allJobs() const override { return m_allUsers; }

private:
    Job *find(const QString &id);
    const SlurmClusterConfig *cluster(const QString &name) const;
    void update(const Job &job);
    void sendSubmission(const QString &id, const QString &script);
    void cancel(const Job &job);
    void poll();
    void pollCluster(const SlurmClusterConfig &cluster);
    void received(const QString &cluster, const QList<Job *> &following, const SlurmPoll &poll);
    void apply(Job *job, const SlurmJobRow &row, bool final);
    void showForeign(const QString &cluster, const QList<SlurmJobRow> &rows);
    // Says on the cluster's unfinished jobs why they are not followed now.
    void unreachable(const QString &cluster, const QString &message);

    NodeMonitor *m_monitor;
    Options m_options;
    QList<SlurmClusterConfig> m_clusters;
    QList<Job> m_jobs;                             // submitted from Signalbox, kept in the history
    QHash<QString, QHash<QString, Job>> m_foreign; // per cluster, by Slurm job id
    QSet<QString> m_polling;                       // clusters with a poll in flight
    QSet<QString> m_askAccounting;                 // ours that ended or left squeue: ask sacct
    QSet<QString> m_tail;                          // ended jobs whose log's end is still to fetch
    QSet<QString> m_cancelOnSubmit;                // stopped while sbatch was still answering
    bool m_allUsers = false;
    QTimer m_poll;
};

} // namespace sb
