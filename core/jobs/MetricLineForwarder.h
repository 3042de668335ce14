#pragma once

#include <QHash>
#include <QObject>
#include <QSet>

namespace sb {

class CollectorClient;
class JobBackend;

// Sends the metric lines that jobs print to the collector, as the job's run. Only complete
// lines carrying the metric prefix travel; everything else stays in the job's log. When a job
// that sent metric lines ends, its run gets the job's host, final status and end time.
class MetricLineForwarder final : public QObject {
    Q_OBJECT
public:
    MetricLineForwarder(CollectorClient *collector, QObject *parent = nullptr);
    void watch(JobBackend *backend);
    // Splits `data` into lines (keeping a partial last line for later) and returns the metric
    // lines among the complete ones.
    QByteArray takeMetricLines(const QString &job, const QByteArray &data);

private:
    CollectorClient *m_collector;
    QHash<QString, QByteArray> m_partial;
    QSet<QString> m_sentLines; // jobs whose runs exist in the collector
};

} // namespace sb
