#include "MetricLineForwarder.h"

#include "JobBackend.h"
#include "metrics/CollectorClient.h"
#include "metrics/MetricLineParser.h"

#include <QJsonArray>
#include <QJsonObject>

namespace sb {

using namespace Qt::StringLiterals;

MetricLineForwarder::MetricLineForwarder(CollectorClient *collector, QObject *parent)
    : QObject(parent)
    , m_collector(collector) {
}

void MetricLineForwarder::watch(JobBackend *backend) {
    connect(backend, &JobBackend::logAppended, this,
            [this](const QString &job, const QByteArray &data) {
                const QByteArray lines = takeMetricLines(job, data);
                if (lines.isEmpty())
                    return;
                m_collector->pushLines(
                    job, lines, this, [this, job](const Result<QJsonDocument> &reply) {
                        const QJsonArray errors = reply
                                                      ? reply->object().value(u"errors"_s).toArray()
                                                      : QJsonArray{reply.error()};
                        if (!errors.isEmpty())
                            Q_EMIT problem(tr("%1: %2 metric line(s) not stored: %3")
                                               .arg(job)
                                               .arg(errors.size())
                                               .arg(errors.first().toString()));
                    });
            });
    connect(backend, &JobBackend::jobChanged, this, [this](const Job &job) {
        if (!job.finishedState())
            return;
        m_partial.remove(job.id);
        const QString status = job.state == JobState::Succeeded ? u"finished"_s
                               : job.state == JobState::Stopped ? u"stopped"_s
                                                                : u"failed"_s;
        const QJsonObject info{
            {u"status"_s, status},
            {u"host"_s, job.node},
            {u"end"_s, static_cast<double>(job.finished.toMSecsSinceEpoch()) / 1000.0}};
        m_collector->postJson(
            u"/api/v1/push"_s, {},
            QJsonDocument(QJsonObject{{u"run"_s, job.id}, {u"info"_s, info}}).toJson(), this,
            [](const Result<QJsonDocument> &) {});
    });
}

QByteArray MetricLineForwarder::takeMetricLines(const QString &job, const QByteArray &data) {
    LineBuffer &buffer = m_partial[job];
    QByteArray metricLines;
    buffer.feed(data, [&metricLines](QByteArrayView line) {
        if (line.contains(MetricLines::prefix)) {
            metricLines += line;
            metricLines += '\n';
        }
    });
    if (buffer.pending().size() > (1 << 20))
        buffer.clear(); // a megabyte without a newline is no metric line
    return metricLines;
}

} // namespace sb
