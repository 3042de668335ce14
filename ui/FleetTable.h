#pragma once

#include "monitor/GpuInsights.h"
#include "monitor/NodeConnection.h"
#include "monitor/NodeSample.h"

#include <QHash>
#include <QWidget>

#include <vector>

namespace sb {

// The compact dashboard: gpustat's density for a whole lab. A line per node (its GPU model once,
// free GPUs, CPU, memory), a row per GPU (index, utilization and memory bars, temperature, power,
// its processes as user:command memory), an unreachable node as one line. A process that is one
// of our runs is a link to its curves; every process has its details as a tooltip.
class FleetTable final : public QWidget {
    Q_OBJECT
public:
    struct Node {
        QString name;
        NodeStatus status;
        NodeSample sample; // the last one
        std::vector<GpuInsight> insights;
        QHash<qint64, QString> runs; // process group -> our run
    };
    explicit FleetTable(QWidget *parent = nullptr);
    void setNodes(std::vector<Node> nodes);
    // Each row as plain text, top to bottom: what is painted, for tests and the clipboard.
    QStringList rowTexts() const;
    QSize sizeHint() const override;

Q_SIGNALS:
    void runActivated(const QString &run);
    void historyRequested(const QString &node); // a node's line double-clicked

protected:
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;

private:
    struct Row {
        enum class Kind { Node, Gpu, Problem };
        Kind kind;
        int node;
        int gpu = -1; // index into the node's sample.gpus
    };
    struct Hit { // a process's place on screen
        QRect rect;
        QString run;
        QString detail;
    };
    int rowHeight() const;
    QString nodeText(const Node &node) const;
    QString gpuFacts(const GpuReading &gpu) const;
    const Hit *hitAt(const QPoint &point) const;

    std::vector<Node> m_nodes;
    std::vector<Row> m_rows;
    std::vector<Hit> m_hits; // from the last paint
};

// "2 × NVIDIA H100 80GB HBM3, 1 × NVIDIA A100": a node's GPU models, each named once.
QString gpuModels(const std::vector<GpuReading> &gpus);
// "12 of 20 GPUs free on 6 nodes · 1 unreachable", by the one free-GPU rule.
QString fleetSummary(const std::vector<FleetTable::Node> &nodes);

} // namespace sb
