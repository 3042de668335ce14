#pragma once

#include "Downsampler.h"
#include "MetricPoint.h"
#include "PointSource.h"
#include "RunInfo.h"
#include "SeriesSummary.h"
#include "util/Result.h"

#include <QDeadlineTimer>
#include <QHash>
#include <QIODevice>
#include <QMap>
#include <QSet>
#include <QStringList>

#include <deque>
#include <memory>
#include <optional>
#include <vector>

namespace sb {

// Every point of a series as CSV (step,value,wall_time), a piece at a time: the points there when
// it was made, whatever is appended after. Reads the series file on its own (no store needed).
class CsvExport final {
public:
    explicit CsvExport(std::unique_ptr<PointSource> source)
        : m_source(std::move(source)) {}
    // The next piece of text (about 400 KB); empty once everything was given.
    QByteArray next();

private:
    std::unique_ptr<PointSource> m_source;
    qint64 m_next = -1; // the next point; -1 before the header line
};

// The collector's on-disk store of runs and their metric series.
//
// Layout of a store directory:
//   journal          CRC-framed records: the format, run metadata, series and the extents that
//                    hold their points, and commit records that give every touched series'
//                    committed point count after each batch
//   data/<n>.dat     a 16-byte header, then extents: each a series' stretch of room for points,
//                    24 bytes each, filled in order; a series has a few, each at least as large
//                    as all its earlier ones together, so that a long series lies in few pieces
//                    and a million short ones share a few files
//   summaries        CRC-framed records of series' summaries (SeriesSummary::saved), each giving
//                    a series' summary from some block on; rewritten whole when mostly stale
// A batch is written to its extents first and acknowledged once its commit record (with any new
// extents and series) is in the journal. Opening the store cuts a torn journal tail; points past a
// series' committed count are never read, and are written over by its next batch, so a batch is
// either wholly there or not at all, and nothing acknowledged is lost when the process is killed.
// Recovery never destroys what it cannot read: a damaged stretch of journal, a data file no record
// names, or one with a foreign header goes to lost+found/, reading resumes at the next whole
// record, and after a damaged journal new extents go to a new data file, never over old ones.
// A store of the earlier layout (a file per series under series/) is moved into data files on
// its first open, its series files removed only once the new journal is in place.
//
// Not thread-safe: one thread (the collector's) owns a store; the point sources it hands out may
// be read on other threads. Summaries for fast queries are built on a series' first query and
// kept up to date by appends.
class MetricStore final {
public:
    struct SeriesInfo {
        QString metric;
        qint64 count = 0;
        MetricPoint last;
        // The smallest and largest finite values, once the series was summarized (queried, or
        // read by summarize()); unset before, and while it has no finite value.
        std::optional<std::pair<double, double>> range;
    };

    static Result<std::unique_ptr<MetricStore>> open(const QString &directory);
    ~MetricStore();
    MetricStore(const MetricStore &) = delete;
    MetricStore &operator=(const MetricStore &) = delete;

    // What opening had to repair (a torn journal tail, uncommitted points, files kept in
    // lost+found), this start's and earlier starts' until acknowledged (kept in recovery.json).
    const QStringList &recoveryNotes() const { return m_recoveryNotes; }
    // The person has read the notes: later starts no longer repeat them.
    Status acknowledgeRecovery();
    QString directory() const { return m_directory; }

    // Appends points of one run atomically, creating the run and series as needed; `info`, when
    // given, is merged into the run's metadata. Returns once the batch survives a process kill:
    // true when stored, false when `batch` (the sender's id for it) was stored before, which
    // makes a retry harmless. An error means nothing was stored.
    // A batch in parts (metric lines forwarded a few at a time) stores every part and remembers
    // the id, so that the same batch sent whole later is known.
    enum class Batch { Whole, InParts };
    Result<bool> append(const QString &run, const std::vector<SeriesPoints> &series,
                        const RunInfo *info = nullptr, const QString &batch = {},
                        Batch kind = Batch::Whole);
    // Whether a batch with this id was stored for this run (among the last 100,000), sent as
    // `kind`, or either way when unset. A batch sent whole and one in parts with the same id are
    // two (a client's push and the metric lines it printed for it).
    bool storedBatch(const QString &run, const QString &batch,
                     std::optional<Batch> kind = std::nullopt) const {
        return kind ? m_batches.contains(batchKey(run, batch, *kind))
                    : m_batches.contains(batchKey(run, batch, Batch::Whole)) ||
                          m_batches.contains(batchKey(run, batch, Batch::InParts));
    }
    Status updateRun(const RunInfo &info) {
        auto updated = append(info.name, {}, &info);
        return updated ? success() : Status(updated.failure());
    }

    QList<RunInfo> runs() const { return m_runs.values(); }
    const QMap<QString, RunInfo> &runsByName() const { return m_runs; }
    // The runs whose metadata (as JSON: name, config, tags, note...) holds `lowered`, text in
    // lower case as UTF-8, in name order. Each run's text is kept until the run changes, and all
    // of them lie end to end in one index, so a filter over 100,000 runs is one scan of it.
    QStringList runsMentioning(QByteArrayView lowered) const;
    std::optional<RunInfo> run(const QString &name) const;
    std::vector<SeriesInfo> series(const QString &run) const;
    qint64 totalPoints() const;

    // M4-downsampled series; an error names what is missing.
    Result<Downsampled> query(const QString &run, const QString &metric, SeriesWindow window);
    // A series to compute on: its points, its summary brought up to date, and where its run began
    // (the origin of relative time). With `xMetric`, each point's step is that metric's value at
    // the step (see MetricAxisSource), and the summary is of the points so mapped. Valid until
    // the next append.
    struct Opened {
        std::unique_ptr<PointSource> points;
        const SeriesSummary *summary = nullptr;
        double origin = 0;
        std::unique_ptr<SeriesSummary> mappedSummary; // with an x metric: what `summary` is
    };
    Result<Opened> openSeries(const QString &run, const QString &metric,
                              const QString &xMetric = {});
    // Every point of a series as CSV, read piece by piece; an error names what is missing.
    Result<std::unique_ptr<CsvExport>> exportCsv(const QString &run, const QString &metric) const;
    // The same, written whole to `out`.
    Status exportCsv(const QString &run, const QString &metric, QIODevice *out) const;
    // Summarizes series that were not yet (reading their files), until `deadline`: a store of
    // any size gets every series' value range over a few calls, never holding its thread long.
    // Returns whether every series is summarized.
    bool summarize(QDeadlineTimer deadline);
    // The same for one run's series.
    bool summarize(const QString &run, QDeadlineTimer deadline);
    // Forces written data to the disk (power-loss durability); a process kill needs no sync.
    Status sync();
    // Writes what changed in the series' summaries since the last call to the store's
    // `summaries` file, so that the first query after a restart reads only points appended since.
    // A cache: a summary that is missing, damaged or longer than its series is built again.
    Status saveSummaries();
    std::size_t summaryBytes() const;

private:
    struct Series;
    struct DataFile;
    struct Extent;
    explicit MetricStore(QString directory);
    Status load();
    // The earlier layout's series files: read as that layout's recovery did, then moved into
    // data files under a new journal.
    Status loadSeriesFiles(const QHash<quint32, qint64> &committed,
                           const QHash<quint32, Series *> &byId);
    Status migrateSeriesFiles();
    Status loadDataFiles(const QHash<quint32, qint64> &committed,
                         const QHash<quint32, MetricPoint> &lastPoints,
                         const std::vector<std::pair<quint32, Extent>> &extents,
                         const QHash<quint32, Series *> &byId);
    // Room for `points` more points of `series`, journaled into `journal` with the batch.
    Result<Extent> allocate(Series *series, qint64 points, QByteArray *journal);
    Result<DataFile *> dataFile(quint32 number, bool create);
    // Writes points after the series' last, into its extents and new ones as needed.
    Status writePoints(Series *series, const std::vector<MetricPoint> &points, QByteArray *journal);
    QString dataPath(quint32 number) const;
    void loadSummaries();
    Status writeSummaries(const QByteArray &records, bool whole);
    Status compactJournal();
    // Compacts, or notes (once) why not and tries again after more appends.
    void compactOrNote();
    void rememberBatch(const QString &key);
    // A batch's key: the run's length, the run, the kind and the sender's id, so that no run or
    // id, whatever it holds, makes another's key (run "a\0b" id "c" is not run "a" id "b\0c").
    static QString batchKey(const QString &run, const QString &batch, Batch kind);
    // The key of a batch record the previous version wrote ("run\0id", " (lines)" after the id of
    // metric lines' batches); empty when it is not one.
    static QString legacyBatchKey(QByteArrayView payload);
    static qint64 recordLength(const QByteArray &bytes, qint64 offset);
    // Moves a file the store cannot use to lost+found/NAME; returns where it went.
    Result<QString> keepInLostFound(const QString &path, const QString &name);
    // The store's file NAME opened with `flags` (see openStoreFile); a link or a special file in
    // its place is moved to lost+found, said in `notes`, and treated as missing. -1: missing.
    Result<int> openFile(const QString &name, int flags, QStringList *notes);
    Series *find(const QString &run, const QString &metric) const;
    Result<std::unique_ptr<PointSource>> reader(const QString &run, const QString &metric,
                                                Series **series) const;
    Result<Series *> create(const QString &run, const QString &metric, QByteArray *journal);

    QString m_directory;
    int m_lockFd = -1;
    int m_journalFd = -1;
    qint64 m_summariesSize = 0; // bytes in the summaries file
    qint64 m_journalSize = 0;
    qint64 m_compactAt = 0; // journal size that triggers the next compaction
    QStringList m_recoveryNotes;
    QStringList m_lossNotes; // this start's notes about stored data, kept until acknowledged
    QMap<QString, RunInfo> m_runs;
    mutable QHash<QString, QByteArray> m_searchText; // by run, made when first searched
    // Every run's search text, in name order, each ending in a newline (JSON has none raw), and
    // where each starts; made again when a run changed.
    mutable QByteArray m_searchIndex;
    mutable std::vector<std::pair<qsizetype, QString>> m_searchStarts;
    mutable bool m_searchIndexStale = true;
    std::vector<std::unique_ptr<Series>> m_series;
    std::size_t m_summarized = 0; // series before this one have a summary (see summarize())
    quint32 m_nextId = 0;         // above every id the journal or the series directory ever held
    QHash<QString, QHash<QString, Series *>> m_byRun;
    std::vector<std::shared_ptr<DataFile>> m_files; // by number; null where none is open
    quint32 m_nextFile = 0;   // above every data file the journal or the data directory held
    quint32 m_fillFile = 0;   // the file new extents go to, while it has room
    QSet<quint32> m_unsynced; // data files written since the last sync
    QSet<QString> m_batches;  // keys of the last kRememberedBatches batches (see batchKey)
    std::deque<QString> m_batchOrder; // the same, oldest first
};

} // namespace sb
