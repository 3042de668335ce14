#include "KubeConfig.h"

#include "config/Config.h"
#include "config/YamlFile.h"
#include "util/Files.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr qint64 kMaxPem = 1 << 20; // certificates and keys are a few KiB; a device is refused

struct Entry {
    YAML::Node node; // the entry's inner mapping (cluster:, user: or context:)
    QString file;
};

// Every kubeconfig file read, merged: the first file to name an entry wins.
struct Merged {
    std::map<QString, Entry> contexts;
    std::map<QString, Entry> clusters;
    std::map<QString, Entry> users;
    QString currentContext;
};

QString scalar(const YAML::Node &map, const char *key) {
    const YAML::Node value = map[key];
    return value && value.IsScalar() ? QString::fromStdString(value.Scalar()) : QString();
}

Status collect(const YAML::Node &root, const char *section, const char *inner, const QString &file,
               std::map<QString, Entry> *into) {
    const YAML::Node list = root[section];
    if (!list || list.IsNull())
        return success();
    if (!list.IsSequence())
        return fail(
            u"%1 must be a list"_s.arg(yamlWhere(file, list, QString::fromLatin1(section))));
    for (std::size_t i = 0; i < list.size(); ++i) {
        const YAML::Node item = list[i];
        const QString at = u"%1[%2]"_s.arg(QString::fromLatin1(section)).arg(i);
        const QString name = item.IsMap() ? scalar(item, "name") : QString();
        if (name.isEmpty())
            return fail(u"%1 needs a name"_s.arg(yamlWhere(file, item, at)));
        const YAML::Node body = item[inner];
        if (!body || !body.IsMap())
            return fail(u"%1.%2 must be a mapping"_s.arg(yamlWhere(file, item, at),
                                                         QString::fromLatin1(inner)));
        into->try_emplace(name, Entry{body, file});
    }
    return success();
}

Status mergeFile(const QByteArray &yaml, const QString &file, Merged *merged) {
    auto parsed = parseYaml(yaml, file);
    if (!parsed)
        return fail(parsed.error());
    const YAML::Node &root = *parsed;
    if (root.IsNull())
        return success();
    if (!root.IsMap())
        return fail(u"%1:1: a kubeconfig is a mapping (clusters, users, contexts)"_s.arg(file));
    for (const auto &[section, inner, map] : {std::tuple{"contexts", "context", &merged->contexts},
                                              std::tuple{"clusters", "cluster", &merged->clusters},
                                              std::tuple{"users", "user", &merged->users}}) {
        if (Status ok = collect(root, section, inner, file, map); !ok)
            return ok;
    }
    if (merged->currentContext.isEmpty())
        merged->currentContext = scalar(root, "current-context");
    return success();
}

// A file reference, or inline base64 data, of a certificate, key or CA.
Result<QByteArray> material(const Entry &entry, const char *fileKey, const char *dataKey) {
    const QString data = scalar(entry.node, dataKey);
    if (!data.isEmpty()) {
        const auto decoded = QByteArray::fromBase64Encoding(
            data.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
        if (!decoded)
            return fail(u"%1 is not base64"_s.arg(
                yamlWhere(entry.file, entry.node[dataKey], QString::fromLatin1(dataKey))));
        return *decoded;
    }
    const QString path = scalar(entry.node, fileKey);
    if (path.isEmpty())
        return QByteArray();
    const QString absolute =
        QFileInfo(entry.file).dir().absoluteFilePath(QDir::fromNativeSeparators(path));
    auto bytes = readRegularFile(absolute, kMaxPem);
    const QString where = yamlWhere(entry.file, entry.node[fileKey], QString::fromLatin1(fileKey));
    if (!bytes && bytes.errorCode() == ErrorCode::InvalidInput)
        return fail(
            u"%1: %2 is not a certificate or key file (%3)"_s.arg(where, absolute, bytes.error()));
    if (!bytes)
        return fail(u"%1: %2"_s.arg(where, bytes.error()));
    return bytes;
}

Result<ExecPlugin> execPlugin(const YAML::Node &node, const QString &file) {
    ExecPlugin exec;
    exec.apiVersion = scalar(node, "apiVersion");
    exec.command = scalar(node, "command");
    exec.installHint = scalar(node, "installHint");
    exec.baseDir = QFileInfo(file).absolutePath();
    if (exec.command.isEmpty())
        return fail(u"%1 needs a command"_s.arg(yamlWhere(file, node, u"exec"_s)));
    if (exec.apiVersion != "client.authentication.k8s.io/v1"_L1 &&
        exec.apiVersion != "client.authentication.k8s.io/v1beta1"_L1)
        return fail(
            u"%1: \"%2\" is not supported (client.authentication.k8s.io/v1 or v1beta1)"_s.arg(
                yamlWhere(file, node, u"exec.apiVersion"_s), exec.apiVersion));
    if (const YAML::Node args = node["args"]; args && args.IsSequence()) {
        for (const auto &arg : args)
            exec.args << QString::fromStdString(arg.Scalar());
    }
    if (const YAML::Node env = node["env"]; env && env.IsSequence()) {
        for (const auto &pair : env)
            exec.env.insert(scalar(pair, "name"), scalar(pair, "value"));
    }
    if (const YAML::Node info = node["provideClusterInfo"]; info && info.IsScalar())
        exec.provideClusterInfo = info.Scalar() == "true";
    return exec;
}

Result<KubeContext> resolve(const QString &name, const Entry &context, const Merged &merged) {
    KubeContext out;
    out.name = name;
    if (const QString ns = scalar(context.node, "namespace"); !ns.isEmpty())
        out.ns = ns;
    const QString clusterName = scalar(context.node, "cluster");
    const auto cluster = merged.clusters.find(clusterName);
    if (cluster == merged.clusters.end())
        return fail(u"%1: no cluster named \"%2\""_s.arg(
            yamlWhere(context.file, context.node, u"contexts[%1].cluster"_s.arg(name)),
            clusterName));
    const Entry &c = cluster->second;
    out.server = scalar(c.node, "server");
    if (!out.server.startsWith("https://"_L1))
        return fail(
            u"%1: \"%2\" is not an https:// address (Signalbox talks to API servers over "
            "TLS only)"_s.arg(
                yamlWhere(c.file, c.node["server"] ? c.node["server"] : c.node, u"server"_s),
                out.server));
    if (scalar(c.node, "insecure-skip-tls-verify") == "true"_L1)
        return fail(
            u"%1: Signalbox always verifies the API server's certificate; give the "
            "cluster's certificate-authority instead"_s.arg(yamlWhere(
                c.file, c.node["insecure-skip-tls-verify"], u"insecure-skip-tls-verify"_s)));
    auto ca = material(c, "certificate-authority", "certificate-authority-data");
    if (!ca)
        return fail(ca.error());
    out.caPem = *ca;
    out.proxyUrl = scalar(c.node, "proxy-url");

    const QString userName = scalar(context.node, "user");
    const auto user = merged.users.find(userName);
    if (user == merged.users.end())
        return out; // anonymous
    const Entry &u = user->second;
    auto cert = material(u, "client-certificate", "client-certificate-data");
    auto key = material(u, "client-key", "client-key-data");
    if (!cert)
        return fail(cert.error());
    if (!key)
        return fail(key.error());
    if (cert->isEmpty() != key->isEmpty())
        return fail(u"%1: a client certificate needs its key, and a key its certificate"_s.arg(
            yamlWhere(u.file, u.node, u"users[%1]"_s.arg(userName))));
    out.clientCertPem = *cert;
    out.clientKeyPem = *key;
    out.token = scalar(u.node, "token");
    if (const QString tokenFile = scalar(u.node, "tokenFile"); !tokenFile.isEmpty())
        out.tokenFile = QFileInfo(u.file).dir().absoluteFilePath(tokenFile);
    if (const YAML::Node exec = u.node["exec"]; exec && exec.IsMap()) {
        auto plugin = execPlugin(exec, u.file);
        if (!plugin)
            return fail(plugin.error());
        out.exec = std::move(plugin).value();
    }
    if (u.node["auth-provider"])
        return fail(u"%1: auth-provider plugins were removed from Kubernetes; use an exec "
                    "credential plugin (for example kubelogin or gke-gcloud-auth-plugin)"_s.arg(
                        yamlWhere(u.file, u.node["auth-provider"], u"auth-provider"_s)));
    return out;
}

KubeConfig resolveAll(const Merged &merged) {
    KubeConfig config;
    config.currentContext = merged.currentContext;
    for (const auto &[name, entry] : merged.contexts)
        config.contexts.emplace(name, resolve(name, entry, merged));
    return config;
}

} // namespace

QStringList KubeConfig::defaultPaths() {
    const QString env = qEnvironmentVariable("KUBECONFIG");
    if (!env.isEmpty())
        return env.split(QDir::listSeparator(), Qt::SkipEmptyParts);
    return {QDir::homePath() + u"/.kube/config"_s};
}

Result<KubeConfig> KubeConfig::load(const QStringList &paths) {
    Merged merged;
    for (const QString &path : paths) {
        if (!QFileInfo::exists(path))
            continue; // kubectl skips missing files too
        auto bytes = readRegularFile(path, kMaxConfigBytes);
        if (!bytes)
            return bytes.failure();
        if (Status ok = mergeFile(*bytes, QFileInfo(path).absoluteFilePath(), &merged); !ok)
            return fail(ok.error());
    }
    return resolveAll(merged);
}

Result<KubeConfig> KubeConfig::parse(const QByteArray &yaml, const QString &fileName) {
    Merged merged;
    if (Status ok = mergeFile(yaml, fileName, &merged); !ok)
        return fail(ok.error());
    return resolveAll(merged);
}

Result<KubeContext> KubeConfig::context(const QString &name) const {
    const QString wanted = name.isEmpty() ? currentContext : name;
    if (wanted.isEmpty())
        return fail(u"the kubeconfig names no current-context; choose a context"_s);
    const auto it = contexts.find(wanted);
    if (it == contexts.end())
        return fail(u"the kubeconfig has no context named \"%1\""_s.arg(wanted));
    return it->second;
}

} // namespace sb
