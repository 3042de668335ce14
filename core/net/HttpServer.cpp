#include "HttpServer.h"

#include "util/Log.h"

#include <QDeadlineTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSslConfiguration>
#include <QSslServer>
#include <QSslSocket>
#include <QTcpServer>
#include <QTcpSocket>

#include <http_parser.h>
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <limits>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr qint64 kReadPiece = 64 * 1024;
// A streamed reply is topped up while less than this waits in the socket.
constexpr qint64 kWriteAhead = 256 * 1024;

qint64 nowMs() {
    return QDeadlineTimer::current().deadline();
}

QByteArray errorBody(const QByteArray &message) {
    return QJsonDocument(QJsonObject{{u"error"_s, QString::fromUtf8(message)}})
        .toJson(QJsonDocument::Compact);
}

HttpResponse refusal(int status, const QByteArray &message) {
    return {status, "application/json", errorBody(message), {}};
}

// What a peer sent, quoted in a message: at most 100 bytes of it.
QByteArray quoted(const QByteArray &value) {
    return '"' + (value.size() > 100 ? value.first(100) + "..." : value) + '"';
}

// The host of an authority ("127.0.0.1:7410", "[::1]:80", "Name."), in lower case, without its
// port or a final dot; nothing if it is not host[:port].
std::optional<QByteArray> authorityHost(const QByteArray &authority) {
    const QByteArray lower = authority.trimmed().toLower();
    qsizetype end = lower.startsWith('[') ? lower.indexOf(']') + 1 : lower.indexOf(':');
    if (end == 0) // a '[' without its ']'
        return std::nullopt;
    if (end < 0)
        end = lower.size();
    QByteArray host = lower.first(end);
    const QByteArray rest = lower.sliced(end);
    if (!rest.isEmpty() &&
        (!rest.startsWith(':') || rest.size() > 6 ||
         !std::all_of(rest.begin() + 1, rest.end(), [](char c) { return c >= '0' && c <= '9'; })))
        return std::nullopt;
    if (host.endsWith('.'))
        host.chop(1);
    return host;
}

// Dotted decimal only: "127.0.0.1.evil.example", "0x7f.1" or "2130706433" is a name to a
// resolver (a browser sends any address in this form).
bool isLoopbackIPv4(const QByteArray &host) {
    const QList<QByteArray> parts = host.split('.');
    if (parts.size() != 4 || parts[0] != "127")
        return false;
    return std::all_of(parts.begin(), parts.end(), [](const QByteArray &part) {
        bool ok = false;
        const int value = part.toInt(&ok);
        return ok && part.size() <= 3 && (part.size() == 1 || part[0] != '0') && value <= 255 &&
               std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    });
}

bool isLoopbackHost(const QByteArray &host) {
    if (host == "localhost" || host.endsWith(".localhost")) // RFC 6761: never resolved by DNS
        return true;
    if (host.startsWith('[') && host.endsWith(']')) {
        QHostAddress address;
        return address.setAddress(QString::fromLatin1(host.mid(1, host.size() - 2))) &&
               address.protocol() == QAbstractSocket::IPv6Protocol && address.isLoopback();
    }
    return isLoopbackIPv4(host);
}

// The types a page may POST to any site without asking it first (CORS "simple" requests).
bool isSimpleContentType(const QByteArray &contentType) {
    const QByteArray type = contentType.split(';').constFirst().trimmed().toLower();
    return type.isEmpty() || type == "text/plain" || type == "application/x-www-form-urlencoded" ||
           type == "multipart/form-data";
}

// Which peers count as one for the per-address cap: every loopback address is this machine, and
// an IPv6 peer is its /64 (one host may have every address in it).
QByteArray peerGroup(const QHostAddress &address) {
    bool v4 = false;
    const quint32 ip4 = address.toIPv4Address(&v4);
    if (address.isLoopback() || (v4 && ip4 >> 24 == 127))
        return "loopback";
    if (v4)
        return QByteArray::number(ip4);
    const Q_IPV6ADDR ip6 = address.toIPv6Address();
    return QByteArray(reinterpret_cast<const char *>(ip6.c), 8);
}

// Raises the soft descriptor limit towards the hard one (at most 16,384: no more is needed, and
// children inherit it); returns the soft limit now in force.
qint64 raiseDescriptorLimit() {
    constexpr rlim_t kWanted = 16384;
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return 1024;
    const rlim_t wanted = std::min(limit.rlim_max, kWanted);
    if (limit.rlim_cur < wanted) {
        rlimit raised = limit;
        raised.rlim_cur = wanted;
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            limit = raised;
    }
    return static_cast<qint64>(std::min<rlim_t>(limit.rlim_cur, kWanted));
}

// A response's status line and headers. `length` < 0: the body is chunked, or (for an HTTP/1.0
// peer, when it also does not keep the connection) runs to the end of the connection.
QByteArray responseHead(int status, const QByteArray &contentType, qint64 length, bool chunked,
                        bool keepAlive) {
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' +
                      HttpServer::reasonPhrase(status) + "\r\nContent-Type: " + contentType +
                      "\r\nX-Content-Type-Options: nosniff"; // a blob is never taken for a page
    if (chunked)
        head += "\r\nTransfer-Encoding: chunked";
    else if (length >= 0)
        head += "\r\nContent-Length: " + QByteArray::number(length);
    return head +
           (keepAlive ? "\r\nConnection: keep-alive\r\n\r\n" : "\r\nConnection: close\r\n\r\n");
}

// An error answer after which the connection closes (without its body, for HEAD).
QByteArray closingError(int status, const QByteArray &message, bool head = false) {
    const QByteArray body = errorBody(message);
    return responseHead(status, "application/json", body.size(), false, false) +
           (head ? QByteArray() : body);
}

} // namespace

std::optional<HttpResponse> refuseForeignRequest(const HttpRequest &request, bool loopbackListener,
                                                 const QList<QByteArray> &hostNames) {
    const auto host = authorityHost(request.host);
    if (!host)
        return refusal(400, "the Host " + quoted(request.host) + " is not host[:port]");
    // No Host at all is an HTTP/1.0 tool's request; a browser always names one.
    if (loopbackListener && !host->isEmpty() && !isLoopbackHost(*host) &&
        !hostNames.contains(*host))
        return refusal(421, "this collector listens on loopback and answers only requests for "
                            "localhost, 127.x.x.x or [::1]; this one names " +
                                quoted(request.host) +
                                " (a web page that re-binds its own name to this machine does so)");
    const QByteArray origin = request.header("origin");
    if (!origin.isEmpty() && origin.toLower() != "http://" + request.host.trimmed().toLower())
        return refusal(403, "requests from web pages of another origin (Origin " + quoted(origin) +
                                ") are refused: the collector is for scripts, "
                                "the command line and the Signalbox app");
    const QByteArray site = request.header("sec-fetch-site").trimmed().toLower();
    if (site == "cross-site" || site == "same-site")
        return refusal(403, "requests a browser sends for another site (Sec-Fetch-Site " +
                                quoted(site) + ") are refused");
    const bool fromBrowser =
        !origin.isEmpty() ||
        std::any_of(request.headers.begin(), request.headers.end(),
                    [](const auto &header) { return header.first.startsWith("sec-fetch-"); });
    const bool read = request.method == "GET" || request.method == "HEAD";
    if (fromBrowser && !read && isSimpleContentType(request.header("content-type")))
        return refusal(403, "a browser's " + request.method + " of type " +
                                quoted(request.header("content-type")) +
                                " is refused: any web page may send one");
    return std::nullopt;
}

QByteArray HttpRequest::header(QByteArrayView lowerCaseName) const {
    for (const auto &[name, value] : headers) {
        if (name == lowerCaseName)
            return value;
    }
    return {};
}

QByteArray HttpRequest::path() const {
    const qsizetype mark = target.indexOf('?');
    return mark < 0 ? target : target.first(mark);
}

QByteArray HttpRequest::query() const {
    const qsizetype mark = target.indexOf('?');
    return mark < 0 ? QByteArray() : target.sliced(mark + 1);
}

QByteArray HttpServer::reasonPhrase(int status) {
    switch (status) {
    case 100:
        return "Continue";
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 413:
        return "Content Too Large";
    case 421:
        return "Misdirected Request";
    case 500:
        return "Internal Server Error";
    case 503:
        return "Service Unavailable";
    case 507:
        return "Insufficient Storage";
    default:
        return "Status";
    }
}

// One client connection: reads requests one at a time (a pipelined next one waits in the parser
// until the reply to this one is written), answers them in order, and keeps its own deadlines.
class HttpServer::Connection final : public std::enable_shared_from_this<Connection> {
public:
    enum class State { Idle, Reading, Handling, Writing, Closed };

    Connection(HttpServer *server, QTcpSocket *socket)
        : m_server(server)
        , m_socket(socket)
        , m_peer(socket->peerAddress())
        , m_peerKey(peerGroup(m_peer))
        , m_lastActivity(nowMs()) {
        http_parser_init(&m_parser, HTTP_REQUEST);
        m_parser.data = this;
        // Qt stops reading from the kernel past this, so a client that sends faster than its
        // requests are answered is held back by TCP rather than by our memory.
        m_socket->setReadBufferSize(kReadPiece * 4);
    }

    ~Connection() {
        releaseBody();
        if (m_socket) {
            m_socket->disconnect();
            m_socket->abort();
            m_socket->deleteLater();
        }
    }

    void start() {
        std::weak_ptr<Connection> self = weak_from_this();
        QObject::connect(m_socket, &QTcpSocket::readyRead, m_socket, [self] {
            if (auto c = self.lock())
                c->readRequests();
        });
        QObject::connect(m_socket, &QTcpSocket::bytesWritten, m_socket, [self] {
            if (auto c = self.lock())
                c->writeMore();
        });
        // Over TLS, bytesWritten says a piece was encrypted; this, that it reached the network.
        if (auto *tls = qobject_cast<QSslSocket *>(m_socket))
            QObject::connect(tls, &QSslSocket::encryptedBytesWritten, tls, [self] {
                if (auto c = self.lock())
                    c->writeMore();
            });
        QObject::connect(m_socket, &QTcpSocket::disconnected, m_socket, [self] {
            if (auto c = self.lock()) {
                c->close(false);
                c->leave();
            }
        });
        readRequests();
    }

    State state() const { return m_state; }
    // Idle, or a request still arriving: what may be closed to make room for another client.
    bool waiting() const { return m_state == State::Idle || m_state == State::Reading; }
    const QByteArray &peerKey() const { return m_peerKey; }
    qint64 lastActivity() const { return m_lastActivity; }

    // A body that holds part of the budget and arrived slower than the floor rate over the last
    // `slowGrace` to twice that (a burst long ago does not make a trickle fast).
    bool slowBody(qint64 now, const Limits &limits) const {
        if (m_state != State::Reading || m_refused || m_reserved == 0 ||
            now - m_bodyStarted < limits.slowGrace.count())
            return false;
        const qint64 elapsed = std::max<qint64>(1, now - m_marks[0].time);
        return (m_reserved - m_marks[0].bytes) * 1000 / elapsed < limits.slowBodyRate;
    }

    // Cuts a slow body, freeing its share of the budget at once.
    void cutSlowBody(const Limits &limits) {
        m_request.body = QByteArray();
        releaseBody();
        refuse(408, "the body arrived slower than " + QByteArray::number(limits.slowBodyRate) +
                        " bytes/s while others needed the room it held: send it faster, or "
                        "come again");
    }

    // Called once a second or so by the server.
    void checkDeadline(qint64 now, const Limits &limits) {
        const qint64 quiet = now - m_lastActivity;
        if (m_state == State::Reading && m_bodyStarted > 0 &&
            now - m_marks[1].time >= limits.slowGrace.count())
            m_marks = {m_marks[1], {now, m_reserved}}; // the rate is measured from the older
        switch (m_state) {
        case State::Idle:
            if (quiet > limits.idle.count())
                close(false);
            break;
        case State::Reading:
            // Headers must arrive whole in time (a byte now and then does not keep them open);
            // a body must keep moving.
            if (quiet > limits.stalled.count() ||
                (!m_headersDone && now - m_requestStarted > limits.stalled.count()))
                refuse(408, "the request did not arrive in time");
            break;
        case State::Writing:
            if (quiet > limits.stalled.count())
                close(false);
            break;
        case State::Closed: // a graceful close whose last bytes the peer does not take
            if (quiet > limits.stalled.count()) {
                m_socket->abort();
                leave();
            }
            break;
        case State::Handling:
            break;
        }
    }

    // Closes at once, or (graceful) once what was written has gone out.
    void close(bool graceful) {
        if (m_state == State::Closed)
            return;
        m_state = State::Closed;
        releaseBody();
        if (graceful && m_socket->state() == QAbstractSocket::ConnectedState) {
            m_socket->disconnectFromHost();
            if (m_socket->state() != QAbstractSocket::UnconnectedState)
                return; // `disconnected`, or the deadline for a peer that stopped reading
        }
        m_socket->abort();
        leave();
    }

    // Taken out of the server's list, later: this may run inside one of its own calls.
    void leave() {
        if (m_leaving)
            return;
        m_leaving = true;
        QMetaObject::invokeMethod(
            m_server, [server = m_server, self = this] { server->remove(self); },
            Qt::QueuedConnection);
    }

    // Answers with an error and closes: what follows in the stream cannot be trusted.
    void refuse(int status, const QByteArray &message) {
        if (m_refused) { // answered already, when the headers came
            close(false);
            return;
        }
        if (m_state == State::Closed)
            return;
        m_keepAlive = false;
        m_state = State::Handling;
        send({status, "application/json", errorBody(message), {}});
    }

    void send(HttpResponse response) {
        if (m_state != State::Handling)
            return;
        m_state = State::Writing;
        m_lastActivity = nowMs();
        releaseBody(); // the handler is done with it: a slow reader holds none of the budget
        if (m_head) {  // the headers GET would get; a stream's length is not known
            m_socket->write(responseHead(response.status, response.contentType,
                                         response.stream ? -1 : response.body.size(), false,
                                         m_keepAlive));
            writeMore();
            return;
        }
        const bool chunked = response.stream && m_parser.http_minor >= 1;
        if (response.stream && !chunked)
            m_keepAlive = false; // an HTTP/1.0 peer reads to the end of the connection
        m_socket->write(responseHead(response.status, response.contentType,
                                     response.stream ? -1 : response.body.size(), chunked,
                                     m_keepAlive) +
                        response.body);
        m_stream = std::move(response.stream);
        m_chunked = chunked;
        writeMore();
    }

private:
    static Connection *of(http_parser *parser) { return static_cast<Connection *>(parser->data); }

    static const http_parser_settings &settings() {
        static const http_parser_settings s = [] {
            http_parser_settings settings{};
            settings.on_message_begin = [](http_parser *p) {
                return of(p)->messageBegin();
            };
            settings.on_url = [](http_parser *p, const char *at, size_t n) {
                of(p)->m_request.target.append(at, static_cast<qsizetype>(n));
                return 0;
            };
            settings.on_header_field = [](http_parser *p, const char *at, size_t n) {
                return of(p)->headerPart(true, at, n);
            };
            settings.on_header_value = [](http_parser *p, const char *at, size_t n) {
                return of(p)->headerPart(false, at, n);
            };
            settings.on_headers_complete = [](http_parser *p) {
                return of(p)->headersComplete();
            };
            settings.on_body = [](http_parser *p, const char *at, size_t n) {
                return of(p)->bodyPart(at, n);
            };
            settings.on_message_complete = [](http_parser *p) {
                return of(p)->messageComplete();
            };
            return settings;
        }();
        return s;
    }

    int messageBegin() {
        m_request = HttpRequest{};
        m_request.peer = m_peer;
        m_headersDone = false;
        m_lastWasValue = false;
        m_refused = false;
        m_head = false;
        m_bodyStarted = 0;
        m_state = State::Reading;
        m_requestStarted = nowMs();
        return 0;
    }

    int headerPart(bool name, const char *at, size_t n) {
        if (m_request.headers.isEmpty() || (name && m_lastWasValue))
            m_request.headers.emplaceBack();
        auto &[key, value] = m_request.headers.last();
        (name ? key : value).append(at, static_cast<qsizetype>(n));
        m_lastWasValue = !name;
        return 0;
    }

    int headersComplete() {
        m_headersDone = true;
        int hosts = 0;
        for (auto &header : m_request.headers) {
            header.first = header.first.toLower();
            hosts += header.first == "host" ? 1 : 0;
        }
        m_request.method = http_method_str(static_cast<http_method>(m_parser.method));
        m_head = m_parser.method == HTTP_HEAD;
        m_request.host = m_request.header("host");
        if (hosts > 1) {
            refuseBody(400, "the request has " + QByteArray::number(hosts) + " Host headers");
            return 0;
        }
        if (const QByteArray problem = takeAbsoluteForm(); !problem.isEmpty()) {
            refuseBody(400, problem);
            return 0;
        }
        const Limits &limits = m_server->m_limits;
        const bool sized = m_parser.content_length != std::numeric_limits<uint64_t>::max() &&
                           (m_parser.flags & F_CHUNKED) == 0;
        const bool hasBody =
            (m_parser.flags & F_CHUNKED) != 0 || (sized && m_parser.content_length > 0);
        if (sized && m_parser.content_length > static_cast<uint64_t>(limits.maxBody)) {
            refuseBody(413, "the body is " + QByteArray::number(m_parser.content_length) +
                                " bytes; at most " + QByteArray::number(limits.maxBody) +
                                " are taken (send it in parts)");
            return 0;
        }
        if (hasBody) {
            // The budget is taken as bytes arrive, so a size declared and never sent holds
            // nothing; a declared size that finds no room now is told at once.
            const qint64 now = nowMs();
            if (sized &&
                !m_server->makeRoom(static_cast<qint64>(m_parser.content_length), now, this)) {
                refuseBody(503, "the collector is busy with other large requests: come again");
                return 0;
            }
            m_bodyStarted = now;
            m_marks = {Mark{now, 0}, Mark{now, 0}};
            if (m_request.header("expect").compare("100-continue", Qt::CaseInsensitive) == 0)
                m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
        }
        return 0;
    }

    // An absolute-form target ("http://127.0.0.1:7410/api/v1/health", as sent to a proxy) names
    // its host itself, which then stands for the Host header (RFC 9112, 3.2.2); the target
    // becomes its path and query. Returns what is wrong with a target that is neither form.
    QByteArray takeAbsoluteForm() {
        QByteArray &target = m_request.target;
        if (target.startsWith('/') || (target == "*" && m_parser.method == HTTP_OPTIONS))
            return {};
        const qsizetype scheme = target.indexOf("://");
        const QByteArray name = scheme > 0 ? target.first(scheme).toLower() : QByteArray();
        if (name != "http" && name != "https")
            return "the request target " + quoted(target) +
                   " is neither a path (/api/v1/...) nor an http:// URL";
        const qsizetype start = scheme + 3;
        qsizetype end = start;
        while (end < target.size() && target[end] != '/' && target[end] != '?' &&
               target[end] != '#')
            ++end;
        const QByteArray authority = target.sliced(start, end - start);
        if (authority.isEmpty() || authority.contains('@'))
            return "the request target " + quoted(target) + " names no host[:port]";
        m_request.host = authority;
        target = target.sliced(end);
        if (!target.startsWith('/'))
            target.prepend('/');
        return {};
    }

    // Answers now, then reads the rest of the body into nothing, so the client (which may be
    // sending still) gets to read the answer before the connection closes.
    void refuseBody(int status, const QByteArray &message) {
        m_refused = true;
        m_keepAlive = false;
        m_socket->write(closingError(status, message, m_head));
    }

    int bodyPart(const char *at, size_t n) {
        if (m_refused)
            return 0;
        const auto size = static_cast<qint64>(n);
        if (m_request.body.size() + size > m_server->m_limits.maxBody) {
            m_request.body.clear();
            releaseBody();
            refuseBody(413, "the body is larger than the " +
                                QByteArray::number(m_server->m_limits.maxBody) +
                                " bytes taken (send it in parts)");
            return 0;
        }
        if (!m_server->makeRoom(size, nowMs(), this)) {
            m_request.body.clear();
            releaseBody();
            refuseBody(503, "the collector is busy with other large requests: come again");
            return 0;
        }
        m_server->m_buffered += size;
        m_reserved += size;
        m_request.body.append(at, static_cast<qsizetype>(n));
        return 0;
    }

    int messageComplete() {
        m_keepAlive = !m_refused && http_should_keep_alive(&m_parser) != 0 && m_parser.upgrade == 0;
        http_parser_pause(&m_parser, 1); // one request at a time
        return 0;
    }

    void readRequests() {
        while (m_state == State::Idle || m_state == State::Reading) {
            if (m_unparsed.isEmpty()) {
                m_unparsed = m_socket->read(kReadPiece);
                if (m_unparsed.isEmpty())
                    return;
                m_lastActivity = nowMs();
            }
            const size_t parsed =
                http_parser_execute(&m_parser, &settings(), m_unparsed.constData(),
                                    static_cast<size_t>(m_unparsed.size()));
            m_unparsed.remove(0, static_cast<qsizetype>(parsed));
            const auto error = static_cast<http_errno>(HTTP_PARSER_ERRNO(&m_parser));
            if (error == HPE_PAUSED) {
                http_parser_pause(&m_parser, 0);
                if (m_refused) {
                    close(true); // the refusal was sent when the headers came
                    return;
                }
                dispatch();
                return;
            }
            if (error != HPE_OK) {
                if (m_refused) {
                    close(true);
                    return;
                }
                refuse(400, "malformed HTTP request: " + QByteArray(http_errno_description(error)));
                return;
            }
        }
    }

    void dispatch() {
        m_state = State::Handling;
        std::weak_ptr<Connection> self = weak_from_this();
        const quint64 serial = ++m_serial;
        m_server->m_handler(std::move(m_request), [self, serial](HttpResponse response) {
            const auto c = self.lock();
            if (c && c->m_serial == serial)
                c->send(std::move(response));
        });
    }

    // Bytes written but not yet on the network: over TLS, also those encrypted and waiting.
    qint64 unsent() const {
        const auto *tls = qobject_cast<const QSslSocket *>(m_socket);
        return m_socket->bytesToWrite() + (tls ? tls->encryptedBytesToWrite() : 0);
    }

    void writeMore() {
        m_lastActivity = nowMs();
        if (m_state != State::Writing)
            return;
        while (m_stream && unsent() < kWriteAhead) {
            const std::optional<QByteArray> next = m_stream();
            if (!next) { // no end is sent: the close after what was written says it was cut
                m_stream = nullptr;
                m_keepAlive = false;
                break;
            }
            const QByteArray &piece = *next;
            if (piece.isEmpty()) {
                m_stream = nullptr;
                if (m_chunked)
                    m_socket->write("0\r\n\r\n");
                break;
            }
            if (m_chunked)
                m_socket->write(QByteArray::number(piece.size(), 16) + "\r\n" + piece + "\r\n");
            else
                m_socket->write(piece);
        }
        if (m_stream || unsent() > 0)
            return; // bytesWritten brings us back
        releaseBody();
        if (!m_keepAlive) {
            close(true);
            return;
        }
        m_state = State::Idle;
        // Queued, so that a long pipeline does not recurse.
        std::weak_ptr<Connection> self = weak_from_this();
        QMetaObject::invokeMethod(
            m_socket,
            [self] {
                if (auto c = self.lock())
                    c->readRequests();
            },
            Qt::QueuedConnection);
    }

    void releaseBody() {
        m_server->release(m_reserved);
        m_reserved = 0;
    }

    struct Mark {
        qint64 time = 0;
        qint64 bytes = 0;
    };

    HttpServer *m_server;
    QTcpSocket *m_socket;
    QHostAddress m_peer;
    QByteArray m_peerKey;
    http_parser m_parser{};
    State m_state = State::Idle;
    HttpRequest m_request;
    QByteArray m_unparsed; // read from the socket, not yet through the parser
    bool m_headersDone = false;
    bool m_lastWasValue = false;
    bool m_refused = false; // answered already; the body is read into nothing
    bool m_leaving = false; // removal from the server is queued
    bool m_keepAlive = true;
    bool m_chunked = false;
    bool m_head = false;   // a HEAD request: the answer is its headers
    qint64 m_reserved = 0; // this request's share of the server's body budget: what arrived
    qint64 m_bodyStarted = 0;
    std::array<Mark, 2> m_marks; // the body's size at two times, for its recent rate
    qint64 m_lastActivity;
    qint64 m_requestStarted = 0;
    quint64 m_serial = 0; // which request a Respond belongs to
    std::function<std::optional<QByteArray>()> m_stream;
};

HttpServer::HttpServer(Handler handler, Limits limits, QObject *parent)
    : QObject(parent)
    , m_handler(std::move(handler))
    , m_limits(limits) {
    m_deadlines.setInterval(
        std::clamp(std::min({limits.idle, limits.stalled, limits.slowGrace}) / 4,
                   std::chrono::milliseconds(10), std::chrono::milliseconds(1000)));
    connect(&m_deadlines, &QTimer::timeout, this, &HttpServer::checkDeadlines);
}

HttpServer::~HttpServer() {
    m_connections.clear();
}

Status HttpServer::listen(const QHostAddress &address, quint16 port,
                          const std::optional<QSslConfiguration> &tls) {
    // Every connection is a descriptor: the cap stays well under the limit, so the store's files
    // and the rest of the process always have theirs.
    m_connectionLimit =
        m_limits.connections > 0
            ? m_limits.connections
            : static_cast<int>(std::clamp<qint64>(raiseDescriptorLimit() / 4, 16, 4096));
    if (tls) {
        auto *server = new QSslServer(this);
        server->setSslConfiguration(*tls);
        server->setHandshakeTimeout(5000);
        // Handshakes under way count as pending: past the cap QSslServer stops accepting until
        // one ends, so the cap is the connections' own, and accepting resumes on each deadline
        // check (a handshake that failed early does not resume it).
        server->setMaxPendingConnections(m_connectionLimit);
        // Said, at most once a minute: a key that is not the certificate's fails every one.
        connect(server, &QSslServer::errorOccurred, this,
                [this](QSslSocket *socket, QAbstractSocket::SocketError error) {
                    if (error == QAbstractSocket::RemoteHostClosedError ||
                        error == QAbstractSocket::SocketTimeoutError)
                        return; // a peer that left, or stalled, is no news
                    ++m_failedHandshakes;
                    const qint64 now = nowMs();
                    if (m_lastHandshakeWarning != 0 && now - m_lastHandshakeWarning < 60'000)
                        return;
                    qCWarning(lcCollector).noquote()
                        << u"TLS handshake with %1 failed: %2 (%3 since the last said)"_s
                               .arg(socket->peerAddress().toString(), socket->errorString())
                               .arg(m_failedHandshakes);
                    m_lastHandshakeWarning = now;
                    m_failedHandshakes = 0;
                });
        // A TLS connection is pending once its handshake is done.
        connect(server, &QTcpServer::pendingConnectionAvailable, this, &HttpServer::accept);
        m_server = server;
    } else {
        m_server = new QTcpServer(this);
    }
    if (!m_server->listen(address, port))
        return fail(u"cannot listen on %1:%2: %3"_s.arg(address.toString())
                        .arg(port)
                        .arg(m_server->errorString()),
                    m_server->serverError() == QAbstractSocket::AddressInUseError
                        ? ErrorCode::AddressInUse
                        : ErrorCode::Failed);
    connect(m_server, &QTcpServer::newConnection, this, &HttpServer::accept);
    m_deadlines.start();
    return success();
}

quint16 HttpServer::port() const {
    return m_server ? m_server->serverPort() : 0;
}

void HttpServer::accept() {
    while (QTcpSocket *socket = m_server->nextPendingConnection()) {
        // An answer goes out in several writes (head, body, chunks): without this, Nagle holds
        // its last segment back until the client's delayed ACK, 40 ms later.
        socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        const QByteArray key = peerGroup(socket->peerAddress());
        Connection *oldestWaiting = nullptr; // of all
        Connection *oldestOfPeer = nullptr;  // of this peer's
        int open = 0;
        int fromPeer = 0;
        for (const auto &c : m_connections) {
            if (c->state() == Connection::State::Closed)
                continue;
            ++open;
            const bool samePeer = c->peerKey() == key;
            fromPeer += samePeer ? 1 : 0;
            if (!c->waiting())
                continue;
            if (!oldestWaiting || c->lastActivity() < oldestWaiting->lastActivity())
                oldestWaiting = c.get();
            if (samePeer && (!oldestOfPeer || c->lastActivity() < oldestOfPeer->lastActivity()))
                oldestOfPeer = c.get();
        }
        // Connections being answered are kept; an idle or dribbling one makes room.
        const bool peerFull = fromPeer >= m_limits.connectionsPerPeer;
        Connection *makesRoom = peerFull                    ? oldestOfPeer
                                : open >= m_connectionLimit ? oldestWaiting
                                                            : nullptr;
        if (makesRoom) {
            makesRoom->close(false);
        } else if (peerFull || open >= m_connectionLimit) {
            socket->write(closingError(503, peerFull ? "too many connections from this address"
                                                     : "too many connections: come again"));
            socket->disconnectFromHost();
            connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            continue;
        }
        auto connection = std::make_shared<Connection>(this, socket);
        m_connections.push_back(connection);
        connection->start();
    }
}

void HttpServer::checkDeadlines() {
    const qint64 now = nowMs();
    if (auto *tls = qobject_cast<QSslServer *>(m_server))
        tls->resumeAccepting(); // it checks its cap again
    // A copy: a deadline may close a connection, and closing must not disturb this loop.
    const auto connections = m_connections;
    for (const auto &c : connections)
        c->checkDeadline(now, m_limits);
    if (m_buffered * 2 > m_limits.bufferedBodies) // room runs short: slow bodies give theirs back
        cutSlowBodies(now, nullptr);
}

void HttpServer::remove(Connection *connection) {
    std::erase_if(m_connections, [connection](const auto &c) { return c.get() == connection; });
}

bool HttpServer::makeRoom(qint64 bytes, qint64 now, const Connection *asking) {
    if (m_buffered + bytes <= m_limits.bufferedBodies)
        return true;
    cutSlowBodies(now, asking);
    return m_buffered + bytes <= m_limits.bufferedBodies;
}

void HttpServer::cutSlowBodies(qint64 now, const Connection *asking) {
    const auto connections = m_connections; // cutting one must not disturb this loop
    for (const auto &c : connections) {
        if (c.get() != asking && c->slowBody(now, m_limits))
            c->cutSlowBody(m_limits);
    }
}

} // namespace sb
