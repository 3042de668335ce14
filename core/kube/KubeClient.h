#pragma once

#include "KubeConfig.h"
#include "KubeExec.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QObject>

#include <functional>
#include <memory>

namespace sb {

struct KubeRequest {
    QByteArray method = "GET";
    QString path;    // from the server's root, with its query: /api/v1/namespaces/x/pods?...
    QByteArray body; // JSON, for POST, PUT and PATCH
    QByteArray contentType = "application/json";
    QList<std::pair<QByteArray, QByteArray>> headers; // more, e.g. for a service behind the proxy
};

struct KubeReply {
    int status = 0;     // the HTTP status; 0 when no answer came
    QByteArray body;    // the answer (for a stream: only when it was refused)
    QJsonDocument json; // the body parsed, when it is JSON (parsed off the GUI thread)
    QString error;      // empty on a 2xx; else what went wrong, in the reader's words

    bool ok() const { return error.isEmpty(); }
};

// The Kubernetes API server of one kubeconfig context, over libcurl. Requests run on a thread
// of the client's own (one HTTP/2 connection carries them all); answers come back on the
// receiver's thread and are dropped when the receiver is gone. TLS is always verified; the
// credential (token, token file, client certificate or exec plugin) is added to each request,
// and an exec plugin's credential is cached until it expires or the server refuses it.
class KubeClient final : public QObject {
    Q_OBJECT
public:
    explicit KubeClient(KubeContext context, QObject *parent = nullptr);
    ~KubeClient() override;

    const KubeContext &context() const { return m_context; }

    using Done = std::function<void(const KubeReply &)>;
    using JsonLines = std::function<void(const QList<QJsonObject> &)>;
    using Bytes = std::function<void(const QByteArray &)>;

    // One request and its answer.
    quint64 send(const KubeRequest &request, QObject *receiver, Done done);
    // A long GET whose answer is newline-separated JSON (a watch): objects arrive in batches as
    // they come; `done` when the server ends it or it fails.
    quint64 watch(const KubeRequest &request, QObject *receiver, JsonLines lines, Done done);
    // A long GET of raw bytes (a log that is followed).
    quint64 follow(const KubeRequest &request, QObject *receiver, Bytes bytes, Done done);
    // Ends a request; its callbacks are not called.
    void cancel(quint64 id);
    // Runs `command` in a container of a pod through the exec subresource, over a WebSocket
    // (v5.channel.k8s.io, else v4): what it printed and its exit code, or why it could not run.
    void exec(const QString &ns, const QString &pod, const QString &container,
              const QStringList &command, QObject *receiver, KubeExecDone done,
              int timeoutMs = 30000);

    class Worker;

private:
    KubeContext m_context;
    std::unique_ptr<Worker> m_worker;
};

// The message of a refused request: the Status object's message when the server sent one.
QString kubeErrorMessage(int status, const QByteArray &body);
// "libcurl/7.88.1 OpenSSL/3.0.15 ...", for the About box.
QString libcurlVersion();

} // namespace sb
