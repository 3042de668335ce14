#pragma once

#include "NewRunPage.h"

namespace sb {

// This computer: one place, no fields of its own.
class LocalRunPage final : public NewRunPage {
    Q_OBJECT
public:
    LocalRunPage(JobBackend *backend, QObject *parent = nullptr);
    QList<std::pair<QString, QString>> targets() const override;
};

// The SSH nodes (the node list's, not the backend's): any node with enough free GPUs, or one of
// them, each with what it offers now.
class SshRunPage final : public NewRunPage {
    Q_OBJECT
public:
    SshRunPage(JobBackend *backend, QStringList nodes, QObject *parent = nullptr);
    QList<std::pair<QString, QString>> targets() const override;
    void
    describeTargets(const std::function<void(const QString &, const QString &)> &setText) override;

private:
    QStringList m_nodes;
};

} // namespace sb
