#pragma once

#include "AccessList.h"
#include "net/HttpServer.h"

#include <QThreadPool>

#include <variant>

namespace sb {

class Collector;

// The collector's HTTP API (version 1). Every route answers JSON, except the CSV export and
// blobs.
//   GET  /api/v1/health
//   POST /api/v1/push                 body: see Collector::ingestPush
//   POST /api/v1/lines?run=NAME       body: job output; metric lines are ingested
//   GET  /api/v1/runs?filter=TEXT
//   GET  /api/v1/metrics?run=A&run=B      metric names of these runs (all runs if none given)
//   GET  /api/v1/series?run=A&run=B&metric=M&x=step|relative|wall&from=&to=&width=&smoothing=
//        &smoothing_kind=ema|average|gaussian (TensorBoard's EMA, the default; a running
//        average; a centred Gaussian)
//        &x_metric=NAME (x is each run's NAME at the point's step: tokens seen, epoch)
//        (with smoothing, each series also carries the raw curve as rawX/rawY, unless raw=0)
//        (several metric=: every run's curve of each, metric by metric, each naming its metric)
//   POST /api/v1/groups               body: GroupRequest (JSON); each group's centre line and band
//   GET  /api/v1/export?run=A&metric=M   (text/csv)
//   POST /api/v1/push/samples         body: see Collector::decodeSamples
//   GET  /api/v1/samples?run=A&run=B      each run's tags of samples
//   GET  /api/v1/samples?run=A&tag=T&from=&to=&offset=&limit=   a tag's items in step order
//   GET  /api/v1/blobs/DIGEST             an item's bytes (image/png, audio/wav, ...)
//   POST /api/v1/recovery/acknowledge    health stops repeating the recovery notes
// With a token configured, every request needs "Authorization: Bearer TOKEN"; with users, the
// token of one, whose right on the request's project (CollectorApi::kProjectHeader; the
// collector's own without it) must be read for reads and write for the rest (403 otherwise).
// Another project than the collector's own is read from the lab's store (a lab collector's
// /runs, /metrics, /series, /groups and /export); anything else of it is refused. Browsers'
// requests for other sites, and (on loopback) Host names that are not this machine's, are refused
// first (see refuseForeignRequest). HEAD is answered as GET, without the body. Bodies are decoded
// on worker threads and stored on the collector's, so a large push does not hold up other clients;
// an export is streamed as the client reads it. A lab's collector (Collector::labReader) answers
// /runs, /metrics, /series, /groups and /export from ClickHouse, on threads of their own.
class CollectorHttpApi final : public QObject {
    Q_OBJECT
public:
    // Who may ask: one token for every client (none: anyone on loopback, as the embedded
    // collector's session token is), or users each with their own.
    struct Access {
        QString token;
        std::shared_ptr<AccessFile> users;
    };
    CollectorHttpApi(Collector *collector, Access access,
                     HttpServer::Limits limits = HttpServer::Limits{});
    ~CollectorHttpApi() override;

    Status listen(const QHostAddress &address, quint16 port,
                  const std::optional<QSslConfiguration> &tls = std::nullopt) {
        m_loopback = address.isLoopback();
        return m_server.listen(address, port, tls);
    }
    quint16 port() const { return m_server.port(); }
    // Names besides localhost and loopback addresses that clients of a loopback listener use for
    // it (an /etc/hosts alias).
    void setHostNames(const QStringList &names);

private:
    // Who asks and for which project, with their right there; or the refusal.
    struct Caller {
        QString user; // empty with one token for all
        QString project;
        AccessList::Right right = AccessList::Right::None;
        bool readsOwn = true; // may read the collector's own project
    };
    std::variant<Caller, HttpResponse> identify(const HttpRequest &request) const;
    void handle(HttpRequest request, const HttpServer::Respond &respond);

    Collector *m_collector;
    Access m_access;
    QByteArray m_expectedAuthorization;
    bool m_loopback = true;
    QList<QByteArray> m_hostNames; // lower case, without a final dot
    HttpServer m_server;
    // Last: gone first, waiting for the reads in flight.
    QThreadPool m_labReads;
    QThreadPool m_labExports;
};

} // namespace sb
