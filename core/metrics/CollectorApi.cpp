#include "CollectorApi.h"

#include "MetricLineParser.h"

#include <cmath>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// Non-finite numbers travel as null (JSON has no NaN or infinity) and come back as NaN.
QJsonArray numbers(const std::vector<double> &values) {
    QJsonArray array;
    for (double v : values)
        array.append(std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null));
    return array;
}

std::vector<double> numbers(const QJsonValue &json) {
    const QJsonArray array = json.toArray();
    std::vector<double> values;
    values.reserve(static_cast<std::size_t>(array.size()));
    for (const auto &v : array)
        values.push_back(v.toDouble(qQNaN()));
    return values;
}

} // namespace

QJsonObject RunSummary::toJson() const {
    QJsonObject json = info.toJson();
    QJsonObject out;
    for (auto it = metrics.begin(); it != metrics.end(); ++it) {
        // The last value may be a NaN or an infinity: as metric lines write them ("Infinity").
        out[it.key()] = QJsonObject{{u"count"_s, it->count},
                                    {u"step"_s, it->last.step},
                                    {u"value"_s, metricJson(it->last.value)},
                                    {u"time"_s, it->last.wall}};
    }
    json[u"metrics"_s] = out;
    return json;
}

RunSummary RunSummary::fromJson(const QJsonObject &json) {
    RunSummary run;
    run.info = RunInfo::fromJson(json.value(u"name"_s).toString(), json);
    const QJsonObject metrics = json.value(u"metrics"_s).toObject();
    for (auto it = metrics.begin(); it != metrics.end(); ++it) {
        const QJsonObject metric = it->toObject();
        run.metrics.insert(it.key(), {metric.value(u"count"_s).toInteger(),
                                      {metric.value(u"step"_s).toDouble(),
                                       metricValue(metric.value(u"value"_s)).value_or(qQNaN()),
                                       metric.value(u"time"_s).toDouble()}});
    }
    return run;
}

QJsonArray toJson(const QList<RunSummary> &runs) {
    QJsonArray array;
    for (const RunSummary &run : runs)
        array.append(run.toJson());
    return array;
}

QList<RunSummary> runSummariesFromJson(const QJsonArray &json) {
    QList<RunSummary> runs;
    runs.reserve(json.size());
    for (const auto &run : json)
        runs.append(RunSummary::fromJson(run.toObject()));
    return runs;
}

QJsonObject SeriesReplies::toJson() const {
    QJsonArray out;
    for (const SeriesReply &s : series) {
        if (!s.error.isEmpty()) {
            out.append(QJsonObject{{u"run"_s, s.run}, {u"error"_s, s.error}});
            continue;
        }
        QJsonObject one{{u"run"_s, s.run},
                        {u"total"_s, s.total},
                        {u"inRange"_s, s.inRange},
                        {u"x"_s, numbers(s.x)},
                        {u"y"_s, numbers(s.y)}};
        if (!s.rawX.empty() || !s.rawY.empty()) {
            one[u"rawX"_s] = numbers(s.rawX);
            one[u"rawY"_s] = numbers(s.rawY);
        }
        out.append(one);
    }
    return {{u"metric"_s, metric}, {u"series"_s, out}};
}

SeriesReplies SeriesReplies::fromJson(const QJsonObject &json) {
    SeriesReplies replies;
    replies.metric = json.value(u"metric"_s).toString();
    for (const auto &value : json.value(u"series"_s).toArray()) {
        const QJsonObject s = value.toObject();
        SeriesReply reply;
        reply.run = s.value(u"run"_s).toString();
        reply.error = s.value(u"error"_s).toString();
        reply.total = s.value(u"total"_s).toInteger();
        reply.inRange = s.value(u"inRange"_s).toInteger();
        reply.x = numbers(s.value(u"x"_s));
        reply.y = numbers(s.value(u"y"_s));
        reply.rawX = numbers(s.value(u"rawX"_s));
        reply.rawY = numbers(s.value(u"rawY"_s));
        replies.series.push_back(std::move(reply));
    }
    return replies;
}

QJsonObject LinesReply::toJson() const {
    return {{u"accepted"_s, accepted},
            {u"duplicates"_s, duplicates},
            {u"errors"_s, QJsonArray::fromStringList(errors)}};
}

LinesReply LinesReply::fromJson(const QJsonObject &json) {
    LinesReply reply;
    reply.accepted = json.value(u"accepted"_s).toInteger();
    reply.duplicates = json.value(u"duplicates"_s).toInteger();
    for (const auto &error : json.value(u"errors"_s).toArray())
        reply.errors << error.toString();
    return reply;
}

QJsonObject Health::toJson() const {
    QJsonObject json{{u"service"_s, service},
                     {u"version"_s, version},
                     {u"runs"_s, runs},
                     {u"points"_s, points},
                     {u"recovery"_s, QJsonArray::fromStringList(recovery)}};
    if (!sources.isEmpty())
        json[u"sources"_s] = sources;
    return json;
}

Health Health::fromJson(const QJsonObject &json) {
    Health health;
    health.service = json.value(u"service"_s).toString();
    health.version = json.value(u"version"_s).toString();
    health.runs = json.value(u"runs"_s).toInteger();
    health.points = json.value(u"points"_s).toInteger();
    for (const auto &note : json.value(u"recovery"_s).toArray())
        health.recovery << note.toString();
    health.sources = json.value(u"sources"_s).toArray();
    return health;
}

} // namespace sb
