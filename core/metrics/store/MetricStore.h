#pragma once

#include "BatchLedger.h"
#include "CsvExport.h"
#include "ExtentSource.h"
#include "RewindTable.h"
#include "RunIndex.h"
#include "SampleTable.h"
#include "SeriesTable.h"
#include "StoreRecords.h"
#include "SummariesCache.h"
#include "metrics/CollectorApi.h"
#include "metrics/Downsampler.h"
#include "metrics/MetricPoint.h"
#include "metrics/PointSource.h"
#include "metrics/Resume.h"
#include "metrics/RunInfo.h"
#include "metrics/SeriesSummary.h"
#include "storage/DataFiles.h"
#include "storage/Journal.h"
#include "storage/StoreDirectory.h"
#include "storage/StoreFiles.h"
#include "util/Result.h"

#include <QDeadlineTimer>
#include <QIODevice>
#include <QMap>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace sb {

class LegacySeriesFiles;

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
//   (samples)        images, histograms, text and audio: each item's bytes a blob, stored once
//                    per digest in an extent of its own in the data files, named by a Blobs
//                    record; the items in Samples records, each naming its tag and blob; both in
//                    the same append as a batch's commit (see SampleTable)
//   (rewinds)        Rewind records naming the points and samples a run resumed from a
//                    checkpoint hides, RewindRestored ones undoing them (see RewindTable)
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
// A read that fails (an I/O error, a data file cut short, an extent no file holds) is an error
// with ErrorCode::StorageFailed, never points of zeros, and no summary is built from it; what is
// missing (no such run or metric) is an error with ErrorCode::Failed.
//
// Each concern lies in a class of its own: StoreDirectory (files and lost+found), Journal (record
// framing, appends, compaction's swap), DataFiles (extents), StoreRecords (the records' payloads
// and their replay), LegacySeriesFiles (the first layout's migration), SummariesCache, RunIndex,
// BatchLedger, ExtentSource (reading points) and CsvExport; this class ties them into batches.
//
// Not thread-safe: one thread (the collector's) owns a store; the point sources it hands out may
// be read on other threads. Summaries for fast queries are built on a series' first query and
// kept up to date by appends.
class MetricStore final {
public:
    struct SeriesInfo { // of the points shown (rewinds hide some)
        QString metric;
        qint64 count = 0;
        MetricPoint last;
        // The smallest and largest finite values, once the series was summarized (queried, or
        // read by summarize()); unset before, and while it has no finite value.
        std::optional<std::pair<double, double>> range;
    };

    // New run, metric and tag names: longer ones are refused (a chart's request names each).
    static constexpr qsizetype kLongestName = sb::kLongestName;
    // Why `name` (of `what`: "a run", "a metric", "a tag") cannot be stored; empty when it can.
    // `known`: the store holds it already.
    static QString newNameProblem(const QString &what, const QString &name, bool known = false);

    static Result<std::unique_ptr<MetricStore>> open(const QString &directory);
    ~MetricStore();
    MetricStore(const MetricStore &) = delete;
    MetricStore &operator=(const MetricStore &) = delete;

    // What opening had to repair (a torn journal tail, uncommitted points, files kept in
    // lost+found), this start's and earlier starts' until acknowledged (kept in recovery.json).
    const QStringList &recoveryNotes() const { return m_recoveryNotes; }
    // The person has read the notes: later starts no longer repeat them.
    Status acknowledgeRecovery();
    QString directory() const { return m_directory.path(); }

    // Appends points of one run atomically, creating the run and series as needed; `info`, when
    // given, is merged into the run's metadata. Returns once the batch survives a process kill:
    // true when stored, false when `batch` (the sender's id for it) was stored before, which
    // makes a retry harmless. An error means nothing was stored.
    // A batch in parts (metric lines forwarded a few at a time) stores every part and remembers
    // the id, so that the same batch sent whole later is known.
    // `resume` goes first, in the same commit: a rewind hides, in each series and tag of the
    // run, what was logged after it last stood at the step (once per batch id: later parts of a
    // batch do not rewind again; a rewind that hides nothing is not kept); a fork copies that
    // much of `resume->from`'s points and samples into `run`, which must have none.
    using Batch = BatchKind;
    Result<bool> append(const QString &run, const std::vector<SeriesPoints> &series,
                        const RunInfo *info = nullptr, const QString &batch = {},
                        Batch kind = Batch::Whole, const Resume *resume = nullptr);
    // Deletes these runs for good: their points, samples and metadata. Returns once that
    // survives a process kill; the room they held goes back to the disk at once (holes in the
    // data files, files that hold nothing more removed), or, for a series a reader still holds,
    // once none does (reclaim()); the journal is compacted then, so their records go too. A name
    // the store does not hold: ErrorCode::Failed, nothing deleted.
    struct Deleted {
        QStringList runs;
        qint64 points = 0; // stored, shown or hidden by a rewind
        qint64 samples = 0;
    };
    Result<Deleted> deleteRuns(const QStringList &runs);
    // Gives back the room of deleted series no reader holds any more (called by saveSummaries()).
    void reclaim();
    // A run's rewinds in the order they came, and undoing one (its points and samples shown
    // again); no such rewind: ErrorCode::Failed.
    const std::vector<Rewind> &rewinds(const QString &run) const { return m_rewinds.ofRun(run); }
    Status restoreRewind(quint32 id);
    // The stored points each series of the run has hidden (sorted, merged), by metric; a series
    // that hides none is left out. What a copy of the store elsewhere hides too.
    QHash<QString, std::vector<IndexRange>> hiddenPoints(const QString &run) const;
    // Whether a batch with this id was stored for this run (among the last 100,000), sent as
    // `kind`, or either way when unset. A batch sent whole and one in parts with the same id are
    // two (a client's push and the metric lines it printed for it).
    bool storedBatch(const QString &run, const QString &batch,
                     std::optional<Batch> kind = std::nullopt) const {
        return kind ? m_batches.contains(BatchLedger::key(run, batch, *kind))
                    : m_batches.contains(BatchLedger::key(run, batch, Batch::Whole)) ||
                          m_batches.contains(BatchLedger::key(run, batch, Batch::InParts));
    }
    // Called with a run's name after each committed append to it (points, info, a rewind): what
    // a copy of the store elsewhere follows. One listener; none to stop.
    void setAppendListener(std::function<void(const QString &run)> listener) {
        m_appended = std::move(listener);
    }
    Status updateRun(const RunInfo &info) {
        auto updated = append(info.name, {}, &info);
        return updated ? success() : Status(updated.failure());
    }

    QList<RunInfo> runs() const { return m_runs.byName().values(); }
    const QMap<QString, RunInfo> &runsByName() const { return m_runs.byName(); }
    // The runs whose metadata (as JSON: name, config, tags, note...) holds `lowered`, text in
    // lower case as UTF-8, in name order. Each run's text is kept until the run changes, and all
    // of them lie end to end in one index, so a filter over 100,000 runs is one scan of it.
    QStringList runsMentioning(QByteArrayView lowered) const { return m_runs.mentioning(lowered); }
    std::optional<RunInfo> run(const QString &name) const { return m_runs.find(name); }
    std::vector<SeriesInfo> series(const QString &run) const;
    // One series of a run as /runs lists it (a query's lookup); unset when none is shown. Safe
    // to call from several threads at once while nothing appends.
    std::optional<MetricSummary> metricSummary(const QString &run, const QString &metric) const;
    // Without the range (min, max, best unset), it reads only the series, not its summary.
    static std::optional<MetricSummary> metricSummary(const StoredSeries &series,
                                                      bool withRange = true);
    // For queries over many runs, read in one pass rather than a look-up each: the runs in name
    // order, and a metric's series of each of them (null where a run has none). Kept between
    // calls, made again once runs or series were added, changed or removed; valid until then.
    const std::vector<const RunInfo *> &runsInOrder() const;
    using SeriesColumn = std::shared_ptr<const std::vector<const StoredSeries *>>;
    SeriesColumn seriesOfEachRun(const QString &metric) const;
    // Counts changes to the runs' metadata: what a cache of it is keyed by.
    quint64 runsGeneration() const { return m_runs.generation(); }
    qint64 totalPoints() const;

    // A series' points as stored, rewinds' hidden ones too, from `first` on and `most` at most,
    // with how many it holds: what a copy of the store elsewhere (a lab's ClickHouse) is sent.
    struct StoredPoints {
        qint64 total = 0;
        std::vector<MetricPoint> points;
    };
    Result<StoredPoints> storedPoints(const QString &run, const QString &metric, qint64 first,
                                      qint64 most) const;

    // M4-downsampled series; an error names what is missing or could not be read.
    Result<Downsampled> query(const QString &run, const QString &metric,
                              const SeriesWindow &window);
    // Several at once, each answer in the order asked: opened one after another here (the store
    // is this thread's), downsampled on every core.
    struct SeriesName {
        QString run;
        QString metric;
    };
    std::vector<Result<Downsampled>> query(const std::vector<SeriesName> &names,
                                           const SeriesWindow &window);
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
    // Every point of a series as CSV, read piece by piece; an error names what is missing, or a
    // data file cut short. A read failing later ends the pieces early (CsvExport::error()).
    Result<std::unique_ptr<CsvExport>> exportCsv(const QString &run, const QString &metric) const;
    // The same, written whole to `out`.
    Status exportCsv(const QString &run, const QString &metric, QIODevice *out) const;
    // Brings the summaries of series that have none, or one behind their points, up to date
    // (reading their extents), until `deadline`: a store of any size gets every series' value
    // range over a few calls, never holding its thread long. A series whose points cannot be
    // read keeps what was read before the failure (or stays without a summary) and is not read
    // again until its count changes. Returns whether every series was gone through.
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

    // Samples (images, histograms, text, audio) of one run, stored whole or not at all, under
    // the rules of points: each blob written once (a digest the store holds is not written
    // again), and an item its tag holds already (the same step, time, index and bytes) skipped,
    // so that a file read again or a retried push stores nothing twice. A tag keeps the kind of
    // its first item. Each sample must have passed checkSample. Returns how many were new.
    Result<qint64> appendSamples(const QString &run, const std::vector<Sample> &samples);
    struct SampleTagInfo {
        QString tag;
        SampleKind kind = SampleKind::Image;
        qint64 count = 0;
        double firstStep = 0; // the smallest and largest
        double lastStep = 0;
    };
    std::vector<SampleTagInfo> sampleTags(const QString &run) const;
    struct FoundSample {
        StoredSample item;
        QByteArray digest;
        qint64 size = 0; // of its blob
    };
    struct SamplePage {
        SampleKind kind = SampleKind::Image;
        qint64 total = 0; // items with steps in the range
        std::vector<FoundSample> samples;
    };
    // A tag's items with steps in [from, to], in step order (arrival order within a step):
    // `limit` of them after the first `offset`. A missing run or tag: ErrorCode::Failed.
    Result<SamplePage> samples(const QString &run, const QString &tag, std::optional<double> from,
                               std::optional<double> to, qint64 offset, qint64 limit) const;
    // A blob's bytes by its digest (32 bytes), its first `most` when not negative: missing is
    // ErrorCode::Failed, unreadable (or lost by the disk) ErrorCode::StorageFailed.
    Result<QByteArray> readBlob(QByteArrayView digest, qint64 most = -1) const;

private:
    // The run's info with `info` merged in and its start at `earliest` unless it has one; its
    // record added to `journal` when it changed.
    RunInfo mergedRun(const QString &run, const RunInfo *info, std::optional<double> earliest,
                      QByteArray *journal) const;
    explicit MetricStore(const QString &directory);
    Status load();
    // A store of the first layout: its series files moved into data files.
    Status migrateSeriesFiles(LegacySeriesFiles &legacy, const QHash<quint32, qint64> &committed,
                              const QHash<quint32, StoredSeries *> &byId);
    // Opens the data files the journal's extents name and sets each series' count from what
    // they hold; a last point that cannot be read is said in `unreadable`.
    Status loadDataFiles(const JournalReplay &replay, const QHash<quint32, StoredSeries *> &byId,
                         QStringList *unreadable);
    // Room for `points` more points of `series`, journaled into `journal` with the batch.
    Result<Extent> allocate(StoredSeries *series, qint64 points, QByteArray *journal);
    // Writes `count` points from index `at` of the series (stored, uncommitted), into its
    // extents and new ones as needed.
    Status writePoints(StoredSeries *series, qint64 at, const MetricPoint *points, qint64 count,
                       QByteArray *journal);
    // Rewrites the journal as the current state (runs, series, one commit) and swaps it in.
    Status compactJournal();
    // Compacts, or notes (once) why not and tries again after more appends.
    void compactOrNote();
    Result<std::unique_ptr<ExtentSource>> reader(const QString &run, const QString &metric,
                                                 StoredSeries **series) const;
    // Its points as shown, or (`stored`) as stored, hidden or not.
    Result<std::unique_ptr<ExtentSource>> sourceOf(const StoredSeries &series,
                                                   bool stored = false) const;
    // Takes what its run's rewinds hide now (`hidden`, merged); a change drops its summary
    // (built again, and summarize() goes through every series again) and finds its last shown
    // point. An error: that point could not be read.
    Status refreshView(StoredSeries *series, std::vector<IndexRange> hidden);
    Status refreshRun(const QString &run);
    // How many of the points shown stand before `resume`'s checkpoint: those up to the last one
    // not past it (later ones are what the run logged after it last stood there).
    Result<qint64> keptBy(const StoredSeries &series, const Resume &resume) const;
    static qint64 keptBy(const SampleTag &tag, const Resume &resume); // stored items, the same way
    // A rewind's hidden ranges for `run`; its record in `journal` unless it hides nothing.
    Result<Rewind> planRewind(const QString &run, const Resume &resume, QByteArray *journal) const;
    // Whether summarize() should read the series: no summary, or one behind its count, and no
    // failed read at this count.
    static bool needsSummary(const StoredSeries &series);
    // Brings its summary up to date from its points; a failed read is noted in the series.
    void summarizeOne(StoredSeries *series);

    QStringList m_recoveryNotes;
    QStringList m_lossNotes; // this start's notes about stored data, kept until acknowledged
    StoreDirectory m_directory;
    std::function<void(const QString &run)> m_appended;
    UniqueFd m_lock; // held (flock) while the store is open; released after the journal closes
    Journal m_journal{m_directory};
    qint64 m_compactAt = 0; // journal size that triggers the next compaction
    DataFiles m_data{m_directory, &m_recoveryNotes};
    SummariesCache m_summaries{m_directory};
    RunIndex m_runs;
    BatchLedger m_batches;
    SeriesTable m_series;
    SampleTable m_samples;
    RewindTable m_rewinds;
    quint32 m_format = store_records::kFormat; // what the journal says of itself
    // Series before this one have a summary (see summarize()), unless a rewind changed one since.
    std::size_t m_summarized = 0;
    // Room of deleted series and blobs not given back yet: a reader held it (the lease), or the
    // disk refused. The journal holds RunDeleted records until it is all given back.
    struct Freed {
        std::vector<Extent> room;
        std::weak_ptr<const char> lease;
    };
    std::vector<Freed> m_freed;
    bool m_deletionsInJournal = false;
    // runsInOrder() and seriesOfEachRun(), with the generations they were made at.
    struct RunColumns {
        quint64 runs = ~quint64(0);
        quint64 series = ~quint64(0);
        std::vector<const RunInfo *> inOrder;
        QHash<QString, SeriesColumn> seriesByMetric; // the last metrics asked
    };
    mutable RunColumns m_columns;
    // Drops the columns made before the last change.
    void keepColumnsCurrent() const;
};

} // namespace sb
