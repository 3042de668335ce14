#include "MetricLineForwarder.h"

#include "JobBackend.h"
#include "metrics/CollectorClient.h"
#include "metrics/MetricLineParser.h"

namespace sb {

MetricLineForwarder::MetricLineForwarder(CollectorClient *collector, QObject *parent)
    : QObject(parent)
    , m_collector(collector) {
}

void MetricLineForwarder::watch(JobBackend *backend) {
    connect(backend, &JobBackend::logAppended, this,
            [this](const QString &job, const QByteArray &data) {
                const QByteArray lines = takeMetricLines(job, data);
                if (!lines.isEmpty())
                    m_collector->pushLines(job, lines);
            });
    connect(backend, &JobBackend::jobChanged, this, [this](const Job &job) {
        if (job.finishedState())
            m_partial.remove(job.id);
    });
}

QByteArray MetricLineForwarder::takeMetricLines(const QString &job, const QByteArray &data) {
    QByteArray &buffer = m_partial[job];
    buffer += data;
    const qsizetype end = buffer.lastIndexOf('\n') + 1;
    QByteArray metricLines;
    qsizetype start = 0;
    while (start < end) {
        const qsizetype newline = buffer.indexOf('\n', start);
        const QByteArrayView line(buffer.constData() + start, newline - start);
        if (line.contains(MetricLines::prefix)) {
            metricLines += line;
            metricLines += '\n';
        }
        start = newline + 1;
    }
    buffer.remove(0, end);
    if (buffer.size() > (1 << 20))
        buffer.clear(); // a megabyte without a newline is no metric line
    return metricLines;
}

} // namespace sb
