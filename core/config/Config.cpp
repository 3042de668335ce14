#include "Config.h"

#include "YamlFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

#include <set>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

QString str(const YAML::Node &node) {
    return QString::fromStdString(node.as<std::string>());
}

Result<NodeConfig> parseNode(const YAML::Node &node, const QString &file, int index) {
    const QString at = u"nodes[%1]"_s.arg(index);
    if (!node.IsMap())
        return fail(u"%1 must be a mapping (name, host, ...)"_s.arg(yamlWhere(file, node, at)));
    NodeConfig config;
    static const std::set<std::string> known{"name",          "host",       "port",    "user",
                                             "identity_file", "proxy_jump", "interval"};
    for (const auto &entry : node) {
        const std::string key = entry.first.as<std::string>();
        const QString keyPath = at + u'.' + QString::fromStdString(key);
        if (key == "password" || key == "passphrase")
            return fail(
                u"%1: secrets are never kept in this file; use ssh-agent or a key "
                "file (Signalbox asks for a passphrase and can keep it in the keychain)"_s.arg(
                    yamlWhere(file, entry.first, keyPath)));
        if (!known.contains(key))
            return fail(u"%1: unknown key (expected one of name, host, port, user, "
                        "identity_file, proxy_jump, interval)"_s.arg(
                            yamlWhere(file, entry.first, keyPath)));
        const YAML::Node &value = entry.second;
        if (!value.IsScalar())
            return fail(u"%1 must be a single value"_s.arg(yamlWhere(file, value, keyPath)));
        try {
            if (key == "name")
                config.name = str(value);
            else if (key == "host")
                config.host = str(value);
            else if (key == "user")
                config.user = str(value);
            else if (key == "identity_file")
                config.identityFile = str(value);
            else if (key == "proxy_jump")
                config.proxyJump = str(value);
            else if (key == "port")
                config.port = value.as<int>();
            else if (key == "interval")
                config.intervalSeconds = value.as<double>();
        } catch (const YAML::Exception &) {
            return fail(
                u"%1: \"%2\" is not a number"_s.arg(yamlWhere(file, value, keyPath), str(value)));
        }
        if (key == "port" && (config.port < 1 || config.port > 65535))
            return fail(u"%1: a port is 1 to 65535"_s.arg(yamlWhere(file, value, keyPath)));
        if (key == "interval" && !(config.intervalSeconds >= 0.2 && config.intervalSeconds <= 3600))
            return fail(
                u"%1: the interval is 0.2 to 3600 seconds"_s.arg(yamlWhere(file, value, keyPath)));
    }
    if (config.host.isEmpty())
        return fail(u"%1: a node needs a host"_s.arg(yamlWhere(file, node, at)));
    if (config.name.isEmpty())
        config.name = config.host;
    return config;
}

} // namespace

QString Config::defaultPath() {
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
           u"/signalbox/signalbox.yaml"_s;
}

Result<Config> Config::load(const QString &path) {
    QFile file(path);
    if (!file.exists())
        return Config{}; // nothing configured yet
    if (!file.open(QIODevice::ReadOnly))
        return fail(u"cannot read %1: %2"_s.arg(path, file.errorString()));
    return parse(file.readAll(), path);
}

Result<Config> Config::parse(const QByteArray &yaml, const QString &fileName) {
    auto parsed = parseYaml(yaml, fileName);
    if (!parsed)
        return fail(parsed.error());
    const YAML::Node &root = *parsed;
    Config config;
    if (root.IsNull())
        return config;
    if (!root.IsMap())
        return fail(u"%1:1: the file must be a mapping of sections (nodes: ...)"_s.arg(fileName));
    const YAML::Node nodes = root["nodes"];
    if (!nodes)
        return config;
    if (!nodes.IsSequence())
        return fail(u"%1 must be a list"_s.arg(yamlWhere(fileName, nodes, u"nodes"_s)));
    QStringList names;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        auto node = parseNode(nodes[i], fileName, static_cast<int>(i));
        if (!node)
            return fail(node.error());
        if (names.contains(node->name))
            return fail(u"%1: a second node named \"%2\""_s.arg(
                yamlWhere(fileName, nodes[i], u"nodes[%1].name"_s.arg(i)), node->name));
        names << node->name;
        config.nodes << std::move(node).value();
    }
    return config;
}

Status Config::save(const QString &path) const {
    YAML::Node root;
    QFile existing(path);
    if (existing.open(QIODevice::ReadOnly)) {
        try { // keep the sections other features own
            root = YAML::Load(existing.readAll().toStdString());
        } catch (const YAML::Exception &) {
            return fail(u"%1 does not parse; not overwriting it"_s.arg(path));
        }
    }
    if (!root.IsMap())
        root = YAML::Node(YAML::NodeType::Map);
    YAML::Node list(YAML::NodeType::Sequence);
    for (const NodeConfig &node : nodes) {
        YAML::Node n;
        n["name"] = node.name.toStdString();
        n["host"] = node.host.toStdString();
        if (node.port != 22)
            n["port"] = node.port;
        if (!node.user.isEmpty())
            n["user"] = node.user.toStdString();
        if (!node.identityFile.isEmpty())
            n["identity_file"] = node.identityFile.toStdString();
        if (!node.proxyJump.isEmpty())
            n["proxy_jump"] = node.proxyJump.toStdString();
        if (node.intervalSeconds != 1.0)
            n["interval"] = node.intervalSeconds;
        list.push_back(n);
    }
    root["nodes"] = list;
    YAML::Emitter out;
    out << root;
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(u"cannot write %1: %2"_s.arg(path, file.errorString()));
    file.write(out.c_str());
    file.write("\n");
    if (!file.commit())
        return fail(u"cannot write %1: %2"_s.arg(path, file.errorString()));
    return success();
}

QList<NodeConfig> importSshConfig(const QByteArray &text) {
    struct Block {
        QStringList patterns;
        QList<std::pair<QString, QString>> options; // lower-case keyword, value
    };
    QList<Block> blocks{{{u"*"_s}, {}}}; // options before the first Host apply to all
    for (const QByteArray &raw : text.split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.isEmpty() || line.startsWith(u'#'))
            continue;
        // "Keyword value" or "Keyword=value"
        static const QRegularExpression split(u"^(\\S+?)(?:\\s*=\\s*|\\s+)(.*)$"_s);
        const auto m = split.match(line);
        if (!m.hasMatch())
            continue;
        const QString keyword = m.captured(1).toLower();
        QString value = m.captured(2).trimmed();
        if (value.size() >= 2 && value.startsWith(u'"') && value.endsWith(u'"'))
            value = value.mid(1, value.size() - 2);
        if (keyword == u"host"_s)
            blocks << Block{value.split(QRegularExpression(u"\\s+"_s), Qt::SkipEmptyParts), {}};
        else if (keyword == u"match"_s)
            blocks << Block{{}, {}}; // Match conditions are not evaluated: skip the block
        else
            blocks.last().options << std::pair{keyword, value};
    }
    auto matches = [](const QStringList &patterns, const QString &alias) {
        bool matched = false;
        for (const QString &pattern : patterns) {
            const bool negated = pattern.startsWith(u'!');
            const QRegularExpression re(QRegularExpression::wildcardToRegularExpression(
                negated ? pattern.mid(1) : pattern));
            if (re.match(alias).hasMatch()) {
                if (negated)
                    return false;
                matched = true;
            }
        }
        return matched;
    };
    QList<NodeConfig> nodes;
    QStringList seen;
    for (const Block &block : std::as_const(blocks)) {
        for (const QString &alias : block.patterns) {
            if (alias.contains(u'*') || alias.contains(u'?') || alias.startsWith(u'!') ||
                seen.contains(alias))
                continue;
            seen << alias;
            NodeConfig node;
            node.name = alias;
            QStringList set;
            for (const Block &b : std::as_const(blocks)) {
                if (!matches(b.patterns, alias))
                    continue;
                for (const auto &[keyword, value] : b.options) {
                    if (set.contains(keyword))
                        continue; // ssh: the first obtained value wins
                    set << keyword;
                    if (keyword == u"hostname"_s)
                        node.host = QString(value).replace(u"%h"_s, alias);
                    else if (keyword == u"user"_s)
                        node.user = value;
                    else if (keyword == u"port"_s)
                        node.port = value.toInt() > 0 ? value.toInt() : 22;
                    else if (keyword == u"identityfile"_s)
                        node.identityFile = value;
                    else if (keyword == u"proxyjump"_s && value != u"none"_s)
                        node.proxyJump = value;
                }
            }
            if (node.host.isEmpty())
                node.host = alias;
            nodes << node;
        }
    }
    return nodes;
}

} // namespace sb
