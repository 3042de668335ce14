#include "GpuInsights.h"

namespace sb {

using namespace Qt::StringLiterals;

double GpuInsights::mean(const std::deque<Reading> &readings) {
    double sum = 0;
    for (const Reading &r : readings)
        sum += r.value;
    return readings.empty() ? 0 : sum / static_cast<double>(readings.size());
}

double GpuInsights::span(const std::deque<Reading> &readings) {
    return readings.size() < 2 ? 0 : readings.back().time - readings.front().time;
}

std::vector<GpuInsight> GpuInsights::update(const NodeSample &sample,
                                            const QHash<qint64, QString> &runs) {
    auto push = [&](std::deque<Reading> &readings, double value) {
        readings.push_back({sample.time, value});
        while (!readings.empty() && readings.front().time < sample.time - kWindowSeconds)
            readings.pop_front();
    };
    std::vector<GpuInsight> insights;
    if (!sample.error.isEmpty())
        return insights;
    push(m_cpu, sample.cpuPercent);
    for (const GpuReading &gpu : sample.gpus) {
        if (!gpu.utilizationGpu) // MIG or unsupported: no utilization to judge by
            continue;
        auto &history = m_gpuUtilization[gpu.uuid];
        push(history, *gpu.utilizationGpu);
        if (span(history) < kMinimumSeconds)
            continue;
        // The processes on this GPU; a single-GPU node's processes need no uuid to match.
        std::vector<const GpuProcess *> holders;
        for (const GpuProcess &p : sample.gpuProcesses) {
            if (p.gpuUuid == gpu.uuid || (sample.gpus.size() == 1 && p.gpuUuid.isEmpty()))
                holders.push_back(&p);
        }
        if (holders.empty())
            continue;
        const GpuProcess &top =
            **std::max_element(holders.begin(), holders.end(), [](auto *a, auto *b) {
                return a->usedMemoryMiB.value_or(0) < b->usedMemoryMiB.value_or(0);
            });
        const QString run = runs.value(top.processGroup);
        const QString who =
            !run.isEmpty()
                ? u"run %1"_s.arg(run)
                : u"%1 (pid %2%3)"_s
                      .arg(top.command.isEmpty() ? top.processName : top.command.left(60))
                      .arg(top.pid)
                      .arg(top.user.isEmpty() ? QString() : u", "_s + top.user);
        const double busy = mean(history);
        const int index = gpu.index.value_or(-1);
        if (std::all_of(history.begin(), history.end(),
                        [](const Reading &r) { return r.value < 5; })) {
            insights.push_back(
                {GpuInsight::Kind::IdleButHeld, gpu.uuid, index,
                 u"GPU %1 has been idle for %2 s while %3 holds %4 GiB of it: waiting on data or a "
                 "lock, stuck, or done without exiting?"_s.arg(index)
                     .arg(span(history), 0, 'f', 0)
                     .arg(who)
                     .arg(top.usedMemoryMiB.value_or(0) / 1024, 0, 'f', 1)});
        } else if (busy < 50 && mean(m_cpu) > 90) {
            insights.push_back(
                {GpuInsight::Kind::InputBound, gpu.uuid, index,
                 u"GPU %1 averages %2% busy while the CPUs average %3%: %4 looks input-bound; more "
                 "data-loader workers or preprocessing on the GPU usually helps."_s.arg(index)
                     .arg(busy, 0, 'f', 0)
                     .arg(mean(m_cpu), 0, 'f', 0)
                     .arg(who)});
        }
    }
    return insights;
}

} // namespace sb
