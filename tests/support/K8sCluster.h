#pragma once

// A real Kubernetes control plane on loopback (tests/harness/k8scluster.py): etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler and kwok's fake GPU nodes.
#include "HarnessProcess.h"
#include "kube/KubeClient.h"
#include "kube/KubeConfig.h"

#include <QEventLoop>
#include <QTimer>

namespace sb {

// Sends one request and waits for its answer (the test's thread spins meanwhile).
inline KubeReply kubeCall(KubeClient &client, const QByteArray &method, const QString &path,
                          const QJsonObject &body = {},
                          const QByteArray &contentType = "application/json") {
    KubeReply out;
    out.error = QStringLiteral("no answer in 90 s");
    QEventLoop loop;
    KubeRequest request;
    request.method = method;
    request.path = path;
    if (!body.isEmpty())
        request.body = QJsonDocument(body).toJson();
    request.contentType = contentType;
    client.send(request, &loop, [&](const KubeReply &reply) {
        out = reply;
        loop.quit();
    });
    QTimer::singleShot(90000, &loop, &QEventLoop::quit);
    loop.exec();
    return out;
}

} // namespace sb

class K8sCluster {
public:
    explicit K8sCluster(int gpuNodes = 2)
        : m_harness(QStringLiteral("k8scluster.py"), {QString::number(gpuNodes)}, 1800000) {}

    QString error() const { return m_harness.error(); }
    QString dir() const { return m_harness.dir(); }
    // "cert", "token", "tokenFile", "exec" or "wrongCa".
    QString kubeconfig(const QString &auth) const {
        return m_harness.description()[QStringLiteral("kubeconfigs")][auth].toString();
    }
    // The cluster's context for one kind of authentication; an error if the cluster did not
    // start or the kubeconfig does not load.
    sb::Result<sb::KubeContext> context(const QString &auth) const {
        if (!error().isEmpty())
            return sb::fail(error());
        auto config = sb::KubeConfig::load({kubeconfig(auth)});
        if (!config)
            return sb::fail(config.error());
        return config->context();
    }
    // GET `path` as the cluster's admin (client certificate): the object, or {} on an error.
    QJsonObject get(const QString &path) const {
        auto admin = context(QStringLiteral("cert"));
        if (!admin)
            return {};
        sb::KubeClient client(*admin);
        return sb::kubeCall(client, "GET", path).json.object();
    }
    // How many times the exec credential plugin ran.
    int execRuns() const {
        QFile file(m_harness.description()[QStringLiteral("execRuns")].toString());
        return file.open(QIODevice::ReadOnly) ? int(file.readAll().count('\n')) : 0;
    }
    // A program of the control plane's build (kubectl, kube-apiserver, ...).
    QString binary(const QString &name) const {
        return m_harness.description()[QStringLiteral("bin")].toString() + u'/' + name;
    }
    // Appends lines to every container's log (kwok serves it as the kubelet would).
    void appendPodLog(const QStringList &lines) const {
        QFile file(m_harness.description()[QStringLiteral("podLog")].toString());
        if (!file.open(QIODevice::Append))
            return;
        for (const QString &line : lines)
            file.write(QDateTime::currentDateTimeUtc()
                           .toString(Qt::ISODateWithMs)
                           .replace(QStringLiteral("Z"), QStringLiteral("123456Z"))
                           .toUtf8() +
                       " stdout F " + line.toUtf8() + '\n');
    }
    // "restart-apiserver" or "compact".
    bool command(const QString &line) { return m_harness.command(line); }

private:
    HarnessProcess m_harness;
};
