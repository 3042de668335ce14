#pragma once

#include "Job.h"
#include "util/LineBuffer.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QTimer>

namespace sb {

class CollectorClient;
class JobBackend;

// A run's status for a job Signalbox saw end: finished (exit 0), stopped (Signalbox stopped it),
// failed (a non-zero exit code), crashed (killed by a signal, or gone without an exit code).
QString runStatusOfJob(JobState state, std::optional<int> exitCode);

// Sends the metric lines that jobs print to the collector, as the job's run. Only complete
// lines carrying the metric prefix travel; everything else stays in the job's log. When a job
// ends, its run gets the job's host, final status and end time (when last heard from) unless the
// run said how it ended itself: a run stopped or killed cannot. Jobs that ended recently are told
// again at the start, so a run whose end was not delivered is not left running. A job of trials
// (a sweep's Indexed Job) sends each index's lines to its own run.
class MetricLineForwarder final : public QObject {
    Q_OBJECT
public:
    MetricLineForwarder(CollectorClient *collector, QObject *parent = nullptr);
    void watch(JobBackend *backend);
    // Splits `data` into lines (keeping a partial last line for later) and returns the metric
    // lines among the complete ones.
    QByteArray takeMetricLines(const QString &job, const QByteArray &data);

Q_SIGNALS:
    // Metric lines the collector could not read (or could not be reached for), for the UI.
    void problem(const QString &message);

private:
    void push(const QString &run, const QByteArray &lines);
    void finishRun(const QString &run, const QString &status, const QString &host,
                   const QDateTime &end, const QString &sweep);
    void heartbeat(); // {"run": R} for each run of a job that is running

    CollectorClient *m_collector;
    QList<JobBackend *> m_backends;
    QTimer m_heartbeat;
    QHash<QString, LineBuffer> m_partial;
    QSet<QString> m_trialJobs; // jobs of trials: each index is a run of its own
    QSet<QString> m_ended;     // trials' runs already marked ended
};

} // namespace sb
