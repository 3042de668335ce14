#include "ExtentSource.h"

#include "storage/StoreFiles.h"

#include <algorithm>
#include <cerrno>
#include <sys/stat.h>

namespace sb {

using namespace Qt::StringLiterals;

static_assert(sizeof(MetricPoint) == DataFiles::kPointBytes);

void ExtentSource::read(qint64 first, qint64 count, MetricPoint *out) const {
    std::size_t next = 0;
    qint64 at = storedIndex(m_hidden, first, &next);
    auto range = m_hidden.begin() + std::ptrdiff_t(next);
    while (count > 0) {
        const qint64 n = range == m_hidden.end() ? count : std::min(count, range->first - at);
        readStored(at, n, out);
        out += n;
        count -= n;
        if (range == m_hidden.end())
            break;
        at = range->end;
        ++range;
    }
}

void ExtentSource::readStored(qint64 first, qint64 count, MetricPoint *out) const {
    auto piece = std::upper_bound(m_pieces.begin(), m_pieces.end(), first,
                                  [](qint64 at, const Piece &p) { return at < p.first; });
    if (piece != m_pieces.begin())
        --piece;
    for (; count > 0 && piece != m_pieces.end(); ++piece) {
        const qint64 within = first - piece->first;
        const qint64 n = std::min(count, piece->capacity - within);
        if (within < 0 || n <= 0)
            break;
        if (!readFully(piece->file->fd.get(), reinterpret_cast<char *>(out),
                       n * DataFiles::kPointBytes,
                       piece->offset + within * DataFiles::kPointBytes)) {
            failed(*piece, first, errno);
            std::fill_n(out, n, MetricPoint{});
        }
        out += n;
        first += n;
        count -= n;
    }
    if (count > 0) {
        const std::lock_guard lock(m_failureMutex);
        if (m_failure.isEmpty())
            m_failure =
                u"cannot read the points of %1: no extent holds point %2"_s.arg(m_series).arg(
                    first);
        std::fill_n(out, count, MetricPoint{});
    }
}

QString ExtentSource::where(const Piece &piece) const {
    return u"cannot read the points of %1: data/%2.dat"_s.arg(m_series).arg(piece.number);
}

void ExtentSource::failed(const Piece &piece, qint64 at, int error) const {
    // qt_error_string (strerror_r), not strerror: reads run on any thread.
    const QString why =
        error != 0 ? u"%1 at point %2: %3"_s.arg(where(piece)).arg(at).arg(qt_error_string(error))
                   : u"%1 ends before point %2 (cut short)"_s.arg(where(piece)).arg(at);
    const std::lock_guard lock(m_failureMutex);
    if (m_failure.isEmpty())
        m_failure = why;
}

QString ExtentSource::failure() const {
    const std::lock_guard lock(m_failureMutex);
    return m_failure;
}

Status ExtentSource::check() const {
    for (const Piece &piece : m_pieces) {
        const qint64 points = std::min(piece.capacity, m_count - piece.first);
        struct stat info {};
        if (::fstat(piece.file->fd.get(), &info) != 0)
            return fail(u"%1: %2"_s.arg(where(piece), qt_error_string(errno)),
                        ErrorCode::StorageFailed);
        if (info.st_size < piece.offset + points * DataFiles::kPointBytes)
            return fail(u"%1 ends before point %2 (cut short)"_s.arg(where(piece))
                            .arg(piece.first + std::max<qint64>(0, (info.st_size - piece.offset) /
                                                                       DataFiles::kPointBytes)),
                        ErrorCode::StorageFailed);
    }
    return success();
}

} // namespace sb
