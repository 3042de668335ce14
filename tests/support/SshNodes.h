#pragma once

// Real sshd nodes on loopback for tests and benchmarks: starts tests/harness/sshnodes.py (or a
// harness that serves nodes the same way, such as slurmcluster.py's login node) and talks to it
// (stop, cont, kill, start, rekey a node).
#include "HarnessProcess.h"
#include "config/Config.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

class SshNodes {
public:
    struct Node {
        QString name;
        QString host;
        int port = 0;
        QString home;
        QString fingerprint;
        QList<qint64> gpuPids;
    };

    // `specs`: "name=capture-file" or "name" for a CPU-only node.
    explicit SshNodes(const QStringList &specs,
                      const QString &script = QStringLiteral("sshnodes.py"))
        : m_harness(script, specs) {
        const QJsonObject json = m_harness.description();
        m_error = m_harness.error();
        m_identity = json.value(QStringLiteral("identity")).toString();
        m_user = json.value(QStringLiteral("user")).toString();
        for (const auto &value : json.value(QStringLiteral("nodes")).toArray()) {
            const QJsonObject n = value.toObject();
            Node node{n.value(QStringLiteral("name")).toString(),
                      n.value(QStringLiteral("host")).toString(),
                      n.value(QStringLiteral("port")).toInt(),
                      n.value(QStringLiteral("home")).toString(),
                      n.value(QStringLiteral("fingerprint")).toString(),
                      {}};
            for (const auto &pid : n.value(QStringLiteral("gpuPids")).toArray())
                node.gpuPids << pid.toInteger();
            m_nodes << node;
        }
        if (m_error.isEmpty() && m_nodes.isEmpty())
            m_error = QStringLiteral("sshnodes.py printed no nodes");
    }

    QString error() const { return m_error; }
    const QJsonObject &description() const { return m_harness.description(); }
    const QList<Node> &nodes() const { return m_nodes; }
    Node node(const QString &name) const {
        for (const Node &n : m_nodes) {
            if (n.name == name)
                return n;
        }
        return {};
    }
    QString dir() const { return m_harness.dir(); }
    QString knownHostsFile() const { return dir() + QStringLiteral("/known_hosts"); }

    // A node's config for Signalbox: the harness's key, this test's known_hosts.
    sb::NodeConfig config(const QString &name, double interval = 1.0) const {
        const Node n = node(name);
        sb::NodeConfig config;
        config.name = name;
        config.host = n.host;
        config.port = n.port;
        config.user = m_user;
        config.identityFile = m_identity;
        config.intervalSeconds = interval;
        return config;
    }
    // Writes every node's key into known_hosts, as after the user trusted them.
    bool trustAll() const {
        QFile file(knownHostsFile());
        if (!file.open(QIODevice::WriteOnly | QIODevice::Append))
            return false;
        for (const Node &n : m_nodes) {
            QFile key(dir() + QLatin1Char('/') + n.name + QStringLiteral("/host_key.pub"));
            if (!key.open(QIODevice::ReadOnly))
                return false;
            const QList<QByteArray> parts = key.readAll().split(' ');
            file.write(QStringLiteral("[%1]:%2 ").arg(n.host).arg(n.port).toUtf8() + parts[0] +
                       ' ' + parts[1].trimmed() + '\n');
        }
        return true;
    }

    // Sends a harness command ("stop NAME", ...) and waits for its answer.
    bool command(const QString &line) { return m_harness.command(line, 30000); }

private:
    HarnessProcess m_harness;
    QString m_identity;
    QString m_user;
    QList<Node> m_nodes;
    QString m_error;
};
