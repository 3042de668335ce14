#pragma once

#include "NvidiaSmiParser.h"
#include "ProcParsers.h"

#include <QHash>
#include <QMetaType>
#include <QString>

#include <algorithm>
#include <vector>

namespace sb {

// One reading of a node: CPU per core, memory, load, and its GPUs as nvidia-smi reports them.
struct NodeSample {
    double time = 0;                 // seconds since the epoch
    double cpuPercent = 0;           // all cores
    std::vector<double> corePercent; // per core
    MemInfo memory;
    LoadAverage load;
    QString error;                  // set when the node could not be read; the rest is then empty
    std::vector<ProcessRow> topCpu; // busiest processes first
    std::vector<ProcessRow> topMemory; // largest resident set first
    bool hasNvidiaSmi = false;         // false: a CPU-only node
    std::vector<GpuReading> gpus;
    std::vector<GpuProcess> gpuProcesses; // with their owner and command line where visible
    QString gpuError; // nvidia-smi failed (e.g. a driver/library mismatch); empty: fine or none
    // GPU index -> the run Signalbox holds it for (launching or waiting to): set by the app, not
    // read from the node, so a GPU promised to a run is not shown or given away as free.
    QHash<int, QString> reservedGpus;
};

// A GPU is free when no process holds it and it is idle: under 5% busy, under 5% of its memory in
// use. The dashboard, the scheduler of runs on nodes and sweeps all go by this one rule.
inline bool isFreeGpu(const GpuReading &gpu, const NodeSample &sample) {
    const double total = gpu.memoryTotalMiB.value_or(0);
    const bool held = std::any_of(sample.gpuProcesses.begin(), sample.gpuProcesses.end(),
                                  [&](const GpuProcess &p) { return p.gpuUuid == gpu.uuid; });
    return !held && gpu.index && !sample.reservedGpus.contains(*gpu.index) &&
           gpu.utilizationGpu.value_or(100) < 5 && total > 0 &&
           gpu.memoryUsedMiB.value_or(total) < 0.05 * total;
}

} // namespace sb

Q_DECLARE_METATYPE(sb::NodeSample)
