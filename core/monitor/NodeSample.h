#pragma once

#include "NvidiaSmiParser.h"
#include "ProcParsers.h"

#include <QMetaType>
#include <QString>

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
};

} // namespace sb

Q_DECLARE_METATYPE(sb::NodeSample)
