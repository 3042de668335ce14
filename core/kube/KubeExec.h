#pragma once

#include "util/Result.h"

#include <QByteArray>
#include <QNetworkRequest>
#include <QObject>
#include <QPointer>
#include <QStringList>

#include <functional>

class QWebSocket;

namespace sb {

// What a command run in a container printed, and how it ended.
struct KubeExecResult {
    QByteArray out;
    QByteArray err;
    int exitCode = 0;
    QString protocol; // the channel protocol the server chose, e.g. "v5.channel.k8s.io"
};
using KubeExecDone = std::function<void(const Result<KubeExecResult> &)>;

// The exit code in the exec subresource's status channel (3): 0 for Success, the ExitCode
// cause of NonZeroExitCode; any other failure (the command could not start) as its message.
Result<int> kubeExecExitCode(const QByteArray &statusJson);

// One run of the exec subresource over a WebSocket: asks for v5.channel.k8s.io and takes
// v4.channel.k8s.io from servers without it (their framing is the same: a channel byte, then
// data; v5 adds the close signal, channel 255). Output is capped at 16 MiB a stream. Deletes
// itself when done; `done` is not called when `receiver` is gone by then.
class KubeExecSession final : public QObject {
    Q_OBJECT
public:
    static constexpr qsizetype kMaxOutput = 16 << 20;
    // `request`: the wss:// URL of the exec subresource with its query, TLS and credential set.
    static void start(const QNetworkRequest &request, QObject *receiver, KubeExecDone done,
                      int timeoutMs);

private:
    KubeExecSession(QObject *receiver, KubeExecDone done);
    void received(const QByteArray &message);
    void finish(const QString &error = {});

    QWebSocket *m_socket;
    QPointer<QObject> m_receiver;
    KubeExecDone m_done;
    KubeExecResult m_result;
    QByteArray m_status;
    bool m_finished = false;
};

} // namespace sb
