#pragma once

#include "NodeSample.h"
#include "config/Config.h"
#include "ssh/SshSession.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QMutex>
#include <QObject>
#include <QPointer>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <deque>
#include <functional>

namespace sb {

// Where a node stands, for its card and the jobs it runs.
struct NodeStatus {
    enum class State {
        Connecting,
        Connected,
        Unreachable,    // network trouble or a hung node; retried with backoff
        HostKeyUnknown, // waiting for the user to trust the fingerprint
        HostKeyChanged, // refused until the user removes the old key
        NeedsPassphrase,
        AuthFailed
    };
    State state = State::Connecting;
    QString message;     // the reason, in the researcher's words
    QDateTime lastSeen;  // the last sample's arrival; invalid when never
    QString fingerprint; // for the host key states
    QString keyFile;     // for NeedsPassphrase

    QString stateName() const;
};

// One node's SSH connection, on a worker thread of its own: one session, kept open, with a
// long-lived channel streaming samples (no handshake per sample), and commands for the jobs on
// that node run over the same session. A node silent for longer than its sampling allows is
// marked unreachable and reconnected with backoff. Nothing here blocks the caller's thread.
class NodeConnection final : public QObject {
    Q_OBJECT
public:
    struct Options {
        QString knownHostsFile; // empty: ~/.ssh/known_hosts
        int connectTimeoutSeconds = 4;
        int maxBackoffSeconds = 30;
    };
    NodeConnection(NodeConfig node, Options options, QObject *parent = nullptr);
    ~NodeConnection() override;

    const NodeConfig &node() const { return m_node; }
    void start();
    // Silence after which a node counts as hung: the interval plus nvidia-smi's 3 s limit.
    std::chrono::milliseconds silenceLimit() const;

    // Thread-safe. The user accepted this fingerprint for an unknown host.
    void trustHostKey(const QString &fingerprint);
    void setPassphrase(const QString &passphrase);
    void reconnectNow();

    // Runs `command` (shell text; build it with shellCommand) on the node once connected, and
    // calls `done` on `context`'s thread; never, if `context` is gone by then.
    using ExecDone = std::function<void(const Result<ExecResult> &)>;
    void exec(const QString &command, QObject *context, ExecDone done, int timeoutMs = 15000,
              const QByteArray &input = {});
    // Copies local files to the node over SFTP: pairs of local path and remote path.
    void upload(const QList<std::pair<QString, QString>> &files, QObject *context,
                std::function<void(const Status &)> done);
    // Runs `work` with the node's session on the node's thread once connected, and calls `done`
    // with its result on `context`'s thread (never, if `context` is gone by then); a node that
    // is not connected gives the reason as the failure.
    template <typename T>
    void withSession(std::function<Result<T>(SshSession &)> work, QObject *context,
                     std::function<void(const Result<T> &)> done);

Q_SIGNALS:
    void sampled(const QString &node, const sb::NodeSample &sample);
    void statusChanged(const QString &node, const sb::NodeStatus &status);

private:
    struct Request {
        std::function<void(SshSession *)> work;    // runs on the worker with the session
        std::function<void(const QString &)> fail; // runs on the worker when not connected
    };
    void run();
    void setStatus(NodeStatus::State state, const QString &message,
                   const SshFailure *failure = nullptr);
    void wake();
    void waitForWake(int ms, int socket = -1);
    void post(Request request);
    // GUI thread: a request blocked in libssh on a node that went silent gets its socket cut,
    // since libssh's SFTP calls wait for an answer forever.
    void cutIfHung();
    static QString hangReason(qint64 silentMs);

    const NodeConfig m_node;
    const Options m_options;
    QThread *m_thread = nullptr;
    std::atomic<bool> m_stopping{false};
    int m_wakeFd = -1;

    QMutex m_mutex; // guards the fields below, shared with the caller's thread
    std::deque<Request> m_requests;
    QString m_passphrase;
    QString m_trustedFingerprint;
    bool m_retryNow = false;
    NodeStatus m_status;
    int m_busySocket = -1; // the session's socket while requests run on it
    QElapsedTimer m_busySince;
    std::atomic<qint64> m_silentMs{0}; // the node's silence when its socket was cut
    std::atomic<bool> m_cut{false};
    QTimer m_watchdog;
};

template <typename T>
void NodeConnection::withSession(std::function<Result<T>(SshSession &)> work, QObject *context,
                                 std::function<void(const Result<T> &)> done) {
    auto deliver = [this, guard = QPointer<QObject>(context),
                    done = std::move(done)](const Result<T> &result) {
        QMetaObject::invokeMethod(
            this,
            [guard, done, result] {
                if (guard)
                    done(result);
            },
            Qt::QueuedConnection);
    };
    post({[this, work = std::move(work), deliver](SshSession *session) {
              Result<T> result = work(*session);
              deliver(!result && m_cut
                          ? fail(m_node.name + QStringLiteral(": ") + hangReason(m_silentMs))
                          : result);
          },
          [deliver](const QString &why) {
              deliver(fail(why));
          }});
}

} // namespace sb

Q_DECLARE_METATYPE(sb::NodeStatus)
