#pragma once

#include "NodeSample.h"

#include <QObject>
#include <QString>
#include <QTimer>

namespace sb {

// Samples this computer from /proc and, where it is installed, nvidia-smi, through the same
// parsers as remote nodes. Move it to a worker thread and call start(); readings arrive by the
// sampled() signal. nvidia-smi runs on that thread, with a timeout, once a sample.
class LocalSampler final : public QObject {
    Q_OBJECT
public:
    // `nvidiaSmi`: the program to run; empty looks it up on PATH (none found: no GPUs).
    explicit LocalSampler(QString procRoot = QStringLiteral("/proc"), int intervalMs = 1000,
                          QString nvidiaSmi = {});
    void start();
    // Reads once; the first call has no CPU delta yet and reports 0% busy.
    NodeSample sampleNow();
    // The fields queried from nvidia-smi: what the dashboard shows.
    static QStringList gpuFields();

Q_SIGNALS:
    void sampled(const sb::NodeSample &sample);

private:
    void sampleGpus(NodeSample *sample) const;

    QString m_procRoot;
    QString m_nvidiaSmi;
    QTimer m_timer;
    std::vector<CpuTimes> m_previous;
};

} // namespace sb
