#pragma once

#include "ProcParsers.h"

#include <QMetaType>
#include <QString>

#include <vector>

namespace sb {

// One reading of a node: CPU per core, memory, load. GPUs arrive with the node sampler.
struct NodeSample {
    double time = 0;                 // seconds since the epoch
    double cpuPercent = 0;           // all cores
    std::vector<double> corePercent; // per core
    MemInfo memory;
    LoadAverage load;
    QString error; // set when the node could not be read; the rest is then empty
};

} // namespace sb

Q_DECLARE_METATYPE(sb::NodeSample)
