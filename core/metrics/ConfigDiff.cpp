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

// What a run ran, beside its config: its code's commit, branch and state, and its Python, platform,
// host and command line, under "code." and "environment." (a config's own key of that name wins).
void addRecorded(QJsonObject &flat, const RunInfo &run) {
    const auto add = [&flat](const QString &key, const QJsonValue &value) {
        if (!value.isUndefined() && !flat.contains(key))
            flat.insert(key, value);
    };
    for (const QString &field : {u"commit"_s, u"branch"_s, u"dirty"_s})
        add(u"code."_s + field, run.code.value(field));
    for (const QString &field : {u"python"_s, u"platform"_s, u"host"_s})
        add(u"environment."_s + field, run.environment.value(field));
    if (const QJsonValue argv = run.environment.value(u"argv"_s); argv.isArray())
        add(u"environment.argv"_s, argv.toVariant().toStringList().join(u' '));
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
        addRecorded(flat.back(), run);
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
