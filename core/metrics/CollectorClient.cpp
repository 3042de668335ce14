#include "CollectorClient.h"

#include <QNetworkReply>
#include <QPointer>

namespace sb {

using namespace Qt::StringLiterals;

CollectorClient::CollectorClient(QUrl base, const QString &token, QObject *parent)
    : QObject(parent)
    , m_base(std::move(base)) {
    if (!token.isEmpty())
        m_authorization = "Bearer " + token.toUtf8();
}

QNetworkRequest CollectorClient::request(const QString &path, const QUrlQuery &query) const {
    QUrl url = m_base;
    url.setPath(path);
    url.setQuery(query);
    QNetworkRequest request(url);
    request.setTransferTimeout(15000);
    if (!m_authorization.isEmpty())
        request.setRawHeader("Authorization", m_authorization);
    return request;
}

void CollectorClient::send(QNetworkReply *reply, QObject *context, BytesCallback done) {
    connect(
        reply, &QNetworkReply::finished, context ? context : this, [reply, done = std::move(done)] {
            reply->deleteLater();
            const QByteArray body = reply->readAll();
            if (reply->error() == QNetworkReply::NoError) {
                done(body);
                return;
            }
            // Our API explains its refusals in {"error": ...}; prefer that to Qt's text.
            const QString apiError =
                QJsonDocument::fromJson(body).object().value(u"error"_s).toString();
            done(fail(u"collector at %1: %2"_s.arg(
                reply->url().authority(), apiError.isEmpty() ? reply->errorString() : apiError)));
        });
}

void CollectorClient::getBytes(const QString &path, const QUrlQuery &query, QObject *context,
                               BytesCallback done) {
    send(m_network.get(request(path, query)), context, std::move(done));
}

void CollectorClient::getJson(const QString &path, const QUrlQuery &query, QObject *context,
                              JsonCallback done) {
    getBytes(path, query, context, [done = std::move(done)](const Result<QByteArray> &bytes) {
        if (!bytes) {
            done(fail(bytes.error()));
            return;
        }
        QJsonParseError error{};
        QJsonDocument document = QJsonDocument::fromJson(*bytes, &error);
        if (error.error != QJsonParseError::NoError)
            done(fail(u"the collector sent malformed JSON: %1"_s.arg(error.errorString())));
        else
            done(document);
    });
}

void CollectorClient::post(QNetworkRequest request, const QByteArray &body,
                           const QString &contentType, QObject *context, JsonCallback done) {
    request.setHeader(QNetworkRequest::ContentTypeHeader, contentType);
    send(m_network.post(request, body), context,
         [done = std::move(done)](const Result<QByteArray> &bytes) {
             if (!bytes)
                 done(fail(bytes.error()));
             else
                 done(QJsonDocument::fromJson(*bytes));
         });
}

void CollectorClient::postJson(const QString &path, const QUrlQuery &query, const QByteArray &body,
                               QObject *context, JsonCallback done) {
    post(request(path, query), body, u"application/json"_s, context, std::move(done));
}

void CollectorClient::fetchRuns(const QString &filter, QObject *context, JsonCallback done) {
    QUrlQuery query;
    if (!filter.isEmpty())
        query.addQueryItem(u"filter"_s, filter);
    getJson(u"/api/v1/runs"_s, query, context, std::move(done));
}

void CollectorClient::fetchSeries(const QStringList &runs, const QString &metric,
                                  const SeriesWindow &window, bool withRaw, QObject *context,
                                  JsonCallback done) {
    QUrlQuery query;
    for (const QString &run : runs)
        query.addQueryItem(u"run"_s, run);
    query.addQueryItem(u"metric"_s, metric);
    query.addQueryItem(u"x"_s, xAxisName(window.axis));
    query.addQueryItem(u"width"_s, QString::number(window.width));
    if (window.from)
        query.addQueryItem(u"from"_s, QString::number(*window.from, 'g', 17));
    if (window.to)
        query.addQueryItem(u"to"_s, QString::number(*window.to, 'g', 17));
    if (window.smoothing > 0)
        query.addQueryItem(u"smoothing"_s, QString::number(window.smoothing));
    if (window.smoothing > 0 && !withRaw)
        query.addQueryItem(u"raw"_s, u"0"_s);
    getJson(u"/api/v1/series"_s, query, context, std::move(done));
}

void CollectorClient::pushLines(const QString &run, const QByteArray &text, QObject *context,
                                JsonCallback done) {
    QUrlQuery query;
    query.addQueryItem(u"run"_s, run);
    post(request(u"/api/v1/lines"_s, query), text, u"text/plain"_s, context, std::move(done));
}

} // namespace sb
