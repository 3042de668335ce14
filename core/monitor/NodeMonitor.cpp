#include "NodeMonitor.h"

#include "LocalSampler.h"
#include "util/Log.h"

namespace sb {

using namespace Qt::StringLiterals;

NodeMonitor::NodeMonitor(NodeConnection::Options options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options)) {
    connect(
        this, &NodeMonitor::statusChanged, this,
        [this](const QString &node, const NodeStatus &status) { m_statuses.insert(node, status); });
    connect(this, &NodeMonitor::sampled, this, [this](const QString &node, const NodeSample &s) {
        // A node that cannot be read is logged when it starts and when it ends, not per sample.
        const QString problem = s.error.isEmpty() ? s.gpuError : s.error;
        if (problem == m_sampleProblems.value(node))
            return;
        if (problem.isEmpty())
            qCInfo(lcMonitor).noquote() << node << u"is read again"_s;
        else
            qCWarning(lcMonitor).noquote() << node << problem;
        m_sampleProblems.insert(node, problem);
    });
    m_localThread.setObjectName(u"local-sampler"_s);
}

NodeMonitor::~NodeMonitor() {
    m_localThread.quit();
    m_localThread.wait();
}

void NodeMonitor::startLocal(double intervalSeconds) {
    if (m_local)
        return;
    m_local = new LocalSampler(u"/proc"_s, static_cast<int>(intervalSeconds * 1000));
    m_local->moveToThread(&m_localThread);
    connect(&m_localThread, &QThread::started, m_local, &LocalSampler::start);
    connect(&m_localThread, &QThread::finished, m_local, &QObject::deleteLater);
    connect(m_local, &LocalSampler::sampled, this,
            [this](const NodeSample &sample) { Q_EMIT sampled(kLocalNode.toString(), sample); });
    m_localThread.start();
    NodeStatus status;
    status.state = NodeStatus::State::Connected;
    Q_EMIT statusChanged(kLocalNode.toString(), status);
}

void NodeMonitor::setNodes(const QList<NodeConfig> &nodes) {
    QStringList keep;
    for (const NodeConfig &node : nodes) {
        keep << node.name;
        const auto it = m_connections.find(node.name);
        if (it != m_connections.end() && it->second->node() == node)
            continue;
        auto connection = std::make_unique<NodeConnection>(node, m_options);
        connect(connection.get(), &NodeConnection::sampled, this, &NodeMonitor::sampled);
        connect(connection.get(), &NodeConnection::statusChanged, this,
                &NodeMonitor::statusChanged);
        m_statuses.remove(node.name); // a changed node starts over
        connection->start();
        m_connections[node.name] = std::move(connection);
    }
    std::erase_if(m_connections, [&](const auto &entry) { return !keep.contains(entry.first); });
    m_statuses.removeIf([&](const auto &entry) {
        return !keep.contains(entry.key()) && entry.key() != kLocalNode;
    });
    Q_EMIT nodesChanged();
}

QList<NodeConfig> NodeMonitor::nodes() const {
    QList<NodeConfig> nodes;
    for (const auto &[name, connection] : m_connections)
        nodes << connection->node();
    return nodes;
}

NodeConnection *NodeMonitor::connection(const QString &node) const {
    const auto it = m_connections.find(node);
    return it == m_connections.end() ? nullptr : it->second.get();
}

} // namespace sb
