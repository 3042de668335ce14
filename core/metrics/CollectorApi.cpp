#include "CollectorApi.h"

#include "MetricLineParser.h"
#include "util/JsonWriter.h"

#include <QJsonDocument>
#include <QRegularExpression>
#include <QtEndian>

#include <simdjson.h>

#include <algorithm>
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

bool lowerIsBetter(QStringView metric) {
    static const QRegularExpression lower(
        u"loss|err|perplexity|ppl|mse|mae|rmse|nll|wer|cer|regret|distance|latency|time|"
        "seconds|duration|cost|penalty|divergence|kl"_s,
        QRegularExpression::CaseInsensitiveOption);
    return lower.match(metric).hasMatch();
}

std::optional<double> MetricSummary::value(MetricStatistic statistic, QStringView metric) const {
    if (statistic == MetricStatistic::Last)
        return last.value;
    if (!range) // unknown until the collector has read the series
        return std::nullopt;
    const bool smallest = statistic == MetricStatistic::Min ||
                          (statistic == MetricStatistic::Best && lowerIsBetter(metric));
    return smallest ? range->first : range->second;
}

QJsonObject RunSummary::toJson() const {
    QJsonObject json = info.toJson();
    QJsonObject out;
    for (auto it = metrics.begin(); it != metrics.end(); ++it) {
        // The last value may be a NaN or an infinity: as metric lines write them ("Infinity").
        QJsonObject metric{{u"count"_s, it->count},
                           {u"step"_s, it->last.step},
                           {u"value"_s, metricJson(it->last.value)},
                           {u"time"_s, it->last.wall}};
        if (it->range) {
            metric[u"min"_s] = it->range->first;
            metric[u"max"_s] = it->range->second;
        }
        out[it.key()] = metric;
    }
    json[u"metrics"_s] = out;
    if (!rewinds.empty()) {
        QJsonArray list;
        for (const RewindSummary &rewind : rewinds)
            list.append(QJsonObject{{u"id"_s, qint64(rewind.id)},
                                    {u"step"_s, rewind.step},
                                    {u"inclusive"_s, rewind.inclusive},
                                    {u"time"_s, rewind.time},
                                    {u"points"_s, rewind.points},
                                    {u"samples"_s, rewind.samples}});
        json[u"rewinds"_s] = list;
    }
    return json;
}

namespace {

std::vector<RewindSummary> rewindsFromJson(const QJsonArray &json) {
    std::vector<RewindSummary> rewinds;
    for (const QJsonValue value : json) {
        const QJsonObject rewind = value.toObject();
        const qint64 id = rewind.value(u"id"_s).toInteger();
        if (id > 0 && id <= 0xffffffff)
            rewinds.push_back(
                {quint32(id), rewind.value(u"step"_s).toDouble(),
                 rewind.value(u"inclusive"_s).toBool(), rewind.value(u"time"_s).toDouble(),
                 rewind.value(u"points"_s).toInteger(), rewind.value(u"samples"_s).toInteger()});
    }
    return rewinds;
}

} // namespace

RunSummary RunSummary::fromJson(const QJsonObject &json) {
    RunSummary run;
    run.info = RunInfo::fromJson(json.value(u"name"_s).toString(), json);
    const QJsonObject metrics = json.value(u"metrics"_s).toObject();
    for (auto it = metrics.begin(); it != metrics.end(); ++it) {
        const QJsonObject metric = it->toObject();
        std::optional<std::pair<double, double>> range;
        if (metric.value(u"min"_s).isDouble() && metric.value(u"max"_s).isDouble())
            range = std::pair(metric.value(u"min"_s).toDouble(), metric.value(u"max"_s).toDouble());
        run.metrics.insert(it.key(), {metric.value(u"count"_s).toInteger(),
                                      {metric.value(u"step"_s).toDouble(),
                                       metricValue(metric.value(u"value"_s)).value_or(qQNaN()),
                                       metric.value(u"time"_s).toDouble()},
                                      range});
    }
    run.rewinds = rewindsFromJson(json.value(u"rewinds"_s).toArray());
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

QByteArray runSummariesJsonText(const QList<RunSummary> &runs) {
    JsonWriter out;
    out.beginArray();
    for (const RunSummary &run : runs) {
        out.beginObject();
        const QJsonObject info = run.info.toJson();
        for (auto it = info.begin(); it != info.end(); ++it) {
            out.key(it.key());
            out.json(it.value());
        }
        out.key(u"metrics");
        out.beginObject();
        for (auto it = run.metrics.begin(); it != run.metrics.end(); ++it) {
            out.key(it.key());
            out.beginObject();
            out.field(u"count", it->count);
            out.field(u"step", it->last.step);
            out.key(u"value");
            out.json(metricJson(it->last.value)); // NaN and infinities by name
            out.field(u"time", it->last.wall);
            if (it->range) {
                out.field(u"min", it->range->first);
                out.field(u"max", it->range->second);
            }
            out.endObject();
        }
        out.endObject();
        if (!run.rewinds.empty()) {
            out.key(u"rewinds");
            out.beginArray();
            for (const RewindSummary &rewind : run.rewinds) {
                out.beginObject();
                out.field(u"id", qint64(rewind.id));
                out.field(u"step", rewind.step);
                out.field(u"inclusive", rewind.inclusive);
                out.field(u"time", rewind.time);
                out.field(u"points", rewind.points);
                out.field(u"samples", rewind.samples);
                out.endObject();
            }
            out.endArray();
        }
        out.endObject();
    }
    out.endArray();
    return out.take();
}

namespace {

namespace dom = simdjson::dom;

QString textOf(std::string_view view) {
    return QString::fromUtf8(view.data(), static_cast<qsizetype>(view.size()));
}

// A value as Qt holds JSON, for the few fields that stay QJsonObjects (a run's config).
QJsonValue qtJson(dom::element element) {
    switch (element.type()) {
    case dom::element_type::OBJECT: {
        QJsonObject object;
        for (auto [key, value] : dom::object(element))
            object.insert(textOf(key), qtJson(value));
        return object;
    }
    case dom::element_type::ARRAY: {
        QJsonArray array;
        for (dom::element item : dom::array(element))
            array.append(qtJson(item));
        return array;
    }
    case dom::element_type::STRING:
        return textOf(std::string_view(element));
    case dom::element_type::INT64:
        return qint64(int64_t(element));
    case dom::element_type::UINT64:
        return double(uint64_t(element));
    case dom::element_type::DOUBLE:
        return double(element);
    case dom::element_type::BOOL:
        return bool(element);
    default:
        return QJsonValue::Null;
    }
}

} // namespace

Result<QList<RunSummary>> runSummariesFromJsonText(const QByteArray &text) {
    auto bad = [](const char *what) {
        return fail(u"the collector's runs could not be read: %1"_s.arg(QLatin1StringView(what)));
    };
    dom::parser parser;
    dom::array list;
    if (const auto error =
            parser.parse(text.constData(), static_cast<size_t>(text.size())).get_array().get(list))
        return bad(simdjson::error_message(error));
    auto number = [](dom::element element) { // 0 when not a number, as QJsonValue reads it
        double v = 0;
        return element.get_double().get(v) ? 0.0 : v;
    };
    auto whole = [](dom::element element) -> qint64 {
        int64_t n = 0;
        return element.get_int64().get(n) ? 0 : n;
    };
    QList<RunSummary> runs;
    runs.reserve(qsizetype(list.size()));
    for (dom::element element : list) {
        dom::object object;
        if (element.get_object().get(object))
            return bad("a run is not an object");
        RunSummary &run = runs.emplace_back();
        QJsonObject info; // everything but the metrics and rewinds, as RunInfo reads it
        for (auto [key, value] : object) {
            if (key == "metrics") {
                dom::object metrics;
                if (value.get_object().get(metrics))
                    return bad("metrics is not an object");
                for (auto [metric, summary] : metrics) {
                    dom::object fields;
                    if (summary.get_object().get(fields))
                        return bad("a metric's summary is not an object");
                    MetricSummary &read = run.metrics[textOf(metric)];
                    std::optional<double> low;
                    std::optional<double> high;
                    for (auto [field, v] : fields) {
                        if (field == "count")
                            read.count = whole(v);
                        else if (field == "step")
                            read.last.step = number(v);
                        else if (field == "value")
                            read.last.value = metricValue(qtJson(v)).value_or(qQNaN());
                        else if (field == "time")
                            read.last.wall = number(v);
                        else if (field == "min" && v.is_number())
                            low = number(v);
                        else if (field == "max" && v.is_number())
                            high = number(v);
                    }
                    if (low && high)
                        read.range = std::pair(*low, *high);
                }
            } else if (key == "rewinds") {
                run.rewinds = rewindsFromJson(qtJson(value).toArray());
            } else {
                info.insert(textOf(key), qtJson(value));
            }
        }
        run.info = RunInfo::fromJson(info.value(u"name"_s).toString(), info);
    }
    return runs;
}

QByteArray SeriesReplies::toJsonText() const {
    JsonWriter out;
    out.beginObject();
    out.field(u"metric", metric);
    out.key(u"series");
    out.beginArray();
    for (const SeriesReply &s : series) {
        out.beginObject();
        out.field(u"run", s.run);
        out.field(u"metric", s.metric);
        if (!s.error.isEmpty()) {
            out.field(u"error", s.error);
        } else {
            out.field(u"total", s.total);
            out.field(u"inRange", s.inRange);
            out.key(u"x");
            out.values(s.x);
            out.key(u"y");
            out.values(s.y);
            if (!s.rawX.empty() || !s.rawY.empty()) {
                out.key(u"rawX");
                out.values(s.rawX);
                out.key(u"rawY");
                out.values(s.rawY);
            }
        }
        out.endObject();
    }
    out.endArray();
    out.endObject();
    return out.take();
}

Result<SeriesReplies> SeriesReplies::fromJsonText(const QByteArray &text) {
    auto bad = [](const char *what) {
        return fail(u"the collector's curves could not be read: %1"_s.arg(QLatin1StringView(what)));
    };
    dom::parser parser;
    dom::object root;
    if (const auto error =
            parser.parse(text.constData(), static_cast<size_t>(text.size())).get_object().get(root))
        return bad(simdjson::error_message(error));
    auto stringOf = [](dom::element element) {
        std::string_view view;
        return element.get_string().get(view) ? QString() : textOf(view);
    };
    auto numbersOf = [](dom::element element) {
        std::vector<double> out;
        dom::array array;
        if (element.get_array().get(array))
            return out;
        out.reserve(array.size());
        for (dom::element item : array) {
            double number = 0;
            out.push_back(item.get_double().get(number) ? qQNaN() : number); // null: not finite
        }
        return out;
    };
    auto count = [](dom::element element) -> qint64 {
        int64_t n = 0;
        return element.get_int64().get(n) ? 0 : n;
    };
    SeriesReplies replies;
    dom::array series;
    bool listed = false;
    for (auto [key, value] : root) {
        if (key == "metric")
            replies.metric = stringOf(value);
        else if (key == "series") {
            if (value.get_array().get(series))
                return bad("series is not an array");
            listed = true;
        }
    }
    if (!listed)
        return bad("it holds no series");
    for (dom::element element : series) {
        dom::object s;
        if (element.get_object().get(s))
            return bad("a curve is not an object");
        SeriesReply &reply = replies.series.emplace_back();
        reply.metric = replies.metric;
        for (auto [key, value] : s) {
            if (key == "run")
                reply.run = stringOf(value);
            else if (key == "metric")
                reply.metric = stringOf(value);
            else if (key == "error")
                reply.error = stringOf(value);
            else if (key == "total")
                reply.total = count(value);
            else if (key == "inRange")
                reply.inRange = count(value);
            else if (key == "x")
                reply.x = numbersOf(value);
            else if (key == "y")
                reply.y = numbersOf(value);
            else if (key == "rawX")
                reply.rawX = numbersOf(value);
            else if (key == "rawY")
                reply.rawY = numbersOf(value);
        }
    }
    return replies;
}

SeriesReplies SeriesReplies::fromJson(const QJsonObject &json) {
    SeriesReplies replies;
    replies.metric = json.value(u"metric"_s).toString();
    for (const auto &value : json.value(u"series"_s).toArray()) {
        const QJsonObject s = value.toObject();
        SeriesReply reply;
        reply.run = s.value(u"run"_s).toString();
        reply.metric = s.value(u"metric"_s).toString(replies.metric);
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

QJsonObject GroupRequest::toJson() const {
    QJsonArray list;
    for (const Group &group : groups)
        list.append(QJsonObject{{u"name"_s, group.name},
                                {u"runs"_s, QJsonArray::fromStringList(group.runs)}});
    QJsonObject json{{u"metric"_s, metric},
                     {u"x"_s, xAxisName(window.axis)},
                     {u"width"_s, window.width},
                     {u"smoothing"_s, window.smoothing},
                     {u"smoothing_kind"_s, smoothingKindName(window.smoothingKind)},
                     {u"center"_s, groupCenterName(center)},
                     {u"band"_s, groupBandName(band)},
                     {u"groups"_s, list}};
    if (!window.xMetric.isEmpty())
        json[u"x_metric"_s] = window.xMetric;
    if (window.logX)
        json[u"log_x"_s] = true;
    if (window.from)
        json[u"from"_s] = *window.from;
    if (window.to)
        json[u"to"_s] = *window.to;
    return json;
}

Result<GroupRequest> GroupRequest::fromJson(const QJsonObject &json) {
    GroupRequest request;
    request.metric = json.value(u"metric"_s).toString();
    if (request.metric.isEmpty())
        return fail(u"a metric is required"_s);
    if (!parseXAxis(json.value(u"x"_s).toString(u"step"_s), &request.window.axis))
        return fail(u"x must be step, relative or wall"_s);
    request.window.xMetric = json.value(u"x_metric"_s).toString();
    request.window.logX = json.value(u"log_x"_s).toBool();
    if (!parseSmoothingKind(json.value(u"smoothing_kind"_s).toString(u"ema"_s),
                            &request.window.smoothingKind))
        return fail(u"smoothing_kind must be ema, average or gaussian"_s);
    if (!parseGroupCenter(json.value(u"center"_s).toString(u"mean"_s), &request.center))
        return fail(u"center must be mean or median"_s);
    if (!parseGroupBand(json.value(u"band"_s).toString(u"std"_s), &request.band))
        return fail(u"band must be none, std, stderr or minmax"_s);
    auto finite = [&](const QString &key) -> std::optional<double> {
        const double v = json.value(key).toDouble(qQNaN());
        return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
    };
    request.window.from = finite(u"from"_s);
    request.window.to = finite(u"to"_s);
    const double width = json.value(u"width"_s).toDouble(1000);
    if (!(width >= 1 && width <= CollectorApi::kMostColumns))
        return fail(u"width must be 1 to %1 columns (the chart's width in pixels)"_s.arg(
            CollectorApi::kMostColumns));
    request.window.width = static_cast<int>(width);
    request.window.smoothing = std::clamp(finite(u"smoothing"_s).value_or(0), 0.0, 0.999);
    const QJsonArray groups = json.value(u"groups"_s).toArray();
    // Counted before any is read: the answer holds every group's columns.
    if (groups.size() > CollectorApi::kMostGroups ||
        qint64(groups.size()) * request.window.width > CollectorApi::kMostGroupColumns)
        return fail(u"%1 groups × %2 columns is more than one answer holds (at most %3 groups, "
                    "%4 columns in all): ask for fewer groups at a time or a smaller width"_s
                        .arg(groups.size())
                        .arg(request.window.width)
                        .arg(CollectorApi::kMostGroups)
                        .arg(CollectorApi::kMostGroupColumns));
    qint64 members = 0;
    for (const auto &value : groups) {
        const QJsonObject group = value.toObject();
        members += group.value(u"runs"_s).toArray().size();
        if (members > CollectorApi::kMostGroupMembers)
            return fail(u"the groups name more than %1 runs in all: ask for fewer groups at a "
                        "time"_s.arg(CollectorApi::kMostGroupMembers));
        Group &g = request.groups.emplace_back();
        g.name = group.value(u"name"_s).toString();
        for (const auto &run : group.value(u"runs"_s).toArray())
            g.runs << run.toString();
        g.runs.removeDuplicates(); // a run counts once in its group
    }
    return request;
}

QJsonObject GroupReplies::toJson() const {
    QJsonArray list;
    for (const GroupReply &group : groups) {
        QJsonArray members;
        for (int n : group.curve.members)
            members.append(n);
        list.append(QJsonObject{{u"name"_s, group.name},
                                {u"runs"_s, QJsonArray::fromStringList(group.runs)},
                                {u"missing"_s, QJsonArray::fromStringList(group.missing)},
                                {u"x"_s, numbers(group.curve.x)},
                                {u"center"_s, numbers(group.curve.center)},
                                {u"lower"_s, numbers(group.curve.lower)},
                                {u"upper"_s, numbers(group.curve.upper)},
                                {u"members"_s, members}});
    }
    return {{u"metric"_s, metric}, {u"groups"_s, list}};
}

GroupReplies GroupReplies::fromJson(const QJsonObject &json) {
    GroupReplies replies;
    replies.metric = json.value(u"metric"_s).toString();
    auto strings = [](const QJsonValue &value) {
        QStringList out;
        for (const auto &s : value.toArray())
            out << s.toString();
        return out;
    };
    for (const auto &value : json.value(u"groups"_s).toArray()) {
        const QJsonObject g = value.toObject();
        GroupReply &group = replies.groups.emplace_back();
        group.name = g.value(u"name"_s).toString();
        group.runs = strings(g.value(u"runs"_s));
        group.missing = strings(g.value(u"missing"_s));
        group.curve.x = numbers(g.value(u"x"_s));
        group.curve.center = numbers(g.value(u"center"_s));
        group.curve.lower = numbers(g.value(u"lower"_s));
        group.curve.upper = numbers(g.value(u"upper"_s));
        for (const auto &n : g.value(u"members"_s).toArray())
            group.curve.members.push_back(n.toInt());
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

QJsonObject SampleTagSummary::toJson() const {
    return {{u"run"_s, run},
            {u"tag"_s, tag},
            {u"kind"_s, QString(sampleKindName(kind))},
            {u"points"_s, points},
            {u"first_step"_s, firstStep},
            {u"last_step"_s, lastStep}};
}

SampleTagSummary SampleTagSummary::fromJson(const QJsonObject &json) {
    return {json.value(u"run"_s).toString(),
            json.value(u"tag"_s).toString(),
            parseSampleKind(json.value(u"kind"_s).toString()).value_or(SampleKind::Image),
            json.value(u"points"_s).toInteger(),
            json.value(u"first_step"_s).toDouble(),
            json.value(u"last_step"_s).toDouble()};
}

QJsonObject SamplesReply::toJson() const {
    QJsonArray items;
    for (const SampleItem &item : samples) {
        QJsonObject json = sampleFactsJson(kind, item.facts);
        json.insert(u"step"_s, item.step);
        json.insert(u"wall_time"_s, item.wall);
        json.insert(u"index"_s, qint64(item.index));
        json.insert(u"blob"_s, item.blob);
        json.insert(u"bytes"_s, item.bytes);
        if (item.text) {
            json.insert(u"text"_s, *item.text);
            if (item.textCut)
                json.insert(u"text_cut"_s, true);
        }
        if (kind == SampleKind::Histogram) {
            QJsonArray buckets;
            for (const HistogramBucket &bucket : item.buckets)
                buckets.append(QJsonArray{bucket.left, bucket.right, bucket.count});
            json.insert(u"buckets"_s, buckets);
        }
        items.append(json);
    }
    return {{u"run"_s, run},     {u"tag"_s, tag},       {u"kind"_s, QString(sampleKindName(kind))},
            {u"total"_s, total}, {u"offset"_s, offset}, {u"samples"_s, items}};
}

Result<SamplesReply> SamplesReply::fromJson(const QJsonObject &json) {
    SamplesReply reply;
    reply.run = json.value(u"run"_s).toString();
    reply.tag = json.value(u"tag"_s).toString();
    const auto kind = parseSampleKind(json.value(u"kind"_s).toString());
    if (!kind)
        return fail(u"the collector's answer names no kind of sample"_s);
    reply.kind = *kind;
    reply.total = json.value(u"total"_s).toInteger();
    reply.offset = json.value(u"offset"_s).toInteger();
    for (const QJsonValue value : json.value(u"samples"_s).toArray()) {
        const QJsonObject item = value.toObject();
        SampleItem &sample = reply.samples.emplace_back();
        sample.step = item.value(u"step"_s).toDouble();
        sample.wall = item.value(u"wall_time"_s).toDouble();
        sample.index = quint32(item.value(u"index"_s).toInteger());
        sample.facts = sampleFactsFromJson(reply.kind, item);
        sample.blob = item.value(u"blob"_s).toString();
        sample.bytes = item.value(u"bytes"_s).toInteger();
        if (item.contains(u"text"_s))
            sample.text = item.value(u"text"_s).toString();
        sample.textCut = item.value(u"text_cut"_s).toBool();
        for (const QJsonValue bucket : item.value(u"buckets"_s).toArray()) {
            const QJsonArray edges = bucket.toArray();
            sample.buckets.push_back(
                {edges.at(0).toDouble(), edges.at(1).toDouble(), edges.at(2).toDouble()});
        }
    }
    return reply;
}

QList<QByteArray> samplesPushes(const QString &run, const std::vector<Sample> &samples) {
    QList<QByteArray> bodies;
    std::size_t first = 0;
    while (first < samples.size()) {
        QJsonArray items;
        qint64 bytes = 0;
        std::size_t end = first;
        for (; end < samples.size() && items.size() < CollectorApi::kMostSamplesPerPush; ++end) {
            const Sample &sample = samples[end];
            if (end > first && bytes + sample.bytes.size() > kSamplesPushBytes)
                break;
            QJsonObject item = sampleFactsJson(sample.kind, sample.facts);
            item.insert(u"tag"_s, sample.tag);
            item.insert(u"kind"_s, QString(sampleKindName(sample.kind)));
            item.insert(u"step"_s, sample.step);
            item.insert(u"time"_s, sample.wall);
            item.insert(u"index"_s, qint64(sample.index));
            item.insert(u"bytes"_s, sample.bytes.size());
            items.append(item);
            bytes += sample.bytes.size();
        }
        const QByteArray header = QJsonDocument(QJsonObject{{u"run"_s, run}, {u"samples"_s, items}})
                                      .toJson(QJsonDocument::Compact);
        QByteArray body = QByteArray(CollectorApi::kSamplesMagic) + QByteArray(4, '\0') + header;
        qToLittleEndian<quint32>(quint32(header.size()), body.data() + 4);
        body.append(QByteArray(-body.size() & 7, '\0')); // to a multiple of 8 bytes
        body.reserve(body.size() + bytes);
        for (std::size_t i = first; i < end; ++i)
            body.append(samples[i].bytes);
        bodies << body;
        first = end;
    }
    return bodies;
}

bool CollectorApi::validProject(QStringView name) {
    if (name.isEmpty() || name.size() > 64 || name.startsWith(u'.'))
        return false;
    return std::all_of(name.begin(), name.end(), [](QChar c) {
        const char16_t u = c.unicode();
        return (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9') ||
               u == u'.' || u == u'_' || u == u'-';
    });
}

Status CollectorApi::checkProject(const QString &name) {
    if (validProject(name))
        return success();
    return fail(u"\"%1\" is not a project name: 1 to 64 letters, digits, '.', '_' or '-', not "
                "starting with '.'"_s.arg(name),
                ErrorCode::InvalidInput);
}

QJsonObject Health::toJson() const {
    QJsonObject json{{u"service"_s, service},
                     {u"version"_s, version},
                     {u"runs"_s, runs},
                     {u"points"_s, points},
                     {u"recovery"_s, QJsonArray::fromStringList(recovery)}};
    if (!sources.isEmpty())
        json[u"sources"_s] = sources;
    if (!lab.isEmpty())
        json[u"lab"_s] = lab;
    json[u"project"_s] = project;
    if (!user.isEmpty())
        json[u"user"_s] = user;
    json[u"access"_s] = access;
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
    health.lab = json.value(u"lab"_s).toObject();
    health.project = json.value(u"project"_s).toString();
    health.user = json.value(u"user"_s).toString();
    // A collector from before projects lets its token do everything.
    health.access = json.value(u"access"_s).toString(u"write"_s);
    return health;
}

} // namespace sb
