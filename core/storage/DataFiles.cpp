#include "DataFiles.h"

#include "StoreFiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QtEndian>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sb {

using namespace Qt::StringLiterals;

namespace {
constexpr QByteArrayView kDataMagic = "SBDATA01";

// Whether a file holds nothing past its header but holes (deleted runs' room given back).
bool onlyHolesAfterHeader(const QString &path) {
    const UniqueFd fd(::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC));
    return fd.valid() && ::lseek(fd.get(), DataFiles::kHeaderSize, SEEK_DATA) < 0 && errno == ENXIO;
}

} // namespace

QByteArray DataFiles::header(QByteArrayView magic) {
    char header[kHeaderSize] = {};
    std::memcpy(header, magic.data(), magic.size());
    qToLittleEndian<quint32>(1, header + 8);
    qToLittleEndian<quint32>(kPointBytes, header + 12);
    return QByteArray(header, kHeaderSize);
}

bool DataFiles::plausible(const Extent &extent) {
    // Never past what allocation makes: a larger one cannot be ours. The capacity is checked
    // first, so that the end's bound cannot overflow whatever the record says.
    return extent.file < kMostFiles && extent.capacity > 0 && extent.capacity <= kLargestExtent &&
           extent.offset >= kHeaderSize &&
           extent.offset <= kFileBytes - extent.capacity * kPointBytes;
}

QString DataFiles::path(quint32 number) const {
    return m_directory.filePath(name(number));
}

QString DataFiles::name(quint32 number) const {
    return u"data/%1.dat"_s.arg(number);
}

Status DataFiles::recover(const QSet<quint32> &named, QHash<quint32, qint64> *sizes,
                          QStringList *lossNotes) {
    // A data file no record names (a lost or damaged journal) is kept aside whole, never written
    // over; one that holds only its header (a batch that failed) has nothing to keep.
    const QDir dataDir(m_directory.filePath(u"data"_s));
    auto keep = [&](const QString &entry) {
        const auto parsed = StoreDirectory::parseNumbered(entry, u".dat", kMostFiles);
        if (parsed.number) {
            m_nextFile = std::max(m_nextFile, *parsed.number + 1);
            if (parsed.suffixed && named.contains(*parsed.number))
                return true;
        }
        return (QFileInfo(dataDir.filePath(entry)).size() <= kHeaderSize ||
                onlyHolesAfterHeader(dataDir.filePath(entry))) &&
               QFile::remove(dataDir.filePath(entry));
    };
    if (Status kept = m_directory.keepUnnamed(u"data"_s, keep, lossNotes); !kept)
        return kept;
    // The named ones, opened; a foreign header is kept aside and its points are lost.
    const QByteArray expectedHeader = header(kDataMagic);
    for (const quint32 number : named) {
        m_nextFile = std::max(m_nextFile, number + 1);
        const auto opened = m_directory.openFile(name(number), O_RDWR, lossNotes);
        if (!opened)
            return opened.failure();
        const int fd = *opened;
        if (fd < 0) {
            *lossNotes << u"data/%1.dat is missing: the points it held are lost"_s.arg(number);
            continue;
        }
        auto file = std::make_shared<File>(fd);
        struct stat info {};
        char head[kHeaderSize];
        if (::fstat(fd, &info) != 0 || info.st_size < kHeaderSize ||
            !readFully(fd, head, kHeaderSize, 0) ||
            QByteArrayView(head, kHeaderSize) != expectedHeader) {
            file.reset();
            const auto kept =
                m_directory.keepInLostFound(path(number), u"data-%1.dat.bad-header"_s.arg(number));
            if (!kept)
                return fail(kept.error());
            *lossNotes << u"data/%1.dat does not start with a Signalbox data header; kept in "
                          "%2, the points it held are lost"_s.arg(number)
                              .arg(*kept);
            continue;
        }
        sizes->insert(number, info.st_size);
        if (m_files.size() <= number)
            m_files.resize(number + 1);
        m_files[number] = std::move(file);
    }
    return success();
}

void DataFiles::removeAll() {
    const QDir dataDir(m_directory.filePath(u"data"_s));
    for (const QString &entry : dataDir.entryList(QDir::Files))
        (void)QFile::remove(dataDir.filePath(entry));
}

void DataFiles::reserve(const Extent &extent) {
    if (isOpen(extent.file))
        m_files[extent.file]->end =
            std::max(m_files[extent.file]->end, extent.offset + extent.capacity * kPointBytes);
}

Result<DataFiles::File *> DataFiles::create(quint32 number) {
    if (isOpen(number))
        return m_files[number].get();
    const QByteArray target = QFile::encodeName(path(number));
    // O_EXCL: a file already there is someone's data, never written over.
    int fd = ::open(target.constData(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) {
        if (const auto kept =
                m_directory.keepInLostFound(path(number), u"data-%1.dat.in-the-way"_s.arg(number)))
            *m_notes << u"data/%1.dat was in the way of a new data file: kept in %2"_s.arg(number)
                            .arg(*kept);
        fd = ::open(target.constData(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    }
    if (fd < 0)
        return fail(systemError(u"cannot create %1"_s.arg(path(number))), ErrorCode::StorageFailed);
    auto file = std::make_shared<File>(fd);
    const QByteArray head = header(kDataMagic);
    if (!writeFully(fd, head.constData(), kHeaderSize, 0))
        return fail(systemError(u"cannot write %1"_s.arg(path(number))), ErrorCode::StorageFailed);
    if (m_files.size() <= number)
        m_files.resize(number + 1);
    m_files[number] = std::move(file);
    m_nextFile = std::max(m_nextFile, number + 1);
    return m_files[number].get();
}

Result<Extent> DataFiles::allocate(qint64 held, qint64 points) {
    return place(std::clamp(std::max<qint64>(held, std::bit_ceil(quint64(points))), kFirstExtent,
                            kLargestExtent));
}

Result<Extent> DataFiles::allocateBytes(qint64 bytes) {
    const qint64 capacity = std::max<qint64>(1, (bytes + kPointBytes - 1) / kPointBytes);
    if (capacity > kLargestExtent)
        return fail(u"%1 bytes are more than one extent holds"_s.arg(bytes));
    return place(capacity);
}

Result<Extent> DataFiles::place(qint64 capacity) {
    auto file = create(m_fillFile);
    if (file && (*file)->end + capacity * kPointBytes > kFileBytes) {
        m_fillFile = m_nextFile;
        file = create(m_fillFile);
    }
    if (!file)
        return file.failure();
    const Extent extent{m_fillFile, (*file)->end, capacity};
    (*file)->end += capacity * kPointBytes;
    return extent;
}

Status DataFiles::write(const Extent &extent, qint64 at, const char *points, qint64 count) {
    if (!writeFully(m_files[extent.file]->fd.get(), points, count * kPointBytes,
                    extent.offset + at * kPointBytes))
        return fail(systemError(u"cannot write %1"_s.arg(path(extent.file))));
    m_unsynced.insert(extent.file);
    return success();
}

Status DataFiles::writeBytes(const Extent &extent, QByteArrayView bytes) {
    if (!writeFully(m_files[extent.file]->fd.get(), bytes.data(), bytes.size(), extent.offset))
        return fail(systemError(u"cannot write %1"_s.arg(path(extent.file))));
    m_unsynced.insert(extent.file);
    return success();
}

Status DataFiles::sync() {
    for (const quint32 number : std::as_const(m_unsynced)) {
        if (isOpen(number) && ::fdatasync(m_files[number]->fd.get()) != 0)
            return fail(systemError(u"cannot sync %1"_s.arg(path(number))));
    }
    m_unsynced.clear();
    return success();
}

Status DataFiles::release(const Extent &extent) {
    if (!isOpen(extent.file))
        return success();
    if (::fallocate(m_files[extent.file]->fd.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                    extent.offset, extent.capacity * kPointBytes) != 0 &&
        errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL) // no holes there: kept
        return fail(systemError(u"cannot give back room in %1"_s.arg(path(extent.file))));
    return success();
}

DataFiles::Mark DataFiles::mark() const {
    Mark mark;
    mark.ends.reserve(m_files.size());
    for (const auto &file : m_files)
        mark.ends.push_back(file ? file->end : 0);
    mark.fillFile = m_fillFile;
    return mark;
}

void DataFiles::rollBack(const Mark &mark) {
    for (std::size_t i = 0; i < m_files.size(); ++i) {
        if (!m_files[i])
            continue;
        if (i < mark.ends.size() && mark.ends[i] > 0) {
            m_files[i]->end = mark.ends[i];
            continue;
        }
        // Created since the mark: what it holds is of no record, and a file of only its header
        // is removed quietly at the next open (a failure here leaves it to lost+found instead).
        m_files[i]->end = kHeaderSize;
        (void)::ftruncate(m_files[i]->fd.get(), kHeaderSize);
    }
    m_fillFile = mark.fillFile;
}

} // namespace sb
