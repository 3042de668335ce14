#include "ConfigDiff.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

void flattenInto(QJsonObject &flat, const QJsonObject &object, const QString &prefix) {
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString key = prefix.isEmpty() ? it.key() : prefix + u'.' + it.key();
        if (it.value().isObject() && !it.value().toObject().isEmpty())
            flattenInto(flat, it.value().toObject(), key);
        else
            flat.insert(key, it.value());
    }
}

} // namespace

QJsonObject flattenConfig(const QJsonObject &config) {
    QJsonObject flat;
    flattenInto(flat, config, {});
    return flat;
}

QString configValueText(const QJsonValue &value) {
    switch (value.type()) {
    case QJsonValue::String:
        return value.toString();
    case QJsonValue::Double:
        return QString::number(value.toDouble(), 'g', 10);
    case QJsonValue::Bool:
        return value.toBool() ? u"true"_s : u"false"_s;
    case QJsonValue::Null:
        return u"null"_s;
    case QJsonValue::Array:
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    case QJsonValue::Object:
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    case QJsonValue::Undefined:
        break;
    }
    return {};
}

ConfigDiff diffConfigs(const QList<RunInfo> &runs) {
    ConfigDiff diff;
    QList<QJsonObject> flat;
    QSet<QString> keys;
    for (const RunInfo &run : runs) {
        diff.runs << run.name;
        flat << flattenConfig(run.config);
        for (const QString &key : flat.back().keys())
            keys.insert(key);
    }
    QStringList sorted(keys.begin(), keys.end());
    sorted.sort();
    for (const QString &key : std::as_const(sorted)) {
        QStringList values;
        bool same = true;
        for (const QJsonObject &config : std::as_const(flat)) {
            same = same && config.contains(key) && config.value(key) == flat.front().value(key);
            values << (config.contains(key) ? configValueText(config.value(key)) : QString());
        }
        if (same) {
            ++diff.sameKeys;
            continue;
        }
        diff.keys << key;
        diff.values.insert(key, values);
    }
    return diff;
}

} // namespace sb
