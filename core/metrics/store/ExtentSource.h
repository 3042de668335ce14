#pragma once

#include "RewindTable.h"
#include "metrics/PointSource.h"
#include "storage/DataFiles.h"
#include "util/Result.h"

#include <QString>

#include <memory>
#include <mutex>
#include <vector>

namespace sb {

// A series' points across its extents, read with pread (on any thread): the downsampler's and
// the exporter's source. Holds the data files open while it lives. A read that fails (an I/O
// error, a file cut short) gives zeros and is kept as failure(): never taken for points.
class ExtentSource final : public PointSource {
public:
    struct Piece {
        std::shared_ptr<const DataFiles::File> file;
        quint32 number; // of the file, for errors
        qint64 offset;  // bytes into the file
        qint64 first;   // the series' index of its first point
        qint64 capacity;
    };
    // `series`: run/metric, for errors.
    // `lease`: the series' (StoredSeries::lease), held while the source lives.
    ExtentSource(QString series, std::vector<Piece> pieces, qint64 count,
                 std::vector<IndexRange> hidden = {}, std::shared_ptr<const char> lease = {})
        : m_series(std::move(series))
        , m_pieces(std::move(pieces))
        , m_count(count)
        , m_hidden(std::move(hidden))
        , m_shown(m_count - rangesLength(m_hidden))
        , m_lease(std::move(lease)) {}
    qint64 size() const override { return m_shown; }
    void read(qint64 first, qint64 count, MetricPoint *out) const override;
    QString failure() const override;
    // Whether every point lies within its file as the file is now: a file cut short shows before
    // anything is read (an export's answer is then an error, not a cut CSV).
    Status check() const;

private:
    // Points [first, first + count) as stored, hidden or not.
    void readStored(qint64 first, qint64 count, MetricPoint *out) const;
    // Keeps the first failure: `error` (errno) reading point `at` of `piece`, 0 where it ended.
    void failed(const Piece &piece, qint64 at, int error) const;
    QString where(const Piece &piece) const;

    QString m_series;
    std::vector<Piece> m_pieces;
    qint64 m_count;
    std::vector<IndexRange> m_hidden;
    qint64 m_shown;
    std::shared_ptr<const char> m_lease;
    mutable std::mutex m_failureMutex; // taken only once a read failed, and by failure()
    mutable QString m_failure;
};

} // namespace sb
