#pragma once

#include "SeriesTable.h"
#include "metrics/PointSource.h"
#include "storage/StoreDirectory.h"
#include "util/Result.h"

#include <QByteArray>
#include <QStringList>

namespace sb {

// The series' summaries, kept up to date in memory and saved to the store's `summaries` file
// (CRC-framed records of SeriesSummary::saved, each giving a series' summary from some block
// on), so that the first query after a restart reads only points appended since. A cache: a
// summary that is missing, damaged or longer than its series is built again, and one is never
// built from a read that failed.
class SummariesCache {
public:
    explicit SummariesCache(const StoreDirectory &directory)
        : m_directory(directory) {}
    // Reads the summaries file into the series' summaries (`byId`: SeriesTable::byId()); a torn
    // tail is cut.
    void load(const SeriesTable &series, const QHash<quint32, StoredSeries *> &byId,
              QStringList *notes);
    // Writes what changed since the last call; the file is rewritten whole when mostly stale, or
    // when `afresh` (series were deleted: no record of theirs may outlive their ids).
    Status save(const SeriesTable &series, QStringList *notes, bool afresh = false);
    // Brings a series' summary up to date with `points`. When a read failed, the summary keeps
    // the points before the failed chunk (none: no summary), the series notes the count it
    // failed at (StoredSeries::unreadableAt), and the error says why.
    static Status update(StoredSeries &series, const PointSource &points);
    static std::size_t memoryBytes(const SeriesTable &series);

private:
    // Appends records to the summaries file, or replaces it with them (`whole`).
    Status write(const QByteArray &records, bool whole, QStringList *notes);

    const StoreDirectory &m_directory;
    qint64 m_size = 0; // bytes in the summaries file
};

} // namespace sb
