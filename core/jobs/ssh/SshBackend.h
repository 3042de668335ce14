#pragma once

#include "jobs/JobBackend.h"
#include "jobs/JobHistory.h"
#include "monitor/NodeMonitor.h"

#include <QHash>
#include <QTimer>

namespace sb {

// Runs jobs on SSH nodes, detached: each run is its own session on the node (setsid), with its
// output in ~/.signalbox/runs/<id>/log and its exit code written there when it ends, so it
// survives Signalbox quitting and the connection dropping. Signalbox follows every unfinished
// run by polling its node once a second over the node's one connection (new log bytes from the
// last offset, so a reconnect neither loses nor repeats output), and picks up where it left off
// after a restart. GPUs are chosen from the node's latest sample and passed as
// CUDA_VISIBLE_DEVICES; a job that asks for more GPUs than are free waits in the queue.
class SshBackend final : public JobBackend {
    Q_OBJECT
public:
    struct Options {
        QString dataDir; // the job history and local copies of the logs
        int stopGraceMs = 10000;
        int pollMs = 1000;
        QMap<QString, QString> environment; // added to every job
    };
    SshBackend(NodeMonitor *monitor, Options options, QObject *parent = nullptr);

    QString name() const override { return BackendName::kSsh; }
    Capabilities capabilities() const override {
        return {.gpusAndCode = true, .availability = true};
    }
    // availability(target), at once.
    void askAvailability(const QString &target, QObject *receiver,
                         AvailabilityDone done) const override {
        Q_UNUSED(receiver);
        done(availability(target));
    }
    Result<QString> submit(const JobSpec &spec) override;
    QList<Job> jobs() const override;
    Status stop(const QString &id) override;
    // Its run directory on the node stays: the node may be away, and it is the researcher's.
    Status forget(const QString &id) override;
    Result<QByteArray> log(const QString &id) const override;
    // Process group -> run name of the unfinished runs on a node (for GPU insights).
    QHash<qint64, QString> runsOn(const QString &node) const;
    // GPU index -> the run given it, for runs not ended (starting ones too: not yet busy).
    QHash<int, QString> reservedGpus(const QString &node) const;

    // The remote poll program (the launch is detachedLaunchScript()).
    static QString pollScript();
    // What a researcher weighs before choosing a node: "3 of 8 GPUs free", "no GPUs",
    // "unreachable: ...", by the same free-GPU rule the scheduler goes by.
    QString availability(const QString &node) const;

private:
    Job *find(const QString &id);
    void update(const Job &job);
    void schedule();
    void launch(const Job &job, const QString &node, const QStringList &gpus);
    void startRun(const QString &id);
    void poll();
    void pollNode(const QString &node, const QList<Job> &jobs);
    void finish(Job *job, std::optional<int> exitCode, const QString &message = {});
    // Ends a job that never started (no process on its node) as stopped.
    void stopUnstarted(Job &job);
    QStringList freeGpus(const QString &node) const;

    NodeMonitor *m_monitor;
    Options m_options;
    JobHistory m_history;
    QList<Job> m_jobs;
    QHash<QString, NodeSample> m_samples; // latest per node
    QSet<QString> m_stopRequested;
    QSet<QString> m_polling; // nodes with a poll in flight
    QSet<QString> m_launching;
    QHash<QString, bool> m_listingCode; // launches listing their code -> whether a stop came
    QHash<QString, QString> m_clientOn; // node -> where the Python client was put there
    QHash<QString, int> m_lostPolls;
    QTimer m_poll;
};

} // namespace sb
