#pragma once

#include "util/Result.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <map>
#include <optional>

namespace sb {

// A client-go credential plugin (users[].user.exec): a command that prints an ExecCredential.
struct ExecPlugin {
    QString apiVersion; // client.authentication.k8s.io/v1 or v1beta1
    QString command;
    QStringList args;
    QMap<QString, QString> env;
    QString installHint;
    bool provideClusterInfo = false;
    QString baseDir; // a relative command is found from the kubeconfig's directory
};

// One kubeconfig context with its cluster and user resolved: everything needed to talk to an
// API server. File references are read in, so what it holds is what a request uses.
struct KubeContext {
    QString name;
    QString server; // https://host:port
    QString ns = QStringLiteral("default");
    QByteArray caPem; // empty: the system's trusted authorities
    QByteArray clientCertPem;
    QByteArray clientKeyPem;
    QString token;
    QString tokenFile; // read again for every credential: service-account tokens rotate
    std::optional<ExecPlugin> exec;
    QString proxyUrl; // empty: the environment's https_proxy / no_proxy, as libcurl reads them
};

// The merged kubeconfig files ($KUBECONFIG, else ~/.kube/config), as kubectl merges them: the
// first file to name a context, cluster or user wins. Each context is resolved on its own, so
// one broken context leaves the others usable.
struct KubeConfig {
    QString currentContext;
    std::map<QString, Result<KubeContext>> contexts;

    static QStringList defaultPaths();
    // Errors name the file, line and key.
    static Result<KubeConfig> load(const QStringList &paths = defaultPaths());
    static Result<KubeConfig> parse(const QByteArray &yaml, const QString &fileName);
    // The named context; an empty name means the current context.
    Result<KubeContext> context(const QString &name = {}) const;
};

} // namespace sb
