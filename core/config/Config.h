#pragma once

#include "util/Result.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QUrl>

namespace sb {

// An S3-compatible bucket (AWS S3, MinIO, versitygw, Ceph RGW), addressed path-style.
struct ObjectStoreConfig {
    QUrl endpoint; // https://s3.eu-west-1.amazonaws.com, http://minio.lab:9000
    QString bucket;
    QString region = QStringLiteral("us-east-1");
    QUrl podEndpoint; // how pods reach the store, when not by `endpoint`; empty: the same
    QString accessKey;
    QString secretKey; // from the environment (AWS_SECRET_ACCESS_KEY), never from the config

    bool configured() const { return endpoint.isValid() && !bucket.isEmpty(); }
};

// An SSH node as the researcher names it. No secrets: keys live in files, the agent or the
// keychain.
struct NodeConfig {
    QString name; // how Signalbox shows it; unique
    QString host; // address or DNS name
    int port = 22;
    QString user;
    QString identityFile;
    QString proxyJump;
    double intervalSeconds = 1.0; // sampling interval

    bool operator==(const NodeConfig &) const = default;
};

// Where and how cluster jobs may run, named once in the config and picked in the job dialog:
// the node selector and tolerations of a GPU pool, its priority class and service account.
struct JobTemplate {
    QString name;
    QString image;            // the default image for jobs of this template
    QJsonObject nodeSelector; // label -> value
    QJsonArray tolerations;   // as in a pod spec: key, operator, value, effect, tolerationSeconds
    QString priorityClass;
    QString serviceAccount;

    bool operator==(const JobTemplate &) const = default;
};

// A Slurm cluster, reached through its login node (one of `nodes`, so its SSH settings, host key
// and reachability are the node's), with the defaults of its jobs.
struct SlurmClusterConfig {
    QString name;
    QString login;     // the name of a node entry
    QString partition; // empty: the cluster's default
    QString account;
    QString qos;
    QString timeLimit;     // sbatch --time for jobs that say none; empty: the partition's
    QString workspace;     // where runs' code and output go on the shared filesystem
    bool allUsers = false; // show every user's jobs, not only the login user's
    // slurmrestd, when the cluster offers it: jobs are then submitted, followed and cancelled
    // through its REST API; code and logs still go over the login node's SSH.
    QString restUrl; // "https://slurm.example.org:6820", or "unix:/path" on the login node
    bool restViaLogin = false; // reach rest_url from the login node, through its SSH connection
    QString restUser;          // empty: the login node's user
    QString restTokenFile;     // a file holding the JWT; empty: `scontrol token` on the login node

    bool operator==(const SlurmClusterConfig &) const = default;
};

// The one YAML file (~/.config/signalbox/signalbox.yaml). Only the parts this build uses are
// typed; unknown top-level sections are kept as they are when saving.
// The most a config, sweep or kubeconfig file may hold: far above any real one.
inline constexpr qint64 kMaxConfigBytes = 16 << 20;

struct Config {
    QList<NodeConfig> nodes;
    QList<JobTemplate> jobTemplates;
    QList<SlurmClusterConfig> slurmClusters;
    // Where cluster jobs' code goes when a ConfigMap cannot hold it. The credentials come from
    // AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, never from this file.
    ObjectStoreConfig objectStore;
    // Node entries that were not loaded, each "FILE:LINE: KEY what" (the other nodes were).
    QStringList problems;

    static QString defaultPath();
    // Errors name the file, line and key.
    static Result<Config> load(const QString &path);
    static Result<Config> parse(const QByteArray &yaml, const QString &fileName);
    Status save(const QString &path) const;
};

// One hop of a ProxyJump ([user@]host[:port]). Names hold only what host and user names may,
// so a jump host can never carry shell syntax to the OpenSSH client that reaches it.
struct JumpHost {
    QString user; // empty: ssh's default
    QString host;
    int port = 22;
};
// "bastion", "alice@bastion:2222", "a,b" (several hops, in order), "[::1]:22"; an error says why.
Result<QList<JumpHost>> parseProxyJump(const QString &spec);

// The concrete hosts of an OpenSSH client config (~/.ssh/config): every `Host` alias without
// wildcards, with HostName, User, Port, IdentityFile and ProxyJump resolved the way ssh does
// (the first value found for a key wins, `Host *` blocks included).
QList<NodeConfig> importSshConfig(const QByteArray &text);

} // namespace sb
