#pragma once

#include "NodeSample.h"

#include <QByteArray>
#include <QHash>
#include <QStringList>

#include <optional>

namespace sb {

// How a node is read, local or remote: one POSIX shell script prints "frames", each a set of
// named sections (/proc/stat, meminfo, loadavg, top processes, nvidia-smi's GPUs and compute
// processes with their owners). Over SSH it loops on one long-lived channel; locally it runs
// once a sample. Either way the same parsers turn a frame into a NodeSample.
namespace SampleScript {

// The nvidia-smi fields the dashboard shows; old drivers that lack one get `basicGpuFields()`.
QStringList gpuFields();
QStringList basicGpuFields();
// `sh -c` text. Positional parameters: interval in seconds (0: one frame), the nvidia-smi
// program, the /proc root.
QString text();
// The argument vector that runs it: {"sh", "-c", text(), name, interval, nvidia-smi, proc}.
QStringList command(double intervalSeconds, const QString &nvidiaSmi = QStringLiteral("nvidia-smi"),
                    const QString &procRoot = QStringLiteral("/proc"));

} // namespace SampleScript

// One frame's sections by name ("stat", "meminfo", "gpu", ...), and when the node took it.
struct SampleFrame {
    double time = 0;
    QHash<QByteArray, QByteArray> sections;
};

// Cuts a byte stream into frames; bytes before the first frame (a login banner) are dropped.
class SampleFrameReader {
public:
    void feed(QByteArrayView bytes);
    std::optional<SampleFrame> next();
    // The unparsed tail is capped: a node that never ends a frame cannot grow it without bound.
    static constexpr qsizetype kMaxPending = 4 << 20;

private:
    QByteArray m_pending;
};

// Turns frames into samples; keeps the previous /proc/stat for per-core deltas.
class NodeSampleBuilder {
public:
    NodeSample build(const SampleFrame &frame);

private:
    // Each GPU process's owner, run, age and resident set, and its CPU since the last sample.
    void joinProcessDetail(const SampleFrame &frame, NodeSample &sample);
    std::vector<CpuTimes> m_previous;
    QHash<qint64, std::pair<quint64, double>> m_processTicks; // pid -> CPU ticks, sample time
};

} // namespace sb
