#pragma once

#include "NodeSample.h"

#include <QHash>

#include <deque>

namespace sb {

// Something worth a researcher's attention about one GPU, in one line.
struct GpuInsight {
    enum class Kind { IdleButHeld, InputBound };
    Kind kind;
    QString gpuUuid;
    int gpuIndex = -1;
    QString text;
};

// Watches one node's samples over a short window and points out GPUs that waste time: idle
// while a process holds them, or starving while the CPUs are saturated (an input-bound run).
class GpuInsights {
public:
    static constexpr double kWindowSeconds = 30;
    static constexpr double kMinimumSeconds = 10; // judge only after this much history

    // `runs`: process group -> Signalbox run name, to say which of our runs it is.
    std::vector<GpuInsight> update(const NodeSample &sample,
                                   const QHash<qint64, QString> &runs = {});

private:
    struct Reading {
        double time;
        double value;
    };
    static double mean(const std::deque<Reading> &readings);
    static double span(const std::deque<Reading> &readings);
    QHash<QString, std::deque<Reading>> m_gpuUtilization; // by GPU uuid
    std::deque<Reading> m_cpu;
};

} // namespace sb
