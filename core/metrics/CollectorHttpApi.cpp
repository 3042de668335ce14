#include "CollectorHttpApi.h"

#include "Collector.h"

#include <QBuffer>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace sb {

using namespace Qt::StringLiterals;
using HttpStatus = QHttpServerResponder::StatusCode;

namespace {

void reply(QHttpServerResponder &responder, const QJsonValue &json,
           HttpStatus status = HttpStatus::Ok) {
    const QJsonDocument document =
        json.isArray() ? QJsonDocument(json.toArray()) : QJsonDocument(json.toObject());
    responder.write(document.toJson(QJsonDocument::Compact), "application/json", status);
}

void replyError(QHttpServerResponder &responder, const QString &message, HttpStatus status) {
    reply(responder, QJsonObject{{u"error"_s, message}}, status);
}

// A refusal for its content is the sender's to fix (400); a store that failed is ours (507), and
// the sender should come again.
HttpStatus failureStatus(ErrorCode code) {
    return code == ErrorCode::StorageFailed  ? HttpStatus::InsufficientStorage
           : code == ErrorCode::InvalidInput ? HttpStatus::BadRequest
                                             : HttpStatus::InternalServerError;
}

// Compares without leaking, through timing, how much of a token matched.
bool constantTimeEqual(const QByteArray &a, const QByteArray &b) {
    if (a.size() != b.size())
        return false;
    unsigned char diff = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

// A request's query parameters, percent-decoded as UTF-8 with '+' read as a space (as HTML forms
// and Python's urlencode send it), so any run or metric name that can be stored can be asked for.
class Parameters {
public:
    explicit Parameters(const QUrl &url) {
        const QByteArray query = url.query(QUrl::FullyEncoded).toLatin1();
        for (const QByteArray &item : query.split('&')) {
            if (item.isEmpty())
                continue;
            const qsizetype equals = item.indexOf('=');
            if (equals < 0)
                m_items.append({decode(item), QString()});
            else
                m_items.append({decode(item.first(equals)), decode(item.sliced(equals + 1))});
        }
    }
    QStringList values(const QString &key) const {
        QStringList out;
        for (const auto &[name, value] : m_items) {
            if (name == key)
                out << value;
        }
        return out;
    }
    QString value(const QString &key) const { return values(key).value(0); }
    std::optional<double> number(const QString &key) const {
        bool ok = false;
        const double number = value(key).toDouble(&ok);
        return ok && std::isfinite(number) ? std::optional<double>(number) : std::nullopt;
    }

private:
    static QString decode(QByteArray text) {
        text.replace('+', ' ');
        return QString::fromUtf8(QByteArray::fromPercentEncoding(text));
    }
    QList<std::pair<QString, QString>> m_items;
};

QJsonArray toJsonArray(const std::vector<double> &values) {
    QJsonArray array;
    for (double v : values)
        array.append(std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null));
    return array;
}

} // namespace

CollectorHttpApi::CollectorHttpApi(Collector *collector, const QString &token)
    : m_collector(collector) {
    if (!token.isEmpty())
        m_expectedAuthorization = "Bearer " + token.toUtf8();
}

void CollectorHttpApi::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) {
    QHttpServerResponder responder = makeResponder(request, socket);
    replyError(responder, u"no such endpoint: %1"_s.arg(request.url().path()),
               HttpStatus::NotFound);
}

bool CollectorHttpApi::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) {
    QHttpServerResponder responder = makeResponder(request, socket);
    // Through a Kubernetes API server's service proxy the Authorization header is the API
    // server's own, and is not passed on: the token may come as X-Signalbox-Token instead.
    if (!m_expectedAuthorization.isEmpty() &&
        !constantTimeEqual(request.value("Authorization"), m_expectedAuthorization) &&
        !constantTimeEqual("Bearer " + request.value("X-Signalbox-Token"),
                           m_expectedAuthorization)) {
        replyError(responder, u"a valid bearer token is required"_s, HttpStatus::Unauthorized);
        return true;
    }
    const QString path = request.url().path();
    const Parameters query(request.url());
    const bool get = request.method() == QHttpServerRequest::Method::Get;
    const bool post = request.method() == QHttpServerRequest::Method::Post;

    if (path == u"/api/v1/health"_s && get) {
        reply(responder, m_collector->healthJson());
    } else if (path == u"/api/v1/push"_s && post) {
        QJsonParseError error{};
        const QJsonDocument document = QJsonDocument::fromJson(request.body(), &error);
        if (error.error != QJsonParseError::NoError || !document.isObject()) {
            replyError(responder, u"the body is not a JSON object: %1"_s.arg(error.errorString()),
                       HttpStatus::BadRequest);
            return true;
        }
        const auto stored = m_collector->ingestPush(document.object());
        if (stored)
            reply(responder, QJsonObject{{u"accepted"_s, stored.value()}});
        else
            replyError(responder, stored.error(), failureStatus(stored.errorCode()));
    } else if (path == u"/api/v1/lines"_s && post) {
        const auto result = m_collector->ingestLines(query.value(u"run"_s), request.body());
        // Bad lines are reported and skipped; a store that failed asks the sender to come again.
        reply(responder,
              QJsonObject{{u"accepted"_s, result.points},
                          {u"errors"_s, QJsonArray::fromStringList(result.errors)}},
              result.storageFailed ? HttpStatus::InsufficientStorage : HttpStatus::Ok);
    } else if (path == u"/api/v1/recovery/acknowledge"_s && post) {
        const qint64 notes = m_collector->store().recoveryNotes().size();
        if (Status done = m_collector->store().acknowledgeRecovery(); !done)
            replyError(responder, done.error(), failureStatus(done.errorCode()));
        else
            reply(responder, QJsonObject{{u"acknowledged"_s, notes}});
    } else if (path == u"/api/v1/runs"_s && get) {
        reply(responder, m_collector->runsJson(query.value(u"filter"_s)));
    } else if (path == u"/api/v1/metrics"_s && get) {
        QStringList runs = query.values(u"run"_s);
        if (runs.isEmpty()) {
            for (const RunInfo &run : m_collector->store().runs())
                runs << run.name;
        }
        QSet<QString> names;
        for (const QString &run : std::as_const(runs)) {
            for (const auto &series : m_collector->store().series(run))
                names.insert(series.metric);
        }
        QStringList sorted(names.begin(), names.end());
        sorted.sort();
        reply(responder, QJsonArray::fromStringList(sorted));
    } else if (path == u"/api/v1/series"_s && get) {
        SeriesWindow window;
        if (!parseXAxis(query.value(u"x"_s).isEmpty() ? u"step"_s : query.value(u"x"_s),
                        &window.axis)) {
            replyError(responder, u"x must be step, relative or wall"_s, HttpStatus::BadRequest);
            return true;
        }
        window.from = query.number(u"from"_s);
        window.to = query.number(u"to"_s);
        window.width =
            static_cast<int>(std::clamp(query.number(u"width"_s).value_or(1000), 1.0, 20000.0));
        window.smoothing = std::clamp(query.number(u"smoothing"_s).value_or(0), 0.0, 0.999);
        const QString metric = query.value(u"metric"_s);
        QJsonArray series;
        for (const QString &run : query.values(u"run"_s)) {
            const auto result = m_collector->store().query(run, metric, window);
            if (!result) {
                series.append(QJsonObject{{u"run"_s, run}, {u"error"_s, result.error()}});
                continue;
            }
            QJsonObject json{{u"run"_s, run},
                             {u"total"_s, result->total},
                             {u"inRange"_s, result->inRange},
                             {u"x"_s, toJsonArray(result->x)},
                             {u"y"_s, toJsonArray(result->y)}};
            if (window.smoothing > 0 && query.value(u"raw"_s) != u"0"_s) {
                // Charts draw the raw curve faintly behind the smoothed one: send both at once.
                SeriesWindow raw = window;
                raw.smoothing = 0;
                if (const auto rawResult = m_collector->store().query(run, metric, raw)) {
                    json[u"rawX"_s] = toJsonArray(rawResult->x);
                    json[u"rawY"_s] = toJsonArray(rawResult->y);
                }
            }
            series.append(json);
        }
        reply(responder, QJsonObject{{u"metric"_s, metric}, {u"series"_s, series}});
    } else if (path == u"/api/v1/export"_s && get) {
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        const auto exported = m_collector->store().exportCsv(query.value(u"run"_s),
                                                             query.value(u"metric"_s), &buffer);
        if (exported)
            responder.write(buffer.data(), "text/csv");
        else
            replyError(responder, exported.error(), HttpStatus::NotFound);
    } else {
        return false; // missingHandler answers
    }
    return true;
}

} // namespace sb
