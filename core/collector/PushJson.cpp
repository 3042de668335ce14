#include "PushJson.h"

#include "metrics/MetricLineParser.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <simdjson.h>

#include <optional>

namespace sb {

using namespace Qt::StringLiterals;
namespace dom = simdjson::dom;

namespace {

QString text(std::string_view view) {
    return QString::fromUtf8(view.data(), static_cast<qsizetype>(view.size()));
}

// The whole body read by Qt: for the numbers simdjson refuses and Qt reads (integers past
// 64 bits, numbers past the double range), so that such a body reads as it always did.
Result<SplitPush> qtRead(QByteArrayView body) {
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(body.toByteArray(), &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return fail(u"the body is not a JSON object: %1"_s.arg(error.errorString()));
    return SplitPush{document.object(), {}, 0};
}

// A field other than the series, as Qt JSON (such fields are small).
QJsonValue qtJson(dom::element element) {
    const std::string json = simdjson::minify(element);
    // Wrapped in an array: Qt reads only objects and arrays at the top.
    return QJsonDocument::fromJson("[" + QByteArray::fromStdString(json) + "]").array().first();
}

// A column of numbers; null is empty. Non-finite values come as the strings "NaN", "Infinity"
// and "-Infinity", and booleans as 1 and 0 (as in metric lines).
Status numbers(dom::element element, const QString &what, std::vector<double> *out) {
    out->clear(); // a key given twice: the last one counts, as in Qt's reading
    if (element.is_null())
        return success();
    dom::array array;
    if (element.get_array().get(array))
        return fail(u"%1 must be an array of numbers"_s.arg(what));
    out->reserve(array.size());
    for (dom::element item : array) {
        double number = 0;
        if (!item.get_double().get(number)) {
            out->push_back(number);
            continue;
        }
        std::string_view word;
        const std::optional<double> special =
            item.is_bool() ? std::optional(item.get_bool().value_unsafe() ? 1.0 : 0.0)
            : !item.get_string().get(word) ? metricValue(QJsonValue(text(word)))
                                           : std::nullopt;
        if (!special)
            return fail(u"%1 holds a value that is not a number"_s.arg(what));
        out->push_back(*special);
    }
    return success();
}

Status series(dom::object object, double wallNow, SplitPush *push) {
    push->series.clear(); // given twice: the last one counts
    push->points = 0;
    for (auto [key, column] : object) {
        const QString metric = text(key);
        dom::object parts;
        if (column.get_object().get(parts))
            return fail(u"series \"%1\" must be an object {step, value, time}"_s.arg(metric));
        std::vector<double> steps, values, walls;
        for (auto [name, array] : parts) {
            std::vector<double> *target = name == "step"    ? &steps
                                          : name == "value" ? &values
                                          : name == "time"  ? &walls
                                                            : nullptr;
            if (!target)
                continue;
            if (Status read = numbers(array, metric + u'.' + text(name), target); !read)
                return read;
        }
        const std::size_t n = values.size();
        if (steps.size() != n || (!walls.empty() && walls.size() != n))
            return fail(u"series \"%1\": step, value and time need the same length"_s.arg(metric));
        SeriesPoints points{metric, std::vector<MetricPoint>(n)};
        for (std::size_t i = 0; i < n; ++i)
            points.points[i] = {steps[i], values[i], walls.empty() ? wallNow : walls[i]};
        push->points += static_cast<qint64>(n);
        push->series.push_back(std::move(points));
    }
    return success();
}

} // namespace

Result<SplitPush> splitPush(QByteArrayView body, double wallNow) {
    // Small bodies share one parser per thread, its buffers reused from push to push; a large
    // one gets a parser of its own, so that its buffers (about nine times the body) go with it.
    thread_local dom::parser reused;
    std::optional<dom::parser> own;
    dom::parser &parser = body.size() > (qsizetype(1) << 20) ? own.emplace() : reused;
    dom::element document;
    const simdjson::error_code error =
        parser.parse(body.data(), static_cast<std::size_t>(body.size())).get(document);
    if (error == simdjson::NUMBER_ERROR)
        return qtRead(body);
    dom::object top;
    if (error || document.get_object().get(top))
        return fail(u"the body is not a JSON object%1"_s.arg(
            error ? u": "_s + QLatin1StringView(simdjson::error_message(error)) : QString()));
    SplitPush push;
    for (auto [key, value] : top) {
        dom::object object;
        if (key == "series" && !value.get_object().get(object)) {
            if (Status read = series(object, wallNow, &push); !read)
                return read.failure();
        } else {
            push.fields.insert(text(key), qtJson(value));
        }
    }
    return push;
}

} // namespace sb
