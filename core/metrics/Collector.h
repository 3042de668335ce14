#pragma once

#include "MetricLineParser.h"
#include "MetricStore.h"
#include "util/Result.h"

#include <QHash>
#include <QHostAddress>
#include <QJsonArray>
#include <QObject>
#include <QTimer>
#include <QUrl>

#include <memory>

namespace sb {

class CollectorHttpApi;
class DirectoryIngestor;

// The metrics collector: owns the store and turns pushes, metric lines and watched files into
// appended points. Lives on one thread (the daemon's main thread, or the embedded worker).
class Collector final : public QObject {
    Q_OBJECT
public:
    struct Options {
        QString dataDir;
        QHostAddress address = QHostAddress::LocalHost;
        quint16 port = 0; // 0: any free port
        QString token;    // required for a non-loopback address
        QStringList watchDirs;
        bool listen = true;
    };

    static Result<std::unique_ptr<Collector>> start(const Options &options);
    ~Collector() override;

    QUrl url() const { return m_url; }
    MetricStore &store() { return *m_store; }

    // A push body: {"run", "info": {...}, "series": {metric: {"step": [], "value": [], "time":
    // []}}, "records": [{"step": 1, "loss": 0.5}, ...]}. Returns the number of points stored.
    Result<qint64> ingestPush(const QJsonObject &push);
    // What an ingest stored: the points now in the store, and why anything else is not.
    struct IngestResult {
        qint64 points = 0;
        QStringList errors;
        bool storageFailed = false; // the disk refused a batch: sending it again may succeed
    };
    // Metric lines in job output; ordinary lines are skipped, malformed ones reported one by one
    // while the others are stored.
    IngestResult ingestLines(const QString &run, QByteArrayView text);
    // Records may name their own run; each run's records are one atomic batch.
    IngestResult ingestRecords(const QString &run, const std::vector<MetricRecord> &records);
    Status ingestSeries(const QString &run, const std::vector<SeriesPoints> &series);

    QJsonArray runsJson(const QString &filter) const;
    QJsonObject healthJson() const;

private:
    Collector() = default;
    void noteLastSteps(const QString &run, const std::vector<SeriesPoints> &series);

    std::unique_ptr<MetricStore> m_store;
    std::unique_ptr<CollectorHttpApi> m_http;
    std::unique_ptr<DirectoryIngestor> m_directories;
    QUrl m_url;
    QTimer m_syncTimer;
    QHash<QString, double> m_lastStep;
};

} // namespace sb
