#include "MetricStore.h"

#include "MetricAxis.h"
#include "storage/StoreFiles.h"
#include "util/Crc32c.h"
#include "util/Files.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtEndian>

#include <bit>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr quint32 kJournalMagic = 0x314A4253;         // "SBJ1"
constexpr QByteArrayView kJournalMagicBytes = "SBJ1"; // the same, as it lies on disk
constexpr qint64 kMaxSeriesId = qint64(1) << 30;
constexpr QByteArrayView kSeriesMagic = "SBPOINTS";
constexpr qint64 kHeaderSize = 16;
constexpr qint64 kPointSize = sizeof(MetricPoint);
constexpr qint64 kCompactJournalAt = 8 << 20;
constexpr QByteArrayView kDataMagic = "SBDATA01";
constexpr quint32 kFormat = 2;                     // data files; 1 (no format record): series files
constexpr qint64 kDataFileBytes = qint64(1) << 30; // extents go to a file up to this size
constexpr qint64 kFirstExtent = 16;                // points
constexpr qint64 kLargestExtent = qint64(1) << 20; // points (24 MiB)

enum class RecordType : quint32 {
    Run = 1,
    SeriesCreated = 2,
    Commit = 3,
    Batch = 4,
    Summary = 5, // in the summaries file
    Format = 6,
    Extent = 7,
    Series = 8,    // binary: id, the run's length, run and metric (UTF-8)
    Committed = 9, // entries of id, count and the last point (36 bytes)
    BatchKey = 10, // a batch's key (MetricStore::batchKey) as UTF-8; Batch: the earlier form
};

// A series record's payload (load() reads it back).
QByteArray seriesPayload(quint32 id, const QString &run, const QString &metric) {
    const QByteArray runText = run.toUtf8();
    char head[8];
    qToLittleEndian<quint32>(id, head);
    qToLittleEndian<quint32>(quint32(runText.size()), head + 4);
    return QByteArray(head, 8) + runText + metric.toUtf8();
}

// One committed series: its count and last point, as a commit record holds it.
void appendCommitted(QByteArray *out, quint32 id, qint64 count, const MetricPoint &last) {
    char entry[36];
    qToLittleEndian<quint32>(id, entry);
    qToLittleEndian<qint64>(count, entry + 4);
    std::memcpy(entry + 12, &last, sizeof last);
    out->append(entry, sizeof entry);
}
// How many batch ids the store remembers (a retry comes within seconds; this is hours of them).
constexpr qsizetype kRememberedBatches = 100'000;

QString systemError(const QString &what) {
    return u"%1: %2"_s.arg(what, QString::fromLocal8Bit(std::strerror(errno)));
}

bool writeAll(int fd, const char *data, qint64 size, qint64 offset = -1) {
    while (size > 0) {
        const ssize_t n = offset >= 0 ? ::pwrite(fd, data, size, offset) : ::write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= n;
        if (offset >= 0)
            offset += n;
    }
    return true;
}

bool readAll(int fd, char *data, qint64 size, qint64 offset) {
    while (size > 0) {
        const ssize_t n = ::pread(fd, data, size, offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= n;
        offset += n;
    }
    return true;
}

// A whole file of at most `maxBytes`, read from its descriptor.
bool readWhole(int fd, qint64 maxBytes, QByteArray *out) {
    struct stat info {};
    if (::fstat(fd, &info) != 0 || info.st_size > maxBytes)
        return false;
    out->resize(static_cast<qsizetype>(info.st_size));
    return readAll(fd, out->data(), info.st_size, 0);
}

void appendRecord(QByteArray *out, RecordType type, const QByteArray &payload) {
    char header[16];
    qToLittleEndian<quint32>(kJournalMagic, header);
    qToLittleEndian<quint32>(static_cast<quint32>(type), header + 4);
    qToLittleEndian<quint32>(static_cast<quint32>(payload.size()), header + 8);
    const auto typeBytes = QByteArrayView(header + 4, 4);
    qToLittleEndian<quint32>(crc32c(payload, crc32c(typeBytes)), header + 12);
    out->append(header, sizeof header);
    out->append(payload);
}

// Where the earlier layout kept a series' points.
QString seriesFilePath(const QString &directory, quint32 id) {
    return u"%1/series/%2.pts"_s.arg(directory, QString::number(id));
}

QByteArray formatPayload() {
    char version[4];
    qToLittleEndian<quint32>(kFormat, version);
    return QByteArray(version, 4);
}

QByteArray jsonPayload(const QJsonObject &object) {
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

// An open file descriptor that closes itself.
class Fd {
public:
    explicit Fd(int fd)
        : m_fd(fd) {}
    ~Fd() {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    int get() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }
    void reset(int fd = -1) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = fd;
    }

private:
    int m_fd;
};

// The 16 bytes every file of points starts with: magic, format version, point size.
QByteArray pointsHeader(QByteArrayView magic) {
    char header[kHeaderSize] = {};
    std::memcpy(header, magic.data(), magic.size());
    qToLittleEndian<quint32>(1, header + 8);
    qToLittleEndian<quint32>(kPointSize, header + 12);
    return QByteArray(header, kHeaderSize);
}

// A series' points across its extents, read with pread (on any thread): the downsampler's and
// the exporter's source. Holds the data files open while it lives.
class ExtentSource final : public PointSource {
public:
    struct Piece {
        std::shared_ptr<const void> file; // keeps `fd` open
        int fd;
        qint64 offset; // bytes into the file
        qint64 first;  // the series' index of its first point
        qint64 capacity;
    };
    ExtentSource(std::vector<Piece> pieces, qint64 count)
        : m_pieces(std::move(pieces))
        , m_count(count) {}
    qint64 size() const override { return m_count; }
    void read(qint64 first, qint64 count, MetricPoint *out) const override {
        auto piece = std::upper_bound(m_pieces.begin(), m_pieces.end(), first,
                                      [](qint64 at, const Piece &p) { return at < p.first; });
        if (piece != m_pieces.begin())
            --piece;
        for (; count > 0 && piece != m_pieces.end(); ++piece) {
            const qint64 within = first - piece->first;
            const qint64 n = std::min(count, piece->capacity - within);
            if (within < 0 || n <= 0)
                break;
            if (!readAll(piece->fd, reinterpret_cast<char *>(out), n * kPointSize,
                         piece->offset + within * kPointSize))
                std::fill_n(out, n, MetricPoint{});
            out += n;
            first += n;
            count -= n;
        }
        std::fill_n(out, std::max<qint64>(count, 0), MetricPoint{});
    }

private:
    std::vector<Piece> m_pieces;
    qint64 m_count;
};

} // namespace

struct MetricStore::Extent {
    quint32 file = 0;
    qint64 offset = 0;   // bytes into the file
    qint64 capacity = 0; // points
};

struct MetricStore::DataFile {
    explicit DataFile(int descriptor)
        : fd(descriptor) {}
    ~DataFile() { ::close(fd); }
    DataFile(const DataFile &) = delete;
    DataFile &operator=(const DataFile &) = delete;
    int fd;
    qint64 end = kHeaderSize; // where the next extent goes
};

struct MetricStore::Series {
    quint32 id = 0;
    QString run;
    QString metric;
    qint64 count = 0;
    MetricPoint last;
    std::optional<SeriesSummary> summary;
    std::vector<Extent> extents; // in order; together the room for its points
    // What the summaries file holds: blocks before savedBlocks for good, the summary at savedCount.
    std::size_t savedBlocks = 0;
    qint64 savedCount = -1;
};

MetricStore::MetricStore(QString directory)
    : m_directory(std::move(directory)) {
}

MetricStore::~MetricStore() {
    if (m_journalFd >= 0)
        ::close(m_journalFd);
    if (m_lockFd >= 0)
        ::close(m_lockFd);
}

Result<std::unique_ptr<MetricStore>> MetricStore::open(const QString &directory) {
    // Metrics are private: the store's directories are the owner's alone, and one shared with
    // others is refused rather than made private (its mode is not ours to change).
    for (const auto &[path, subdirectory] :
         {std::pair{directory, false}, std::pair{QString(directory + u"/data"_s), true}}) {
        if (Status ready = prepareStoreDirectory(path, subdirectory); !ready)
            return ready.failure();
    }
    std::unique_ptr<MetricStore> store(new MetricStore(QDir(directory).absolutePath()));
    QStringList openNotes; // files the store found in place of its own: said until acknowledged
    auto lock = store->openFile(u"lock"_s, O_RDWR | O_CREAT, &openNotes);
    if (!lock)
        return lock.failure();
    store->m_lockFd = *lock;
    if (::flock(store->m_lockFd, LOCK_EX | LOCK_NB) != 0)
        return fail(u"the store %1 is in use by another Signalbox collector"_s.arg(directory));
    // Notes of earlier starts come first, and stay until acknowledged.
    const QString notesPath = directory + u"/recovery.json"_s;
    QStringList earlier;
    if (auto notes = store->openFile(u"recovery.json"_s, O_RDONLY, &openNotes);
        notes && *notes >= 0) {
        const Fd fd(*notes);
        QByteArray bytes;
        (void)readWhole(fd.get(), 1 << 20, &bytes); // unreadable: no earlier notes
        for (const QJsonValue note : QJsonDocument::fromJson(bytes).array())
            earlier << note.toString();
    }
    if (Status loaded = store->load(); !loaded)
        return fail(loaded.error());
    store->m_lossNotes = openNotes + store->m_lossNotes;
    // What touched stored data is said until acknowledged; a torn tail or uncommitted points
    // (never acknowledged to anyone) only this time.
    if (!store->m_lossNotes.isEmpty()) {
        const QString stamp = QDateTime::currentDateTime().toString(Qt::ISODate);
        for (QString &note : store->m_lossNotes)
            note = stamp + u": "_s + note;
        earlier += store->m_lossNotes;
        (void)writeFileAtomically(notesPath,
                                  QJsonDocument(QJsonArray::fromStringList(earlier)).toJson());
    }
    store->m_recoveryNotes = earlier + store->m_recoveryNotes;
    return store;
}

Status MetricStore::acknowledgeRecovery() {
    const QString notesPath = m_directory + u"/recovery.json"_s;
    if (QFileInfo::exists(notesPath) && !QFile::remove(notesPath))
        return fail(u"cannot remove %1"_s.arg(notesPath), ErrorCode::StorageFailed);
    m_recoveryNotes.clear();
    return success();
}

QString MetricStore::dataPath(quint32 number) const {
    return u"%1/data/%2.dat"_s.arg(m_directory, QString::number(number));
}

// The length of the whole, checksummed record at `offset`, or 0.
qint64 MetricStore::recordLength(const QByteArray &bytes, qint64 offset) {
    if (offset + 16 > bytes.size())
        return 0;
    const char *header = bytes.constData() + offset;
    const auto length = qFromLittleEndian<quint32>(header + 8);
    if (qFromLittleEndian<quint32>(header) != kJournalMagic ||
        offset + 16 + static_cast<qint64>(length) > bytes.size())
        return 0;
    const QByteArrayView payload(header + 16, length);
    if (crc32c(payload, crc32c(QByteArrayView(header + 4, 4))) !=
        qFromLittleEndian<quint32>(header + 12))
        return 0;
    return 16 + static_cast<qint64>(length);
}

Result<QString> MetricStore::keepInLostFound(const QString &path, const QString &name) {
    const QString directory = m_directory + u"/lost+found"_s;
    if (Status ready = prepareStoreDirectory(directory, true); !ready)
        return ready.failure();
    QString target = directory + u'/' + name;
    for (int n = 2; QFileInfo::exists(target) || QFileInfo(target).isSymLink(); ++n)
        target = u"%1/%2.%3"_s.arg(directory, name, QString::number(n));
    if (::rename(QFile::encodeName(path).constData(), QFile::encodeName(target).constData()) != 0)
        return fail(systemError(u"cannot move %1 to %2"_s.arg(path, target)),
                    ErrorCode::StorageFailed);
    return QString(u"lost+found/"_s + QFileInfo(target).fileName());
}

Result<int> MetricStore::openFile(const QString &name, int flags, QStringList *notes) {
    const QString path = m_directory + u'/' + name;
    StoreFile file = openStoreFile(path, flags);
    if (file.problem == StoreFile::Problem::Foreign) {
        // Never read or written through: kept whole (a link as a link) where a person can look.
        QString aside = name;
        const auto kept = keepInLostFound(path, aside.replace(u'/', u'-') + u".not-a-file"_s);
        if (!kept)
            return fail(u"%1, and %2"_s.arg(file.error, kept.error()), ErrorCode::StorageFailed);
        *notes << u"%1 was a symbolic link or not a regular file: the store never reads or "
                  "writes through one; kept in %2"_s.arg(name, *kept);
        file = openStoreFile(path, flags);
    }
    if (file.problem == StoreFile::Problem::Missing)
        return -1;
    if (file.fd < 0)
        return fail(file.error, ErrorCode::StorageFailed);
    return file.fd;
}

Status MetricStore::load() {
    const QString journalPath = m_directory + u"/journal"_s;
    // One in the journal's place that is not a file: kept aside, and the store starts as after a
    // lost journal (its data files kept in lost+found).
    auto opened = openFile(u"journal"_s, O_RDWR, &m_lossNotes);
    if (!opened)
        return opened.failure();
    const Fd journal(*opened);
    QByteArray bytes;
    if (journal.valid() && !readWhole(journal.get(), std::numeric_limits<qsizetype>::max(), &bytes))
        return fail(systemError(u"cannot read %1"_s.arg(journalPath)));

    // Every readable record counts: a damaged stretch is kept aside and reading resumes at the
    // next whole record, so one bad byte costs one record, never the rest of the store.
    QHash<quint32, qint64> committed;
    QHash<quint32, Series *> byId;
    std::vector<std::pair<quint32, Extent>> extents;
    QHash<quint32, MetricPoint> lastPoints;
    quint32 format = 1;
    bool dataRecords = false;              // any record only the data-file layout writes
    QHash<QString, qint64> runRecordBytes; // the latest record of each run: what a snapshot holds
    qint64 snapshotBytes = 0;              // of records other than runs'
    qint64 offset = 0;
    qint64 readableEnd = 0; // where the last readable record ends
    while (offset < bytes.size()) {
        const qint64 length = recordLength(bytes, offset);
        if (length == 0) {
            qint64 next = offset + 1;
            for (;; ++next) {
                next = bytes.indexOf(kJournalMagicBytes, next);
                if (next < 0 || recordLength(bytes, next) > 0)
                    break;
            }
            if (next < 0)
                next = bytes.size();
            const qint64 skipped = next - offset;
            // A write the stop cut short: a record header whose payload runs past the end.
            const bool tornTail =
                next == bytes.size() &&
                (skipped < 16 ||
                 (qFromLittleEndian<quint32>(bytes.constData() + offset) == kJournalMagic &&
                  16 + qint64(qFromLittleEndian<quint32>(bytes.constData() + offset + 8)) >
                      skipped));
            if (tornTail) {
                m_recoveryNotes << u"journal: cut the torn tail of a write the stop interrupted "
                                   "(%1 bytes at offset %2; never acknowledged)"_s.arg(skipped)
                                       .arg(offset);
            } else {
                const QString aside = m_directory + u"/journal.damaged"_s;
                Result<QString> kept = fail(u"cannot write %1"_s.arg(aside));
                if (const auto out = createStoreFile(aside); out) {
                    const Fd fd(*out);
                    if (writeAll(fd.get(), bytes.constData() + offset, skipped))
                        kept = keepInLostFound(aside, u"journal-at-%1.damaged"_s.arg(offset));
                }
                if (!kept)
                    return fail(
                        u"the journal is damaged at offset %1 and %2; not touching the store"_s
                            .arg(offset)
                            .arg(kept.error()));
                m_lossNotes << u"journal: %1 unreadable bytes at offset %2 kept in %3; reading "
                               "resumed at offset %4"_s.arg(skipped)
                                   .arg(offset)
                                   .arg(*kept)
                                   .arg(next);
            }
            offset = next;
            continue;
        }
        const char *header = bytes.constData() + offset;
        const auto type = qFromLittleEndian<quint32>(header + 4);
        const QByteArrayView payload(header + 16, length - 16);
        dataRecords = dataRecords || type >= static_cast<quint32>(RecordType::Format);
        if (type == static_cast<quint32>(RecordType::Run)) {
            const QJsonObject json = QJsonDocument::fromJson(payload.toByteArray()).object();
            const QString name = json.value(u"name"_s).toString();
            if (!name.isEmpty()) {
                m_runs[name] = RunInfo::fromJson(name, json);
                runRecordBytes[name] = length;
            }
        } else if (type == static_cast<quint32>(RecordType::SeriesCreated) ||
                   type == static_cast<quint32>(RecordType::Series)) {
            qint64 id = -1;
            QString run, metric;
            if (type == static_cast<quint32>(RecordType::Series)) {
                const quint32 runBytes =
                    payload.size() >= 8 ? qFromLittleEndian<quint32>(payload.data() + 4) : 0;
                if (payload.size() >= 8 && runBytes <= payload.size() - 8) {
                    id = qFromLittleEndian<quint32>(payload.data());
                    run = QString::fromUtf8(payload.sliced(8, runBytes));
                    metric = QString::fromUtf8(payload.sliced(8 + runBytes));
                }
            } else {
                const QJsonObject json = QJsonDocument::fromJson(payload.toByteArray()).object();
                id = json.value(u"id"_s).toInteger(-1);
                run = json.value(u"run"_s).toString();
                metric = json.value(u"metric"_s).toString();
            }
            snapshotBytes += length;
            if (id >= 0 && id < kMaxSeriesId && !byId.contains(static_cast<quint32>(id)) &&
                !run.isEmpty() && !metric.isEmpty() && !find(run, metric)) {
                auto series = std::make_unique<Series>();
                series->id = static_cast<quint32>(id);
                series->run = run;
                series->metric = metric;
                byId.insert(series->id, series.get());
                m_byRun[run][metric] = series.get();
                m_nextId = std::max(m_nextId, series->id + 1);
                if (!m_runs.contains(run))
                    m_runs[run] = RunInfo{run, {}, {}, {}, {}, {}};
                m_series.push_back(std::move(series));
            }
        } else if (type == static_cast<quint32>(RecordType::Commit)) {
            for (qint64 i = 0; i + 12 <= payload.size(); i += 12) {
                committed[qFromLittleEndian<quint32>(payload.data() + i)] =
                    std::max<qint64>(0, qFromLittleEndian<qint64>(payload.data() + i + 4));
            }
        } else if (type == static_cast<quint32>(RecordType::Committed)) {
            for (qint64 i = 0; i + 36 <= payload.size(); i += 36) {
                const auto id = qFromLittleEndian<quint32>(payload.data() + i);
                committed[id] =
                    std::max<qint64>(0, qFromLittleEndian<qint64>(payload.data() + i + 4));
                MetricPoint last;
                std::memcpy(&last, payload.data() + i + 12, sizeof last);
                lastPoints[id] = last;
            }
        } else if (type == static_cast<quint32>(RecordType::Batch) ||
                   type == static_cast<quint32>(RecordType::BatchKey)) {
            const QString key = type == static_cast<quint32>(RecordType::Batch)
                                    ? legacyBatchKey(payload)
                                    : QString::fromUtf8(payload);
            if (!key.isEmpty())
                rememberBatch(key);
            snapshotBytes += length;
        } else if (type == static_cast<quint32>(RecordType::Format) && payload.size() >= 4) {
            format = qFromLittleEndian<quint32>(payload.data());
        } else if (type == static_cast<quint32>(RecordType::Extent) && payload.size() == 24) {
            snapshotBytes += length;
            const Extent extent{qFromLittleEndian<quint32>(payload.data() + 4),
                                qFromLittleEndian<qint64>(payload.data() + 8),
                                qFromLittleEndian<qint64>(payload.data() + 16)};
            // Never past what allocation makes: a larger one cannot be ours.
            if (extent.file < kMaxSeriesId && extent.offset >= kHeaderSize && extent.capacity > 0 &&
                extent.capacity <= kLargestExtent &&
                extent.offset + extent.capacity * kPointSize <= kDataFileBytes)
                extents.emplace_back(qFromLittleEndian<quint32>(payload.data()), extent);
        }
        offset += length;
        readableEnd = offset;
    }
    if (readableEnd < bytes.size() && ::ftruncate(journal.get(), readableEnd) != 0)
        return fail(systemError(u"cannot truncate %1"_s.arg(journalPath)));
    m_journalSize = readableEnd;

    if (format > kFormat)
        return fail(u"the store %1 was written by a newer Signalbox (format %2); this one reads "
                    "format %3 and earlier"_s.arg(m_directory)
                        .arg(format)
                        .arg(kFormat));
    // The earlier layout: none of the records only data files write (one damaged record, the
    // format's say, cannot make a store of data files look like one of series files).
    const bool seriesFiles = QFileInfo(m_directory + u"/series"_s).isDir();
    if (!dataRecords && (!byId.isEmpty() || seriesFiles)) {
        if (Status loaded = loadSeriesFiles(committed, byId); !loaded)
            return loaded;
        if (Status moved = migrateSeriesFiles(); !moved)
            return moved;
    } else if (Status loaded = loadDataFiles(committed, lastPoints, extents, byId); !loaded) {
        return loaded;
    }
    snapshotBytes += 16 + 36 * qint64(m_series.size());
    for (const qint64 runBytes : std::as_const(runRecordBytes))
        snapshotBytes += runBytes;
    // After a damaged journal, extents it no longer names may hold data: none is written over.
    if (!m_lossNotes.isEmpty())
        m_fillFile = m_nextFile;

    loadSummaries();
    // Compacted when half of it or more is stale, or after a repair: a store of a million series
    // is not written again at every start.
    m_compactAt = std::max(kCompactJournalAt, 2 * snapshotBytes);
    if (m_journalSize > std::max(kCompactJournalAt / 8, 2 * snapshotBytes) ||
        !m_recoveryNotes.isEmpty() || !m_lossNotes.isEmpty()) {
        compactOrNote(); // the journal as it stands is valid: a full disk does not stop the open
    }
    if (m_journalFd < 0) {
        auto appending = openFile(u"journal"_s, O_WRONLY | O_APPEND | O_CREAT, &m_lossNotes);
        if (!appending)
            return appending.failure();
        m_journalFd = *appending;
    }
    if (m_journalSize == 0) { // a new store: its journal says its format first
        QByteArray record;
        appendRecord(&record, RecordType::Format, formatPayload());
        if (!writeAll(m_journalFd, record.constData(), record.size()))
            return fail(systemError(u"cannot write %1"_s.arg(journalPath)));
        m_journalSize = record.size();
    }
    return success();
}

Status MetricStore::loadSeriesFiles(const QHash<quint32, qint64> &committedCounts,
                                    const QHash<quint32, Series *> &byId) {
    QHash<quint32, qint64> committed = committedCounts;
    // A series file no journal record names (a lost or damaged journal) is kept aside, never
    // overwritten by a new series; and no new series takes its number.
    const QDir seriesDir(m_directory + u"/series"_s);
    for (const QString &name : seriesDir.entryList(QDir::Files)) {
        bool numbered = false;
        const qint64 id =
            QStringView(name).chopped(name.endsWith(u".pts"_s) ? 4 : 0).toLongLong(&numbered);
        if (numbered && id >= 0 && id < kMaxSeriesId) {
            m_nextId = std::max(m_nextId, static_cast<quint32>(id + 1));
            if (byId.contains(static_cast<quint32>(id)) && name.endsWith(u".pts"_s))
                continue;
        }
        const auto kept = keepInLostFound(seriesDir.filePath(name), u"series-"_s + name);
        if (!kept)
            return fail(kept.error());
        m_lossNotes << u"series/%1 is named by no journal record: kept in %2"_s.arg(name, *kept);
    }

    const QByteArray expectedHeader = pointsHeader(kSeriesMagic);
    for (const auto &series : m_series) {
        const QByteArray path = QFile::encodeName(seriesFilePath(m_directory, series->id));
        const QString where = u"series %1/%2"_s.arg(series->run, series->metric);
        auto opened = openFile(u"series/%1.pts"_s.arg(series->id), O_RDWR, &m_lossNotes);
        if (!opened)
            return opened.failure();
        Fd fd(*opened);
        struct stat info {};
        if (fd.valid() && ::fstat(fd.get(), &info) == 0 && info.st_size >= kHeaderSize) {
            char header[kHeaderSize];
            if (!readAll(fd.get(), header, kHeaderSize, 0))
                return fail(systemError(u"cannot read %1"_s.arg(QString::fromLocal8Bit(path))));
            if (QByteArrayView(header, kHeaderSize) != expectedHeader) {
                const auto kept = keepInLostFound(QString::fromLocal8Bit(path),
                                                  u"series-%1.pts.bad-header"_s.arg(series->id));
                if (!kept)
                    return fail(kept.error());
                m_lossNotes << u"%1: the file's header is not a Signalbox series header; kept "
                               "in %2, the series starts again empty (%3 points)"_s
                                   .arg(where, *kept)
                                   .arg(committed.value(series->id, 0));
                committed.remove(series->id);
                fd.reset();
            }
        } else if (fd.valid() && info.st_size > 0) {
            const auto kept = keepInLostFound(QString::fromLocal8Bit(path),
                                              u"series-%1.pts.short"_s.arg(series->id));
            if (!kept)
                return fail(kept.error());
            m_lossNotes << u"%1: the file is shorter than its header; kept in %2"_s.arg(where,
                                                                                        *kept);
            fd.reset();
        }
        if (!fd.valid() || info.st_size < kHeaderSize) {
            fd.reset(openStoreFile(QString::fromLocal8Bit(path), O_RDWR | O_CREAT | O_TRUNC).fd);
            if (!fd.valid() || !writeAll(fd.get(), expectedHeader.constData(), kHeaderSize, 0) ||
                ::ftruncate(fd.get(), kHeaderSize) != 0)
                return fail(systemError(u"cannot write %1"_s.arg(QString::fromLocal8Bit(path))));
            info.st_size = kHeaderSize;
        }
        const qint64 onDisk = (info.st_size - kHeaderSize) / kPointSize;
        const qint64 committedCount = committed.value(series->id, 0);
        series->count = std::min(onDisk, committedCount);
        if (onDisk > committedCount) {
            m_recoveryNotes << u"%1: cut %2 uncommitted points (never acknowledged)"_s.arg(where)
                                   .arg(onDisk - committedCount);
        } else if (onDisk < committedCount) {
            m_lossNotes << u"%1: %2 committed points were lost by the disk"_s.arg(where).arg(
                committedCount - onDisk);
        }
        if (info.st_size != kHeaderSize + series->count * kPointSize &&
            ::ftruncate(fd.get(), kHeaderSize + series->count * kPointSize) != 0)
            return fail(systemError(u"cannot truncate %1"_s.arg(QString::fromLocal8Bit(path))));
        if (series->count > 0 &&
            !readAll(fd.get(), reinterpret_cast<char *>(&series->last), kPointSize,
                     kHeaderSize + (series->count - 1) * kPointSize))
            return fail(systemError(u"cannot read %1"_s.arg(QString::fromLocal8Bit(path))));
    }
    return success();
}

Status MetricStore::migrateSeriesFiles() {
    // Data files no journal names: what a migration cut short had written. They go.
    const QDir dataDir(m_directory + u"/data"_s);
    for (const QString &name : dataDir.entryList(QDir::Files))
        (void)QFile::remove(dataDir.filePath(name));
    qint64 points = 0;
    QByteArray unused; // the new journal is written whole below
    for (const auto &series : m_series) {
        const QString path = seriesFilePath(m_directory, series->id);
        Fd from(openStoreFile(path, O_RDONLY).fd);
        std::vector<MetricPoint> buffer;
        for (qint64 copied = 0; copied < series->count;) {
            auto extent = allocate(series.get(), series->count - copied, &unused);
            if (!extent)
                return extent.failure();
            const qint64 n = std::min(series->count - copied, extent->capacity);
            buffer.resize(std::size_t(n));
            char *bytes = reinterpret_cast<char *>(buffer.data());
            if (!from.valid() ||
                !readAll(from.get(), bytes, n * kPointSize, kHeaderSize + copied * kPointSize) ||
                !writeAll(m_files[extent->file]->fd, bytes, n * kPointSize, extent->offset))
                return fail(systemError(u"cannot move %1 into a data file"_s.arg(path)));
            m_unsynced.insert(extent->file);
            copied += n;
        }
        points += series->count;
    }
    // The points are on disk before the journal that names them replaces the old one.
    if (Status written = compactJournal(); !written)
        return written;
    for (const auto &series : m_series)
        (void)QFile::remove(seriesFilePath(m_directory, series->id));
    (void)QDir().rmdir(m_directory + u"/series"_s);
    m_recoveryNotes << u"moved %1 series (%2 points) from series files into data files, the "
                       "store's new layout"_s.arg(m_series.size())
                           .arg(points);
    return success();
}

Status MetricStore::loadDataFiles(const QHash<quint32, qint64> &committed,
                                  const QHash<quint32, MetricPoint> &lastPoints,
                                  const std::vector<std::pair<quint32, Extent>> &extents,
                                  const QHash<quint32, Series *> &byId) {
    QSet<quint32> named;
    for (const auto &[id, extent] : extents) {
        if (byId.contains(id))
            named.insert(extent.file);
    }
    // A data file no record names (a lost or damaged journal) is kept aside whole, never written
    // over; one that holds only its header (a batch that failed) has nothing to keep.
    const QDir dataDir(m_directory + u"/data"_s);
    for (const QString &name : dataDir.entryList(QDir::Files)) {
        bool numbered = false;
        const qint64 number =
            QStringView(name).chopped(name.endsWith(u".dat"_s) ? 4 : 0).toLongLong(&numbered);
        if (numbered && number >= 0 && number < kMaxSeriesId) {
            m_nextFile = std::max(m_nextFile, quint32(number + 1));
            if (named.contains(quint32(number)) && name.endsWith(u".dat"_s))
                continue;
        }
        if (QFileInfo(dataDir.filePath(name)).size() <= kHeaderSize &&
            QFile::remove(dataDir.filePath(name)))
            continue;
        const auto kept = keepInLostFound(dataDir.filePath(name), u"data-"_s + name);
        if (!kept)
            return fail(kept.error());
        m_lossNotes << u"data/%1 is named by no journal record: kept in %2"_s.arg(name, *kept);
    }
    // The named ones, opened; a foreign header is kept aside and its points are lost.
    QHash<quint32, qint64> sizes;
    const QByteArray expectedHeader = pointsHeader(kDataMagic);
    for (const quint32 number : std::as_const(named)) {
        m_nextFile = std::max(m_nextFile, number + 1);
        const QString path = dataPath(number);
        const auto opened = openFile(u"data/%1.dat"_s.arg(number), O_RDWR, &m_lossNotes);
        if (!opened)
            return opened.failure();
        const int fd = *opened;
        if (fd < 0) {
            m_lossNotes << u"data/%1.dat is missing: the points it held are lost"_s.arg(number);
            continue;
        }
        auto file = std::make_shared<DataFile>(fd);
        struct stat info {};
        char header[kHeaderSize];
        if (::fstat(fd, &info) != 0 || info.st_size < kHeaderSize ||
            !readAll(fd, header, kHeaderSize, 0) ||
            QByteArrayView(header, kHeaderSize) != expectedHeader) {
            file.reset();
            const auto kept = keepInLostFound(path, u"data-%1.dat.bad-header"_s.arg(number));
            if (!kept)
                return fail(kept.error());
            m_lossNotes << u"data/%1.dat does not start with a Signalbox data header; kept in "
                           "%2, the points it held are lost"_s.arg(number)
                               .arg(*kept);
            continue;
        }
        sizes.insert(number, info.st_size);
        if (m_files.size() <= number)
            m_files.resize(number + 1);
        m_files[number] = std::move(file);
    }
    // Every extent keeps its room taken, whatever it holds.
    for (const auto &[id, extent] : extents) {
        if (extent.file < m_files.size() && m_files[extent.file])
            m_files[extent.file]->end =
                std::max(m_files[extent.file]->end, extent.offset + extent.capacity * kPointSize);
        if (Series *series = byId.value(id, nullptr))
            series->extents.push_back(extent);
    }
    for (const auto &series : m_series) {
        const qint64 committedCount = committed.value(series->id, 0);
        // Points readable in order: up to the first extent the disk lost, in part or whole.
        qint64 readable = 0;
        std::size_t kept = 0;
        for (const Extent &extent : series->extents) {
            if (readable >= committedCount)
                break;
            const bool open = extent.file < m_files.size() && m_files[extent.file];
            const qint64 onDisk =
                open ? std::clamp((sizes.value(extent.file) - extent.offset) / kPointSize,
                                  qint64(0), extent.capacity)
                     : 0;
            if (!open)
                break;
            readable += onDisk;
            ++kept;
            if (onDisk < extent.capacity)
                break;
        }
        series->count = std::min(readable, committedCount);
        if (series->count < committedCount)
            m_lossNotes << u"series %1/%2: %3 committed points were lost by the disk"_s
                               .arg(series->run, series->metric)
                               .arg(committedCount - series->count);
        series->extents.resize(kept); // later extents follow a gap: new points go to new ones
        const auto last = lastPoints.constFind(series->id);
        if (last != lastPoints.constEnd() && series->count == committedCount) {
            series->last = *last;
        } else if (series->count > 0) {
            Series *found = nullptr;
            auto points = reader(series->run, series->metric, &found);
            if (!points)
                return points.failure();
            (*points)->read(series->count - 1, 1, &series->last);
        }
    }
    // Leftovers of a migration whose new journal was already in place: the points moved.
    const QDir seriesDir(m_directory + u"/series"_s);
    for (const QString &name : seriesDir.entryList(QDir::Files)) {
        bool numbered = false;
        const qint64 id =
            QStringView(name).chopped(name.endsWith(u".pts"_s) ? 4 : 0).toLongLong(&numbered);
        if (numbered && byId.contains(quint32(id)) && name.endsWith(u".pts"_s)) {
            (void)QFile::remove(seriesDir.filePath(name));
            continue;
        }
        const auto kept = keepInLostFound(seriesDir.filePath(name), u"series-"_s + name);
        if (!kept)
            return fail(kept.error());
        m_lossNotes << u"series/%1 is named by no journal record: kept in %2"_s.arg(name, *kept);
    }
    if (seriesDir.exists())
        (void)QDir().rmdir(seriesDir.path());
    m_fillFile = m_nextFile > 0 ? m_nextFile - 1 : 0;
    return success();
}

Result<MetricStore::DataFile *> MetricStore::dataFile(quint32 number, bool create) {
    if (number < m_files.size() && m_files[number])
        return m_files[number].get();
    if (!create)
        return fail(u"data/%1.dat is not open"_s.arg(number), ErrorCode::StorageFailed);
    const QByteArray path = QFile::encodeName(dataPath(number));
    // O_EXCL: a file already there is someone's data, never written over.
    int fd = ::open(path.constData(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) {
        if (const auto kept = keepInLostFound(QString::fromLocal8Bit(path),
                                              u"data-%1.dat.in-the-way"_s.arg(number)))
            m_recoveryNotes
                << u"data/%1.dat was in the way of a new data file: kept in %2"_s.arg(number).arg(
                       *kept);
        fd = ::open(path.constData(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    }
    if (fd < 0)
        return fail(systemError(u"cannot create %1"_s.arg(dataPath(number))),
                    ErrorCode::StorageFailed);
    auto file = std::make_shared<DataFile>(fd);
    const QByteArray header = pointsHeader(kDataMagic);
    if (!writeAll(fd, header.constData(), kHeaderSize, 0))
        return fail(systemError(u"cannot write %1"_s.arg(dataPath(number))),
                    ErrorCode::StorageFailed);
    if (m_files.size() <= number)
        m_files.resize(number + 1);
    m_files[number] = std::move(file);
    m_nextFile = std::max(m_nextFile, number + 1);
    return m_files[number].get();
}

Result<MetricStore::Extent> MetricStore::allocate(Series *series, qint64 points,
                                                  QByteArray *journal) {
    qint64 held = 0;
    for (const Extent &extent : series->extents)
        held += extent.capacity;
    // Each new extent at least as large as all before it: a long series lies in few pieces.
    const qint64 capacity = std::clamp(std::max<qint64>(held, std::bit_ceil(quint64(points))),
                                       kFirstExtent, kLargestExtent);
    auto file = dataFile(m_fillFile, true);
    if (file && (*file)->end + capacity * kPointSize > kDataFileBytes) {
        m_fillFile = m_nextFile;
        file = dataFile(m_fillFile, true);
    }
    if (!file)
        return file.failure();
    const Extent extent{m_fillFile, (*file)->end, capacity};
    (*file)->end += capacity * kPointSize;
    series->extents.push_back(extent);
    char payload[24];
    qToLittleEndian<quint32>(series->id, payload);
    qToLittleEndian<quint32>(extent.file, payload + 4);
    qToLittleEndian<qint64>(extent.offset, payload + 8);
    qToLittleEndian<qint64>(extent.capacity, payload + 16);
    appendRecord(journal, RecordType::Extent, QByteArray(payload, sizeof payload));
    return extent;
}

void MetricStore::loadSummaries() {
    // None yet, or unreadable: summaries are built again as series are read.
    const auto opened = openFile(u"summaries"_s, O_RDWR, &m_recoveryNotes);
    if (!opened || *opened < 0)
        return;
    const Fd file(*opened);
    QByteArray bytes;
    if (!readWhole(file.get(), std::numeric_limits<qsizetype>::max(), &bytes))
        return;
    QHash<quint32, Series *> byId;
    for (const auto &series : m_series)
        byId.insert(series->id, series.get());
    qint64 offset = 0;
    for (qint64 length; (length = recordLength(bytes, offset)) > 0; offset += length) {
        const char *header = bytes.constData() + offset;
        const QByteArrayView payload(header + 16, length - 16);
        if (qFromLittleEndian<quint32>(header + 4) != quint32(RecordType::Summary) ||
            payload.size() < 4)
            continue;
        Series *series = byId.value(qFromLittleEndian<quint32>(payload.data()), nullptr);
        if (!series)
            continue;
        SeriesSummary summary = series->summary.value_or(SeriesSummary());
        if (summary.restore(payload.sliced(4)))
            series->summary = std::move(summary);
    }
    // A torn tail (a write cut short) goes, so that later records follow whole ones.
    if (offset < bytes.size())
        (void)::ftruncate(file.get(), offset);
    m_summariesSize = offset;
    for (const auto &series : m_series) {
        // Longer than its series: the disk lost points; built again from what is there.
        if (series->summary && series->summary->count() > series->count)
            series->summary.reset();
        if (series->summary) {
            series->savedCount = series->summary->count();
            series->savedBlocks = std::size_t(series->savedCount / SeriesSummary::kBlockSize);
        }
    }
}

Status MetricStore::saveSummaries() {
    QByteArray records;
    qint64 whole = 0; // the file's size were it written afresh
    std::vector<Series *> saved;
    for (const auto &series : m_series) {
        if (!series->summary)
            continue;
        whole += 16 + 4 + series->summary->saved(series->summary->blocks().size()).size() +
                 qint64(series->summary->blocks().size() * sizeof(SeriesSummary::Block));
        if (series->summary->count() != series->savedCount)
            saved.push_back(series.get());
    }
    if (saved.empty())
        return success();
    // Stale records (blocks saved again as they filled) past half the file: written afresh.
    const bool afresh = m_summariesSize > whole + (1 << 20);
    auto record = [&](Series *series, std::size_t fromBlock) {
        char id[4];
        qToLittleEndian<quint32>(series->id, id);
        appendRecord(&records, RecordType::Summary,
                     QByteArray(id, 4) + series->summary->saved(fromBlock));
    };
    if (afresh) {
        saved.clear();
        for (const auto &series : m_series) {
            if (series->summary) {
                record(series.get(), 0);
                saved.push_back(series.get());
            }
        }
    } else {
        for (Series *series : saved)
            record(series, series->savedBlocks);
    }
    if (Status written = writeSummaries(records, afresh); !written)
        return written;
    for (Series *series : saved) {
        series->savedCount = series->summary->count();
        series->savedBlocks = std::size_t(series->savedCount / SeriesSummary::kBlockSize);
    }
    return success();
}

// Appends records to the summaries file, or replaces it with them (`whole`). No fsync: the file
// is a cache, and its records' checksums tell a torn or lost write.
Status MetricStore::writeSummaries(const QByteArray &records, bool whole) {
    const QString path = m_directory + u"/summaries"_s;
    const QByteArray target = QFile::encodeName(whole ? path + u".new"_s : path);
    Result<int> opened = whole ? createStoreFile(path + u".new"_s)
                               : openFile(u"summaries"_s, O_WRONLY | O_CREAT, &m_recoveryNotes);
    Fd fd(opened ? *opened : -1);
    if (!fd.valid() ||
        !writeAll(fd.get(), records.constData(), records.size(), whole ? 0 : m_summariesSize)) {
        if (fd.valid() && !whole)
            (void)::ftruncate(fd.get(), m_summariesSize); // never a torn record mid-file
        return fail(systemError(u"cannot write %1"_s.arg(QString::fromLocal8Bit(target))),
                    ErrorCode::StorageFailed);
    }
    if (whole && ::rename(target.constData(), QFile::encodeName(path).constData()) != 0)
        return fail(systemError(u"cannot replace %1"_s.arg(path)), ErrorCode::StorageFailed);
    m_summariesSize = (whole ? 0 : m_summariesSize) + records.size();
    return success();
}

// Rewrites the journal as the current state (runs, series, one commit) and swaps it in atomically.
Status MetricStore::compactJournal() {
    QByteArray snapshot;
    appendRecord(&snapshot, RecordType::Format, formatPayload());
    for (const RunInfo &run : std::as_const(m_runs))
        appendRecord(&snapshot, RecordType::Run, jsonPayload(run.toJson()));
    QByteArray commit;
    for (const auto &series : m_series) {
        appendRecord(&snapshot, RecordType::Series,
                     seriesPayload(series->id, series->run, series->metric));
        for (const Extent &extent : series->extents) {
            char payload[24];
            qToLittleEndian<quint32>(series->id, payload);
            qToLittleEndian<quint32>(extent.file, payload + 4);
            qToLittleEndian<qint64>(extent.offset, payload + 8);
            qToLittleEndian<qint64>(extent.capacity, payload + 16);
            appendRecord(&snapshot, RecordType::Extent, QByteArray(payload, sizeof payload));
        }
        appendCommitted(&commit, series->id, series->count, series->last);
    }
    appendRecord(&snapshot, RecordType::Committed, commit);
    for (const QString &batch : std::as_const(m_batchOrder))
        appendRecord(&snapshot, RecordType::BatchKey, batch.toUtf8());

    const QString journalPath = m_directory + u"/journal"_s;
    const QByteArray temporary = QFile::encodeName(journalPath + u".new"_s);
    const auto created = createStoreFile(journalPath + u".new"_s);
    Fd fd(created ? *created : -1);
    if (!fd.valid() || !writeAll(fd.get(), snapshot.constData(), snapshot.size()) ||
        ::fdatasync(fd.get()) != 0)
        return fail(systemError(u"cannot write %1"_s.arg(QString::fromLocal8Bit(temporary))));
    // Series data must be on disk before a journal that no longer lists older commits.
    if (Status synced = sync(); !synced)
        return synced;
    if (::rename(temporary.constData(), QFile::encodeName(journalPath).constData()) != 0)
        return fail(systemError(u"cannot replace %1"_s.arg(journalPath)));
    if (m_journalFd >= 0)
        ::close(m_journalFd);
    m_journalFd = openStoreFile(journalPath, O_WRONLY | O_APPEND).fd;
    if (m_journalFd < 0)
        return fail(systemError(u"cannot open %1"_s.arg(journalPath)));
    m_journalSize = snapshot.size();
    // Compacting again only once as much again was appended keeps the bytes written per append
    // flat however many runs the snapshot holds.
    m_compactAt = std::max(kCompactJournalAt, 2 * m_journalSize);
    return success();
}

void MetricStore::compactOrNote() {
    if (Status compacted = compactJournal(); !compacted) {
        m_compactAt = m_journalSize + kCompactJournalAt;
        const QString note =
            u"journal compaction failed, retried later: %1"_s.arg(compacted.error());
        if (m_recoveryNotes.isEmpty() || m_recoveryNotes.last() != note)
            m_recoveryNotes << note;
    }
}

MetricStore::Series *MetricStore::find(const QString &run, const QString &metric) const {
    const auto it = m_byRun.constFind(run);
    return it == m_byRun.constEnd() ? nullptr : it->value(metric, nullptr);
}

Result<MetricStore::Series *> MetricStore::create(const QString &run, const QString &metric,
                                                  QByteArray *journal) {
    auto series = std::make_unique<Series>();
    series->id = m_nextId;
    series->run = run;
    series->metric = metric;
    appendRecord(journal, RecordType::Series, seriesPayload(series->id, run, metric));
    Series *raw = series.get();
    ++m_nextId; // never re-used, even when this batch is rolled back
    m_byRun[run][metric] = raw;
    m_series.push_back(std::move(series));
    return raw;
}

QString MetricStore::batchKey(const QString &run, const QString &batch, Batch kind) {
    return QString::number(run.size()) + u':' + run + (kind == Batch::InParts ? u'p' : u'w') +
           batch;
}

QString MetricStore::legacyBatchKey(QByteArrayView payload) {
    const QString text = QString::fromUtf8(payload);
    const qsizetype separator = text.indexOf(QChar(0));
    if (separator <= 0)
        return {};
    const QString id = text.mid(separator + 1);
    const QString linesSuffix = u" (lines)"_s;
    const bool parts = id.size() > linesSuffix.size() && id.endsWith(linesSuffix);
    return batchKey(text.left(separator), parts ? id.chopped(linesSuffix.size()) : id,
                    parts ? Batch::InParts : Batch::Whole);
}

void MetricStore::rememberBatch(const QString &key) {
    if (m_batches.contains(key))
        return;
    m_batches.insert(key);
    m_batchOrder.push_back(key);
    while (m_batchOrder.size() > kRememberedBatches) {
        m_batches.remove(m_batchOrder.front());
        m_batchOrder.pop_front();
    }
}

Status MetricStore::writePoints(Series *series, const std::vector<MetricPoint> &points,
                                QByteArray *journal) {
    const MetricPoint *next = points.data();
    auto left = static_cast<qint64>(points.size());
    qint64 at = series->count; // the series' index of the next point
    qint64 start = 0;          // of the extent at hand
    std::size_t index = 0;
    for (; left > 0; start += series->extents[index++].capacity) {
        if (index == series->extents.size()) {
            if (auto added = allocate(series, left, journal); !added)
                return added.failure();
        }
        const Extent &extent = series->extents[index];
        if (at >= start + extent.capacity)
            continue;
        const qint64 n = std::min(left, start + extent.capacity - at);
        if (!writeAll(m_files[extent.file]->fd, reinterpret_cast<const char *>(next),
                      n * kPointSize, extent.offset + (at - start) * kPointSize))
            return fail(systemError(u"cannot write %1"_s.arg(dataPath(extent.file))));
        m_unsynced.insert(extent.file);
        next += n;
        left -= n;
        at += n;
    }
    return success();
}

Result<bool> MetricStore::append(const QString &run, const std::vector<SeriesPoints> &series,
                                 const RunInfo *info, const QString &batch, Batch kind) {
    if (run.isEmpty())
        return fail(u"a run needs a name"_s, ErrorCode::InvalidInput);
    const QString key = batch.isEmpty() ? QString() : batchKey(run, batch, kind);
    const bool known = !key.isEmpty() && m_batches.contains(key);
    if (known && kind == Batch::Whole)
        return false; // stored before: a retry of a batch whose answer was lost
    for (const SeriesPoints &points : series) {
        for (std::size_t i = 0; i < points.points.size(); ++i) {
            if (const QString problem = pointProblem(points.points[i]); !problem.isEmpty())
                return fail(u"metric \"%1\", point %2: %3"_s.arg(points.metric).arg(i).arg(problem),
                            ErrorCode::InvalidInput);
        }
    }
    QByteArray journal;
    RunInfo merged = m_runs.value(run, RunInfo{run, {}, {}, {}, {}, {}});
    const bool isNew = !m_runs.contains(run);
    if (info)
        merged.merge(*info);
    if (!merged.start) {
        for (const SeriesPoints &s : series) {
            if (!s.points.empty())
                merged.start =
                    std::min(merged.start.value_or(s.points.front().wall), s.points.front().wall);
        }
    }
    if (isNew || info || merged.start != m_runs.value(run).start)
        appendRecord(&journal, RecordType::Run, jsonPayload(merged.toJson()));

    // Write the points; on failure, forget the room this batch took (what it wrote past the
    // committed counts is never read, and is written over by the next batch).
    std::vector<std::pair<Series *, const SeriesPoints *>> written;
    const std::size_t seriesBefore = m_series.size();
    std::vector<std::pair<Series *, std::size_t>> extentsBefore;
    std::vector<qint64> endsBefore;
    for (const auto &file : m_files)
        endsBefore.push_back(file ? file->end : 0);
    const quint32 fillBefore = m_fillFile;
    auto rollBack = [&] {
        for (const auto &[s, count] : extentsBefore)
            s->extents.resize(count);
        for (std::size_t i = 0; i < endsBefore.size(); ++i) {
            if (m_files[i])
                m_files[i]->end = endsBefore[i];
        }
        m_fillFile = fillBefore;
        // Series created by this batch were never journaled: forget them.
        while (m_series.size() > seriesBefore) {
            m_byRun[m_series.back()->run].remove(m_series.back()->metric);
            m_series.pop_back();
        }
    };
    QByteArray commit;
    QSet<QString> seen;
    for (const SeriesPoints &points : series) {
        if (points.points.empty())
            continue;
        if (points.metric.isEmpty() || seen.contains(points.metric)) {
            rollBack();
            return fail(points.metric.isEmpty()
                            ? u"a metric needs a name"_s
                            : u"metric \"%1\" appears twice in one batch"_s.arg(points.metric),
                        ErrorCode::InvalidInput);
        }
        seen.insert(points.metric);
        Series *target = find(run, points.metric);
        if (!target) {
            auto created = create(run, points.metric, &journal);
            if (!created) {
                rollBack();
                return fail(created.error(), ErrorCode::StorageFailed);
            }
            target = created.value();
        }
        extentsBefore.emplace_back(target, target->extents.size());
        if (Status stored = writePoints(target, points.points, &journal); !stored) {
            rollBack();
            return fail(stored.error(), ErrorCode::StorageFailed);
        }
        written.emplace_back(target, &points);
        appendCommitted(&commit, target->id,
                        target->count + static_cast<qint64>(points.points.size()),
                        points.points.back());
    }
    if (!key.isEmpty() && !known) // in the same write as the commit: both or neither survive
        appendRecord(&journal, RecordType::BatchKey, key.toUtf8());
    if (!commit.isEmpty())
        appendRecord(&journal, RecordType::Committed, commit);
    if (journal.isEmpty())
        return true;
    if (!writeAll(m_journalFd, journal.constData(), journal.size())) {
        const Error error{systemError(u"cannot append to the journal"_s), ErrorCode::StorageFailed};
        // Torn bytes left mid-journal would make recovery cut every later commit.
        if (::ftruncate(m_journalFd, m_journalSize) != 0)
            m_recoveryNotes << systemError(u"cannot cut a torn journal append"_s);
        rollBack();
        return error;
    }
    m_journalSize += journal.size();

    // Committed: publish the new state.
    if (!key.isEmpty())
        rememberBatch(key);
    if (isNew || merged != m_runs.value(run)) {
        m_searchText.remove(run);
        m_searchIndexStale = true;
    }
    m_runs[run] = merged;
    for (const auto &[s, points] : written) {
        const auto added = static_cast<qint64>(points->points.size());
        s->count += added;
        s->last = points->points.back();
        if (s->summary)
            s->summary->append(points->points.data(), added);
    }
    // The batch is stored: a failed compaction is the store's own problem, retried later, and
    // never the writer's (an error reply must mean nothing was stored).
    if (m_journalSize > m_compactAt)
        compactOrNote();
    return true;
}

QStringList MetricStore::runsMentioning(QByteArrayView lowered) const {
    if (m_searchIndexStale) {
        m_searchIndex.clear();
        m_searchStarts.clear();
        for (const RunInfo &info : m_runs) {
            auto text = m_searchText.constFind(info.name);
            if (text == m_searchText.constEnd())
                text = m_searchText.insert(
                    info.name,
                    QString::fromUtf8(QJsonDocument(info.toJson()).toJson(QJsonDocument::Compact))
                        .toLower()
                        .toUtf8());
            m_searchStarts.emplace_back(m_searchIndex.size(), info.name);
            m_searchIndex += *text;
            m_searchIndex += '\n';
        }
        m_searchIndexStale = false;
    }
    QStringList found;
    if (lowered.isEmpty() || lowered.contains('\n'))
        return found;
    for (qsizetype at = 0; (at = m_searchIndex.indexOf(lowered, at)) >= 0;) {
        // The run whose text holds `at`; the search goes on after that run's text.
        auto run = std::upper_bound(
                       m_searchStarts.begin(), m_searchStarts.end(), at,
                       [](qsizetype offset, const auto &start) { return offset < start.first; }) -
                   1;
        found << run->second;
        at = run + 1 == m_searchStarts.end() ? m_searchIndex.size() : (run + 1)->first;
    }
    return found;
}

std::optional<RunInfo> MetricStore::run(const QString &name) const {
    const auto it = m_runs.constFind(name);
    if (it == m_runs.constEnd())
        return std::nullopt;
    return *it;
}

std::vector<MetricStore::SeriesInfo> MetricStore::series(const QString &run) const {
    std::vector<SeriesInfo> out;
    const auto it = m_byRun.constFind(run);
    if (it == m_byRun.constEnd())
        return out;
    for (const Series *s : *it)
        out.push_back(
            {s->metric, s->count, s->last, s->summary ? s->summary->valueRange() : std::nullopt});
    std::sort(out.begin(), out.end(),
              [](const SeriesInfo &a, const SeriesInfo &b) { return a.metric < b.metric; });
    return out;
}

qint64 MetricStore::totalPoints() const {
    qint64 total = 0;
    for (const auto &s : m_series)
        total += s->count;
    return total;
}

bool MetricStore::summarize(QDeadlineTimer deadline) {
    for (; m_summarized < m_series.size(); ++m_summarized) {
        if (deadline.hasExpired())
            return false;
        Series *series = m_series[m_summarized].get();
        if (series->summary)
            continue;
        Series *found = nullptr;
        if (auto source = reader(series->run, series->metric, &found)) {
            series->summary.emplace();
            series->summary->update(**source);
        }
    }
    return true;
}

bool MetricStore::summarize(const QString &run, QDeadlineTimer deadline) {
    for (Series *series : m_byRun.value(run)) {
        if (series->summary)
            continue;
        if (deadline.hasExpired())
            return false;
        Series *found = nullptr;
        if (auto source = reader(series->run, series->metric, &found)) {
            series->summary.emplace();
            series->summary->update(**source);
        }
    }
    return true;
}

std::size_t MetricStore::summaryBytes() const {
    std::size_t bytes = 0;
    for (const auto &s : m_series)
        bytes += s->summary ? s->summary->memoryBytes() : 0;
    return bytes;
}

Result<std::unique_ptr<PointSource>> MetricStore::reader(const QString &run, const QString &metric,
                                                         Series **series) const {
    *series = find(run, metric);
    if (!*series)
        return fail(u"run \"%1\" has no metric \"%2\""_s.arg(run, metric));
    std::vector<ExtentSource::Piece> pieces;
    qint64 first = 0;
    for (const Extent &extent : (*series)->extents) {
        if (first >= (*series)->count)
            break;
        if (extent.file >= m_files.size() || !m_files[extent.file])
            return fail(u"data/%1.dat is not open"_s.arg(extent.file));
        const auto &file = m_files[extent.file];
        pieces.push_back({file, file->fd, extent.offset, first, extent.capacity});
        first += extent.capacity;
    }
    return std::unique_ptr<PointSource>(new ExtentSource(std::move(pieces), (*series)->count));
}

Result<MetricStore::Opened> MetricStore::openSeries(const QString &run, const QString &metric,
                                                    const QString &xMetric) {
    Series *series = nullptr;
    auto opened = reader(run, metric, &series);
    if (!opened)
        return fail(opened.error());
    if (!series->summary)
        series->summary.emplace();
    series->summary->update(**opened);
    const double origin = m_runs.value(run).start.value_or(series->summary->minX(XAxis::WallTime));
    if (xMetric.isEmpty())
        return Opened{std::move(opened).value(), &*series->summary, origin, nullptr};
    Series *xSeries = nullptr;
    auto x = reader(run, xMetric, &xSeries);
    if (!x)
        return fail(x.error());
    std::vector<MetricPoint> xPoints(static_cast<std::size_t>((*x)->size()));
    (*x)->read(0, (*x)->size(), xPoints.data());
    auto mapped = std::make_unique<MetricAxisSource>(std::move(opened).value(), std::move(xPoints));
    auto summary = std::make_unique<SeriesSummary>();
    summary->update(*mapped);
    const SeriesSummary *view = summary.get();
    return Opened{std::move(mapped), view, origin, std::move(summary)};
}

Result<Downsampled> MetricStore::query(const QString &run, const QString &metric,
                                       SeriesWindow window) {
    auto series = openSeries(run, metric, window.xMetric);
    if (!series)
        return fail(series.error());
    if (!window.xMetric.isEmpty())
        window.axis = XAxis::Step; // the mapped steps
    if (window.axis == XAxis::RelativeTime)
        window.origin = series->origin;
    return downsampleM4(*series->points, *series->summary, window);
}

QByteArray CsvExport::next() {
    if (m_next < 0) {
        m_next = 0;
        return "step,value,wall_time\n";
    }
    constexpr qint64 chunk = 8192;
    const qint64 n = std::min(chunk, m_source->size() - m_next);
    if (n <= 0)
        return {};
    std::vector<MetricPoint> buffer(static_cast<std::size_t>(n));
    m_source->read(m_next, n, buffer.data());
    m_next += n;
    QByteArray text;
    text.reserve(n * 64);
    for (const MetricPoint &point : buffer) {
        text += QByteArray::number(point.step, 'g', 17) + ',' +
                QByteArray::number(point.value, 'g', 17) + ',' +
                QByteArray::number(point.wall, 'f', 6) + '\n';
    }
    return text;
}

Result<std::unique_ptr<CsvExport>> MetricStore::exportCsv(const QString &run,
                                                          const QString &metric) const {
    Series *series = nullptr;
    auto opened = reader(run, metric, &series);
    if (!opened)
        return fail(opened.error());
    return std::make_unique<CsvExport>(std::move(opened).value());
}

Status MetricStore::exportCsv(const QString &run, const QString &metric, QIODevice *out) const {
    auto csv = exportCsv(run, metric);
    if (!csv)
        return fail(csv.error());
    for (QByteArray piece = (*csv)->next(); !piece.isEmpty(); piece = (*csv)->next()) {
        if (out->write(piece) != piece.size())
            return fail(u"cannot write the CSV: %1"_s.arg(out->errorString()));
    }
    return success();
}

Status MetricStore::sync() {
    for (const quint32 number : std::as_const(m_unsynced)) {
        if (number < m_files.size() && m_files[number] && ::fdatasync(m_files[number]->fd) != 0)
            return fail(systemError(u"cannot sync %1"_s.arg(dataPath(number))));
    }
    m_unsynced.clear();
    if (m_journalFd >= 0 && ::fdatasync(m_journalFd) != 0)
        return fail(systemError(u"cannot sync the journal"_s));
    return success();
}

} // namespace sb
