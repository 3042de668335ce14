#pragma once

#include "monitor/GpuInsights.h"
#include "monitor/NodeMonitor.h"
#include "monitor/SystemSeries.h"

#include <QObject>
#include <QTimer>

#include <deque>
#include <functional>
#include <map>

namespace sb {

class ClusterGpuWatch;
class CollectorClient;

// Keeps GPU and node history in the collector: every node's samples, downsampled to
// SystemSeries' resolution, go to the node's history run ("@node/NAME"), and those of our runs'
// GPUs and processes to the runs themselves (under "system/"), so the dashboard shows days of
// history and the curves view a run's system charts, across restarts. Pushes that fail are kept
// (32 MiB of them) and sent again.
class SystemHistory final : public QObject {
    Q_OBJECT
public:
    using RunLookup = std::function<QHash<qint64, QString>(const QString &node)>;
    SystemHistory(CollectorClient *collector, NodeMonitor *monitor, RunLookup runs,
                  double resolutionSeconds = SystemSeries::kDefaultResolution,
                  QObject *parent = nullptr);
    // Cluster jobs' GPUs, read where they run, go to their runs too.
    void watch(ClusterGpuWatch *clusters);
    // Sends every closed bucket now (at a stop: the open buckets too).
    void flush(bool closeOpenBuckets = false);
    double resolution() const { return m_series.resolution(); }
    // Off for a collector that is not this person's to write to (a lab's, or read only): their
    // nodes' history stays out of a shared project. What is waiting is dropped.
    void setStoring(bool storing);

Q_SIGNALS:
    void problem(const QString &message);

private:
    void add(const QString &node, const NodeSample &sample);
    void send(const QByteArray &body);

    CollectorClient *m_collector;
    RunLookup m_runs;
    SystemSeries m_series;
    std::map<QString, GpuInsights> m_insights; // per node
    QHash<QString, QString> m_hosts;           // history run -> node, for its info
    std::deque<QByteArray> m_unsent;
    qsizetype m_unsentBytes = 0;
    bool m_sending = false;
    bool m_failing = false; // said once until a push goes through
    bool m_storing = true;
    QTimer m_timer;
};

} // namespace sb
