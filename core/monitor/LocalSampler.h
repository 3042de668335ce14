#pragma once

#include "SampleScript.h"

#include <QObject>
#include <QString>
#include <QTimer>

namespace sb {

// Samples this computer directly (no SSH) with the script and parsers remote nodes use. Move it
// to a worker thread and call start(); readings arrive by the sampled() signal.
class LocalSampler final : public QObject {
    Q_OBJECT
public:
    // `nvidiaSmi`: the program to run; empty looks it up on PATH (none found: no GPUs).
    explicit LocalSampler(QString procRoot = QStringLiteral("/proc"), int intervalMs = 1000,
                          QString nvidiaSmi = {});
    void start();
    // Reads once; the first call has no CPU delta yet and reports 0% busy.
    NodeSample sampleNow();

Q_SIGNALS:
    void sampled(const sb::NodeSample &sample);

private:
    QString m_procRoot;
    QString m_nvidiaSmi;
    QTimer m_timer;
    NodeSampleBuilder m_builder;
};

} // namespace sb
