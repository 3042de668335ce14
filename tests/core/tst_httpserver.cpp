// The collector's HTTP server against raw sockets: what a polite client gets, and what a hostile
// one (huge, slow, idle, many, malformed) cannot take from the others.
#include "util/HttpReply.h"
#include "util/HttpServer.h"

#include <QDeadlineTimer>
#include <QTcpSocket>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

struct Response {
    int status = 0;
    QByteArray headers;
    QByteArray body;
};

// Waits for bytes (tests may block); false once the peer closed or time ran out.
bool waitForBytes(QTcpSocket &socket, qint64 wanted, int ms = 5000) {
    const QDeadlineTimer deadline(ms);
    while (socket.bytesAvailable() < wanted && !deadline.hasExpired()) {
        if (socket.state() != QAbstractSocket::ConnectedState && socket.bytesAvailable() == 0)
            return false;
        socket.waitForReadyRead(10);
        QCoreApplication::processEvents();
    }
    return socket.bytesAvailable() >= wanted;
}

QByteArray readLine(QTcpSocket &socket) {
    const QDeadlineTimer deadline(5000);
    while (!socket.canReadLine() && !deadline.hasExpired() &&
           (socket.state() == QAbstractSocket::ConnectedState || socket.bytesAvailable() > 0)) {
        socket.waitForReadyRead(10);
        QCoreApplication::processEvents();
        if (socket.state() != QAbstractSocket::ConnectedState && !socket.canReadLine())
            break;
    }
    return socket.readLine();
}

QByteArray readExactly(QTcpSocket &socket, qint64 n) {
    waitForBytes(socket, n);
    return socket.read(n);
}

// One response, with a Content-Length or chunked body.
Response readResponse(QTcpSocket &socket) {
    Response out;
    const QByteArray statusLine = readLine(socket);
    if (!statusLine.startsWith("HTTP/1."))
        return out;
    out.status = statusLine.mid(9, 3).toInt();
    for (QByteArray line = readLine(socket); !line.isEmpty() && line != "\r\n";
         line = readLine(socket))
        out.headers += line.toLower();
    const qsizetype at = out.headers.indexOf("content-length: ");
    if (at >= 0) {
        const qint64 length =
            out.headers.mid(at + 16, out.headers.indexOf('\r', at) - at - 16).toLongLong();
        out.body = readExactly(socket, length);
    } else if (out.headers.contains("transfer-encoding: chunked")) {
        for (;;) {
            const qint64 size = readLine(socket).trimmed().toLongLong(nullptr, 16);
            if (size == 0) {
                readLine(socket);
                break;
            }
            out.body += readExactly(socket, size);
            readLine(socket);
        }
    }
    return out;
}

bool closedByPeer(QTcpSocket &socket, int ms = 5000) {
    const QDeadlineTimer deadline(ms);
    while (socket.state() == QAbstractSocket::ConnectedState && !deadline.hasExpired()) {
        socket.waitForDisconnected(10);
        QCoreApplication::processEvents();
    }
    return socket.state() != QAbstractSocket::ConnectedState;
}

// Echoes method, target and body; "/hold" keeps the request unanswered until release().
class Fixture {
public:
    explicit Fixture(sb::HttpServer::Limits limits = {})
        : server(
              [this](sb::HttpRequest request, const sb::HttpServer::Respond &respond) {
                  ++requests;
                  if (request.path() == "/hold") {
                      held.push_back(respond);
                      return;
                  }
                  if (request.path() == "/stream") {
                      auto left = std::make_shared<int>(200);
                      respond({200, "text/plain", {}, [this, left] {
                                   if (*left == 0)
                                       return QByteArray();
                                   --*left;
                                   ++pieces;
                                   return QByteArray(1 << 20, 'x');
                               }});
                      return;
                  }
                  respond({200,
                           "text/plain",
                           request.method + ' ' + request.target + ' ' + request.body,
                           {}});
              },
              limits) {
        if (!server.listen(QHostAddress::LocalHost, 0))
            qFatal("cannot listen");
    }
    std::unique_ptr<QTcpSocket> connect() {
        auto socket = std::make_unique<QTcpSocket>();
        socket->connectToHost(QHostAddress::LocalHost, server.port());
        if (!socket->waitForConnected(5000))
            qFatal("cannot connect");
        QCoreApplication::processEvents();
        return socket;
    }
    void release() {
        for (const auto &respond : held)
            respond({200, "text/plain", "released", {}});
        held.clear();
    }

    sb::HttpServer server;
    int requests = 0;
    int pieces = 0;
    std::vector<sb::HttpServer::Respond> held;
};

} // namespace

class TestHttpServer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The client side: replies read from raw bytes, as they come over an SSH channel.
    void repliesAreReadFromRawBytes() {
        const QByteArray sized = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
        for (qsizetype cut = 0; cut < sized.size(); ++cut) { // more to come until the last byte
            const auto part = sb::parseHttpReply(sized.first(cut), false);
            QVERIFY(part && !part->has_value());
        }
        const auto whole = sb::parseHttpReply(sized + "trailing junk", false);
        QVERIFY(whole && whole->has_value());
        QCOMPARE((*whole)->status, 200);
        QCOMPARE((*whole)->body, "hello"_ba);
        const auto chunked = sb::parseHttpReply("HTTP/1.1 404 Not Found\r\nTransfer-Encoding: "
                                                "chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
                                                false);
        QVERIFY(chunked && chunked->has_value());
        QCOMPARE((*chunked)->status, 404);
        QCOMPARE((*chunked)->body, "abc"_ba);
        // No length: the end of the stream ends it; a cut-off sized reply is an error.
        const QByteArray open = "HTTP/1.1 500 Internal\r\n\r\n{\"errors\": []}";
        QVERIFY(!sb::parseHttpReply(open, false)->has_value());
        QCOMPARE(sb::parseHttpReply(open, true).value()->body, "{\"errors\": []}"_ba);
        const auto cut = sb::parseHttpReply(sized.first(sized.size() - 1), true);
        QVERIFY(!cut);
        QVERIFY2(cut.error().contains(u"before it was whole"_s), qPrintable(cut.error()));
        const auto garbage = sb::parseHttpReply("SSH-2.0-OpenSSH\r\n", false);
        QVERIFY(!garbage);
        QVERIFY2(garbage.error().contains(u"not an HTTP reply"_s), qPrintable(garbage.error()));
    }

    void pipelinedRequestsAreAnsweredInOrder() {
        Fixture f;
        auto socket = f.connect();
        socket->write("GET /a?x=1 HTTP/1.1\r\nHost: h\r\n\r\n"
                      "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
                      "GET /c HTTP/1.1\r\nHost: h\r\n\r\n");
        QCOMPARE(readResponse(*socket).body, "GET /a?x=1 "_ba);
        QCOMPARE(readResponse(*socket).body, "POST /b hello"_ba);
        const Response third = readResponse(*socket);
        QCOMPARE(third.body, "GET /c "_ba);
        QVERIFY(third.headers.contains("connection: keep-alive"));
        QCOMPARE(socket->state(), QAbstractSocket::ConnectedState);
    }

    void chunkedBodiesAreJoined() {
        Fixture f;
        auto socket = f.connect();
        socket->write("POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                      "3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n");
        QCOMPARE(readResponse(*socket).body, "POST /c abcdefg"_ba);
    }

    void http10GetsItsAnswerAndTheConnectionCloses() {
        Fixture f;
        auto socket = f.connect();
        socket->write("GET /old HTTP/1.0\r\n\r\n");
        const Response response = readResponse(*socket);
        QCOMPARE(response.body, "GET /old "_ba);
        QVERIFY(response.headers.contains("connection: close"));
        QVERIFY(closedByPeer(*socket));
    }

    void malformedRequestsGet400AndAreClosed() {
        Fixture f;
        for (const QByteArray &garbage :
             {"\x01\x02 / HTTP/1.1\r\n\r\n"_ba, "GET / HTTP/1.1\r\nContent-Length: -5\r\n\r\n"_ba,
              "GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"_ba,
              "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"_ba}) {
            auto socket = f.connect();
            socket->write(garbage);
            const Response response = readResponse(*socket);
            QCOMPARE(response.status, 400);
            QVERIFY2(response.body.contains("malformed HTTP request"), response.body.constData());
            QVERIFY(closedByPeer(*socket));
        }
        QCOMPARE(f.requests, 0);
    }

    // The answer comes while the client is still sending: it reads it once it is done.
    void bodiesOverTheLimitGet413WithoutBeingKept() {
        sb::HttpServer::Limits limits;
        limits.maxBody = 1 << 20;
        Fixture f(limits);
        auto socket = f.connect();
        const QByteArray body(3 << 20, 'b');
        socket->write("POST /big HTTP/1.1\r\nHost: h\r\nContent-Length: " +
                      QByteArray::number(body.size()) + "\r\n\r\n" + body);
        const Response response = readResponse(*socket);
        QCOMPARE(response.status, 413);
        QVERIFY(response.body.contains("at most 1048576"));
        QVERIFY(closedByPeer(*socket));

        auto chunked = f.connect();
        chunked->write("POST /big HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n");
        for (int i = 0; i < 3; ++i)
            chunked->write("80000\r\n" + QByteArray(0x80000, 'c') + "\r\n");
        chunked->write("0\r\n\r\n");
        QCOMPARE(readResponse(*chunked).status, 413);
        QCOMPARE(f.requests, 0);

        // Exactly the limit is taken.
        auto fits = f.connect();
        fits->write("POST /fits HTTP/1.1\r\nHost: h\r\nContent-Length: 1048576\r\n\r\n" +
                    QByteArray(1 << 20, 'f'));
        QCOMPARE(readResponse(*fits).status, 200);
    }

    void bodiesTogetherAreBounded() {
        sb::HttpServer::Limits limits;
        limits.bufferedBodies = 1000;
        Fixture f(limits);
        auto holder = f.connect();
        holder->write("POST /hold HTTP/1.1\r\nHost: h\r\nContent-Length: 800\r\n\r\n" +
                      QByteArray(800, 'h'));
        QTRY_COMPARE(f.held.size(), std::size_t(1));
        auto second = f.connect();
        second->write("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 300\r\n\r\n" +
                      QByteArray(300, 's'));
        const Response busy = readResponse(*second);
        QCOMPARE(busy.status, 503);
        QVERIFY(busy.body.contains("come again"));
        // Once the held one is answered, its share is free again.
        f.release();
        QCOMPARE(readResponse(*holder).body, "released"_ba);
        auto third = f.connect();
        third->write("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 300\r\n\r\n" +
                     QByteArray(300, 't'));
        QCOMPARE(readResponse(*third).status, 200);
    }

    void idleConnectionsAreClosed() {
        sb::HttpServer::Limits limits;
        limits.idle = 100ms;
        Fixture f(limits);
        auto socket = f.connect();
        QTRY_COMPARE(f.server.connectionCount(), 1);
        QVERIFY(closedByPeer(*socket));
        QTRY_COMPARE(f.server.connectionCount(), 0);
    }

    // A byte now and then keeps nothing open: the headers must arrive whole in time.
    void dribbledHeadersGet408() {
        sb::HttpServer::Limits limits;
        limits.stalled = 300ms;
        Fixture f(limits);
        auto socket = f.connect();
        const QByteArray request =
            "GET / HTTP/1.1\r\nHost: h\r\nX-Slow: "_ba + QByteArray(100, 'z');
        QDeadlineTimer deadline(5000);
        int sent = 0;
        while (socket->state() == QAbstractSocket::ConnectedState && sent < request.size() &&
               socket->bytesAvailable() == 0 && !deadline.hasExpired()) {
            socket->write(request.mid(sent++, 1));
            socket->flush();
            QTest::qWait(20);
        }
        const Response response = readResponse(*socket);
        QCOMPARE(response.status, 408);
        QVERIFY(closedByPeer(*socket));
        QCOMPARE(f.requests, 0);
    }

    // Without a cap, idle sockets from one address took every descriptor and a normal client
    // was refused; now the oldest idle one makes room.
    void oneAddressCannotTakeEveryConnection() {
        sb::HttpServer::Limits limits;
        limits.connectionsPerPeer = 8;
        Fixture f(limits);
        std::vector<std::unique_ptr<QTcpSocket>> idle;
        for (int i = 0; i < 20; ++i)
            idle.push_back(f.connect());
        QTRY_VERIFY(f.server.connectionCount() <= 8);
        auto client = f.connect();
        client->write("GET /ok HTTP/1.1\r\nHost: h\r\n\r\n");
        QCOMPARE(readResponse(*client).body, "GET /ok "_ba);
        QVERIFY(closedByPeer(*idle.front()));

        // Connections being answered are never closed for room: a newcomer is told to wait.
        for (auto &socket : idle)
            socket.reset();
        QTRY_COMPARE(f.server.connectionCount(), 1);
        std::vector<std::unique_ptr<QTcpSocket>> busy;
        for (int i = 0; i < 8; ++i) {
            busy.push_back(f.connect());
            busy.back()->write("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n");
        }
        QTRY_COMPARE(f.held.size(), std::size_t(8));
        client.reset();
        QTRY_COMPARE(f.server.connectionCount(), 8);
        auto refused = f.connect();
        QCOMPARE(readResponse(*refused).status, 503);
        f.release();
        for (auto &socket : busy)
            QCOMPARE(readResponse(*socket).body, "released"_ba);
    }

    // A reader that does not read costs nothing: pieces are made only as the peer takes them.
    void streamedRepliesFollowTheReader() {
        Fixture f;
        auto socket = f.connect();
        socket->setReadBufferSize(1 << 16);
        socket->write("GET /stream HTTP/1.1\r\nHost: h\r\n\r\n");
        QTRY_VERIFY(f.pieces > 0);
        QTest::qWait(300);
        QVERIFY2(f.pieces < 50, QByteArray::number(f.pieces).constData());
        socket->setReadBufferSize(0);
        const Response response = readResponse(*socket);
        QCOMPARE(response.status, 200);
        QVERIFY(response.headers.contains("transfer-encoding: chunked"));
        QCOMPARE(response.body.size(), qsizetype(200) << 20);
        QCOMPARE(f.pieces, 200);
    }

    void answersMayComeLaterOrNeverAfterThePeerLeft() {
        Fixture f;
        auto socket = f.connect();
        socket->write("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n");
        QTRY_COMPARE(f.held.size(), std::size_t(1));
        socket.reset();
        QTRY_COMPARE(f.server.connectionCount(), 0);
        f.release(); // nobody to answer: harmless

        auto later = f.connect();
        later->write("GET /hold HTTP/1.1\r\nHost: h\r\n\r\nGET /next HTTP/1.1\r\nHost: h\r\n\r\n");
        QTRY_COMPARE(f.held.size(), std::size_t(1));
        QCOMPARE(f.requests, 2); // the pipelined one waits for the first answer
        f.release();
        QCOMPARE(readResponse(*later).body, "released"_ba);
        QCOMPARE(readResponse(*later).body, "GET /next "_ba);
    }
};

QTEST_GUILESS_MAIN(TestHttpServer)
#include "tst_httpserver.moc"
