#include "KubeExec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTimer>
#include <QWebSocket>
#include <QWebSocketHandshakeOptions>

namespace sb {

using namespace Qt::StringLiterals;

Result<int> kubeExecExitCode(const QByteArray &statusJson) {
    if (statusJson.trimmed().isEmpty())
        return 0; // v4 and v5 always send one; an old server that sends none ended well
    const QJsonObject status = QJsonDocument::fromJson(statusJson).object();
    if (status.value(u"status"_s).toString() == u"Success"_s)
        return 0;
    if (status.value(u"reason"_s).toString() == u"NonZeroExitCode"_s) {
        for (const QJsonValue cause :
             status.value(u"details"_s).toObject().value(u"causes"_s).toArray()) {
            bool ok = false;
            const int code = cause[u"message"_s].toString().toInt(&ok);
            if (cause[u"reason"_s].toString() == u"ExitCode"_s && ok)
                return code;
        }
        return 1;
    }
    const QString message = status.value(u"message"_s).toString();
    // Runtimes that lose the exit code's type (kwok's local exec among them) say it in words.
    static const QRegularExpression words(u"exit status (\\d+)$"_s);
    if (const auto match = words.match(message); match.hasMatch())
        return match.captured(1).toInt();
    return fail(message.isEmpty() ? QString::fromUtf8(statusJson.left(300)).trimmed() : message);
}

KubeExecSession::KubeExecSession(QObject *receiver, KubeExecDone done)
    : m_socket(new QWebSocket(QString(), QWebSocketProtocol::VersionLatest, this))
    , m_receiver(receiver)
    , m_done(std::move(done)) {
}

void KubeExecSession::start(const QNetworkRequest &request, QObject *receiver, KubeExecDone done,
                            int timeoutMs) {
    auto *session = new KubeExecSession(receiver, std::move(done));
    QWebSocket *socket = session->m_socket;
    connect(socket, &QWebSocket::binaryMessageReceived, session, &KubeExecSession::received);
    connect(socket, &QWebSocket::disconnected, session, [session] { session->finish(); });
    // Qt 6.4 names it error(); errorOccurred() came in 6.5.
    connect(socket, qOverload<QAbstractSocket::SocketError>(&QWebSocket::error), session,
            [session, socket] { session->finish(socket->errorString()); });
    connect(socket, &QWebSocket::sslErrors, session, [session](const QList<QSslError> &errors) {
        session->finish(u"the API server's certificate is not trusted: %1"_s.arg(
            errors.value(0).errorString()));
    });
    QTimer::singleShot(timeoutMs, session, [session, timeoutMs] {
        session->finish(u"no end in %1 s"_s.arg(timeoutMs / 1000));
    });
    QWebSocketHandshakeOptions options;
    options.setSubprotocols({u"v5.channel.k8s.io"_s, u"v4.channel.k8s.io"_s});
    socket->setSslConfiguration(request.sslConfiguration());
    socket->open(request, options);
}

void KubeExecSession::received(const QByteArray &message) {
    if (message.isEmpty())
        return;
    const auto channel = static_cast<unsigned char>(message.front());
    const QByteArrayView data = QByteArrayView(message).sliced(1);
    QByteArray *into = channel == 1   ? &m_result.out
                       : channel == 2 ? &m_result.err
                       : channel == 3 ? &m_status
                                      : nullptr;
    if (channel == 255) // v5: the server closes a stream; the status still follows
        return;
    if (!into)
        return;
    if (into->size() + data.size() > kMaxOutput)
        return finish(u"the command printed more than 16 MiB"_s);
    into->append(data);
}

void KubeExecSession::finish(const QString &error) {
    if (m_finished)
        return;
    m_finished = true;
    m_result.protocol = m_socket->subprotocol();
    const Result<int> code = kubeExecExitCode(m_status);
    Result<KubeExecResult> result = fail(error);
    if (!error.isEmpty() && m_status.isEmpty()) {
        // as set: the handshake or the connection failed
    } else if (!code) {
        result = fail(code.error());
    } else {
        m_result.exitCode = *code;
        result = m_result;
    }
    if (m_receiver)
        m_done(result);
    m_socket->abort();
    deleteLater();
}

} // namespace sb
