#pragma once

#include "RewindTable.h"
#include "metrics/MetricPoint.h"
#include "metrics/SeriesSummary.h"
#include "storage/DataFiles.h"

#include <QHash>
#include <QSet>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace sb {

// One series of the store as it stands: what is committed, where its points lie, its summary.
struct StoredSeries {
    // First, together: what a query over many runs reads of each (MetricStore::metricSummary).
    qint64 count = 0;
    // What its run's rewinds hide (sorted, merged), and what a read shows: `shownLast` is its
    // last shown point, `viewKey` tells one set of hidden points from another (0: none).
    qint64 hiddenCount = 0;
    MetricPoint shownLast;
    qint64 shown() const { return count - hiddenCount; }
    quint32 id = 0;
    QString run;
    QString metric;
    MetricPoint last;
    std::vector<IndexRange> hidden;
    quint64 viewKey = 0;
    std::optional<SeriesSummary> summary; // of the points shown
    std::vector<Extent> extents;          // in order; together the room for its points
    // What the summaries file holds: blocks before savedBlocks for good, the summary at savedCount.
    std::size_t savedBlocks = 0;
    qint64 savedCount = -1;
    // The count at which reading its points failed: summarize() skips it until the count changes.
    qint64 unreadableAt = -1;
    // Held by every reader of its points (made with the first): the room of a deleted series is
    // given back only once no reader holds it.
    mutable std::shared_ptr<const char> lease;

    qint64 capacity() const {
        qint64 held = 0;
        for (const Extent &extent : extents)
            held += extent.capacity;
        return held;
    }
};

// Every series of the store, in creation order and by run and metric. Ids are never re-used.
class SeriesTable {
public:
    static constexpr qint64 kMostIds = qint64(1) << 30;

    const std::vector<std::unique_ptr<StoredSeries>> &all() const { return m_series; }
    std::size_t size() const { return m_series.size(); }
    StoredSeries *find(const QString &run, const QString &metric) const {
        const auto it = m_byRun.constFind(run);
        return it == m_byRun.constEnd() ? nullptr : it->value(metric, nullptr);
    }
    // A run's series by metric (a copy of a shared hash).
    QHash<QString, StoredSeries *> ofRun(const QString &run) const { return m_byRun.value(run); }
    QHash<quint32, StoredSeries *> byId() const {
        QHash<quint32, StoredSeries *> ids;
        ids.reserve(qsizetype(m_series.size()));
        for (const auto &series : m_series)
            ids.insert(series->id, series.get());
        return ids;
    }
    // A series with the next id.
    StoredSeries *create(const QString &run, const QString &metric) {
        return add(m_nextId, run, metric);
    }
    // A series with this id (one a record or a file named).
    StoredSeries *add(quint32 id, const QString &run, const QString &metric) {
        auto series = std::make_unique<StoredSeries>();
        series->id = id;
        series->run = run;
        series->metric = metric;
        StoredSeries *raw = series.get();
        takeId(id);
        m_byRun[run][metric] = raw;
        m_series.push_back(std::move(series));
        ++m_generation;
        return raw;
    }
    // Forgets the series created after the first `size` (a batch rolled back); their ids stay
    // used.
    void truncate(std::size_t size) {
        ++m_generation;
        while (m_series.size() > size) {
            m_byRun[m_series.back()->run].remove(m_series.back()->metric);
            m_series.pop_back();
        }
    }
    // Takes these runs' series out of the table (their ids stay used), and gives them.
    std::vector<std::unique_ptr<StoredSeries>> removeRuns(const QSet<QString> &runs) {
        std::vector<std::unique_ptr<StoredSeries>> removed;
        std::vector<std::unique_ptr<StoredSeries>> kept;
        kept.reserve(m_series.size());
        for (auto &series : m_series)
            (runs.contains(series->run) ? removed : kept).push_back(std::move(series));
        m_series = std::move(kept);
        for (const QString &run : runs)
            m_byRun.remove(run);
        ++m_generation;
        return removed;
    }
    // Counts the series added and removed: what a cache of them is keyed by.
    quint64 generation() const { return m_generation; }
    // No new series takes this id, or any below it.
    void takeId(quint32 id) { m_nextId = std::max(m_nextId, id + 1); }

private:
    quint64 m_generation = 0;
    std::vector<std::unique_ptr<StoredSeries>> m_series;
    QHash<QString, QHash<QString, StoredSeries *>> m_byRun;
    quint32 m_nextId = 0; // above every id the journal or the series directory ever held
};

} // namespace sb
