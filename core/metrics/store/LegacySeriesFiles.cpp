#include "LegacySeriesFiles.h"

#include "storage/StoreFiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sb {

using namespace Qt::StringLiterals;

namespace {
constexpr QByteArrayView kSeriesMagic = "SBPOINTS";
constexpr qint64 kHeaderSize = DataFiles::kHeaderSize;
constexpr qint64 kPointSize = DataFiles::kPointBytes;
} // namespace

QString LegacySeriesFiles::path(quint32 id) const {
    return m_directory.filePath(u"series/%1.pts"_s.arg(id));
}

bool LegacySeriesFiles::present() const {
    return QFileInfo(m_directory.filePath(u"series"_s)).isDir();
}

Status LegacySeriesFiles::load(const QHash<quint32, qint64> &committedCounts,
                               const QHash<quint32, StoredSeries *> &byId) {
    QHash<quint32, qint64> committed = committedCounts;
    // A series file no journal record names (a lost or damaged journal) is kept aside, never
    // overwritten by a new series; and no new series takes its number.
    auto keep = [&](const QString &name) {
        const auto parsed = StoreDirectory::parseNumbered(name, u".pts", SeriesTable::kMostIds);
        if (!parsed.number)
            return false;
        m_series.takeId(*parsed.number);
        return parsed.suffixed && byId.contains(*parsed.number);
    };
    if (Status kept = m_directory.keepUnnamed(u"series"_s, keep, m_lossNotes); !kept)
        return kept;

    const QByteArray expectedHeader = DataFiles::header(kSeriesMagic);
    for (const auto &series : m_series.all()) {
        const QString filePath = path(series->id);
        const QString where = u"series %1/%2"_s.arg(series->run, series->metric);
        auto opened = m_directory.openFile(u"series/%1.pts"_s.arg(series->id), O_RDWR, m_lossNotes);
        if (!opened)
            return opened.failure();
        UniqueFd fd(*opened);
        struct stat info {};
        if (fd.valid() && ::fstat(fd.get(), &info) == 0 && info.st_size >= kHeaderSize) {
            char header[kHeaderSize];
            if (!readFully(fd.get(), header, kHeaderSize, 0))
                return fail(systemError(u"cannot read %1"_s.arg(filePath)));
            if (QByteArrayView(header, kHeaderSize) != expectedHeader) {
                const auto kept = m_directory.keepInLostFound(
                    filePath, u"series-%1.pts.bad-header"_s.arg(series->id));
                if (!kept)
                    return fail(kept.error());
                *m_lossNotes << u"%1: the file's header is not a Signalbox series header; kept "
                                "in %2, the series starts again empty (%3 points)"_s
                                    .arg(where, *kept)
                                    .arg(committed.value(series->id, 0));
                committed.remove(series->id);
                fd.reset();
            }
        } else if (fd.valid() && info.st_size > 0) {
            const auto kept =
                m_directory.keepInLostFound(filePath, u"series-%1.pts.short"_s.arg(series->id));
            if (!kept)
                return fail(kept.error());
            *m_lossNotes << u"%1: the file is shorter than its header; kept in %2"_s.arg(where,
                                                                                         *kept);
            fd.reset();
        }
        if (!fd.valid() || info.st_size < kHeaderSize) {
            fd.reset(openStoreFile(filePath, O_RDWR | O_CREAT | O_TRUNC).fd);
            if (!fd.valid() || !writeFully(fd.get(), expectedHeader.constData(), kHeaderSize, 0) ||
                ::ftruncate(fd.get(), kHeaderSize) != 0)
                return fail(systemError(u"cannot write %1"_s.arg(filePath)));
            info.st_size = kHeaderSize;
        }
        const qint64 onDisk = (info.st_size - kHeaderSize) / kPointSize;
        const qint64 committedCount = committed.value(series->id, 0);
        series->count = std::min(onDisk, committedCount);
        if (onDisk > committedCount) {
            *m_recoveryNotes << u"%1: cut %2 uncommitted points (never acknowledged)"_s.arg(where)
                                    .arg(onDisk - committedCount);
        } else if (onDisk < committedCount) {
            *m_lossNotes << u"%1: %2 committed points were lost by the disk"_s.arg(where).arg(
                committedCount - onDisk);
        }
        if (info.st_size != kHeaderSize + series->count * kPointSize &&
            ::ftruncate(fd.get(), kHeaderSize + series->count * kPointSize) != 0)
            return fail(systemError(u"cannot truncate %1"_s.arg(filePath)));
        if (series->count > 0 &&
            !readFully(fd.get(), reinterpret_cast<char *>(&series->last), kPointSize,
                       kHeaderSize + (series->count - 1) * kPointSize))
            return fail(systemError(u"cannot read %1"_s.arg(filePath)));
    }
    return success();
}

Status LegacySeriesFiles::copyInto(DataFiles &files, const Allocate &allocate) {
    for (const auto &series : m_series.all()) {
        const QString filePath = path(series->id);
        const UniqueFd from(openStoreFile(filePath, O_RDONLY).fd);
        std::vector<MetricPoint> buffer;
        for (qint64 copied = 0; copied < series->count;) {
            auto extent = allocate(series.get(), series->count - copied);
            if (!extent)
                return extent.failure();
            const qint64 n = std::min(series->count - copied, extent->capacity);
            buffer.resize(std::size_t(n));
            char *bytes = reinterpret_cast<char *>(buffer.data());
            if (!from.valid() ||
                !readFully(from.get(), bytes, n * kPointSize, kHeaderSize + copied * kPointSize))
                return fail(systemError(u"cannot move %1 into a data file"_s.arg(filePath)));
            if (Status written = files.write(*extent, 0, bytes, n); !written)
                return fail(systemError(u"cannot move %1 into a data file"_s.arg(filePath)));
            copied += n;
        }
    }
    return success();
}

void LegacySeriesFiles::removeMoved() {
    qint64 points = 0;
    for (const auto &series : m_series.all()) {
        (void)QFile::remove(path(series->id));
        points += series->count;
    }
    (void)QDir().rmdir(m_directory.filePath(u"series"_s));
    *m_recoveryNotes << u"moved %1 series (%2 points) from series files into data files, the "
                        "store's new layout"_s.arg(m_series.size())
                            .arg(points);
}

Status LegacySeriesFiles::clearLeftovers(const QHash<quint32, StoredSeries *> &byId) {
    const QDir seriesDir(m_directory.filePath(u"series"_s));
    auto moved = [&](const QString &name) {
        const auto parsed = StoreDirectory::parseNumbered(name, u".pts", SeriesTable::kMostIds);
        if (!parsed.suffixed || !parsed.number || !byId.contains(*parsed.number))
            return false;
        (void)QFile::remove(seriesDir.filePath(name));
        return true;
    };
    if (Status kept = m_directory.keepUnnamed(u"series"_s, moved, m_lossNotes); !kept)
        return kept;
    if (seriesDir.exists())
        (void)QDir().rmdir(seriesDir.path());
    return success();
}

} // namespace sb
