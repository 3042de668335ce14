#pragma once

#include "NodeSample.h"

#include <QObject>
#include <QString>
#include <QTimer>

namespace sb {

// Samples this computer from /proc, through the same parsers as remote nodes. Move it to a
// worker thread and call start(); readings arrive by the sampled() signal.
class LocalSampler final : public QObject {
    Q_OBJECT
public:
    explicit LocalSampler(QString procRoot = QStringLiteral("/proc"), int intervalMs = 1000);
    void start();
    // Reads once; the first call has no CPU delta yet and reports 0% busy.
    NodeSample sampleNow();

Q_SIGNALS:
    void sampled(const sb::NodeSample &sample);

private:
    QString m_procRoot;
    QTimer m_timer;
    std::vector<CpuTimes> m_previous;
};

} // namespace sb
