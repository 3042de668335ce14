#pragma once

#include "config/Config.h"
#include "jobs/JobBackend.h"
#include "monitor/GpuInsights.h"
#include "monitor/NodeMonitor.h"

#include <QTimer>
#include <QWidget>

#include <functional>
#include <map>

class QComboBox;
class QGridLayout;
class QLabel;
class QLineEdit;
class QStackedWidget;

namespace sb {

class ClusterGpuWatch;
class CollectorClient;
class FleetTable;
class NodeHistory;
class NodeCard;

// The GPU dashboard: a grid of node cards, sorted and filtered, with the actions a node needs
// (add, edit, remove, import from ~/.ssh/config, trust a host key, give a key's passphrase).
// Node edits are saved to the config file.
class NodesView final : public QWidget {
    Q_OBJECT
public:
    NodesView(NodeMonitor *monitor, QString configPath, QWidget *parent = nullptr);

    // Process group -> run name on a node, so insights can name our runs.
    // Where node history is kept: "History…" on a node shows it.
    void setHistory(CollectorClient *collector) { m_collector = collector; }
    NodeHistory *showHistory(const QString &node);
    // The clusters' GPUs: each cluster's free GPUs under the fleet's sentence, and running
    // cluster jobs' GPUs as rows of the compact view.
    void setClusterGpus(ClusterGpuWatch *clusters);
    void setRunLookup(std::function<QHash<qint64, QString>(const QString &node)> lookup);
    // GPU index -> the run Signalbox holds it for: such a GPU is not shown as free.
    void setReservedGpusLookup(std::function<QHash<int, QString>(const QString &node)> lookup);
    void addSample(const QString &node, const sb::NodeSample &sample);
    void setStatus(const QString &node, const sb::NodeStatus &status);
    QList<NodeCard *> visibleCards() const;
    // "all" or "free" (nodes with a free GPU); sort by "name", "free" or "busy".
    void setFilter(const QString &text, const QString &show);
    void setSort(const QString &key);
    // "cards" (a card per node) or "compact" (a row per GPU).
    void setLayoutMode(const QString &mode);
    FleetTable *fleetTable() const { return m_fleet; }
    QString fleetSummaryText() const;
    void addNodes(const QList<NodeConfig> &nodes);

Q_SIGNALS:
    void error(const QString &message);
    void runActivated(const QString &run); // one of our runs, clicked on a GPU

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    NodeCard *card(const QString &node, const QString &address = {});
    void relayout();
    void updateHint(bool noneShown);
    void saveNodes(const QList<NodeConfig> &nodes);
    void editNode(const QString &node);
    void importSshConfig();
    void act(const QString &node, sb::NodeStatus::State state);
    void askPassphrase(const QString &node, const QString &keyFile);

    struct JobGpus {
        QString job;
        std::vector<JobNodeSample> samples;
    };
    NodeMonitor *m_monitor;
    QMap<QString, JobGpus> m_jobGpus;          // by job id
    QMap<QString, QString> m_clusterSummaries; // by cluster
    CollectorClient *m_collector = nullptr;
    QString m_configPath;
    std::function<QHash<qint64, QString>(const QString &)> m_runLookup;
    std::function<QHash<int, QString>(const QString &)> m_reservedLookup;
    std::map<QString, NodeCard *> m_cards;
    std::map<QString, GpuInsights> m_insights;
    QSet<QString> m_keychainTried;
    QWidget *m_grid;
    QGridLayout *m_gridLayout;
    QLineEdit *m_filter;
    QComboBox *m_show;
    QComboBox *m_sort;
    QComboBox *m_layoutMode;
    QLabel *m_fleetSummary;  // "12 of 20 GPUs free on 6 nodes"
    QStackedWidget *m_pages; // the cards, or the compact table
    FleetTable *m_fleet;
    QLabel *m_hint; // the next step when there is no SSH node, or none matches the filter
    int m_columns = 1;
    QList<NodeCard *> m_shown; // in grid order
    QTimer m_relayout;
};

} // namespace sb
