#include "SystemHistory.h"

#include "ClusterGpuWatch.h"
#include "client/CollectorClient.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// Pushes kept while the collector is away: over two hours of 50 nodes of 8 GPUs, days of a few.
constexpr qsizetype kMaxUnsentBytes = 32 << 20;

double now() {
    return static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
}

} // namespace

SystemHistory::SystemHistory(CollectorClient *collector, NodeMonitor *monitor, RunLookup runs,
                             double resolutionSeconds, QObject *parent)
    : QObject(parent)
    , m_collector(collector)
    , m_runs(std::move(runs))
    , m_series(resolutionSeconds) {
    connect(monitor, &NodeMonitor::sampled, this, &SystemHistory::add);
    m_timer.setInterval(static_cast<int>(m_series.resolution() * 500)); // twice a bucket
    connect(&m_timer, &QTimer::timeout, this, [this] { flush(); });
    m_timer.start();
}

void SystemHistory::watch(ClusterGpuWatch *clusters) {
    connect(clusters, &ClusterGpuWatch::jobSampled, this,
            [this](const Job &job, const std::vector<JobNodeSample> &samples) {
                for (const JobNodeSample &node : samples)
                    m_series.addJob(job.id, node.where, node.sample, samples.size() > 1);
            });
}

void SystemHistory::setStoring(bool storing) {
    m_storing = storing;
    if (storing)
        return;
    m_unsent.clear();
    m_unsentBytes = 0;
    if (std::exchange(m_failing, false))
        Q_EMIT problem({});
}

void SystemHistory::add(const QString &node, const NodeSample &sample) {
    if (!m_storing)
        return;
    const QHash<qint64, QString> runs = m_runs ? m_runs(node) : QHash<qint64, QString>();
    const std::vector<GpuInsight> insights = m_insights[node].update(sample, runs);
    m_hosts.insert(nodeHistoryRun(node), node);
    m_series.add(node, sample, runs, insights);
}

void SystemHistory::flush(bool closeOpenBuckets) {
    const SystemSeries::Points points =
        m_series.takeClosed(closeOpenBuckets ? std::numeric_limits<double>::infinity() : now());
    for (const auto &[run, metrics] : points) {
        QJsonObject series;
        for (const auto &[metric, values] : metrics) {
            QJsonArray steps;
            QJsonArray vals;
            for (const SystemSeries::Point &point : values) {
                steps.append(point.step);
                vals.append(point.value);
            }
            series.insert(metric,
                          QJsonObject{{u"step"_s, steps}, {u"value"_s, vals}, {u"time"_s, steps}});
        }
        QJsonObject push{{u"run"_s, run}, {u"series"_s, series}};
        if (const QString host = m_hosts.value(run); !host.isEmpty())
            push.insert(u"info"_s,
                        QJsonObject{{u"host"_s, host}, {u"tags"_s, QJsonArray{u"system"_s}}});
        m_unsent.push_back(QJsonDocument(push).toJson(QJsonDocument::Compact));
        m_unsentBytes += m_unsent.back().size();
    }
    while (m_unsentBytes > kMaxUnsentBytes && m_unsent.size() > 1 && !m_sending) {
        m_unsentBytes -= m_unsent.front().size();
        m_unsent.pop_front();
        Q_EMIT problem(tr("GPU history: the collector has not taken it for hours; the oldest "
                          "is dropped"));
    }
    if (!m_sending && !m_unsent.empty())
        send(m_unsent.front());
}

void SystemHistory::send(const QByteArray &body) {
    m_sending = true;
    m_collector->push(body, this, [this](const Result<qint64> &stored) {
        m_sending = false;
        if (m_unsent.empty()) // storing was turned off meanwhile
            return;
        if (!stored) {
            // Kept for the next tick, behind the others (one the collector refuses cannot hold
            // them up): a collector that restarts loses no history.
            if (!m_failing)
                Q_EMIT problem(tr("GPU history not stored yet: %1").arg(stored.error()));
            m_failing = true;
            m_unsent.push_back(std::move(m_unsent.front()));
            m_unsent.pop_front();
            return;
        }
        if (std::exchange(m_failing, false))
            Q_EMIT problem({}); // stored again: the banner goes
        m_unsentBytes -= m_unsent.front().size();
        m_unsent.pop_front();
        if (!m_unsent.empty())
            send(m_unsent.front());
    });
}

} // namespace sb
