#pragma once

#include "monitor/GpuInsights.h"
#include "monitor/NodeConnection.h"
#include "monitor/NodeSample.h"

#include <QFrame>

class QLabel;
class QPushButton;
class QTableWidget;

namespace sb {

class CoreBars;
class GpuPanel;
class Sparkline;

// One node at a glance: its status, every GPU (bars, temperature, power, ten minutes of history,
// its processes with user and command, and any insight), per-core CPU bars, memory, load, the
// history of CPU and memory, and the top processes.
class NodeCard final : public QFrame {
    Q_OBJECT
public:
    NodeCard(const QString &node, const QString &address, QWidget *parent = nullptr);

    QString node() const { return m_node; }
    void setStatus(const NodeStatus &status);
    // `runs`: process group -> our run on this node, to name it beside its processes.
    void addSample(const NodeSample &sample, const std::vector<GpuInsight> &insights,
                   const QHash<qint64, QString> &runs = {});
    const QHash<qint64, QString> &runs() const { return m_runs; }

    const NodeStatus &status() const { return m_status; }
    const NodeSample &lastSample() const { return m_last; }
    const std::vector<GpuInsight> &insights() const { return m_insights; }
    // GPUs with utilization and memory under 5%.
    int freeGpus() const;
    double gpuBusyPercent() const; // mean over the GPUs; -1 without GPUs

Q_SIGNALS:
    void actionRequested(const QString &node, sb::NodeStatus::State state);
    void editRequested(const QString &node);
    void removeRequested(const QString &node);
    void historyRequested(const QString &node);

protected:
    void contextMenuEvent(QContextMenuEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void refresh(); // lays the last sample out in the widgets
    QString m_node;
    bool m_stale = false;
    double m_refreshed = 0;
    NodeStatus m_status;
    NodeSample m_last;
    std::vector<GpuInsight> m_insights;
    QHash<qint64, QString> m_runs;
    QLabel *m_title;
    QLabel *m_statusLabel;
    QPushButton *m_action;
    QLabel *m_summary;
    GpuPanel *m_gpus;
    CoreBars *m_cores;
    Sparkline *m_history;
    QTableWidget *m_top;
};

} // namespace sb
