#pragma once

#include "jobs/JobBackend.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QTimer>

namespace sb {

// The clusters' GPUs for the dashboard and the runs' system charts: every interval each running
// cluster job's GPUs are read where it runs (JobBackend::sampleGpus: a step beside it on Slurm,
// inside its pods on Kubernetes), and every fourth interval each cluster's GPUs are counted
// (JobBackend::askAvailability of each target: Kubernetes nodes by product and Kueue queues,
// Slurm partitions by type). Backends without Capabilities::jobGpus are left alone. One question
// per job and cluster at a time; at most kMostJobs jobs a round. A job that ended is said once.
class ClusterGpuWatch final : public QObject {
    Q_OBJECT
public:
    static constexpr int kMostJobs = 20;
    explicit ClusterGpuWatch(QList<JobBackend *> backends, int intervalMs = 15000,
                             QObject *parent = nullptr);
    void pollNow();

Q_SIGNALS:
    void jobSampled(const sb::Job &job, const std::vector<sb::JobNodeSample> &samples);
    void jobNotSampled(const sb::Job &job, const QString &why);
    // "cert: H100: 13 of 16 free on 2 nodes · queue team-a: 8 of 16 GPUs in use"
    void clusterSummary(const QString &cluster, const QString &summary);

private:
    QList<JobBackend *> m_backends;
    QSet<QString> m_asking;        // jobs and clusters with a question in flight
    QHash<QString, Job> m_sampled; // running jobs read at least once, by id
    quint64 m_round = 0;
    QTimer m_timer;
};

} // namespace sb
