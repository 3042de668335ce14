#pragma once

#include "Downsampler.h"
#include "util/Result.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QObject>
#include <QUrl>

#include <functional>
#include <optional>

namespace sb {

class KubeClient;

// Query parameters as plain (decoded) keys and values; the client percent-encodes every byte.
using QueryItems = QList<std::pair<QString, QString>>;

// Asynchronous client of a collector's HTTP API (embedded, on a node, or in a cluster). Callbacks
// run on the caller's thread, and only while `context` lives; nothing here ever blocks.
class CollectorClient final : public QObject {
    Q_OBJECT
public:
    using JsonCallback = std::function<void(Result<QJsonDocument>)>;
    using BytesCallback = std::function<void(Result<QByteArray>)>;

    CollectorClient(QUrl base, const QString &token, QObject *parent = nullptr);
    // A collector in a cluster, reached through the API server's service proxy with the
    // kubeconfig's credentials: `service` is "NAMESPACE/NAME:PORT".
    CollectorClient(KubeClient *cluster, const QString &service, const QString &token,
                    QObject *parent = nullptr);
    // Where it is, for people: http://host:port, or the cluster's proxy path.
    QUrl url() const { return m_base; }

    void getJson(const QString &path, const QueryItems &query, QObject *context, JsonCallback done);
    void getBytes(const QString &path, const QueryItems &query, QObject *context,
                  BytesCallback done);
    void postJson(const QString &path, const QueryItems &query, const QByteArray &body,
                  QObject *context, JsonCallback done);

    void fetchRuns(const QString &filter, QObject *context, JsonCallback done);
    // With smoothing and `withRaw`, each series carries the raw curve too (rawX, rawY).
    void fetchSeries(const QStringList &runs, const QString &metric, const SeriesWindow &window,
                     bool withRaw, QObject *context, JsonCallback done);
    // Job output with metric lines in it; the collector ingests those and ignores the rest, and
    // answers {"accepted": N, "errors": ["line 3: ...", ...]}.
    void pushLines(const QString &run, const QByteArray &text, QObject *context, JsonCallback done);

private:
    // One exchange, over HTTP or through the cluster; the body, or the refusal in words.
    void exchange(const QByteArray &method, const QString &path, const QueryItems &query,
                  const QByteArray &body, const QString &contentType, QObject *context,
                  BytesCallback done);
    void post(const QString &path, const QueryItems &query, const QByteArray &body,
              const QString &contentType, QObject *context, JsonCallback done);

    QNetworkAccessManager m_network;
    QUrl m_base;
    QByteArray m_token;
    KubeClient *m_cluster = nullptr;
    QString m_proxyPath; // /api/v1/namespaces/NS/services/NAME:PORT/proxy
};

// "k8s://CONTEXT/NAMESPACE/SERVICE:PORT": a collector in a cluster (the context may hold '/').
struct ClusterCollector {
    QString context;
    QString service; // NAMESPACE/SERVICE:PORT
};
std::optional<ClusterCollector> parseClusterCollector(const QString &address);

} // namespace sb
