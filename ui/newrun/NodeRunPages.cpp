#include "NodeRunPages.h"

namespace sb {

LocalRunPage::LocalRunPage(JobBackend *backend, QObject *parent)
    : NewRunPage(BackendName::kLocal, backend, {.thisComputer = true}, parent) {
}

QList<std::pair<QString, QString>> LocalRunPage::targets() const {
    return {{QString(), tr("This computer")}};
}

SshRunPage::SshRunPage(JobBackend *backend, QStringList nodes, QObject *parent)
    : NewRunPage(BackendName::kSsh, backend, {.gpusAndCode = true}, parent)
    , m_nodes(std::move(nodes)) {
}

QList<std::pair<QString, QString>> SshRunPage::targets() const {
    QList<std::pair<QString, QString>> entries;
    if (!m_nodes.isEmpty())
        entries.append({JobSpec::kAnyNode.toString(), tr("Any node with enough free GPUs")});
    for (const QString &node : m_nodes)
        entries.append({node, tr("Node %1").arg(node)});
    return entries;
}

void SshRunPage::describeTargets(
    const std::function<void(const QString &, const QString &)> &setText) {
    if (!backend() || !capabilities().availability)
        return;
    for (const QString &node : std::as_const(m_nodes)) {
        backend()->askAvailability(node, this, [setText, node](const Result<QString> &offers) {
            const QString now = offers ? *offers : QString();
            setText(node,
                    now.isEmpty() ? tr("Node %1").arg(node) : tr("Node %1 — %2").arg(node, now));
        });
    }
}

} // namespace sb
