#pragma once

#include "metrics/CollectorApi.h"
#include "metrics/Downsampler.h"
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
// run on the caller's thread, and only while `context` lives; nothing here ever blocks: answers
// (JSON, and refusals' explanations) are decoded off the calling thread.
class CollectorClient final : public QObject {
    Q_OBJECT
public:
    template <typename T> using Callback = std::function<void(Result<T>)>;

    CollectorClient(QUrl base, const QString &token, QObject *parent = nullptr);
    // A collector in a cluster, reached through the API server's service proxy with the
    // kubeconfig's credentials: `service` is "NAMESPACE/NAME:PORT".
    CollectorClient(KubeClient *cluster, const QString &service, const QString &token,
                    QObject *parent = nullptr);
    // Where it is, for people: http://host:port, or the cluster's proxy path.
    QUrl url() const { return m_base; }
    // The bearer token of the requests sent from now on (one a person typed in).
    void setToken(const QString &token) {
        m_token = token.toUtf8();
        m_tokenRefused = false;
    }
    // The project every request is for (a lab collector's); empty: the collector's own.
    void setProject(const QString &project) { m_project = project.toUtf8(); }
    QString project() const { return QString::fromUtf8(m_project); }

    void health(QObject *context, Callback<Health> done);
    // Runs whose metadata mentions `filter` (every run for an empty one) and that pass `where`
    // (a RunQuery; a bad one is refused, saying where it goes wrong), at most `limit` of them (in
    // name order; all when negative) after the first `offset`.
    struct RunsRequest {
        QString filter;
        QString where;
        qsizetype offset = 0;
        qsizetype limit = -1;
    };
    void runs(const RunsRequest &request, QObject *context, Callback<QList<RunSummary>> done);
    // The metric names of these runs (of every run, for none), sorted.
    void metrics(const QStringList &runs, QObject *context, Callback<QStringList> done);
    // With smoothing and `withRaw`, each series carries the raw curve too (rawX, rawY).
    void series(const QStringList &runs, const QString &metric, const SeriesWindow &window,
                bool withRaw, QObject *context, Callback<SeriesReplies> done);
    // Several metrics of one run in one request (a node's history), without raw curves; each
    // reply names its metric.
    void seriesOfMetrics(const QString &run, const QStringList &metrics, const SeriesWindow &window,
                         QObject *context, Callback<SeriesReplies> done);
    // Runs put in groups, each as a centre line and band on columns shared by all groups.
    void groups(const GroupRequest &request, QObject *context, Callback<GroupReplies> done);
    // Every point of a series as CSV (step,value,wall_time).
    void exportCsv(const QString &run, const QString &metric, QObject *context,
                   Callback<QByteArray> done);
    // A push body (JSON, as the README's API table has it); the number of points stored.
    void push(const QByteArray &body, QObject *context, Callback<qint64> done);
    // A push of samples (see samplesPushes); the number of new items stored.
    void pushSamples(const QByteArray &body, QObject *context, Callback<qint64> done);
    // Job output with metric lines in it; the collector stores those and ignores the rest.
    void pushLines(const QString &run, const QByteArray &text, QObject *context,
                   Callback<LinesReply> done);
    // The tags of samples (images, histograms, text, audio) of these runs.
    void sampleTags(const QStringList &runs, QObject *context,
                    Callback<QList<SampleTagSummary>> done);
    // One page of a tag's items with steps in [from, to], in step order, after the first
    // `offset`: an answer may hold fewer than `limit` (see CollectorApi::kMostInlineBytes).
    void samples(const QString &run, const QString &tag, std::optional<double> from,
                 std::optional<double> to, qint64 offset, qint64 limit, QObject *context,
                 Callback<SamplesReply> done);
    // An item's bytes, by its blob's digest (hex).
    void blob(const QString &digest, QObject *context, Callback<QByteArray> done);
    // The person has read the store's repair notes; how many there were.
    void acknowledgeRecovery(QObject *context, Callback<qint64> done);
    // Undoes a run's rewind (RunSummary::rewinds): what it hid is shown again.
    void restoreRewind(quint32 rewind, QObject *context, Callback<qint64> done);
    // Deletes runs for good (their points, samples and metadata); what went.
    struct Deleted {
        QStringList runs;
        qint64 points = 0;
        qint64 samples = 0;
    };
    void deleteRuns(const QStringList &runs, QObject *context, Callback<Deleted> done);

Q_SIGNALS:
    // A collector reached over HTTP refused the token (or the lack of one): 401. Once per token.
    void tokenRefused();
    // The token refused before was taken again (the users file was fixed).
    void tokenAccepted();

private:
    // One /series request, within the collector's bound on an answer.
    void seriesPart(const QStringList &runs, const QStringList &metrics, const SeriesWindow &window,
                    bool withRaw, QObject *context, Callback<SeriesReplies> done);
    // An answer's body, and the body parsed where the way there parsed it already (a cluster's
    // API server client parses JSON objects off the GUI thread): never parsed twice.
    struct Answer {
        QByteArray body;
        QJsonDocument json;
    };
    // One exchange, over HTTP or through the cluster; the answer, or the refusal in words.
    void exchange(const QByteArray &method, const QString &path, const QueryItems &query,
                  const QByteArray &body, const QString &contentType, QObject *context,
                  Callback<Answer> done);
    // An exchange whose answer is JSON, handed on as `T` by `convert`.
    template <typename T>
    void exchangeJson(const QByteArray &method, const QString &path, const QueryItems &query,
                      const QByteArray &body, const QString &contentType, QObject *context,
                      std::function<T(const QJsonDocument &)> convert, Callback<T> done);
    // The same, the answer decoded by `decode` (on a worker) from its body or parsed JSON.
    template <typename T>
    void exchangeDecoded(const QByteArray &method, const QString &path, const QueryItems &query,
                         const QByteArray &body, const QString &contentType, QObject *context,
                         std::function<Result<T>(const Answer &)> decode, Callback<T> done);

    QNetworkAccessManager m_network;
    QUrl m_base;
    QByteArray m_token;
    bool m_tokenRefused = false;
    QByteArray m_project;
    KubeClient *m_cluster = nullptr;
    QString m_proxyPath; // /api/v1/namespaces/NS/services/NAME:PORT/proxy
};

// The project to ask a collector for: `value`, else $SIGNALBOX_PROJECT; empty for the
// collector's own. Or why it is no project name.
Result<QString> collectorProject(const QString &value);

// "k8s://CONTEXT/NAMESPACE/SERVICE:PORT": a collector in a cluster (the context may hold '/').
struct ClusterCollector {
    QString context;
    QString service; // NAMESPACE/SERVICE:PORT
};
std::optional<ClusterCollector> parseClusterCollector(const QString &address);

} // namespace sb
