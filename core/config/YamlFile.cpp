#include "YamlFile.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

#include <cmath>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// What a document may expand to through anchors and aliases (an alias is a pointer in the parsed
// tree, but every reader walks it as a copy): far above any real config, sweep or manifest.
constexpr qint64 kMaxExpandedNodes = 200'000;
constexpr qint64 kMaxExpandedBytes = 64 << 20;
constexpr int kMaxDepth = 256;

// Walks the document as readers will see it; an error names the first node past a limit, or a
// key that is not a plain value (which readers take as a string).
class ExpansionCheck {
public:
    explicit ExpansionCheck(const QString &fileName)
        : m_fileName(fileName) {}

    Status walk(const YAML::Node &node, int depth) {
        if (++m_nodes > kMaxExpandedNodes || depth > kMaxDepth)
            return refuse(node, depth > kMaxDepth
                                    ? u"nested deeper than %1 levels"_s.arg(kMaxDepth)
                                    : u"the document expands to more than %1 values through "
                                      "aliases"_s.arg(kMaxExpandedNodes));
        switch (node.Type()) {
        case YAML::NodeType::Scalar:
            m_bytes += static_cast<qint64>(node.Scalar().size());
            if (m_bytes > kMaxExpandedBytes)
                return refuse(node,
                              u"the document expands to more than %1 MiB through aliases"_s.arg(
                                  kMaxExpandedBytes >> 20));
            break;
        case YAML::NodeType::Sequence:
            for (const YAML::Node &item : node) {
                if (Status checked = walk(item, depth + 1); !checked)
                    return checked;
            }
            break;
        case YAML::NodeType::Map:
            for (const auto &entry : node) {
                if (!entry.first.IsScalar())
                    return refuse(entry.first,
                                  u"a key must be a plain value, not a list or mapping"_s);
                if (Status checked = walk(entry.first, depth + 1); !checked)
                    return checked;
                if (Status checked = walk(entry.second, depth + 1); !checked)
                    return checked;
            }
            break;
        case YAML::NodeType::Null:
        case YAML::NodeType::Undefined:
            break;
        }
        return success();
    }

private:
    Status refuse(const YAML::Node &node, const QString &why) const {
        return fail(u"%1:%2: %3"_s.arg(m_fileName, QString::number(node.Mark().line + 1), why),
                    ErrorCode::InvalidInput);
    }
    const QString &m_fileName;
    qint64 m_nodes = 0;
    qint64 m_bytes = 0;
};

} // namespace

namespace {

// Parses with `load`; no input may throw out of it, whatever yaml-cpp or the allocator raise.
template <typename Load>
auto loadYaml(const QString &fileName, Load load) -> Result<decltype(load())> {
    try {
        return load();
    } catch (const YAML::Exception &e) {
        return fail(u"%1:%2: %3"_s.arg(fileName, QString::number(e.mark.line + 1),
                                       QString::fromStdString(e.msg)),
                    ErrorCode::InvalidInput);
    } catch (const std::exception &e) {
        return fail(u"%1: cannot read: %2"_s.arg(fileName, QString::fromLocal8Bit(e.what())));
    }
}

} // namespace

Result<std::vector<YAML::Node>> parseYamlDocuments(const QByteArray &yaml,
                                                   const QString &fileName) {
    // Split at "---" lines and Load each part: yaml-cpp's LoadAll can loop on some broken input,
    // growing without bound.
    std::vector<YAML::Node> documents;
    ExpansionCheck check(fileName); // one budget for all the documents of a file
    const QList<QByteArray> lines = yaml.split('\n');
    qsizetype first = 0;
    for (qsizetype i = 0; i <= lines.size(); ++i) {
        const bool marker = i < lines.size() && lines[i].startsWith("---") &&
                            (lines[i].size() == 3 || lines[i][3] == ' ' || lines[i][3] == '\r' ||
                             lines[i][3] == '\t');
        if (!marker && i < lines.size())
            continue;
        QByteArray part; // blank lines in front keep yaml-cpp's line numbers those of the file
        for (qsizetype j = 0; j < first; ++j)
            part += '\n';
        for (qsizetype j = first; j < i; ++j) // "--- {a: 1}": what follows a marker is content
            part += (j == first && first > 0 ? lines[j].mid(3) : lines[j]) +
                    (j + 1 < i ? QByteArray("\n") : QByteArray());
        first = i;
        if (part.trimmed().isEmpty())
            continue;
        auto document = loadYaml(fileName, [&] { return YAML::Load(part.toStdString()); });
        if (!document)
            return document.failure();
        if (Status checked = check.walk(*document, 0); !checked)
            return checked.failure();
        documents.push_back(*document);
    }
    return documents;
}

Result<YAML::Node> parseYaml(const QByteArray &yaml, const QString &fileName) {
    // The first document, as yaml-cpp's Load reads it: what follows a second "---" is not parsed.
    auto document = loadYaml(fileName, [&] { return YAML::Load(yaml.toStdString()); });
    if (!document)
        return document;
    ExpansionCheck check(fileName);
    if (Status checked = check.walk(*document, 0); !checked)
        return checked.failure();
    return document;
}

QString yamlWhere(const QString &fileName, const YAML::Node &node, const QString &key) {
    if (!node) // a key that is not there has no line of its own
        return u"%1: %2"_s.arg(fileName, key);
    return u"%1:%2: %3"_s.arg(fileName, QString::number(node.Mark().line + 1), key);
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

Result<QList<QJsonObject>> parseYamlObjects(const QByteArray &yaml, const QString &fileName) {
    auto documents = parseYamlDocuments(yaml, fileName);
    if (!documents)
        return documents.failure();
    QList<QJsonObject> objects;
    for (const YAML::Node &document : *documents) {
        if (document.IsNull())
            continue;
        if (!document.IsMap())
            return fail(u"%1:%2: each document must be a mapping (an object with apiVersion, kind, "
                        "metadata, spec)"_s.arg(fileName)
                            .arg(document.Mark().line + 1),
                        ErrorCode::InvalidInput);
        objects << yamlToJson(document).toObject();
    }
    return objects;
}

} // namespace sb
