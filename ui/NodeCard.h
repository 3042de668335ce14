#pragma once

#include "monitor/NodeSample.h"

#include <QFrame>

#include <deque>

class QLabel;

namespace sb {

class CoreBars;
class GpuRows;
class Sparkline;

// One node at a glance: status, its GPUs, per-core CPU bars, memory and swap, load, and the last
// ten minutes of CPU and memory use.
class NodeCard final : public QFrame {
    Q_OBJECT
public:
    explicit NodeCard(const QString &node, QWidget *parent = nullptr);
    void addSample(const NodeSample &sample);

private:
    QLabel *m_title;
    QLabel *m_status;
    QLabel *m_summary;
    CoreBars *m_cores;
    GpuRows *m_gpus;
    Sparkline *m_history;
};

} // namespace sb
