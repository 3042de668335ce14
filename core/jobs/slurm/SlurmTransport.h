#pragma once

#include "SlurmCommands.h"
#include "config/Config.h"
#include "monitor/NodeMonitor.h"

#include <QObject>

#include <functional>

namespace sb {

// How long a command on a login node may take.
inline constexpr int kSlurmCommandTimeoutMs = 30000;
// Where a cluster's runs keep their code and output on its shared filesystem.
QString slurmWorkspace(const SlurmClusterConfig &cluster);

// How Signalbox speaks to one Slurm cluster's controller: commands on its login node over the
// node's SSH connection (sbatch, scancel, squeue and sacct), or slurmrestd's REST API (a cluster
// with rest_url). Logs and code go over the login node's SSH either way: slurmrestd serves
// neither. One per cluster (makeSlurmTransport); answers come on its thread, none once it is gone
// (retire() keeps it until its submissions and cancels have answered).
class SlurmTransport : public QObject {
    Q_OBJECT
public:
    SlurmTransport(NodeMonitor *monitor, SlurmClusterConfig cluster, QObject *parent);

    const SlurmClusterConfig &cluster() const { return m_cluster; }
    // The cluster's config changed in what does not change the transport (its workspace, ...).
    void setCluster(const SlurmClusterConfig &cluster) { m_cluster = cluster; }
    // Whether `after` is spoken to the way `before` is; if not, it needs a new transport.
    static bool sameWay(const SlurmClusterConfig &before, const SlurmClusterConfig &after);

    // What this transport cannot carry is refused at submission, not later.
    virtual Status accepts(const QString &script) const;

    struct Submission {
        QString id;        // the job's name on the cluster, and its run directory's
        QString script;    // the batch script
        QString log;       // its output, in the run's directory: "log", or "log-%a" for an array
        QString directory; // where it starts; empty: as the script says
    };
    // Answers the Slurm job id, or why the job was refused.
    void submit(const Submission &job, std::function<void(const Result<QString> &)> done);
    // Cancels a job or one array task ("12_3"): SIGTERM to its steps, SIGKILL after the
    // cluster's KillWait. An error says why it could not.
    void cancel(const QString &clusterJobId, std::function<void(const Status &)> done);
    // For a transport replaced by a config change: it goes once its submissions and cancels have
    // answered (a job submitted must learn its id); its polls' answers are the backend's to drop.
    void retire();

    struct PollAnswer {
        SlurmPoll poll;
        bool logsRead = false; // poll.logs are the logs asked for
        QString unreachable;   // the login node did not answer: nothing is known
    };
    // One round: the queue (every user's with `allUsers`), accounting's rows of
    // `accountingIds`, and the new bytes of the logs named by `logs` (PATH OFFSET pairs, as
    // slurmPollArguments() takes them).
    virtual void poll(bool allUsers, const QStringList &accountingIds, const QStringList &logs,
                      std::function<void(const PollAnswer &)> done) = 0;

protected:
    virtual void doSubmit(const Submission &job,
                          std::function<void(const Result<QString> &)> done) = 0;
    virtual void doCancel(const QString &clusterJobId,
                          std::function<void(const Status &)> done) = 0;
    NodeConnection *login() const { return m_monitor->connection(m_cluster.login); }
    // Runs the poll script on the login node: the logs, and the queue with `askQueue`.
    void runPollScript(bool allUsers, const QStringList &accountingIds, const QStringList &logs,
                       bool askQueue, std::function<void(const Result<SlurmPoll> &)> done);
    // Runs the submit script on the login node (slurmSubmitScript): its output's lines (two or
    // more to `prepare`, one or more to submit), or why there are none.
    void runSubmitScript(const Submission &job, bool prepare,
                         std::function<void(const Result<QStringList> &)> done);

    NodeMonitor *m_monitor;
    SlurmClusterConfig m_cluster;

private:
    void answered();

    int m_answering = 0; // submissions and cancels not answered yet
    bool m_retired = false;
};

// The transport for `cluster`: slurmrestd with rest_url, else its login node's commands.
SlurmTransport *makeSlurmTransport(NodeMonitor *monitor, const SlurmClusterConfig &cluster,
                                   QObject *parent);

} // namespace sb
