#pragma once

#include "ClickHouse.h"
#include "metrics/CollectorApi.h"
#include "metrics/Downsampler.h"
#include "metrics/RunQuery.h"
#include "metrics/SeriesSummary.h"
#include "metrics/store/MetricStore.h"

#include <QCache>
#include <QMutex>

#include <functional>
#include <memory>
#include <vector>

namespace sb {

// A lab collector's reads, answered from the lab's ClickHouse in SQL: every run of the project,
// whichever collector shipped it (LabForwarder). Answers are the embedded store's, to the point:
// /series' M4 is computed per pixel column in one statement, with the columns mapped as
// downsampleM4 maps them. What needs every point (smoothing, an x metric, a log x axis, groups)
// reads the series whole, bounded by mostPointsRead.
//
// Calls block (ClickHouse over HTTP): the collector makes them on a thread of their own. It
// holds nothing that changes, so several may run at once.
class LabReader {
public:
    struct Options {
        // Best a user of readonly = 2 (it may set its limits, never write): see installers/lab.
        ClickHouse::Options server;
        QString project = QStringLiteral("default");
        // Points a request may read whole: 24 bytes each in memory, 40 on the wire (one
        // statement's answer holds 6.7 M).
        qint64 mostPointsRead = 6'000'000;
        int queryLimitS = 10; // a statement past this is ended by ClickHouse
        // A series of this many points or more is charted from its blocks (LabSchema) where a
        // pixel column holds many of them: exact within each column, and at a column's edge
        // each block's own first, last and extreme points stand for it. Fewer, and a window
        // zoomed in, are read point by point, the blocks saying where.
        qint64 summariesFrom = 1'000'000;
    };
    explicit LabReader(Options options);

    const Options &options() const { return m_options; }
    // The same server's reads of another project, sharing this reader's cache (its keys name
    // the project) and last error.
    std::shared_ptr<const LabReader> forProject(const QString &project) const;
    // Why the last read of ClickHouse failed; empty once one succeeded (for /health).
    QString lastError() const;
    // As Collector::runs: name order (as UTF-8 bytes), `limit` after `offset`; `now` for the
    // query's times.
    Result<QList<RunSummary>> runs(const QString &filter, qsizetype offset, qsizetype limit,
                                   const RunQuery *where, double now) const;
    // The metrics of these runs (every run's when empty), sorted.
    Result<QStringList> metrics(const QStringList &runs) const;
    // As MetricStore::query, each answer in the order asked; the failure is ClickHouse's. Answers
    // are kept, and given again while their series and window are the same.
    Result<std::vector<Result<Downsampled>>>
    query(const std::vector<MetricStore::SeriesName> &names, const SeriesWindow &window) const;
    // Series read whole, to compute on as the embedded store's (MetricStore::Opened): each
    // name's, or why it has none. With `xMetric`, each point's step is that metric's value at
    // the step (MetricAxisSource).
    Result<std::vector<Result<MetricStore::Opened>>>
    load(const std::vector<MetricStore::SeriesName> &names, const QString &xMetric = {}) const;
    // A series' points a page at a time, as an export reads them; its size is what ClickHouse
    // held when opened.
    Result<std::unique_ptr<PointSource>> pages(const QString &run, const QString &metric) const;

private:
    struct Extent {
        qint64 count = 0;
        double minStep = 0, maxStep = 0, minWall = 0, maxWall = 0;
    };
    // Where each run began (its info's start; unset when it says none), its info's newest
    // version (a run deleted and shipped again under its name has a newer one), and what its
    // rewinds hide: the stored points of each series (sorted, merged), by metric.
    struct Started {
        std::optional<double> start;
        quint64 version = 0;
        QHash<QString, std::vector<IndexRange>> hidden;
        std::vector<RewindSummary> rewinds;
    };
    Result<QHash<QString, Started>> starts(const QStringList &runs) const;
    // Each named series' count and extents, of the points its run's rewinds leave shown; a
    // missing one is unset.
    Result<std::vector<std::optional<Extent>>>
    extents(const std::vector<MetricStore::SeriesName> &names,
            const QHash<QString, Started> &started) const;
    // What reading these series needs first: the names, then each run's x metric once (with
    // `xMetric`), their runs' starts, and each one's extent.
    struct Survey {
        std::vector<MetricStore::SeriesName> read;
        QHash<QString, std::size_t> xAt;            // run -> its x metric's place in `read`
        QHash<QString, Started> started;            // by run
        std::vector<std::optional<Extent>> extents; // by place in `read`
    };
    Result<Survey> survey(const std::vector<MetricStore::SeriesName> &names,
                          const QString &xMetric) const;
    // A run's series of which a rewind hides points, summed over the points shown (the series
    // table sums them all).
    struct Shown {
        MetricSummary summary;
        Extent extent;
    };
    Result<QHash<QString, Shown>>
    shown(const QString &run, const QHash<QString, std::vector<IndexRange>> &hidden) const;
    static Status readShown(const QByteArray &answer, QHash<QString, Shown> *out);
    // The runs' summaries of series that rewinds hide points of, made over the points shown.
    Status summarizeShown(QList<RunSummary> *runs, const QHash<QString, Started> &started) const;
    // Metric summaries of runs (all runs' when `runs` is empty) or of metrics.
    Status addSummaries(QList<RunSummary> *runs, const QStringList &metrics) const;
    // Curves not in the cache: M4 in SQL, or read whole and downsampled here. `passing` is set
    // for each answer not to keep (read from blocks written twice, which a delete's mutation
    // still running may leave of an earlier run of its name).
    Result<std::vector<Result<Downsampled>>>
    compute(const std::vector<MetricStore::SeriesName> &names, const SeriesWindow &window,
            const std::vector<std::optional<Extent>> &extents,
            const QHash<QString, Started> &origins, std::vector<char> *passing) const;
    // How a long series' M4 reads it, by what its blocks say of the window (planBlocks()).
    struct Frame;
    struct BlockPlan {
        enum Kind { Points, Blocks } kind = Points;
        // " AND (...)": the points read one by one (a Blocks plan: those beside its blocks);
        // empty: all
        QString bound;
        qint64 whole = 0;     // a Blocks plan: the blocks before this one are read
        bool doubled = false; // a Blocks plan: some block has two rows (not merged yet)
    };
    Result<std::vector<BlockPlan>> planBlocks(const std::vector<MetricStore::SeriesName> &names,
                                              const std::vector<std::optional<Frame>> &frames,
                                              const SeriesWindow &window) const;
    Result<std::vector<Result<Downsampled>>> m4(const std::vector<MetricStore::SeriesName> &names,
                                                const SeriesWindow &window,
                                                const std::vector<std::optional<Extent>> &extents,
                                                const QHash<QString, Started> &origins,
                                                std::vector<char> *passing) const;
    Result<QByteArray> select(const QString &sql) const;
    // SELECTs of the same columns, asked as few statements (UNION ALL, kSeriesPerStatement
    // each and within kLongestStatement); `read` takes the rows of each answer.
    Status selectAll(const QStringList &selects,
                     const std::function<void(RowBinaryReader &)> &read) const;

    Options m_options;
    ClickHouse m_server;
    QString m_project; // quoted
    // Curves answered, by what they depend on (query()): a finished run's chart that many GUIs
    // show is computed once. Costs its bytes; the least recently asked go first.
    static constexpr qint64 kCacheBytes = qint64(64) << 20;
    struct Shared { // by the readers of every project
        QMutex errorLock;
        QString lastError;
        QMutex cacheLock;
        QCache<QByteArray, Downsampled> cache{kCacheBytes};
    };
    std::shared_ptr<Shared> m_shared = std::make_shared<Shared>();
};

} // namespace sb
