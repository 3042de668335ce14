#pragma once

#include "GpuInsights.h"
#include "NodeSample.h"

#include <QHash>
#include <QString>

#include <map>
#include <vector>

namespace sb {

// A node's history is kept in the collector as a run of its own with this name ("@node/gpu-a");
// the curves view lists no run that starts with '@'.
QString nodeHistoryRun(const QString &node);
bool isNodeHistoryRun(const QString &run);

// Metric names of the system series. A node's history run has them as they are ("cpu",
// "gpu3/utilization"); one of our runs has its own GPUs' and processes' under "system/".
namespace SystemMetric {
inline constexpr char16_t kPrefix[] = u"system/";
QString gpu(int index, QStringView what); // "gpu3/utilization"
} // namespace SystemMetric

// Node samples turned into system series, downsampled on the way in: each series keeps the mean
// of every `resolution` seconds, stamped at the bucket's start (its step is that time in
// seconds, so runs and nodes line up on a time axis). A node's series: cpu, memory (percent used)
// and per GPU utilization, memory (percent), power (W) and temperature (°C). One of our runs on
// the node: the same for the GPUs its processes hold, its processes' cpu (percent of a core,
// summed) and rss (GiB), and idle_but_held / input_bound (the share of the bucket an insight
// held), under "system/".
class SystemSeries {
public:
    static constexpr double kDefaultResolution = 30; // 117 MB a day for 50 nodes of 8 GPUs
    explicit SystemSeries(double resolutionSeconds = kDefaultResolution);
    double resolution() const { return m_resolution; }

    // `runs`: process group -> our run on the node. A sample without readings (an error) adds
    // nothing.
    void add(const QString &node, const NodeSample &sample, const QHash<qint64, QString> &runs,
             const std::vector<GpuInsight> &insights = {});

    // A cluster job's GPUs read where it runs (a Slurm node, a pod): every GPU in `sample` is
    // the run's. With `severalPlaces` each place's series are under "system/WHERE/".
    void addJob(const QString &run, const QString &where, const NodeSample &sample,
                bool severalPlaces);

    struct Point {
        double step;
        double value;
    };
    // run -> metric -> points
    using Points = std::map<QString, std::map<QString, std::vector<Point>>>;
    // The points of every bucket that ended before `now` (seconds since the epoch); taken.
    Points takeClosed(double now);

private:
    struct Bucket {
        double start = 0;
        double sum = 0;
        int count = 0;
    };
    void note(const QString &run, const QString &metric, double time, double value);
    void noteGpu(const QString &run, const QString &prefix, const GpuReading &gpu, double time);
    double m_resolution;
    Points m_closed;
    std::map<std::pair<QString, QString>, Bucket> m_open; // (run, metric) -> its open bucket
};

} // namespace sb
