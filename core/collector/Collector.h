#pragma once

#include "lab/LabForwarder.h"
#include "lab/LabReader.h"
#include "metrics/CollectorApi.h"
#include "metrics/MetricLineParser.h"
#include "metrics/RunQuery.h"
#include "metrics/store/MetricStore.h"
#include "util/Result.h"

#include <QHash>
#include <QHostAddress>
#include <QJsonArray>
#include <QObject>
#include <QSet>
#include <QSslConfiguration>
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
        QString token;    // one token for every client: off loopback, this or users
        // Users with tokens of their own and rights per project (AccessList), instead of a token.
        QString usersFile;
        // The project this collector's runs belong to (shipped to the lab's ClickHouse as it).
        QString project = QStringLiteral("default");
        QStringList hostNames; // besides localhost: names clients use for a loopback listener
        // PEM files: the listener speaks TLS (https) with this certificate (its chain after it)
        // and key.
        QString tlsCertificate;
        QString tlsKey;
        QStringList watchDirs;
        bool listen = true;
        // A running run silent (no push, line or heartbeat) this long is judged lost; 0: never.
        double lostAfterSeconds = kLostAfterSeconds;
        // A lab's ClickHouse that every committed point is shipped to (LabForwarder).
        std::optional<LabForwarder::Options> lab;
        // Reads answered from that ClickHouse instead of this store (a lab's collector): every
        // run of the project, whichever collector shipped it.
        std::optional<LabReader::Options> labReads;
    };
    static constexpr double kLostAfterSeconds = 300;

    static Result<std::unique_ptr<Collector>> start(const Options &options);
    // A TLS listener's configuration from PEM files, or what is wrong with them.
    static Result<QSslConfiguration> tlsConfiguration(const QString &certificatePath,
                                                      const QString &keyPath);
    ~Collector() override;

    QUrl url() const { return m_url; }
    const QString &project() const { return m_project; }
    // Whether it is part of a lab (ships to its ClickHouse, or reads from it): only then do
    // requests' projects mean anything.
    bool inLab() const { return m_lab || m_labReader; }
    MetricStore &store() { return *m_store; }
    // The lab's ClickHouse that reads are answered from; null when they come from the store.
    std::shared_ptr<const LabReader> labReader() const { return m_labReader; }

    // A push body: {"run", "batch", "info": {...}, "series": {metric: {"step": [], "value": [],
    // "time": []}}, "records": [{"step": 1, "loss": 0.5}, ...]}, decoded and checked but not yet
    // stored. Decoding touches nothing of the collector's, so it may run on any thread.
    struct Push {
        QString run;
        QString batch; // the sender's id for it: a batch sent twice is stored once
        std::optional<RunInfo> info;
        std::vector<SeriesPoints> series;
        std::vector<MetricRecord> records; // missing steps are filled in when stored
        std::optional<Resume> resume;      // applied first, with the batch (MetricStore::append)
        qint64 points = 0;
        // Sent by Signalbox for a run it launched ("if_running": true): the info applies only
        // while the run has not ended by its own word, and is no word from the run itself.
        bool ifRunning = false;
        bool heartbeat() const { return !info && series.empty() && records.empty() && !resume; }
    };
    static constexpr qsizetype kLongestNote = 65536; // characters
    static constexpr qsizetype kMostTags = 100;
    static constexpr qsizetype kLongestTag = 200;
    // The rest of a run's info, bounded as note and tags are: every listing of runs carries it.
    static constexpr qsizetype kLongestHost = 255;     // characters; the sweep's id too
    static constexpr qsizetype kLongestWord = 64;      // characters of a status
    static constexpr qsizetype kLargestConfig = 65536; // bytes of the config as compact JSON
    static constexpr int kDeepestConfig = 32;          // levels of nesting in the config
    // A run's code and environment records (RunInfo): what travels with every listing of runs.
    static constexpr qsizetype kLargestRecord = 16384; // bytes of each as compact JSON
    static constexpr int kDeepestRecord = 4;
    // Why an update of a run's info is refused (its config alone, or merged into the stored one);
    // empty when it is fine.
    static QString infoProblem(const RunInfo &info);
    static Result<Push> decodePush(QByteArrayView body);
    static Result<Push> decodePush(const QJsonObject &push);
    // A columnar push (POST /api/v1/push/columns), version 1, all little-endian:
    //   "SBC1", a u32 header length H, H bytes of a JSON header, zeros to a multiple of 8 bytes;
    //   then, for each of the header's groups in order, the step column, the time column (when
    //   the group has one; else the time of arrival), and one value column per metric, each
    //   `rows` f64 values. The body ends there.
    // The header is a push's JSON ("run", "batch", "info") with "groups": [{"rows": N,
    // "metrics": [names], "time": true}], one group per stretch of rows that logged the same
    // metrics. A metric in several groups gets its points in group order.
    static Result<Push> decodeColumns(QByteArrayView body);
    // A push of samples (POST /api/v1/push/samples), version 1, little-endian:
    //   "SBS1", a u32 header length H, H bytes of a JSON header, zeros to a multiple of 8 bytes;
    //   then each item's bytes, end to end, in the header's order. The body ends there.
    // The header is {"run", "samples": [{"tag", "kind": "image"|"histogram"|"text"|"audio",
    // "step", "time" (else the time of arrival), "index" (its place in a batch; 0), "bytes": N},
    // ...]}; a histogram adds "min", "max", "num" and "sum" (its bytes are its buckets, three
    // f64 each: left, right, count), a table of text "rows" and "columns" (its bytes a JSON
    // array of rows). Items are checked here (checkSample): decoding may run on any thread.
    struct SamplesPush {
        QString run;
        std::vector<Sample> samples;
    };
    static Result<SamplesPush> decodeSamples(QByteArrayView body);
    // Stores a run's samples whole or not at all; returns how many were new.
    Result<qint64> storeSamples(const QString &run, const std::vector<Sample> &samples);
    // Stores a push whole or not at all; returns the number of points it holds.
    Result<qint64> storePush(Push push);
    Result<qint64> ingestPush(const QJsonObject &push);

    // What an ingest stored: the points now in the store, and why anything else is not.
    struct IngestResult {
        qint64 points = 0;
        QStringList errors;
        bool storageFailed = false; // the disk refused a batch: sending it again may succeed
        qint64 duplicates = 0;      // points of a batch stored before, skipped
    };
    // Metric lines in job output, parsed (on any thread): ordinary lines are skipped, malformed
    // ones reported one by one while the others are kept.
    struct Lines {
        std::vector<MetricRecord> records;
        QStringList errors; // the first kMostReportedErrors, then how many more
    };
    static constexpr qsizetype kMostReportedErrors = 100;
    static Lines decodeLines(QByteArrayView text);
    IngestResult storeLines(const QString &run, const Lines &lines);
    IngestResult ingestLines(const QString &run, QByteArrayView text) {
        return storeLines(run, decodeLines(text));
    }
    // Records may name their own run; each run's records are one atomic batch.
    IngestResult ingestRecords(const QString &run, const std::vector<MetricRecord> &records);
    Status ingestSeries(const QString &run, const std::vector<SeriesPoints> &series);
    // Hyperparameters found beside a run's points (a TensorBoard hparams session), merged into
    // its config; a config too large or deep is refused with ErrorCode::InvalidInput.
    Status ingestConfig(const QString &run, const QJsonObject &config);

    // Runs whose metadata mentions `filter` (all for an empty one) and that pass `where` (when
    // given), with their metrics, in name order: `limit` of them (all when negative) after the
    // first `offset`. Each metric's value range is there once its series was summarized (within
    // a few calls); the series whose range `where` reads are summarized first.
    // A query's work is bounded: past kQueryMs (its series' ranges still being read, or a
    // pattern slow over many runs) it is refused, saying so.
    static constexpr int kQueryMs = 10'000;
    Result<QList<RunSummary>> runs(const QString &filter, qsizetype offset = 0,
                                   qsizetype limit = -1, const RunQuery *where = nullptr);
    // A TensorBoard writer's restart (SessionLog.START) at `step`: the run rewinds, inclusive,
    // once per `key` (LogdirFollower::RestartSink).
    Status ingestRestart(const QString &run, double step, const QString &key);
    // Undoes a rewind: what it hid is shown again.
    Status restoreRewind(quint32 id);
    // Deletes runs for good (MetricStore::deleteRuns); a run that pushes again later is a new one.
    Result<MetricStore::Deleted> deleteRuns(const QStringList &runs);
    // Each group's centre line and band, on columns shared by all groups (see GroupRequest). The
    // members of all groups × columns above kMostGroupCells is refused (each is computed).
    static constexpr qint64 kMostGroupCells = 20'000'000;
    Result<GroupReplies> groups(const GroupRequest &request);
    // The same over series opened by `open` (each run's series of the request's metric, twice:
    // once to place the columns, once to compute), on any thread.
    using OpenSeries = std::function<Result<MetricStore::Opened>(const QString &run)>;
    static Result<GroupReplies> groupsOf(const GroupRequest &request, const OpenSeries &open);
    Health health() const;
    // Running runs silent for longer than the threshold become lost, with their end when they
    // were last heard from (written into the store, so every listing agrees).
    void judgeSilentRuns();

private:
    Collector() = default;
    // The run spoke (a push, metric lines, a heartbeat): remembered, and a lost run revived.
    void heard(const QString &run);
    // Writes what was heard since the last call into the runs' info (cheap: once in a while).
    void saveLastSeen();
    std::optional<double> lastSeen(const RunInfo &info) const;
    void noteStatus(const QString &run);
    void noteLastSteps(const QString &run, const std::vector<SeriesPoints> &series);
    // The largest step stored for a run, read from the store the first time it is asked (a
    // store of 100,000 runs starts without reading them all).
    std::optional<double> storedLastStep(const QString &run);
    // The value at a key of every run's config (code, ...), in MetricStore::runsInOrder's rows:
    // kept until a run changes, for the queries that read it.
    using ValueColumn = std::shared_ptr<const std::vector<QJsonValue>>;
    ValueColumn valuesAt(const RunQuery::ObjectKey &key);

    std::unique_ptr<MetricStore> m_store;
    std::unique_ptr<CollectorHttpApi> m_http;
    std::unique_ptr<DirectoryIngestor> m_directories;
    std::unique_ptr<LabForwarder> m_lab;
    std::shared_ptr<const LabReader> m_labReader;
    QString m_project;
    QUrl m_url;
    QTimer m_syncTimer;
    QHash<QString, double> m_lastStep; // by run, once asked or written
    QHash<QString, double> m_heard;    // by run: last heard from, not yet in the run's info
    QSet<QString> m_running;           // runs whose status is running
    struct ValueColumns {
        quint64 generation = ~quint64(0);                                 // of the store's runs
        std::vector<std::pair<RunQuery::ObjectKey, ValueColumn>> columns; // the last keys asked
    } m_valueColumns;
    double m_lostAfter = kLostAfterSeconds;
    double m_startedAt = 0; // a run is not judged lost for the time the collector was down
    QTimer m_judgeTimer;
};

} // namespace sb
