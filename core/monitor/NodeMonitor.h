#pragma once

#include "config/Config.h"
#include "monitor/NodeConnection.h"

#include <QHash>
#include <QObject>
#include <QThread>

#include <map>
#include <memory>

namespace sb {

class LocalSampler;

// Every node Signalbox watches: this computer (sampled directly) and the SSH nodes (one
// NodeConnection each). Lives on the GUI thread; samples and status changes arrive by signals.
class NodeMonitor final : public QObject {
    Q_OBJECT
public:
    static constexpr QStringView kLocalNode = u"localhost";

    explicit NodeMonitor(NodeConnection::Options options = {}, QObject *parent = nullptr);
    ~NodeMonitor() override;

    void startLocal(double intervalSeconds = 1.0);
    // Connects new nodes, drops removed ones, reconnects changed ones.
    void setNodes(const QList<NodeConfig> &nodes);
    QList<NodeConfig> nodes() const;
    NodeConnection *connection(const QString &node) const; // null for this computer or unknown
    // The node's last known status (Connecting until one came).
    NodeStatus status(const QString &node) const { return m_statuses.value(node); }
    const NodeConnection::Options &options() const { return m_options; }

Q_SIGNALS:
    void sampled(const QString &node, const sb::NodeSample &sample);
    void statusChanged(const QString &node, const sb::NodeStatus &status);
    void nodesChanged();

private:
    const NodeConnection::Options m_options;
    std::map<QString, std::unique_ptr<NodeConnection>> m_connections;
    QThread m_localThread;
    LocalSampler *m_local = nullptr;
    QHash<QString, NodeStatus> m_statuses;
    QHash<QString, QString> m_sampleProblems; // what the last sample of a node could not read
};

} // namespace sb
