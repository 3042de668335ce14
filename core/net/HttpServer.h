#pragma once

#include "util/Result.h"

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QSslConfiguration>
#include <QTimer>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QTcpServer;

namespace sb {

struct HttpRequest {
    QByteArray method; // "GET", "HEAD", "POST", ...
    // "/api/v1/series?run=a%20b": as sent, or the path and query of an absolute-form target
    // ("http://127.0.0.1:7410/api/v1/health"), whose authority is then `host`.
    QByteArray target;
    QByteArray host; // the Host header, or an absolute-form target's authority; may hold a port
    QList<std::pair<QByteArray, QByteArray>> headers; // names in lower case
    QByteArray body;
    QHostAddress peer;

    QByteArray header(QByteArrayView lowerCaseName) const;
    QByteArray path() const;  // the target before '?', still percent-encoded
    QByteArray query() const; // after '?'
};

struct HttpResponse {
    int status = 200;
    QByteArray contentType = "application/json";
    QByteArray body;
    // A body too large to build at once: each call returns the next piece, an empty array at the
    // end, or nullopt when the body cannot be finished (the connection is then closed without
    // its end, so that the client sees a cut body, never a whole one). Called on the server's
    // thread, only while the peer keeps up with what was sent.
    std::function<std::optional<QByteArray>()> stream;
};

// Who may ask a server meant for scripts and apps, not web pages. What a browser sends on
// another site's behalf is refused with 403: an Origin other than the server's own,
// Sec-Fetch-Site cross-site or same-site, or a write of a type that any page may send anywhere
// without asking (text/plain, a form). On a loopback listener a Host that names no loopback
// address, no "localhost" and none of `hostNames` is refused with 421: so DNS rebinding shows (a
// page whose own name was made to resolve to 127.0.0.1 sends that name). The refusal, or nothing.
std::optional<HttpResponse> refuseForeignRequest(const HttpRequest &request, bool loopbackListener,
                                                 const QList<QByteArray> &hostNames = {});

// A small HTTP/1.1 server (persistent connections, pipelining, chunked bodies both ways) that
// holds up against hostile clients: bodies are bounded, one by one and all together, and count
// as their bytes arrive; a slow body is cut when others need the room; idle and stalled
// connections are closed; connections are capped in all (well under the descriptor limit) and
// per address (loopback counts as one address); a slow reader of a streamed reply costs no
// memory. HEAD is answered with the headers GET would get. Requests are parsed by http_parser
// (Debian's libhttp-parser). Lives on one thread; the handler runs there and may answer at once
// or later.
class HttpServer final : public QObject {
    Q_OBJECT
public:
    struct Limits {
        qint64 maxBody = qint64(64) << 20;         // larger bodies get 413
        qint64 bufferedBodies = qint64(512) << 20; // all requests' bodies together; past it 503
        std::chrono::milliseconds idle{60'000};    // a kept-alive connection with no request
        std::chrono::milliseconds stalled{30'000}; // a request or reply that stopped moving
        int connectionsPerPeer = 256; // the oldest idle or unfinished request makes room, else 503
        // All peers together; 0: a quarter of the descriptor limit (raised on listen towards its
        // hard limit, to 16,384 at most), at most 4096. Past it the oldest idle or unfinished
        // request makes room, else 503.
        int connections = 0;
        // While bodies hold more than half the budget, or a body finds no room, a body arriving
        // slower than this (over the last `slowGrace` to twice that) is cut with 408.
        qint64 slowBodyRate = 64 * 1024; // bytes per second
        std::chrono::milliseconds slowGrace{5'000};
    };
    // Answers the request; call it once, on the server's thread. Harmless after the peer left.
    using Respond = std::function<void(HttpResponse)>;
    using Handler = std::function<void(HttpRequest, Respond)>;

    HttpServer(Handler handler, Limits limits, QObject *parent = nullptr);
    ~HttpServer() override;

    // With `tls`, connections are TLS (QSslServer): a request comes once its handshake is done,
    // and a handshake that stalls is dropped after 5 s.
    Status listen(const QHostAddress &address, quint16 port,
                  const std::optional<QSslConfiguration> &tls = std::nullopt);
    quint16 port() const;
    int connectionCount() const { return static_cast<int>(m_connections.size()); }
    qint64 bufferedBodies() const { return m_buffered; }
    int connectionLimit() const { return m_connectionLimit; }

    static QByteArray reasonPhrase(int status);

private:
    class Connection;
    friend class Connection;
    void accept();
    void checkDeadlines();
    void remove(Connection *connection);
    // Whether `bytes` more fit in the body budget, once slow bodies (not the asking one's) were
    // cut if they did not.
    bool makeRoom(qint64 bytes, qint64 now, const Connection *asking);
    void cutSlowBodies(qint64 now, const Connection *asking);
    void release(qint64 bytes) { m_buffered -= bytes; }

    Handler m_handler;
    Limits m_limits;
    QTcpServer *m_server = nullptr;
    QTimer m_deadlines;
    qint64 m_buffered = 0;
    int m_connectionLimit = 0;
    std::vector<std::shared_ptr<Connection>> m_connections;
    qint64 m_lastHandshakeWarning = 0; // ms
    qint64 m_failedHandshakes = 0;     // since the last warning
};

} // namespace sb
