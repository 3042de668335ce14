#pragma once

#include "NodeSample.h"

#include <QString>

#include <vector>

namespace sb {

struct SampleFrame;

// Where a node's GPU readings come from: a vendor's tool, run by the sampling script in every
// frame. nvidia-smi is the one source today; AMD's amd-smi would be a second (its shell text and
// parser) once its output can be tested on real captures.
class GpuSource {
public:
    virtual ~GpuSource() = default;
    virtual QString vendor() const = 0;
    // POSIX shell for the sampling script's frame: when the tool at "$S" exists, prints this
    // source's sections (each starting "@sb:NAME"), sets found=1 and sets pids to the GPU
    // processes' ids, comma-separated, for the script's ps and /proc reads.
    virtual QString shellText() const = 0;
    // Reads this source's sections into the sample: GPUs and their processes (pid, GPU, memory,
    // SM share), or gpuError. Owners, CPU and age are joined by the caller.
    virtual void read(const SampleFrame &frame, NodeSample &sample) const = 0;
};

// NVIDIA through nvidia-smi: --query-gpu, --query-compute-apps, and pmon for each process's SM
// and memory-bandwidth share (only when a process holds a GPU: pmon takes a second).
class NvidiaSmiSource final : public GpuSource {
public:
    QString vendor() const override { return QStringLiteral("NVIDIA"); }
    QString shellText() const override;
    void read(const SampleFrame &frame, NodeSample &sample) const override;
};

// Every source the sampling script tries, in order; a node with none of their tools is CPU-only.
const std::vector<const GpuSource *> &gpuSources();

} // namespace sb
