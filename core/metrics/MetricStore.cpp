#include "MetricStore.h"

#include "MetricAxis.h"
#include "util/Crc32c.h"
#include "util/Files.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtEndian>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
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

enum class RecordType : quint32 { Run = 1, SeriesCreated = 2, Commit = 3, Batch = 4, Summary = 5 };
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

// A series file opened for reading with pread: the downsampler's and the exporter's source.
class SeriesFileSource final : public PointSource {
public:
    SeriesFileSource(int fd, qint64 count)
        : m_fd(fd)
        , m_count(count) {}
    ~SeriesFileSource() override {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    SeriesFileSource(const SeriesFileSource &) = delete;
    SeriesFileSource &operator=(const SeriesFileSource &) = delete;
    qint64 size() const override { return m_count; }
    void read(qint64 first, qint64 count, MetricPoint *out) const override {
        if (!readAll(m_fd, reinterpret_cast<char *>(out), count * kPointSize,
                     kHeaderSize + first * kPointSize))
            std::fill_n(out, count, MetricPoint{});
    }

private:
    int m_fd;
    qint64 m_count;
};

// The 16 bytes every series file starts with: magic, format version, point size.
QByteArray seriesHeader() {
    char header[kHeaderSize] = {};
    std::memcpy(header, kSeriesMagic.data(), kSeriesMagic.size());
    qToLittleEndian<quint32>(1, header + 8);
    qToLittleEndian<quint32>(kPointSize, header + 12);
    return QByteArray(header, kHeaderSize);
}

} // namespace

struct MetricStore::Series {
    quint32 id = 0;
    QString run;
    QString metric;
    qint64 count = 0;
    MetricPoint last;
    std::optional<SeriesSummary> summary;
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
    if (!QDir().mkpath(directory + u"/series"_s))
        return fail(u"cannot create the store directory %1"_s.arg(directory));
    // Metrics are private: the store is the owner's alone.
    for (const QString &path : {directory, QString(directory + u"/series"_s)})
        ::chmod(QFile::encodeName(path).constData(), 0700);
    std::unique_ptr<MetricStore> store(new MetricStore(QDir(directory).absolutePath()));
    const QByteArray lockPath = QFile::encodeName(directory + u"/lock"_s);
    store->m_lockFd = ::open(lockPath.constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (store->m_lockFd < 0)
        return fail(systemError(u"cannot open %1"_s.arg(QString::fromLocal8Bit(lockPath))));
    if (::flock(store->m_lockFd, LOCK_EX | LOCK_NB) != 0)
        return fail(u"the store %1 is in use by another Signalbox collector"_s.arg(directory));
    // Notes of earlier starts come first, and stay until acknowledged.
    const QString notesPath = directory + u"/recovery.json"_s;
    QStringList earlier;
    if (QFileInfo::exists(notesPath)) {
        const auto bytes = readRegularFile(notesPath, 1 << 20);
        for (const QJsonValue note : QJsonDocument::fromJson(bytes ? *bytes : QByteArray()).array())
            earlier << note.toString();
    }
    if (Status loaded = store->load(); !loaded)
        return fail(loaded.error());
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

QString MetricStore::seriesPath(quint32 id) const {
    return u"%1/series/%2.pts"_s.arg(m_directory).arg(id);
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
    if (!QDir().mkpath(directory))
        return fail(u"cannot create %1"_s.arg(directory), ErrorCode::StorageFailed);
    QString target = directory + u'/' + name;
    for (int n = 2; QFileInfo::exists(target); ++n)
        target = u"%1/%2.%3"_s.arg(directory, name).arg(n);
    if (::rename(QFile::encodeName(path).constData(), QFile::encodeName(target).constData()) != 0)
        return fail(systemError(u"cannot move %1 to %2"_s.arg(path, target)),
                    ErrorCode::StorageFailed);
    return QString(u"lost+found/"_s + QFileInfo(target).fileName());
}

Status MetricStore::load() {
    const QString journalPath = m_directory + u"/journal"_s;
    QFile journal(journalPath);
    QByteArray bytes;
    if (journal.exists()) {
        if (!journal.open(QIODevice::ReadOnly))
            return fail(u"cannot read %1: %2"_s.arg(journalPath, journal.errorString()));
        bytes = journal.readAll();
        journal.close();
    }

    // Every readable record counts: a damaged stretch is kept aside and reading resumes at the
    // next whole record, so one bad byte costs one record, never the rest of the store.
    QHash<quint32, qint64> committed;
    QHash<quint32, Series *> byId;
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
                QFile out(aside);
                Result<QString> kept = fail(u"cannot write %1"_s.arg(aside));
                if (out.open(QIODevice::WriteOnly) &&
                    out.write(bytes.mid(offset, skipped)) == skipped && out.flush()) {
                    out.close();
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
        if (type == static_cast<quint32>(RecordType::Run)) {
            const QJsonObject json = QJsonDocument::fromJson(payload.toByteArray()).object();
            const QString name = json.value(u"name"_s).toString();
            if (!name.isEmpty())
                m_runs[name] = RunInfo::fromJson(name, json);
        } else if (type == static_cast<quint32>(RecordType::SeriesCreated)) {
            const QJsonObject json = QJsonDocument::fromJson(payload.toByteArray()).object();
            const qint64 id = json.value(u"id"_s).toInteger(-1);
            const QString run = json.value(u"run"_s).toString();
            const QString metric = json.value(u"metric"_s).toString();
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
        } else if (type == static_cast<quint32>(RecordType::Batch)) {
            rememberBatch(QString::fromUtf8(payload));
        }
        offset += length;
        readableEnd = offset;
    }
    if (readableEnd < bytes.size() && !journal.resize(readableEnd))
        return fail(u"cannot truncate %1: %2"_s.arg(journalPath, journal.errorString()));
    m_journalSize = readableEnd;

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

    const QByteArray expectedHeader = seriesHeader();
    for (const auto &series : m_series) {
        const QByteArray path = QFile::encodeName(seriesPath(series->id));
        const QString where = u"series %1/%2"_s.arg(series->run, series->metric);
        Fd fd(::open(path.constData(), O_RDWR | O_CLOEXEC));
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
            fd.reset(::open(path.constData(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
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

    loadSummaries();
    m_compactAt = std::max(kCompactJournalAt, 2 * m_journalSize);
    if (m_journalSize > kCompactJournalAt / 8 || !m_recoveryNotes.isEmpty() ||
        !m_lossNotes.isEmpty()) {
        compactOrNote(); // the journal as it stands is valid: a full disk does not stop the open
    }
    if (m_journalFd < 0) {
        const QByteArray path = QFile::encodeName(journalPath);
        m_journalFd = ::open(path.constData(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
        if (m_journalFd < 0)
            return fail(systemError(u"cannot open %1"_s.arg(journalPath)));
    }
    return success();
}

void MetricStore::loadSummaries() {
    const QString path = m_directory + u"/summaries"_s;
    QFile file(path);
    // None yet, or unreadable: summaries are built again as series are read.
    if (!QFileInfo(path).isFile() || !file.open(QIODevice::ReadWrite))
        return;
    const QByteArray bytes = file.readAll();
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
        (void)file.resize(offset);
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
    Fd fd(::open(target.constData(), O_WRONLY | O_CREAT | O_CLOEXEC | (whole ? O_TRUNC : 0), 0600));
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
    for (const RunInfo &run : std::as_const(m_runs))
        appendRecord(&snapshot, RecordType::Run, jsonPayload(run.toJson()));
    QByteArray commit;
    for (const auto &series : m_series) {
        appendRecord(&snapshot, RecordType::SeriesCreated,
                     jsonPayload({{u"id"_s, static_cast<qint64>(series->id)},
                                  {u"run"_s, series->run},
                                  {u"metric"_s, series->metric}}));
        char entry[12];
        qToLittleEndian<quint32>(series->id, entry);
        qToLittleEndian<qint64>(series->count, entry + 4);
        commit.append(entry, sizeof entry);
    }
    appendRecord(&snapshot, RecordType::Commit, commit);
    for (const QString &batch : std::as_const(m_batchOrder))
        appendRecord(&snapshot, RecordType::Batch, batch.toUtf8());

    const QString journalPath = m_directory + u"/journal"_s;
    const QByteArray temporary = QFile::encodeName(journalPath + u".new"_s);
    Fd fd(::open(temporary.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
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
    m_journalFd =
        ::open(QFile::encodeName(journalPath).constData(), O_WRONLY | O_APPEND | O_CLOEXEC);
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
    const QByteArray path = QFile::encodeName(seriesPath(series->id));
    // O_EXCL: a file already there is someone's data, never overwritten.
    Fd fd(::open(path.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (!fd.valid() && errno == EEXIST) {
        if (const auto kept = keepInLostFound(QString::fromLocal8Bit(path),
                                              u"series-%1.pts.in-the-way"_s.arg(series->id)))
            m_recoveryNotes << u"series/%1.pts was in the way of a new series: kept in %2"_s
                                   .arg(series->id)
                                   .arg(*kept);
        fd.reset(::open(path.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    }
    const QByteArray header = seriesHeader();
    if (!fd.valid() || !writeAll(fd.get(), header.constData(), kHeaderSize))
        return fail(systemError(u"cannot create %1"_s.arg(QString::fromLocal8Bit(path))));
    appendRecord(
        journal, RecordType::SeriesCreated,
        jsonPayload(
            {{u"id"_s, static_cast<qint64>(series->id)}, {u"run"_s, run}, {u"metric"_s, metric}}));
    Series *raw = series.get();
    ++m_nextId; // never re-used, even when this batch is rolled back
    m_byRun[run][metric] = raw;
    m_series.push_back(std::move(series));
    return raw;
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

Result<bool> MetricStore::append(const QString &run, const std::vector<SeriesPoints> &series,
                                 const RunInfo *info, const QString &batch, Batch kind) {
    if (run.isEmpty())
        return fail(u"a run needs a name"_s, ErrorCode::InvalidInput);
    const QString key = batch.isEmpty() ? QString() : batchKey(run, batch);
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

    // Write the points; on failure, cut what this batch already wrote.
    std::vector<std::pair<Series *, const SeriesPoints *>> written;
    const std::size_t seriesBefore = m_series.size();
    auto rollBack = [&] {
        for (const auto &entry : written) {
            const Series *s = entry.first;
            const QByteArray path = QFile::encodeName(seriesPath(s->id));
            if (::truncate(path.constData(), kHeaderSize + s->count * kPointSize) != 0)
                m_recoveryNotes << systemError(u"cannot roll back %1"_s.arg(seriesPath(s->id)));
        }
        // Series created by this batch were never journaled: forget them and their files.
        while (m_series.size() > seriesBefore) {
            ::unlink(QFile::encodeName(seriesPath(m_series.back()->id)).constData());
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
        const QByteArray path = QFile::encodeName(seriesPath(target->id));
        Fd fd(::open(path.constData(), O_WRONLY | O_CLOEXEC));
        const auto bytes = static_cast<qint64>(points.points.size()) * kPointSize;
        if (!fd.valid() || !writeAll(fd.get(), reinterpret_cast<const char *>(points.points.data()),
                                     bytes, kHeaderSize + target->count * kPointSize)) {
            rollBack();
            return fail(systemError(u"cannot write %1"_s.arg(seriesPath(target->id))),
                        ErrorCode::StorageFailed);
        }
        written.emplace_back(target, &points);
        char entry[12];
        qToLittleEndian<quint32>(target->id, entry);
        qToLittleEndian<qint64>(target->count + static_cast<qint64>(points.points.size()),
                                entry + 4);
        commit.append(entry, sizeof entry);
    }
    if (!key.isEmpty() && !known) // in the same write as the commit: both or neither survive
        appendRecord(&journal, RecordType::Batch, key.toUtf8());
    if (!commit.isEmpty())
        appendRecord(&journal, RecordType::Commit, commit);
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
    m_runs[run] = merged;
    for (const auto &[s, points] : written) {
        const auto added = static_cast<qint64>(points->points.size());
        s->count += added;
        s->last = points->points.back();
        if (s->summary)
            s->summary->append(points->points.data(), added);
        m_unsynced.insert(s->id);
    }
    // The batch is stored: a failed compaction is the store's own problem, retried later, and
    // never the writer's (an error reply must mean nothing was stored).
    if (m_journalSize > m_compactAt)
        compactOrNote();
    return true;
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
    const QString path = seriesPath((*series)->id);
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail(systemError(u"cannot read %1"_s.arg(path)));
    return std::unique_ptr<PointSource>(new SeriesFileSource(fd, (*series)->count));
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
    for (quint32 id : std::as_const(m_unsynced)) {
        Fd fd(::open(QFile::encodeName(seriesPath(id)).constData(), O_WRONLY | O_CLOEXEC));
        if (fd.valid())
            ::fdatasync(fd.get());
    }
    m_unsynced.clear();
    if (m_journalFd >= 0 && ::fdatasync(m_journalFd) != 0)
        return fail(systemError(u"cannot sync the journal"_s));
    return success();
}

} // namespace sb
