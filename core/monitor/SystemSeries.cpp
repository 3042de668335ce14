#include "SystemSeries.h"

#include <QSet>

#include <cmath>
#include <set>

namespace sb {

using namespace Qt::StringLiterals;

QString nodeHistoryRun(const QString &node) {
    return u"@node/"_s + node;
}

bool isNodeHistoryRun(const QString &run) {
    return run.startsWith(u"@node/"_s);
}

QString SystemMetric::gpu(int index, QStringView what) {
    return u"gpu%1/%2"_s.arg(index).arg(what);
}

SystemSeries::SystemSeries(double resolutionSeconds)
    : m_resolution(std::isfinite(resolutionSeconds) && resolutionSeconds >= 1 ? resolutionSeconds
                                                                              : 1) {
}

void SystemSeries::note(const QString &run, const QString &metric, double time, double value) {
    if (!std::isfinite(value))
        return;
    const double start = std::floor(time / m_resolution) * m_resolution;
    Bucket &bucket = m_open[{run, metric}];
    if (bucket.count > 0 && bucket.start != start) {
        if (start < bucket.start)
            return; // a clock that went back: the bucket already holds later readings
        m_closed[run][metric].push_back({bucket.start, bucket.sum / bucket.count});
        bucket = {};
    }
    bucket.start = start;
    bucket.sum += value;
    ++bucket.count;
}

void SystemSeries::noteGpu(const QString &run, const QString &prefix, const GpuReading &gpu,
                           double time) {
    const double total = gpu.memoryTotalMiB.value_or(0);
    auto put = [&](QStringView what, std::optional<double> value) {
        if (value)
            note(run, prefix + SystemMetric::gpu(*gpu.index, what), time, *value);
    };
    put(u"utilization", gpu.utilizationGpu);
    put(u"memory", total > 0 && gpu.memoryUsedMiB ? std::optional(100 * *gpu.memoryUsedMiB / total)
                                                  : std::nullopt);
    put(u"power", gpu.powerDrawW);
    put(u"temperature", gpu.temperatureC);
}

void SystemSeries::addJob(const QString &run, const QString &where, const NodeSample &sample,
                          bool severalPlaces) {
    if (!sample.error.isEmpty() || !std::isfinite(sample.time) || sample.time <= 0)
        return;
    // A job on several nodes or pods: each place's GPUs under its name.
    const QString prefix =
        QString::fromUtf16(SystemMetric::kPrefix) + (severalPlaces ? where + u'/' : QString());
    for (const GpuReading &gpu : sample.gpus)
        if (gpu.index)
            noteGpu(run, prefix, gpu, sample.time);
    double cpu = 0;
    double rss = 0;
    QSet<qint64> counted; // a process on several GPUs is listed once for each
    for (const GpuProcess &process : sample.gpuProcesses) {
        if (counted.contains(process.pid))
            continue;
        counted.insert(process.pid);
        cpu += process.cpuPercent.value_or(0);
        rss += static_cast<double>(process.rssKiB.value_or(0)) / (1024.0 * 1024.0);
    }
    note(run, prefix + u"cpu"_s, sample.time, cpu);
    note(run, prefix + u"rss"_s, sample.time, rss);
}

void SystemSeries::add(const QString &node, const NodeSample &sample,
                       const QHash<qint64, QString> &runs,
                       const std::vector<GpuInsight> &insights) {
    if (!sample.error.isEmpty() || !std::isfinite(sample.time) || sample.time <= 0)
        return;
    const double t = sample.time;
    const QString history = nodeHistoryRun(node);
    note(history, u"cpu"_s, t, sample.cpuPercent);
    const MemInfo &m = sample.memory;
    if (m.totalKiB > 0)
        note(history, u"memory"_s, t,
             100.0 * static_cast<double>(m.totalKiB - std::min(m.availableKiB, m.totalKiB)) /
                 static_cast<double>(m.totalKiB));
    // Each GPU's readings, for the node and for every run holding it.
    for (const GpuReading &gpu : sample.gpus) {
        if (!gpu.index)
            continue;
        std::set<QString> holders{history};
        for (const GpuProcess &process : sample.gpuProcesses)
            if (process.gpuUuid == gpu.uuid ||
                (sample.gpus.size() == 1 && process.gpuUuid.isEmpty()))
                if (const QString run = runs.value(process.processGroup); !run.isEmpty())
                    holders.insert(run);
        for (const QString &run : holders)
            noteGpu(run, run == history ? QString() : QString::fromUtf16(SystemMetric::kPrefix),
                    gpu, t);
    }
    // Our runs' processes and insights.
    std::map<QString, std::set<QString>> held; // run -> the GPUs its processes hold
    QHash<QString, double> cpu;
    QHash<QString, double> rss;
    QSet<qint64> counted; // a process on several GPUs is listed once for each
    for (const GpuProcess &process : sample.gpuProcesses) {
        const QString run = runs.value(process.processGroup);
        if (run.isEmpty())
            continue;
        held[run].insert(process.gpuUuid);
        if (counted.contains(process.pid))
            continue;
        counted.insert(process.pid);
        cpu[run] += process.cpuPercent.value_or(0);
        rss[run] += static_cast<double>(process.rssKiB.value_or(0)) / (1024.0 * 1024.0);
    }
    const QString prefix = QString::fromUtf16(SystemMetric::kPrefix);
    for (const auto &[run, gpus] : held) {
        note(run, prefix + u"cpu"_s, t, cpu.value(run));
        note(run, prefix + u"rss"_s, t, rss.value(run));
        double idle = 0;
        double inputBound = 0;
        for (const GpuInsight &insight : insights)
            if (gpus.contains(insight.gpuUuid) || sample.gpus.size() == 1)
                (insight.kind == GpuInsight::Kind::IdleButHeld ? idle : inputBound) = 1;
        note(run, prefix + u"idle_but_held"_s, t, idle);
        note(run, prefix + u"input_bound"_s, t, inputBound);
    }
}

SystemSeries::Points SystemSeries::takeClosed(double now) {
    for (auto it = m_open.begin(); it != m_open.end();) {
        const Bucket &bucket = it->second;
        if (bucket.count > 0 && bucket.start + m_resolution <= now) {
            m_closed[it->first.first][it->first.second].push_back(
                {bucket.start, bucket.sum / bucket.count});
            it = m_open.erase(it); // a series that stopped (a run that ended) leaves no state
        } else {
            ++it;
        }
    }
    return std::exchange(m_closed, {});
}

} // namespace sb
