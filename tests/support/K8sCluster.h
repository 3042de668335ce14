#pragma once

// A real Kubernetes control plane on loopback (tests/harness/k8scluster.py): etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler and kwok's fake GPU nodes. Under ctest
// one control plane serves every test (SIGNALBOX_K8S_SHARED names its directory, started by
// tests/harness/k8sshared.py): each test resets it to how it started and the tests take turns.
// Without one running there, a test starts a control plane of its own.
#include "HarnessProcess.h"
#include "kube/KubeClient.h"
#include "kube/KubeConfig.h"

#include <QEventLoop>
#include <QFile>
#include <QLocalSocket>
#include <QTimer>

#include <memory>

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
    explicit K8sCluster(int gpuNodes = 2) {
        const QString shared = qEnvironmentVariable("SIGNALBOX_K8S_SHARED");
        QFile file(shared + QStringLiteral("/description.json"));
        if (shared.isEmpty() || !file.open(QIODevice::ReadOnly)) {
            m_own = std::make_unique<HarnessProcess>(
                QStringLiteral("k8scluster.py"), QStringList{QString::number(gpuNodes)}, 1800000);
            return;
        }
        m_control = shared + QStringLiteral("/control.sock");
        m_description = QJsonDocument::fromJson(file.readAll()).object();
        if (m_description.isEmpty())
            m_error = QStringLiteral("the shared cluster in %1 has no description").arg(shared);
        else if (!command(QStringLiteral("reset %1").arg(gpuNodes)))
            m_error = QStringLiteral("the shared cluster in %1 could not be reset: %2")
                          .arg(shared, m_answer);
    }

    QString error() const { return m_own ? m_own->error() : m_error; }
    QString dir() const {
        return m_own ? m_own->dir() : description()[QStringLiteral("work")].toString();
    }
    // "cert", "token", "tokenFile", "exec" or "wrongCa".
    QString kubeconfig(const QString &auth) const {
        return description()[QStringLiteral("kubeconfigs")][auth].toString();
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
        QFile file(description()[QStringLiteral("execRuns")].toString());
        return file.open(QIODevice::ReadOnly) ? int(file.readAll().count('\n')) : 0;
    }
    // A program of the control plane's build (kubectl, kube-apiserver, ...).
    QString binary(const QString &name) const {
        return description()[QStringLiteral("bin")].toString() + u'/' + name;
    }
    // Appends lines to every container's log (kwok serves it as the kubelet would).
    void appendPodLog(const QStringList &lines) const {
        QFile file(description()[QStringLiteral("podLog")].toString());
        if (!file.open(QIODevice::Append))
            return;
        for (const QString &line : lines)
            file.write(QDateTime::currentDateTimeUtc()
                           .toString(Qt::ISODateWithMs)
                           .replace(QStringLiteral("Z"), QStringLiteral("123456Z"))
                           .toUtf8() +
                       " stdout F " + line.toUtf8() + '\n');
    }
    // "restart-apiserver", "compact" or "reset GPU_NODES" (see k8scluster.py).
    bool command(const QString &line) {
        if (m_own)
            return m_own->command(line);
        constexpr int kAnswerMs = 180000;
        QLocalSocket control;
        control.connectToServer(m_control);
        m_answer = QStringLiteral("no answer from ") + m_control;
        if (!control.waitForConnected(10000))
            return false;
        control.write(line.toUtf8() + '\n');
        while (!control.canReadLine()) {
            if (!control.waitForReadyRead(kAnswerMs))
                return false;
        }
        m_answer = QString::fromUtf8(control.readLine().trimmed());
        return m_answer == u"ok";
    }

private:
    const QJsonObject &description() const { return m_own ? m_own->description() : m_description; }

    std::unique_ptr<HarnessProcess> m_own; // null when the run's cluster is shared
    QString m_control;                     // the shared cluster's command socket
    QJsonObject m_description;
    QString m_error;
    QString m_answer; // the shared cluster's last answer
};
