#include "CollectorClient.h"

#include "kube/KubeClient.h"
#include "util/OffThread.h"

#include <QNetworkProxy>
#include <QNetworkReply>
#include <QPointer>

#include <algorithm>
#include <iterator>
#include <memory>
#include <optional>

namespace sb {

using namespace Qt::StringLiterals;

CollectorClient::CollectorClient(QUrl base, const QString &token, QObject *parent)
    : QObject(parent)
    , m_base(std::move(base))
    , m_token(token.toUtf8()) {
    // Never an environment's http_proxy: metrics and the bearer token go to the collector alone.
    m_network.setProxy(QNetworkProxy::NoProxy);
}

CollectorClient::CollectorClient(KubeClient *cluster, const QString &service, const QString &token,
                                 QObject *parent)
    : QObject(parent)
    , m_token(token.toUtf8())
    , m_cluster(cluster) {
    const QString ns = service.section(u'/', 0, 0);
    const QString name = service.section(u'/', 1);
    m_proxyPath = u"/api/v1/namespaces/%1/services/%2/proxy"_s.arg(
        QString::fromLatin1(QUrl::toPercentEncoding(ns)),
        QString::fromLatin1(QUrl::toPercentEncoding(name, ":")));
    m_base = QUrl(cluster->context().server + m_proxyPath);
}

namespace {

// Every byte but the unreserved ones percent-encoded: '+', '%', '&' and '#' reach the collector
// as themselves.
QString encodeQuery(const QueryItems &query) {
    QStringList items;
    for (const auto &[key, value] : query)
        items << QString::fromLatin1(QUrl::toPercentEncoding(key) + '=' +
                                     QUrl::toPercentEncoding(value));
    return items.join(u'&');
}

// Our API explains its refusals in {"error": ...}; that says more than a status line. The body
// is read off the calling thread, as every answer is.
template <typename Done>
// The collector's refusal in words; its status says whose it is to fix (400 and 413: the
// request's content, sending it again fails again; 507: the collector's disk).
void refuse(QObject *receiver, const QString &where, int status, const QByteArray &body,
            const QString &fallback, const Done &done) {
    const ErrorCode code = status == 400 || status == 413 ? ErrorCode::InvalidInput
                           : status == 507                ? ErrorCode::StorageFailed
                           : status == 401                ? ErrorCode::Unauthorized
                                                          : ErrorCode::Failed;
    runOffThread(
        receiver,
        [where, body, fallback] {
            const QString apiError =
                QJsonDocument::fromJson(body).object().value(u"error"_s).toString();
            return u"collector at %1: %2"_s.arg(where, apiError.isEmpty() ? fallback : apiError);
        },
        [done, code](const QString &refusal) { done(fail(refusal, code)); });
}

} // namespace

void CollectorClient::exchange(const QByteArray &method, const QString &path,
                               const QueryItems &query, const QByteArray &body,
                               const QString &contentType, QObject *context,
                               Callback<Answer> done) {
    QObject *receiver = context ? context : this;
    if (m_cluster) {
        KubeRequest request;
        request.method = method;
        request.path = m_proxyPath + path;
        if (!query.isEmpty())
            request.path += u'?' + encodeQuery(query);
        request.body = body;
        request.contentType = contentType.toUtf8();
        if (!m_token.isEmpty())
            request.headers.append({"X-Signalbox-Token", m_token});
        if (!m_project.isEmpty())
            request.headers.append({CollectorApi::kProjectHeader, m_project});
        const QString where = m_cluster->context().name;
        m_cluster->send(
            request, receiver, [receiver, done = std::move(done), where](const KubeReply &reply) {
                if (reply.ok())
                    done(Answer{reply.body, reply.json});
                else
                    refuse(receiver, where, reply.status, reply.body, reply.error, done);
            });
        return;
    }
    QUrl url = m_base;
    url.setPath(path);
    url.setQuery(encodeQuery(query), QUrl::StrictMode);
    QNetworkRequest request(url);
    request.setTransferTimeout(15000);
    if (!m_token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + m_token);
    if (!m_project.isEmpty())
        request.setRawHeader(CollectorApi::kProjectHeader, m_project);
    if (!contentType.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader, contentType);
    QNetworkReply *reply = m_network.sendCustomRequest(request, method, body);
    connect(
        reply, &QNetworkReply::finished, receiver,
        [this, receiver, reply, token = m_token, done = std::move(done)] {
            reply->deleteLater();
            const QByteArray answer = reply->readAll();
            if (reply->error() == QNetworkReply::NoError) {
                if (token == m_token && std::exchange(m_tokenRefused, false))
                    Q_EMIT tokenAccepted(); // the collector's list took it back
                done(Answer{answer, {}});
                return;
            }
            const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            // Said once per token: the answers to the requests sent with it come together.
            if (status == 401 && token == m_token && !m_tokenRefused) {
                m_tokenRefused = true;
                Q_EMIT tokenRefused();
            }
            refuse(receiver, reply->url().authority(), status, answer, reply->errorString(), done);
        });
}

template <typename T>
void CollectorClient::exchangeJson(const QByteArray &method, const QString &path,
                                   const QueryItems &query, const QByteArray &body,
                                   const QString &contentType, QObject *context,
                                   std::function<T(const QJsonDocument &)> convert,
                                   Callback<T> done) {
    exchangeDecoded<T>(
        method, path, query, body, contentType, context,
        [convert = std::move(convert)](const Answer &answer) -> Result<T> {
            if (!answer.json.isNull())
                return convert(answer.json);
            QJsonParseError error{};
            const QJsonDocument document = QJsonDocument::fromJson(answer.body, &error);
            if (error.error != QJsonParseError::NoError)
                return fail(u"the collector sent malformed JSON: %1"_s.arg(error.errorString()));
            return convert(document);
        },
        std::move(done));
}

template <typename T>
void CollectorClient::exchangeDecoded(const QByteArray &method, const QString &path,
                                      const QueryItems &query, const QByteArray &body,
                                      const QString &contentType, QObject *context,
                                      std::function<Result<T>(const Answer &)> decode,
                                      Callback<T> done) {
    QObject *receiver = context ? context : this;
    exchange(method, path, query, body, contentType, context,
             [receiver, decode = std::move(decode),
              done = std::move(done)](const Result<Answer> &answer) {
                 if (!answer) {
                     done(answer.failure());
                     return;
                 }
                 // Decoded on a worker: a large answer never holds the caller's thread.
                 runOffThread(
                     receiver, [decode, answer = *answer] { return decode(answer); },
                     [done](Result<T> decoded) { done(std::move(decoded)); });
             });
}

void CollectorClient::health(QObject *context, Callback<Health> done) {
    exchangeJson<Health>(
        "GET", QString::fromLatin1(CollectorApi::kHealth), {}, {}, {}, context,
        [](const QJsonDocument &json) { return Health::fromJson(json.object()); }, std::move(done));
}

void CollectorClient::runs(const RunsRequest &request, QObject *context,
                           Callback<QList<RunSummary>> done) {
    QueryItems query;
    if (!request.filter.isEmpty())
        query.append({u"filter"_s, request.filter});
    if (!request.where.isEmpty())
        query.append({u"where"_s, request.where});
    if (request.offset > 0)
        query.append({u"offset"_s, QString::number(request.offset)});
    if (request.limit >= 0)
        query.append({u"limit"_s, QString::number(request.limit)});
    exchangeDecoded<QList<RunSummary>>(
        "GET", QString::fromLatin1(CollectorApi::kRuns), query, {}, {}, context,
        [](const Answer &answer) -> Result<QList<RunSummary>> {
            if (!answer.json.isNull())
                return runSummariesFromJson(answer.json.array());
            return runSummariesFromJsonText(answer.body);
        },
        std::move(done));
}

void CollectorClient::metrics(const QStringList &runs, QObject *context,
                              Callback<QStringList> done) {
    QueryItems query;
    for (const QString &run : runs)
        query.append({u"run"_s, run});
    exchangeJson<QStringList>(
        "GET", QString::fromLatin1(CollectorApi::kMetrics), query, {}, {}, context,
        [](const QJsonDocument &json) {
            QStringList names;
            for (const auto &name : json.array())
                names << name.toString();
            return names;
        },
        std::move(done));
}

void CollectorClient::series(const QStringList &runs, const QString &metric,
                             const SeriesWindow &window, bool withRaw, QObject *context,
                             Callback<SeriesReplies> done) {
    // The collector bounds one answer (runs × width, twice with raw curves): many runs are asked
    // for in parts, and the parts' curves handed on together, in the order asked.
    const qint64 perRun = std::max(1, window.width) * (window.smoothing > 0 && withRaw ? 2 : 1);
    const qsizetype most = static_cast<qsizetype>(std::clamp<qint64>(
        CollectorApi::kMostSeriesColumns / perRun, 1, CollectorApi::kMostRunsPerRequest));
    if (runs.size() <= most)
        return seriesPart(runs, {metric}, window, withRaw, context, std::move(done));
    struct Parts {
        std::vector<std::optional<SeriesReplies>> answers;
        qsizetype waiting = 0;
        bool failed = false;
        Callback<SeriesReplies> done;
    };
    auto parts = std::make_shared<Parts>();
    parts->done = std::move(done);
    for (qsizetype start = 0; start < runs.size(); start += most)
        parts->answers.emplace_back();
    parts->waiting = static_cast<qsizetype>(parts->answers.size());
    for (qsizetype start = 0, index = 0; start < runs.size(); start += most, ++index) {
        seriesPart(runs.mid(start, most), {metric}, window, withRaw, context,
                   [parts, index](Result<SeriesReplies> answer) {
                       if (parts->failed)
                           return;
                       if (!answer) {
                           parts->failed = true;
                           parts->done(answer.failure());
                           return;
                       }
                       parts->answers[static_cast<size_t>(index)] = std::move(answer).value();
                       if (--parts->waiting > 0)
                           return;
                       SeriesReplies all;
                       for (std::optional<SeriesReplies> &part : parts->answers) {
                           all.metric = part->metric;
                           std::move(part->series.begin(), part->series.end(),
                                     std::back_inserter(all.series));
                       }
                       parts->done(std::move(all));
                   });
    }
}

void CollectorClient::seriesOfMetrics(const QString &run, const QStringList &metrics,
                                      const SeriesWindow &window, QObject *context,
                                      Callback<SeriesReplies> done) {
    QStringList asked = metrics;
    asked.removeDuplicates(); // as the collector does: one curve a metric
    seriesPart(
        {run}, asked, window, false, context,
        [this, run, asked, window, context, done = std::move(done)](Result<SeriesReplies> answer) {
            if (!answer || asked.size() <= 1 || answer->series.size() == size_t(asked.size()))
                return done(std::move(answer));
            // A collector from before several metrics a request answers the first alone: the
            // others are asked for apart, each curve named by what was asked.
            auto all = std::make_shared<std::vector<std::optional<SeriesReply>>>(asked.size());
            auto waiting = std::make_shared<qsizetype>(asked.size());
            for (qsizetype i = 0; i < asked.size(); ++i) {
                seriesPart(
                    {run}, {asked[i]}, window, false, context,
                    [all, waiting, i, run, metric = asked[i], done](Result<SeriesReplies> one) {
                        SeriesReply reply{.run = run, .metric = metric};
                        if (one && !one->series.empty())
                            reply = std::move(one.value().series.front());
                        else if (!one)
                            reply.error = one.error();
                        reply.metric = metric;
                        (*all)[size_t(i)] = std::move(reply);
                        if (--*waiting > 0)
                            return;
                        SeriesReplies replies{metric, {}};
                        for (std::optional<SeriesReply> &each : *all)
                            replies.series.push_back(std::move(*each));
                        replies.metric = replies.series.front().metric;
                        done(std::move(replies));
                    });
            }
        });
}

void CollectorClient::seriesPart(const QStringList &runs, const QStringList &metrics,
                                 const SeriesWindow &window, bool withRaw, QObject *context,
                                 Callback<SeriesReplies> done) {
    QueryItems query;
    for (const QString &run : runs)
        query.append({u"run"_s, run});
    for (const QString &metric : metrics)
        query.append({u"metric"_s, metric});
    query.append({u"x"_s, xAxisName(window.axis)});
    if (!window.xMetric.isEmpty())
        query.append({u"x_metric"_s, window.xMetric});
    query.append(
        {u"width"_s, QString::number(std::clamp(window.width, 1, CollectorApi::kMostColumns))});
    if (window.from)
        query.append({u"from"_s, QString::number(*window.from, 'g', 17)});
    if (window.to)
        query.append({u"to"_s, QString::number(*window.to, 'g', 17)});
    if (window.logX)
        query.append({u"log_x"_s, u"1"_s});
    if (window.smoothing > 0)
        query.append({u"smoothing"_s, QString::number(window.smoothing)});
    if (window.smoothing > 0 && window.smoothingKind != SmoothingKind::Ema)
        query.append({u"smoothing_kind"_s, smoothingKindName(window.smoothingKind)});
    if (window.smoothing > 0 && !withRaw)
        query.append({u"raw"_s, u"0"_s});
    exchangeDecoded<SeriesReplies>(
        "GET", QString::fromLatin1(CollectorApi::kSeries), query, {}, {}, context,
        [](const Answer &answer) -> Result<SeriesReplies> {
            if (!answer.json.isNull())
                return SeriesReplies::fromJson(answer.json.object());
            return SeriesReplies::fromJsonText(answer.body);
        },
        std::move(done));
}

void CollectorClient::groups(const GroupRequest &request, QObject *context,
                             Callback<GroupReplies> done) {
    exchangeJson<GroupReplies>(
        "POST", QString::fromLatin1(CollectorApi::kGroups), {},
        QJsonDocument(request.toJson()).toJson(QJsonDocument::Compact), u"application/json"_s,
        context, [](const QJsonDocument &json) { return GroupReplies::fromJson(json.object()); },
        std::move(done));
}

void CollectorClient::exportCsv(const QString &run, const QString &metric, QObject *context,
                                Callback<QByteArray> done) {
    QueryItems query;
    query.append({u"run"_s, run});
    query.append({u"metric"_s, metric});
    exchange("GET", QString::fromLatin1(CollectorApi::kExport), query, {}, {}, context,
             [done = std::move(done)](const Result<Answer> &answer) {
                 if (answer)
                     done(answer->body);
                 else
                     done(answer.failure());
             });
}

void CollectorClient::sampleTags(const QStringList &runs, QObject *context,
                                 Callback<QList<SampleTagSummary>> done) {
    QueryItems query;
    for (const QString &run : runs)
        query.append({u"run"_s, run});
    exchangeJson<QList<SampleTagSummary>>(
        "GET", QString::fromLatin1(CollectorApi::kSamples), query, {}, {}, context,
        [](const QJsonDocument &json) {
            QList<SampleTagSummary> tags;
            for (const QJsonValue tag : json.object().value(u"tags"_s).toArray())
                tags << SampleTagSummary::fromJson(tag.toObject());
            return tags;
        },
        std::move(done));
}

void CollectorClient::samples(const QString &run, const QString &tag, std::optional<double> from,
                              std::optional<double> to, qint64 offset, qint64 limit,
                              QObject *context, Callback<SamplesReply> done) {
    QueryItems query{{u"run"_s, run},
                     {u"tag"_s, tag},
                     {u"offset"_s, QString::number(offset)},
                     {u"limit"_s, QString::number(limit)}};
    if (from)
        query.append({u"from"_s, QString::number(*from, 'g', 17)});
    if (to)
        query.append({u"to"_s, QString::number(*to, 'g', 17)});
    exchangeJson<Result<SamplesReply>>(
        "GET", QString::fromLatin1(CollectorApi::kSamples), query, {}, {}, context,
        [](const QJsonDocument &json) { return SamplesReply::fromJson(json.object()); },
        [done = std::move(done)](Result<Result<SamplesReply>> reply) {
            if (!reply)
                done(reply.failure());
            else
                done(std::move(reply).value());
        });
}

void CollectorClient::blob(const QString &digest, QObject *context, Callback<QByteArray> done) {
    exchange("GET", QString::fromLatin1(CollectorApi::kBlobs) + digest, {}, {}, {}, context,
             [done = std::move(done)](const Result<Answer> &answer) {
                 if (answer)
                     done(answer->body);
                 else
                     done(answer.failure());
             });
}

void CollectorClient::push(const QByteArray &body, QObject *context, Callback<qint64> done) {
    exchangeJson<qint64>(
        "POST", QString::fromLatin1(CollectorApi::kPush), {}, body, u"application/json"_s, context,
        [](const QJsonDocument &json) { return json[u"accepted"_s].toInteger(); }, std::move(done));
}

void CollectorClient::pushSamples(const QByteArray &body, QObject *context, Callback<qint64> done) {
    exchangeJson<qint64>(
        "POST", QString::fromLatin1(CollectorApi::kPushSamples), {}, body,
        u"application/x-signalbox-samples"_s, context,
        [](const QJsonDocument &json) { return json[u"accepted"_s].toInteger(); }, std::move(done));
}

void CollectorClient::pushLines(const QString &run, const QByteArray &text, QObject *context,
                                Callback<LinesReply> done) {
    QueryItems query;
    query.append({u"run"_s, run});
    exchangeJson<LinesReply>(
        "POST", QString::fromLatin1(CollectorApi::kLines), query, text, u"text/plain"_s, context,
        [](const QJsonDocument &json) { return LinesReply::fromJson(json.object()); },
        std::move(done));
}

void CollectorClient::acknowledgeRecovery(QObject *context, Callback<qint64> done) {
    exchangeJson<qint64>(
        "POST", QString::fromLatin1(CollectorApi::kAcknowledgeRecovery), {}, {}, {}, context,
        [](const QJsonDocument &json) { return json[u"acknowledged"_s].toInteger(); },
        std::move(done));
}

void CollectorClient::restoreRewind(quint32 rewind, QObject *context, Callback<qint64> done) {
    const QByteArray body =
        QJsonDocument(QJsonObject{{u"rewind"_s, qint64(rewind)}}).toJson(QJsonDocument::Compact);
    exchangeJson<qint64>(
        "POST", QString::fromLatin1(CollectorApi::kRestoreRewind), {}, body, u"application/json"_s,
        context, [](const QJsonDocument &json) { return json[u"restored"_s].toInteger(); },
        std::move(done));
}

void CollectorClient::deleteRuns(const QStringList &runs, QObject *context,
                                 Callback<Deleted> done) {
    const QByteArray body =
        QJsonDocument(QJsonObject{{u"runs"_s, QJsonArray::fromStringList(runs)}})
            .toJson(QJsonDocument::Compact);
    exchangeJson<Deleted>(
        "POST", QString::fromLatin1(CollectorApi::kDeleteRuns), {}, body, u"application/json"_s,
        context,
        [](const QJsonDocument &json) {
            QStringList deleted;
            for (const QJsonValue run : json[u"deleted"_s].toArray())
                deleted << run.toString();
            return Deleted{deleted, json[u"points"_s].toInteger(), json[u"samples"_s].toInteger()};
        },
        std::move(done));
}

Result<QString> collectorProject(const QString &value) {
    const QString project = value.isEmpty() ? qEnvironmentVariable("SIGNALBOX_PROJECT") : value;
    if (Status valid = CollectorApi::checkProject(project); !project.isEmpty() && !valid)
        return valid.failure();
    return project;
}

std::optional<ClusterCollector> parseClusterCollector(const QString &address) {
    if (!address.startsWith(u"k8s://"_s))
        return std::nullopt;
    const QStringList parts = address.mid(6).split(u'/');
    if (parts.size() < 3 || parts.contains(QString()))
        return std::nullopt;
    return ClusterCollector{parts.first(parts.size() - 2).join(u'/'),
                            parts[parts.size() - 2] + u'/' + parts.last()};
}

} // namespace sb
