#include "ClusterGpuWatch.h"

namespace sb {

using namespace Qt::StringLiterals;

ClusterGpuWatch::ClusterGpuWatch(QList<JobBackend *> backends, int intervalMs, QObject *parent)
    : QObject(parent)
    , m_backends(std::move(backends)) {
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &ClusterGpuWatch::pollNow);
    m_timer.start();
}

void ClusterGpuWatch::pollNow() {
    int asked = 0;
    QSet<QString> running;
    for (JobBackend *backend : std::as_const(m_backends)) {
        if (!backend->capabilities().jobGpus)
            continue;
        for (const Job &job : backend->jobs()) {
            if (job.state == JobState::Running)
                running.insert(job.id);
            // A job of trials is a run per index; its pods are not told apart here.
            if (job.state != JobState::Running || job.foreign || job.spec.trials > 0 ||
                asked >= kMostJobs || m_asking.contains(job.id))
                continue;
            ++asked;
            m_asking.insert(job.id);
            backend->sampleGpus(job.id, this,
                                [this, job](const Result<std::vector<JobNodeSample>> &samples) {
                                    m_asking.remove(job.id);
                                    if (samples) {
                                        m_sampled.insert(job.id, job);
                                        Q_EMIT jobSampled(job, *samples);
                                    } else {
                                        m_sampled.remove(job.id);
                                        Q_EMIT jobNotSampled(job, samples.error());
                                    }
                                });
        }
    }
    // Jobs that ended since their last reading: their rows go.
    for (auto it = m_sampled.begin(); it != m_sampled.end();) {
        if (running.contains(it.key())) {
            ++it;
            continue;
        }
        const Job ended = it.value();
        it = m_sampled.erase(it);
        Q_EMIT jobNotSampled(ended, tr("it is no longer running"));
    }
    // A cluster's GPUs change slower than a job's, and counting them lists every pod: a quarter
    // as often.
    if (m_round++ % 4 != 0)
        return;
    // One question per cluster at a time.
    for (const JobBackend *backend : std::as_const(m_backends)) {
        if (!backend->capabilities().jobGpus || !backend->capabilities().availability)
            continue;
        for (const QString &cluster : backend->targets()) {
            const QString key = u"cluster:"_s + cluster;
            if (m_asking.contains(key))
                continue;
            m_asking.insert(key);
            backend->askAvailability(
                cluster, this, [this, key, cluster](const Result<QString> &summary) {
                    m_asking.remove(key);
                    Q_EMIT clusterSummary(cluster, summary ? *summary : summary.error());
                });
        }
    }
}

} // namespace sb
