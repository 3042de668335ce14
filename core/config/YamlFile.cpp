#include "YamlFile.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

#include <cmath>

namespace sb {

using namespace Qt::StringLiterals;

Result<YAML::Node> parseYaml(const QByteArray &yaml, const QString &fileName) {
    try {
        return YAML::Load(yaml.toStdString());
    } catch (const YAML::Exception &e) {
        return fail(
            u"%1:%2: %3"_s.arg(fileName).arg(e.mark.line + 1).arg(QString::fromStdString(e.msg)));
    }
}

QString yamlWhere(const QString &fileName, const YAML::Node &node, const QString &key) {
    if (!node) // a key that is not there has no line of its own
        return u"%1: %2"_s.arg(fileName, key);
    return u"%1:%2: %3"_s.arg(fileName).arg(node.Mark().line + 1).arg(key);
}

namespace {

// A plain scalar as YAML 1.2's core schema resolves it.
QJsonValue resolvePlain(const QString &text) {
    static const QRegularExpression null(u"^(~|null|Null|NULL|)$"_s);
    static const QRegularExpression boolean(u"^(true|True|TRUE|false|False|FALSE)$"_s);
    static const QRegularExpression integer(u"^[-+]?[0-9]+$"_s);
    static const QRegularExpression real(
        u"^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$"_s);
    if (null.match(text).hasMatch())
        return QJsonValue::Null;
    if (boolean.match(text).hasMatch())
        return text.at(0).toLower() == u't';
    if (integer.match(text).hasMatch() || real.match(text).hasMatch()) {
        bool ok = false;
        const double number = text.toDouble(&ok);
        if (ok && std::isfinite(number))
            return number;
    }
    return text;
}

void emitYaml(YAML::Emitter &out, const QJsonValue &value) {
    switch (value.type()) {
    case QJsonValue::Object: {
        const QJsonObject object = value.toObject();
        out << YAML::BeginMap;
        for (auto it = object.begin(); it != object.end(); ++it) {
            out << YAML::Key;
            emitYaml(out, it.key());
            out << YAML::Value;
            emitYaml(out, it.value());
        }
        out << YAML::EndMap;
        break;
    }
    case QJsonValue::Array:
        out << YAML::BeginSeq;
        for (const QJsonValue item : value.toArray())
            emitYaml(out, item);
        out << YAML::EndSeq;
        break;
    case QJsonValue::Bool:
        out << (value.toBool() ? "true" : "false");
        break;
    case QJsonValue::Double: {
        const double number = value.toDouble();
        if (number == std::trunc(number) && std::abs(number) < 1e15)
            out << static_cast<long long>(number);
        else
            out << number;
        break;
    }
    case QJsonValue::String: {
        const QString text = value.toString();
        if (text.contains(u'\n'))
            out << YAML::Literal;
        else if (resolvePlain(text) != QJsonValue(text))
            out << YAML::DoubleQuoted;
        out << text.toStdString();
        break;
    }
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        out << YAML::Null;
        break;
    }
}

} // namespace

QJsonValue yamlToJson(const YAML::Node &node) {
    switch (node.Type()) {
    case YAML::NodeType::Map: {
        QJsonObject object;
        for (const auto &entry : node)
            object.insert(QString::fromStdString(entry.first.Scalar()), yamlToJson(entry.second));
        return object;
    }
    case YAML::NodeType::Sequence: {
        QJsonArray array;
        for (const auto &item : node)
            array.append(yamlToJson(item));
        return array;
    }
    case YAML::NodeType::Scalar: {
        const QString text = QString::fromStdString(node.Scalar());
        return node.Tag() == "?" ? resolvePlain(text) : QJsonValue(text); // "!": quoted
    }
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
        break;
    }
    return QJsonValue::Null;
}

QByteArray jsonToYaml(const QJsonValue &value) {
    YAML::Emitter out;
    out.SetIndent(2);
    out.SetSeqFormat(YAML::Block);
    emitYaml(out, value);
    return QByteArray(out.c_str()) + '\n';
}

} // namespace sb
