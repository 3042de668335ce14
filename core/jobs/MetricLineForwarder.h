#pragma once

#include "util/LineBuffer.h"

#include <QHash>
#include <QObject>

namespace sb {

class CollectorClient;
class JobBackend;

// Sends the metric lines that jobs print to the collector, as the job's run. Only complete
// lines carrying the metric prefix travel; everything else stays in the job's log. When a job
// ends, its run gets the job's host, final status and end time: a run stopped or killed cannot
// say so itself.
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
    CollectorClient *m_collector;
    QHash<QString, LineBuffer> m_partial;
};

} // namespace sb
