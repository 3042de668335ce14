#include "MetricLineParser.h"

#include <QJsonDocument>
#include <QJsonParseError>

#include <cmath>
#include <limits>

namespace sb {

using namespace Qt::StringLiterals;

std::optional<double> metricValue(const QJsonValue &value) {
    if (value.isDouble())
        return value.toDouble();
    if (value.isBool())
        return value.toBool() ? 1.0 : 0.0;
    if (value.isString()) {
        const QString text = value.toString().toLower();
        if (text == u"nan"_s)
            return std::numeric_limits<double>::quiet_NaN();
        if (text == u"infinity"_s || text == u"inf"_s)
            return std::numeric_limits<double>::infinity();
        if (text == u"-infinity"_s || text == u"-inf"_s)
            return -std::numeric_limits<double>::infinity();
    }
    return std::nullopt;
}

namespace {

Status flatten(const QString &prefix, const QJsonObject &object, MetricRecord *record) {
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it.key().isEmpty())
            return fail(u"a metric needs a name (\"\" under \"%1\")"_s.arg(prefix));
        const QString key = prefix.isEmpty() ? it.key() : prefix + u'/' + it.key();
        if (it.value().isObject()) {
            if (Status nested = flatten(key, it.value().toObject(), record); !nested)
                return nested;
        } else if (auto number = metricValue(it.value())) {
            record->values.emplace_back(key, *number);
        }
    }
    return success();
}

// A reserved step or time key: a number within the stored range.
Result<double> coordinate(const QJsonValue &json, const QString &key) {
    const auto value = metricValue(json);
    if (!value || !validCoordinate(*value))
        return fail(u"\"%1\" must be a finite number within +-2^53 (%2)"_s.arg(
            key, value ? QString::number(*value, 'g', 17) : u"not a number"_s));
    return *value;
}

} // namespace

QJsonValue metricJson(double value) {
    if (std::isnan(value))
        return u"NaN"_s;
    if (std::isinf(value))
        return value > 0 ? u"Infinity"_s : u"-Infinity"_s;
    return value;
}

namespace MetricLines {

std::optional<Result<MetricRecord>> parseLogLine(QByteArrayView line) {
    // Progress bars rewrite the line with '\r'; the metric line is what follows the last one.
    line = line.trimmed();
    const qsizetype cr = line.lastIndexOf('\r');
    if (cr >= 0 && cr + 1 < line.size())
        line = line.sliced(cr + 1);
    line = line.trimmed();
    if (!line.startsWith(prefix))
        return std::nullopt;
    return parseJsonObject(line.sliced(prefix.size()));
}

Result<MetricRecord> parseJsonObject(QByteArrayView json) {
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(json.toByteArray(), &error);
    if (error.error != QJsonParseError::NoError)
        return fail(
            u"not valid JSON at character %1: %2"_s.arg(error.offset).arg(error.errorString()));
    if (!document.isObject())
        return fail(u"expected a JSON object"_s);
    return fromJsonObject(document.object());
}

Result<MetricRecord> fromJsonObject(const QJsonObject &object) {
    MetricRecord record;
    QJsonObject values = object;
    for (const QString &key : {u"step"_s, u"time"_s}) {
        if (!values.contains(key))
            continue;
        const auto value = coordinate(values.take(key), key);
        if (!value)
            return fail(value.error());
        (key == u"step"_s ? record.step : record.wall) = *value;
    }
    if (values.contains(u"run"_s)) {
        record.run = values.take(u"run"_s).toString();
    }
    if (values.contains(u"resume"_s)) {
        auto resume = Resume::fromJson(values.take(u"resume"_s));
        if (!resume)
            return fail(resume.error());
        record.resume = std::move(resume).value();
    }
    if (values.contains(u"batch"_s)) {
        const QJsonValue batch = values.take(u"batch"_s);
        if (!batch.isString() || batch.toString().isEmpty() || batch.toString().size() > 200)
            return fail(u"\"batch\" must be a string of 1 to 200 characters"_s);
        record.batch = batch.toString();
    }
    // Metrics named like a reserved key ("step", "time", "run", "batch", "resume") travel under
    // "".
    if (values.contains(QString())) {
        const QJsonValue escaped = values.take(QString());
        if (!escaped.isObject())
            return fail(u"\"\" must be an object of metrics named like a reserved key"_s);
        if (Status flat = flatten(QString(), escaped.toObject(), &record); !flat)
            return fail(flat.error());
    }
    if (Status flat = flatten(QString(), values, &record); !flat)
        return fail(flat.error());
    if (record.values.empty() && !record.resume)
        return fail(u"no numeric metric values"_s);
    return record;
}

QByteArray format(const MetricRecord &record) {
    QJsonObject object;
    QJsonObject escaped; // metrics named like a reserved key, read back from ""
    for (const auto &[name, value] : record.values) {
        if (name == u"step"_s || name == u"time"_s || name == u"run"_s || name == u"batch"_s ||
            name == u"resume"_s)
            escaped[name] = metricJson(value);
        else
            object[name] = metricJson(value);
    }
    if (!escaped.isEmpty())
        object[QString()] = escaped;
    if (record.step)
        object[u"step"_s] = *record.step;
    if (record.wall)
        object[u"time"_s] = *record.wall;
    if (!record.run.isEmpty())
        object[u"run"_s] = record.run;
    if (!record.batch.isEmpty())
        object[u"batch"_s] = record.batch;
    if (record.resume)
        object[u"resume"_s] = record.resume->toJson();
    return prefix.toByteArray() + QJsonDocument(object).toJson(QJsonDocument::Compact);
}

} // namespace MetricLines

QStringList splitCsvRow(QByteArrayView line) {
    QStringList fields;
    QByteArray field;
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields << QString::fromUtf8(field).trimmed();
            field.clear();
        } else if (c != '\r' && c != '\n') {
            field += c;
        }
    }
    fields << QString::fromUtf8(field).trimmed();
    return fields;
}

Result<std::optional<MetricRecord>> CsvMetricReader::readLine(QByteArrayView line) {
    if (line.trimmed().isEmpty())
        return std::optional<MetricRecord>();
    const QStringList fields = splitCsvRow(line);
    if (m_columns.isEmpty()) {
        m_columns = fields;
        for (int i = 0; i < m_columns.size(); ++i) {
            const QString name = m_columns[i].toLower();
            if (name == u"step"_s || name == u"iteration"_s || name == u"epoch"_s)
                m_stepColumn = m_stepColumn < 0 ? i : m_stepColumn;
            else if (name == u"time"_s || name == u"wall_time"_s || name == u"timestamp"_s)
                m_wallColumn = i;
        }
        if (m_columns.size() < 2 && m_stepColumn >= 0)
            return fail(u"the CSV header names no metric columns"_s);
        return std::optional<MetricRecord>();
    }
    if (fields.size() != m_columns.size())
        return fail(u"expected %1 fields, found %2"_s.arg(m_columns.size()).arg(fields.size()));
    MetricRecord record;
    for (int i = 0; i < fields.size(); ++i) {
        if (fields[i].isEmpty())
            continue;
        bool ok = false;
        double value = fields[i].toDouble(&ok);
        if (!ok) {
            const auto special = metricValue(QJsonValue(fields[i]));
            if (!special)
                return fail(
                    u"column \"%1\": \"%2\" is not a number"_s.arg(m_columns[i], fields[i]));
            value = *special;
        }
        if ((i == m_stepColumn || i == m_wallColumn) && !validCoordinate(value))
            return fail(u"column \"%1\": %2 is not a finite number within +-2^53"_s.arg(
                m_columns[i], fields[i]));
        if (i == m_stepColumn)
            record.step = value;
        else if (i == m_wallColumn)
            record.wall = value;
        else
            record.values.emplace_back(m_columns[i], value);
    }
    if (record.values.empty())
        return std::optional<MetricRecord>();
    return std::optional<MetricRecord>(std::move(record));
}

void appendRecord(const MetricRecord &record, double step, double wall,
                  std::vector<SeriesPoints> *series, SeriesIndex *index) {
    SeriesIndex local;
    if (!index)
        index = &local;
    for (; index->indexed < series->size(); ++index->indexed) {
        const QString &metric = (*series)[index->indexed].metric;
        if (!index->at.contains(metric)) // a name given twice: its first series, as before
            index->at.insert(metric, index->indexed);
    }
    for (const auto &[metric, value] : record.values) {
        auto slot = index->at.constFind(metric);
        if (slot == index->at.constEnd()) {
            slot = index->at.insert(metric, series->size());
            series->push_back({metric, {}});
            index->indexed = series->size();
        }
        (*series)[*slot].points.push_back({step, value, wall});
    }
}

} // namespace sb
