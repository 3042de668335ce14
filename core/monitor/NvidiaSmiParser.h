#pragma once

#include "util/Result.h"

#include <QByteArrayView>
#include <QJsonObject>
#include <QStringList>

#include <optional>
#include <vector>

namespace sb {

// One GPU (or MIG-enabled GPU) as `nvidia-smi --query-gpu=... --format=csv` reports it. The
// typed fields are the ones Signalbox shows; `fields` keeps every queried field (numbers as
// numbers, units dropped; unavailable values as null, their reason in `unavailable`).
struct GpuReading {
    std::optional<int> index;
    QString name;
    QString uuid;
    QString busId;
    QString pstate;
    std::optional<double> utilizationGpu;    // percent
    std::optional<double> utilizationMemory; // percent
    std::optional<double> memoryUsedMiB;
    std::optional<double> memoryTotalMiB;
    std::optional<double> temperatureC;
    std::optional<double> powerDrawW;
    std::optional<double> powerLimitW;
    std::optional<double> smClockMHz;
    std::optional<double> memoryClockMHz;
    std::optional<double> fanPercent;
    std::optional<double> eccUncorrectedVolatile;
    QStringList clockEventReasons; // active throttle reasons, e.g. sw_power_cap
    QJsonObject fields;
    QJsonObject unavailable; // field -> "[N/A]", "[Not Supported]", ...

    QJsonObject toJson() const;
};

// A compute process on a GPU (`--query-compute-apps=...`).
struct GpuProcess {
    QString gpuUuid;
    QString gpuBusId;
    qint64 pid = 0;
    QString processName;
    std::optional<double> usedMemoryMiB;
    QString user;    // joined from ps on the node; empty when the process is not visible there
    QString command; // its full command line, likewise
    qint64 processGroup = 0; // likewise; a Signalbox run is its own process group
    // From `nvidia-smi pmon`: the share of the GPU's SMs and memory bandwidth it used.
    std::optional<double> smPercent;
    std::optional<double> memoryBandwidthPercent;
    // From ps and /proc on the node: CPU now (between two samples), resident set, age.
    std::optional<double> cpuPercent;
    std::optional<quint64> rssKiB;
    std::optional<qint64> elapsedSeconds;
};

// One row of `nvidia-smi pmon`: a process's use of one GPU over the last sampling interval.
struct PmonRow {
    int gpuIndex = -1;
    qint64 pid = 0;
    QString type; // C (compute), G (graphics), C+G
    std::optional<double> smPercent;
    std::optional<double> memoryPercent; // memory bandwidth
    QString command;
};

namespace NvidiaSmi {

// The CSV output of --query-gpu with its header line, any fields in any order. Errors name the
// line; a driver failure ("Failed to initialize NVML: Driver/library version mismatch") comes
// back as that message, for the node's status.
Result<std::vector<GpuReading>> parseQueryGpu(QByteArrayView csv);
Result<std::vector<GpuProcess>> parseComputeApps(QByteArrayView csv);
// `nvidia-smi pmon` (any -s columns, any sample count; a process sampled twice keeps its last
// row). Rows of idle GPUs ("-" for a pid) are skipped; an unreadable header is an error.
Result<std::vector<PmonRow>> parsePmon(QByteArrayView text);

} // namespace NvidiaSmi

} // namespace sb
