#include "TrialCommand.h"

#include <QJsonDocument>

#include <charconv>
#include <cmath>

namespace sb {

using namespace Qt::StringLiterals;

QString trialParametersFile(const QString &run) {
    return u"/tmp/signalbox-params-%1.json"_s.arg(run);
}

QString argumentValue(const QJsonValue &value) {
    switch (value.type()) {
    case QJsonValue::Bool:
        return value.toBool() ? u"True"_s : u"False"_s;
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        return u"None"_s;
    case QJsonValue::String:
        return value.toString();
    case QJsonValue::Double: {
        const double number = value.toDouble();
        if (number == std::trunc(number) && std::abs(number) < 1e15)
            return QString::number(static_cast<qint64>(number));
        char text[32];
        const auto end = std::to_chars(text, text + sizeof text, number).ptr;
        return QString::fromLatin1(text, end - text);
    }
    case QJsonValue::Array:
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    case QJsonValue::Object:
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    }
    return {};
}

QStringList trialCommand(const SweepSpec &spec, const QJsonObject &parameters,
                         const QString &jsonFile) {
    const QString json =
        QString::fromUtf8(QJsonDocument(parameters).toJson(QJsonDocument::Compact));
    QStringList argv;
    for (const QString &part : spec.command) {
        if (part == "${args}"_L1 || part == "${args_no_hyphens}"_L1) {
            const QString prefix = part == "${args}"_L1 ? u"--"_s : QString();
            for (auto it = parameters.begin(); it != parameters.end(); ++it)
                argv << prefix + it.key() + u'=' + argumentValue(it.value());
            continue;
        }
        QString expanded = part;
        expanded.replace("${env}"_L1, "/usr/bin/env"_L1)
            .replace("${interpreter}"_L1, spec.interpreter)
            .replace("${program}"_L1, spec.program)
            .replace("${args_json_file}"_L1, jsonFile)
            .replace("${args_json}"_L1, json);
        argv << expanded;
    }
    return argv;
}

} // namespace sb
