#include "NodeConnection.h"

#include "SampleScript.h"
#include "ssh/ShellQuote.h"
#include "util/EnumNames.h"
#include "util/Log.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QMetaObject>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sb {

using namespace Qt::StringLiterals;
using State = NodeStatus::State;

namespace {
// A request on a connection whose silence the kernel cannot tell (a ProxyJump pipe) is cut
// only after this long.
constexpr qint64 kUnwatchedRequestLimitMs = 120'000;
} // namespace

QString NodeStatus::stateName() const {
    using S = State;
    static constexpr EnumNames<S, 7> kNames{
        {{S::Connecting, QT_TRANSLATE_NOOP("sb::NodeStatus", "connecting")},
         {S::Connected, QT_TRANSLATE_NOOP("sb::NodeStatus", "connected")},
         {S::Unreachable, QT_TRANSLATE_NOOP("sb::NodeStatus", "unreachable")},
         {S::HostKeyUnknown, QT_TRANSLATE_NOOP("sb::NodeStatus", "unknown host key")},
         {S::HostKeyChanged, QT_TRANSLATE_NOOP("sb::NodeStatus", "host key changed")},
         {S::NeedsPassphrase, QT_TRANSLATE_NOOP("sb::NodeStatus", "needs passphrase")},
         {S::AuthFailed, QT_TRANSLATE_NOOP("sb::NodeStatus", "login refused")}}};
    return translatedNameOf(kNames, state, "sb::NodeStatus");
}

NodeConnection::NodeConnection(NodeConfig node, Options options, QObject *parent)
    : QObject(parent)
    , m_node(std::move(node))
    , m_options(std::move(options))
    , m_wakeFd(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
    qRegisterMetaType<sb::NodeSample>();
    qRegisterMetaType<sb::NodeStatus>();
    m_watchdog.setInterval(1000);
    connect(&m_watchdog, &QTimer::timeout, this, &NodeConnection::cutIfHung);
}

NodeConnection::~NodeConnection() {
    m_stopping = true;
    {
        QMutexLocker lock(&m_mutex); // a request stuck on a hung node must not hold us here
        if (m_busySocket >= 0)
            ::shutdown(m_busySocket, SHUT_RDWR);
    }
    wake();
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
    }
    ::close(m_wakeFd);
}

void NodeConnection::start() {
    if (m_thread)
        return;
    m_thread = QThread::create([this] { run(); });
    m_thread->setObjectName(u"node-"_s + m_node.name);
    m_thread->start();
    m_watchdog.start();
}

void NodeConnection::cutIfHung() {
    QMutexLocker lock(&m_mutex);
    const qint64 limit = silenceLimit().count();
    if (m_busySocket < 0 || m_busySince.elapsed() < limit)
        return;
    // The sampler's stream keeps bytes arriving every interval, so a socket that has received
    // nothing for the silence limit belongs to a hung node, whatever the request waits for.
    tcp_info info{};
    socklen_t size = sizeof info;
    const bool tcp = getsockopt(m_busySocket, IPPROTO_TCP, TCP_INFO, &info, &size) == 0;
    const qint64 silent = tcp ? qint64(info.tcpi_last_data_recv) : m_busySince.elapsed();
    if (silent < (tcp ? limit : kUnwatchedRequestLimitMs))
        return;
    m_silentMs = silent;
    m_cut = true;
    ::shutdown(m_busySocket, SHUT_RDWR);
}

QString NodeConnection::hangReason(qint64 silentMs) {
    return u"no answer for %1 s (the node or its network hangs)"_s.arg(
        QString::number(double(silentMs) / 1000.0, 'f', 1));
}

std::chrono::milliseconds NodeConnection::silenceLimit() const {
    // Sections are announced before each command, so bytes flow at least every interval or
    // every nvidia-smi call (at most 3 s); one second more absorbs scheduling noise.
    const double seconds = std::max(m_node.intervalSeconds, 3.0) + 1.0;
    return std::chrono::milliseconds(static_cast<qint64>(seconds * 1000));
}

void NodeConnection::trustHostKey(const QString &fingerprint) {
    {
        QMutexLocker lock(&m_mutex);
        m_trustedFingerprint = fingerprint;
    }
    wake();
}

void NodeConnection::setPassphrase(const QString &passphrase) {
    {
        QMutexLocker lock(&m_mutex);
        m_passphrase = passphrase;
        m_retryNow = true;
    }
    wake();
}

void NodeConnection::reconnectNow() {
    {
        QMutexLocker lock(&m_mutex);
        m_retryNow = true;
    }
    wake();
}

void NodeConnection::post(Request request) {
    {
        QMutexLocker lock(&m_mutex);
        m_requests.push_back(std::move(request));
    }
    wake();
}

void NodeConnection::exec(const QString &command, QObject *context, ExecDone done, int timeoutMs,
                          const QByteArray &input) {
    withSession<ExecResult>(
        [=](SshSession &session) { return session.run(command, input, timeoutMs); }, context,
        std::move(done));
}

void NodeConnection::upload(const QList<std::pair<QString, QString>> &files, QObject *context,
                            std::function<void(const Status &)> done) {
    withSession<std::monostate>(
        [files](SshSession &session) -> Status {
            for (const auto &[local, remote] : files) {
                const int mode = QFileInfo(local).isExecutable() ? 0755 : 0644;
                if (Status copied = session.upload(local, remote, mode); !copied)
                    return copied;
            }
            return success();
        },
        context, std::move(done));
}

void NodeConnection::wake() {
    const quint64 one = 1;
    [[maybe_unused]] const auto written = ::write(m_wakeFd, &one, sizeof one);
}

void NodeConnection::waitForWake(int ms, int socket) {
    pollfd fds[2] = {{m_wakeFd, POLLIN, 0}, {socket, POLLIN, 0}};
    if (::poll(fds, socket >= 0 ? 2 : 1, ms) > 0 && (fds[0].revents & POLLIN)) {
        quint64 count = 0;
        [[maybe_unused]] const auto read = ::read(m_wakeFd, &count, sizeof count);
    }
}

void NodeConnection::setStatus(State state, const QString &message, const SshFailure *failure) {
    NodeStatus status;
    bool changed = false;
    {
        QMutexLocker lock(&m_mutex);
        changed = m_status.state != state || m_status.message != message;
        m_status.state = state;
        m_status.message = message;
        m_status.fingerprint = failure ? failure->fingerprint : QString();
        m_status.keyFile = failure ? failure->keyFile : QString();
        status = m_status;
    }
    if (changed && state == State::Connected)
        qCInfo(lcSsh).noquote() << m_node.name << u"connected"_s;
    else if (changed && state != State::Connecting)
        qCWarning(lcSsh).noquote() << m_node.name << status.stateName() << message;
    Q_EMIT statusChanged(m_node.name, status);
}

void NodeConnection::run() {
    const SshTarget target{m_node.host,
                           m_node.port,
                           m_node.user,
                           m_node.identityFile,
                           m_node.proxyJump,
                           m_options.knownHostsFile,
                           m_options.connectTimeoutSeconds};
    const QString sampler = shellCommand(SampleScript::command(m_node.intervalSeconds));
    std::unique_ptr<SshSession> session;
    std::unique_ptr<SshStream> stream;
    SampleFrameReader reader;
    NodeSampleBuilder builder;
    SshFailure pending; // the last failure that waits for the user
    bool waitingForUser = false;
    int backoffSeconds = 1;
    QDeadlineTimer nextAttempt(0);
    QElapsedTimer sinceBytes;

    auto failRequests = [this](const QString &why) {
        std::deque<Request> requests;
        {
            QMutexLocker lock(&m_mutex);
            requests.swap(m_requests);
        }
        for (const Request &request : requests)
            request.fail(u"%1: %2"_s.arg(m_node.name, why));
    };
    auto drop = [&](const QString &why) {
        stream.reset();
        session.reset();
        reader = {};
        builder = {};
        setStatus(State::Unreachable, why);
        nextAttempt.setRemainingTime(backoffSeconds * 1000);
        backoffSeconds = std::min(backoffSeconds * 2, m_options.maxBackoffSeconds);
        failRequests(why);
    };

    while (!m_stopping) {
        if (!session) {
            bool retry = false;
            QString trusted;
            QString passphrase;
            {
                QMutexLocker lock(&m_mutex);
                std::swap(retry, m_retryNow);
                std::swap(trusted, m_trustedFingerprint);
                passphrase = m_passphrase;
            }
            if (!trusted.isEmpty() && waitingForUser && trusted == pending.fingerprint &&
                !pending.knownHostsEntry.isEmpty()) {
                if (const Status saved =
                        sb::trustHostKey(m_options.knownHostsFile, pending.knownHostsEntry);
                    !saved) {
                    setStatus(State::HostKeyUnknown, saved.error(), &pending);
                    continue;
                }
                retry = true;
            }
            if (retry) {
                waitingForUser = false;
                nextAttempt.setRemainingTime(0);
            }
            if (waitingForUser || !nextAttempt.hasExpired()) {
                failRequests(m_status.message);
                waitForWake(waitingForUser ? 1000
                                           : static_cast<int>(std::min<qint64>(
                                                 nextAttempt.remainingTime(), 1000)));
                continue;
            }
            setStatus(State::Connecting, {});
            SshFailure failure;
            session = SshSession::connect(target, passphrase, &failure);
            if (!session) {
                switch (failure.kind) {
                case SshFailure::Kind::Network:
                    drop(failure.message);
                    break;
                case SshFailure::Kind::HostKeyUnknown:
                case SshFailure::Kind::HostKeyChanged:
                case SshFailure::Kind::NeedsPassphrase:
                case SshFailure::Kind::AuthFailed: {
                    static const QHash<SshFailure::Kind, State> states{
                        {SshFailure::Kind::HostKeyUnknown, State::HostKeyUnknown},
                        {SshFailure::Kind::HostKeyChanged, State::HostKeyChanged},
                        {SshFailure::Kind::NeedsPassphrase, State::NeedsPassphrase},
                        {SshFailure::Kind::AuthFailed, State::AuthFailed}};
                    pending = failure;
                    waitingForUser = true; // retrying cannot help until the user acts
                    setStatus(states.value(failure.kind), failure.message, &failure);
                    failRequests(failure.message);
                    break;
                }
                }
                continue;
            }
            auto opened = session->stream(sampler);
            if (!opened) {
                drop(opened.error());
                continue;
            }
            stream = std::move(opened).value();
            sinceBytes.start();
            backoffSeconds = 1;
        }

        std::deque<Request> requests;
        {
            QMutexLocker lock(&m_mutex);
            requests.swap(m_requests);
        }
        if (!requests.empty()) {
            {
                QMutexLocker lock(&m_mutex);
                m_busySocket = session->socket();
                m_busySince.start();
            }
            for (const Request &request : requests)
                request.work(session.get());
            {
                QMutexLocker lock(&m_mutex);
                m_busySocket = -1;
            }
            if (m_cut.exchange(false)) {
                drop(hangReason(m_silentMs));
                continue;
            }
        }

        QByteArray out;
        QByteArray err;
        const bool alive = stream->readAvailable(&out, &err);
        bool midFrame = false;
        if (!out.isEmpty()) {
            sinceBytes.start();
            reader.feed(out);
            midFrame = true;
            while (const auto frame = reader.next()) {
                midFrame = false;
                const NodeSample sample = builder.build(*frame);
                bool connectedNow = false;
                {
                    QMutexLocker lock(&m_mutex);
                    m_status.lastSeen = QDateTime::currentDateTimeUtc(); // cheaper than local
                    connectedNow = m_status.state != State::Connected;
                }
                if (connectedNow)
                    setStatus(State::Connected, {});
                Q_EMIT sampled(m_node.name, sample);
            }
        }
        if (!alive) {
            const QString detail = QString::fromUtf8(err).trimmed();
            drop(detail.isEmpty() ? u"the connection closed"_s
                                  : u"the sampler stopped: %1"_s.arg(detail.right(300)));
            continue;
        }
        if (std::chrono::milliseconds(sinceBytes.elapsed()) > silenceLimit()) {
            drop(hangReason(sinceBytes.elapsed()));
            continue;
        }
        // A frame arrives in pieces (one per section) within a fraction of a second: let the
        // rest of it come before reading again, rather than waking once per piece.
        if (midFrame) {
            waitForWake(200);
        } else {
            // Sleep until data, a request, or the moment silence would mean a hung node.
            const auto left = silenceLimit() - std::chrono::milliseconds(sinceBytes.elapsed());
            waitForWake(static_cast<int>(std::clamp<qint64>(left.count() + 10, 10, 5000)),
                        session->socket());
        }
    }
}

} // namespace sb
