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
    QString error; // set when the node could not be read; the rest is then empty
    std::vector<GpuReading> gpus;
    QString gpuError; // nvidia-smi failed (e.g. a driver/library mismatch); empty: fine or none
};

} // namespace sb

Q_DECLARE_METATYPE(sb::NodeSample)
