#include "Config.h"

#include "YamlFile.h"
#include "util/Files.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

#include <map>
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
        if (key == "proxy_jump") {
            if (auto hops = parseProxyJump(config.proxyJump); !hops)
                return fail(u"%1: %2"_s.arg(yamlWhere(file, value, keyPath), hops.error()));
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

// A map of strings, as a node selector is.
Result<QJsonObject> stringMap(const YAML::Node &node, const QString &file, const QString &at) {
    if (!node.IsMap())
        return fail(u"%1 must be a mapping of labels to values"_s.arg(yamlWhere(file, node, at)));
    QJsonObject map;
    for (const auto &entry : node) {
        if (!entry.second.IsScalar())
            return fail(u"%1 must be a single value"_s.arg(yamlWhere(
                file, entry.second, at + u'.' + QString::fromStdString(entry.first.Scalar()))));
        map.insert(QString::fromStdString(entry.first.Scalar()),
                   QString::fromStdString(entry.second.Scalar()));
    }
    return map;
}

Result<QJsonArray> tolerations(const YAML::Node &node, const QString &file, const QString &at) {
    if (!node.IsSequence())
        return fail(u"%1 must be a list"_s.arg(yamlWhere(file, node, at)));
    static const std::set<std::string> known{"key", "operator", "value", "effect",
                                             "tolerationSeconds"};
    static const QStringList effects{u"NoSchedule"_s, u"PreferNoSchedule"_s, u"NoExecute"_s};
    QJsonArray list;
    for (std::size_t i = 0; i < node.size(); ++i) {
        const YAML::Node item = node[i];
        const QString itemAt = u"%1[%2]"_s.arg(at).arg(i);
        if (!item.IsMap())
            return fail(u"%1 must be a mapping (key, operator, value, effect)"_s.arg(
                yamlWhere(file, item, itemAt)));
        for (const auto &entry : item) {
            if (!known.contains(entry.first.Scalar()))
                return fail(u"%1: unknown key (expected key, operator, value, effect, "
                            "tolerationSeconds)"_s.arg(yamlWhere(
                                file, entry.first,
                                itemAt + u'.' + QString::fromStdString(entry.first.Scalar()))));
        }
        const QJsonObject toleration = yamlToJson(item).toObject();
        const QString op = toleration[u"operator"_s].toString(u"Equal"_s);
        if (op != "Equal"_L1 && op != "Exists"_L1)
            return fail(u"%1: the operator is Equal or Exists"_s.arg(
                yamlWhere(file, item["operator"], itemAt + u".operator"_s)));
        if (toleration.contains(u"effect"_s) &&
            !effects.contains(toleration[u"effect"_s].toString()))
            return fail(u"%1: the effect is NoSchedule, PreferNoSchedule or NoExecute"_s.arg(
                yamlWhere(file, item["effect"], itemAt + u".effect"_s)));
        list.append(toleration);
    }
    return list;
}

Result<JobTemplate> parseJobTemplate(const YAML::Node &node, const QString &file, int index) {
    const QString at = u"job_templates[%1]"_s.arg(index);
    if (!node.IsMap())
        return fail(
            u"%1 must be a mapping (name, node_selector, ...)"_s.arg(yamlWhere(file, node, at)));
    JobTemplate config;
    for (const auto &entry : node) {
        const std::string key = entry.first.as<std::string>();
        const QString keyPath = at + u'.' + QString::fromStdString(key);
        const YAML::Node &value = entry.second;
        if (key == "node_selector" || key == "tolerations") {
            if (key == "node_selector") {
                auto selector = stringMap(value, file, keyPath);
                if (!selector)
                    return fail(selector.error());
                config.nodeSelector = *selector;
            } else {
                auto list = tolerations(value, file, keyPath);
                if (!list)
                    return fail(list.error());
                config.tolerations = *list;
            }
            continue;
        }
        static const std::set<std::string> scalars{"name", "image", "priority_class",
                                                   "service_account"};
        if (!scalars.contains(key))
            return fail(u"%1: unknown key (expected one of name, image, node_selector, "
                        "tolerations, priority_class, service_account)"_s.arg(
                            yamlWhere(file, entry.first, keyPath)));
        if (!value.IsScalar())
            return fail(u"%1 must be a single value"_s.arg(yamlWhere(file, value, keyPath)));
        QString *field = key == "name"             ? &config.name
                         : key == "image"          ? &config.image
                         : key == "priority_class" ? &config.priorityClass
                                                   : &config.serviceAccount;
        *field = str(value);
    }
    if (config.name.isEmpty())
        return fail(u"%1: a job template needs a name"_s.arg(yamlWhere(file, node, at)));
    return config;
}

Result<SlurmClusterConfig> parseSlurmCluster(const YAML::Node &node, const QString &file,
                                             int index) {
    const QString at = u"slurm_clusters[%1]"_s.arg(index);
    if (!node.IsMap())
        return fail(
            u"%1 must be a mapping (name, login, partition, ...)"_s.arg(yamlWhere(file, node, at)));
    SlurmClusterConfig config;
    const std::map<std::string, QString *> scalars{{"name", &config.name},
                                                   {"login", &config.login},
                                                   {"partition", &config.partition},
                                                   {"account", &config.account},
                                                   {"qos", &config.qos},
                                                   {"time_limit", &config.timeLimit},
                                                   {"workspace", &config.workspace},
                                                   {"rest_url", &config.restUrl},
                                                   {"rest_user", &config.restUser},
                                                   {"rest_token_file", &config.restTokenFile}};
    for (const auto &entry : node) {
        const std::string key = entry.first.as<std::string>();
        const QString keyPath = at + u'.' + QString::fromStdString(key);
        const YAML::Node &value = entry.second;
        if (!value.IsScalar())
            return fail(u"%1 must be a single value"_s.arg(yamlWhere(file, value, keyPath)));
        if (key == "all_users") {
            config.allUsers = str(value) == "true"_L1;
        } else if (key == "rest_via_login") {
            config.restViaLogin = str(value) == "true"_L1;
        } else if (const auto it = scalars.find(key); it != scalars.end()) {
            *it->second = str(value);
        } else {
            return fail(u"%1: unknown key (expected one of name, login, partition, account, qos, "
                        "time_limit, workspace, all_users, rest_url, rest_via_login, rest_user, "
                        "rest_token_file)"_s.arg(yamlWhere(file, entry.first, keyPath)));
        }
    }
    if (config.name.isEmpty() || config.login.isEmpty())
        return fail(u"%1: a Slurm cluster needs a name and a login node (the name of a node "
                    "entry)"_s.arg(yamlWhere(file, node, at)));
    return config;
}

Result<ObjectStoreConfig> parseObjectStore(const YAML::Node &node, const QString &file) {
    if (!node.IsMap())
        return fail(u"%1 must be a mapping (endpoint, bucket, region, pod_endpoint)"_s.arg(
            yamlWhere(file, node, u"object_store"_s)));
    ObjectStoreConfig store;
    for (const auto &entry : node) {
        const std::string key = entry.first.as<std::string>();
        const QString keyPath = u"object_store."_s + QString::fromStdString(key);
        if (key == "access_key" || key == "secret_key" || key == "secret")
            return fail(u"%1: secrets are never kept in this file; set AWS_ACCESS_KEY_ID and "
                        "AWS_SECRET_ACCESS_KEY"_s.arg(yamlWhere(file, entry.first, keyPath)));
        if (!entry.second.IsScalar())
            return fail(u"%1 must be a single value"_s.arg(yamlWhere(file, entry.second, keyPath)));
        const QString value = str(entry.second);
        if (key == "endpoint" || key == "pod_endpoint") {
            const QUrl url(value, QUrl::StrictMode);
            if (!url.isValid() || (url.scheme() != "https"_L1 && url.scheme() != "http"_L1) ||
                url.host().isEmpty())
                return fail(u"%1: \"%2\" is not an http(s) URL"_s.arg(
                    yamlWhere(file, entry.second, keyPath), value));
            (key == "endpoint" ? store.endpoint : store.podEndpoint) = url;
        } else if (key == "bucket") {
            store.bucket = value;
        } else if (key == "region") {
            store.region = value;
        } else {
            return fail(u"%1: unknown key (expected endpoint, bucket, region, pod_endpoint)"_s.arg(
                yamlWhere(file, entry.first, keyPath)));
        }
    }
    if (!store.configured())
        return fail(u"%1: an object store needs an endpoint and a bucket"_s.arg(
            yamlWhere(file, node, u"object_store"_s)));
    store.accessKey = qEnvironmentVariable("AWS_ACCESS_KEY_ID");
    store.secretKey = qEnvironmentVariable("AWS_SECRET_ACCESS_KEY");
    return store;
}

// A top-level list of named items; a second item of the same name is refused. With `skipped`, a
// bad item is noted there and the others still load; without, it fails the whole list.
template <typename Item, typename Parse>
Status parseList(const YAML::Node &root, const char *section, const QString &file, Parse parse,
                 QList<Item> &out, QStringList *skipped = nullptr) {
    const YAML::Node list = root[section];
    if (!list)
        return success();
    const QString name = QString::fromLatin1(section);
    if (!list.IsSequence())
        return fail(u"%1 must be a list"_s.arg(yamlWhere(file, list, name)));
    QStringList names;
    for (std::size_t i = 0; i < list.size(); ++i) {
        auto item = parse(list[i], file, static_cast<int>(i));
        QString problem = item ? QString() : item.error();
        if (item && names.contains(item->name))
            problem = u"%1: a second entry named \"%2\""_s.arg(
                yamlWhere(file, list[i], u"%1[%2].name"_s.arg(name).arg(i)), item->name);
        if (!problem.isEmpty()) {
            if (skipped == nullptr)
                return fail(problem);
            skipped->append(problem);
            continue;
        }
        names << item->name;
        out << std::move(item).value();
    }
    return success();
}

} // namespace

Result<QList<JumpHost>> parseProxyJump(const QString &spec) {
    static const QRegularExpression hop(
        uR"(^(?:([A-Za-z0-9_][A-Za-z0-9._-]*)@)?([A-Za-z0-9][A-Za-z0-9.-]*|\[[0-9A-Fa-f:.]+\])(?::([0-9]{1,5}))?$)"_s);
    QList<JumpHost> hops;
    for (const QString &part : spec.split(u',')) {
        const auto match = hop.match(part);
        const int port = match.captured(3).isEmpty() ? 22 : match.captured(3).toInt();
        if (!match.hasMatch() || port < 1 || port > 65535)
            return fail(
                u"\"%1\" is not a jump host ([user@]host[:port], hops separated by commas)"_s.arg(
                    part),
                ErrorCode::InvalidInput);
        QString host = match.captured(2);
        if (host.startsWith(u'['))
            host = host.mid(1, host.size() - 2);
        hops.append({match.captured(1), host, port});
    }
    return hops;
}

QString Config::defaultPath() {
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
           u"/signalbox/signalbox.yaml"_s;
}

Result<Config> Config::load(const QString &path) {
    if (!QFileInfo::exists(path))
        return Config{}; // nothing configured yet
    auto bytes = readRegularFile(path, kMaxConfigBytes);
    if (!bytes)
        return bytes.failure();
    return parse(*bytes, path);
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
    if (Status nodes =
            parseList(root, "nodes", fileName, parseNode, config.nodes, &config.problems);
        !nodes)
        return fail(nodes.error());
    if (const YAML::Node store = root["object_store"]) {
        auto objectStore = parseObjectStore(store, fileName);
        if (!objectStore)
            return fail(objectStore.error());
        config.objectStore = *objectStore;
    }
    if (Status templates =
            parseList(root, "job_templates", fileName, parseJobTemplate, config.jobTemplates);
        !templates)
        return fail(templates.error());
    if (Status slurm = parseList(root, "slurm_clusters", fileName, parseSlurmCluster,
                                 config.slurmClusters, &config.problems);
        !slurm)
        return fail(slurm.error());
    return config;
}

Status Config::save(const QString &path) const {
    YAML::Node root;
    QFile existing(path);
    if (existing.open(QIODevice::ReadOnly)) { // keep the sections other features own
        auto parsed = parseYaml(existing.read(kMaxConfigBytes), path);
        if (!parsed)
            return fail(u"%1; not overwriting it"_s.arg(parsed.error()));
        root = *parsed;
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
    return writeFileAtomically(path, QByteArray(out.c_str()) + '\n');
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
