#pragma once

#include "Result.h"

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QTimer>

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

class QTcpServer;

namespace sb {

struct HttpRequest {
    QByteArray method;                                // "GET", "POST", ...
    QByteArray target;                                // as sent: "/api/v1/series?run=a%20b"
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
    // end. Called on the server's thread, only while the peer keeps up with what was sent.
    std::function<QByteArray()> stream;
};

// A small HTTP/1.1 server (persistent connections, pipelining, chunked bodies both ways) that
// holds up against hostile clients: bodies are bounded, one by one and all together; idle and
// stalled connections are closed; one address cannot take every descriptor; a slow reader of a
// streamed reply costs no memory. Requests are parsed by http_parser (Debian's libhttp-parser).
// Lives on one thread; the handler runs there and may answer at once or later.
class HttpServer final : public QObject {
    Q_OBJECT
public:
    struct Limits {
        qint64 maxBody = qint64(64) << 20;         // larger bodies get 413
        qint64 bufferedBodies = qint64(512) << 20; // all requests' bodies together; past it 503
        std::chrono::milliseconds idle{60'000};    // a kept-alive connection with no request
        std::chrono::milliseconds stalled{30'000}; // a request or reply that stopped moving
        int connectionsPerPeer = 256; // the oldest idle or unfinished request makes room, else 503
    };
    // Answers the request; call it once, on the server's thread. Harmless after the peer left.
    using Respond = std::function<void(HttpResponse)>;
    using Handler = std::function<void(HttpRequest, Respond)>;

    HttpServer(Handler handler, Limits limits, QObject *parent = nullptr);
    ~HttpServer() override;

    Status listen(const QHostAddress &address, quint16 port);
    quint16 port() const;
    int connectionCount() const { return static_cast<int>(m_connections.size()); }

    static QByteArray reasonPhrase(int status);

private:
    class Connection;
    friend class Connection;
    void accept();
    void checkDeadlines();
    void remove(Connection *connection);
    bool reserve(qint64 bytes);
    void release(qint64 bytes) { m_buffered -= bytes; }

    Handler m_handler;
    Limits m_limits;
    QTcpServer *m_server = nullptr;
    QTimer m_deadlines;
    qint64 m_buffered = 0;
    std::vector<std::shared_ptr<Connection>> m_connections;
};

} // namespace sb
