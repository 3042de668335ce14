#pragma once

#include <QAbstractHttpServer>

namespace sb {

class Collector;

// The collector's HTTP API (version 1). Every route answers JSON, except the CSV export.
//   GET  /api/v1/health
//   POST /api/v1/push                 body: see Collector::ingestPush
//   POST /api/v1/lines?run=NAME       body: job output; metric lines are ingested
//   GET  /api/v1/runs?filter=TEXT
//   GET  /api/v1/metrics?run=A&run=B      metric names of these runs (all runs if none given)
//   GET  /api/v1/series?run=A&run=B&metric=M&x=step|relative|wall&from=&to=&width=&smoothing=
//        (with smoothing, each series also carries the raw curve as rawX/rawY, unless raw=0)
//   GET  /api/v1/export?run=A&metric=M   (text/csv)
//   POST /api/v1/recovery/acknowledge    health stops repeating the recovery notes
// With a token configured, every request needs "Authorization: Bearer TOKEN".
class CollectorHttpApi final : public QAbstractHttpServer {
    Q_OBJECT
public:
    CollectorHttpApi(Collector *collector, const QString &token);

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    Collector *m_collector;
    QByteArray m_expectedAuthorization;
};

} // namespace sb
