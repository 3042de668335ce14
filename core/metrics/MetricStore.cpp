#include "MetricStore.h"

#include "util/Crc32c.h"

#include <QDir>
#include <QFile>
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

constexpr quint32 kJournalMagic = 0x314A4253; // "SBJ1"
constexpr QByteArrayView kSeriesMagic = "SBPOINTS";
constexpr qint64 kHeaderSize = 16;
constexpr qint64 kPointSize = sizeof(MetricPoint);
constexpr qint64 kCompactJournalAt = 8 << 20;

enum class RecordType : quint32 { Run = 1, SeriesCreated = 2, Commit = 3, Batch = 4 };
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
    std::unique_ptr<MetricStore> store(new MetricStore(QDir(directory).absolutePath()));
    const QByteArray lockPath = QFile::encodeName(directory + u"/lock"_s);
    store->m_lockFd = ::open(lockPath.constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (store->m_lockFd < 0)
        return fail(systemError(u"cannot open %1"_s.arg(QString::fromLocal8Bit(lockPath))));
    if (::flock(store->m_lockFd, LOCK_EX | LOCK_NB) != 0)
        return fail(u"the store %1 is in use by another Signalbox collector"_s.arg(directory));
    if (Status loaded = store->load(); !loaded)
        return fail(loaded.error());
    return store;
}

QString MetricStore::seriesPath(quint32 id) const {
    return u"%1/series/%2.pts"_s.arg(m_directory).arg(id);
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

    QHash<quint32, qint64> committed;
    qint64 offset = 0;
    while (offset + 16 <= bytes.size()) {
        const char *header = bytes.constData() + offset;
        const auto type = qFromLittleEndian<quint32>(header + 4);
        const auto length = qFromLittleEndian<quint32>(header + 8);
        if (qFromLittleEndian<quint32>(header) != kJournalMagic ||
            offset + 16 + static_cast<qint64>(length) > bytes.size())
            break;
        const QByteArrayView payload(header + 16, length);
        if (crc32c(payload, crc32c(QByteArrayView(header + 4, 4))) !=
            qFromLittleEndian<quint32>(header + 12))
            break;
        if (type == static_cast<quint32>(RecordType::Run)) {
            const QJsonObject json = QJsonDocument::fromJson(payload.toByteArray()).object();
            const QString name = json.value(u"name"_s).toString();
            m_runs[name] = RunInfo::fromJson(name, json);
        } else if (type == static_cast<quint32>(RecordType::SeriesCreated)) {
            const QJsonObject json = QJsonDocument::fromJson(payload.toByteArray()).object();
            auto series = std::make_unique<Series>();
            series->id = static_cast<quint32>(json.value(u"id"_s).toInteger());
            series->run = json.value(u"run"_s).toString();
            series->metric = json.value(u"metric"_s).toString();
            if (series->id != m_series.size())
                break; // ids are dense and in order; anything else is not our journal
            m_byRun[series->run][series->metric] = series.get();
            m_series.push_back(std::move(series));
        } else if (type == static_cast<quint32>(RecordType::Batch)) {
            rememberBatch(QString::fromUtf8(payload));
        } else if (type == static_cast<quint32>(RecordType::Commit)) {
            for (quint32 i = 0; i + 12 <= length; i += 12) {
                committed[qFromLittleEndian<quint32>(payload.data() + i)] =
                    qFromLittleEndian<qint64>(payload.data() + i + 4);
            }
        }
        offset += 16 + length;
    }
    if (offset < bytes.size()) {
        m_recoveryNotes << u"journal: cut a torn tail of %1 bytes at offset %2"_s
                               .arg(bytes.size() - offset)
                               .arg(offset);
        if (!journal.resize(offset))
            return fail(u"cannot truncate %1: %2"_s.arg(journalPath, journal.errorString()));
    }
    m_journalSize = offset;

    for (const auto &series : m_series) {
        const QByteArray path = QFile::encodeName(seriesPath(series->id));
        Fd fd(::open(path.constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
        struct stat info {};
        if (!fd.valid() || ::fstat(fd.get(), &info) != 0)
            return fail(systemError(u"cannot open %1"_s.arg(QString::fromLocal8Bit(path))));
        if (info.st_size < kHeaderSize) {
            const QByteArray header = seriesHeader();
            if (!writeAll(fd.get(), header.constData(), kHeaderSize, 0) ||
                ::ftruncate(fd.get(), kHeaderSize))
                return fail(systemError(u"cannot write %1"_s.arg(QString::fromLocal8Bit(path))));
            info.st_size = kHeaderSize;
        }
        const qint64 onDisk = (info.st_size - kHeaderSize) / kPointSize;
        const qint64 want = committed.value(series->id, 0);
        series->count = std::min(onDisk, want);
        if (onDisk > want) {
            m_recoveryNotes << u"series %1/%2: cut %3 uncommitted points"_s
                                   .arg(series->run, series->metric)
                                   .arg(onDisk - want);
        } else if (onDisk < want) {
            m_recoveryNotes << u"series %1/%2: %3 committed points were lost by the disk"_s
                                   .arg(series->run, series->metric)
                                   .arg(want - onDisk);
        }
        if (info.st_size != kHeaderSize + series->count * kPointSize &&
            ::ftruncate(fd.get(), kHeaderSize + series->count * kPointSize) != 0)
            return fail(systemError(u"cannot truncate %1"_s.arg(QString::fromLocal8Bit(path))));
        if (series->count > 0 &&
            !readAll(fd.get(), reinterpret_cast<char *>(&series->last), kPointSize,
                     kHeaderSize + (series->count - 1) * kPointSize))
            return fail(systemError(u"cannot read %1"_s.arg(QString::fromLocal8Bit(path))));
    }

    m_compactAt = std::max(kCompactJournalAt, 2 * m_journalSize);
    if (m_journalSize > kCompactJournalAt / 8 || !m_recoveryNotes.isEmpty()) {
        // The journal as it stands is valid: a store that cannot compact (a full disk) still opens.
        if (Status compacted = compactJournal(); !compacted)
            m_recoveryNotes << u"journal compaction failed, retried later: %1"_s.arg(
                compacted.error());
    }
    if (m_journalFd < 0) {
        const QByteArray path = QFile::encodeName(journalPath);
        m_journalFd = ::open(path.constData(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (m_journalFd < 0)
            return fail(systemError(u"cannot open %1"_s.arg(journalPath)));
    }
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
    Fd fd(::open(temporary.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
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

MetricStore::Series *MetricStore::find(const QString &run, const QString &metric) const {
    const auto it = m_byRun.constFind(run);
    return it == m_byRun.constEnd() ? nullptr : it->value(metric, nullptr);
}

Result<MetricStore::Series *> MetricStore::create(const QString &run, const QString &metric,
                                                  QByteArray *journal) {
    auto series = std::make_unique<Series>();
    series->id = static_cast<quint32>(m_series.size());
    series->run = run;
    series->metric = metric;
    const QByteArray path = QFile::encodeName(seriesPath(series->id));
    Fd fd(::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    const QByteArray header = seriesHeader();
    if (!fd.valid() || !writeAll(fd.get(), header.constData(), kHeaderSize))
        return fail(systemError(u"cannot create %1"_s.arg(QString::fromLocal8Bit(path))));
    appendRecord(
        journal, RecordType::SeriesCreated,
        jsonPayload(
            {{u"id"_s, static_cast<qint64>(series->id)}, {u"run"_s, run}, {u"metric"_s, metric}}));
    Series *raw = series.get();
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
                                 const RunInfo *info, const QString &batch) {
    if (run.isEmpty())
        return fail(u"a run needs a name"_s, ErrorCode::InvalidInput);
    // A batch id is the run's and the sender's: "run\0id".
    const QString batchKey = batch.isEmpty() ? QString() : run + QChar(0) + batch;
    if (!batchKey.isEmpty() && m_batches.contains(batchKey))
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
        // Series created by this batch were never journaled: forget them so ids stay dense.
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
    if (!batchKey.isEmpty()) // in the same write as the commit: both or neither survive a crash
        appendRecord(&journal, RecordType::Batch, batchKey.toUtf8());
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
    if (!batchKey.isEmpty())
        rememberBatch(batchKey);
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
    if (m_journalSize > m_compactAt) {
        if (Status compacted = compactJournal(); !compacted) {
            m_compactAt = m_journalSize + kCompactJournalAt;
            const QString note =
                u"journal compaction failed, retried later: %1"_s.arg(compacted.error());
            if (m_recoveryNotes.isEmpty() || m_recoveryNotes.last() != note)
                m_recoveryNotes << note;
        }
    }
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
        out.push_back({s->metric, s->count, s->last});
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

Result<Downsampled> MetricStore::query(const QString &run, const QString &metric,
                                       SeriesWindow window) {
    Series *series = nullptr;
    auto opened = reader(run, metric, &series);
    if (!opened)
        return fail(opened.error());
    const PointSource &source = **opened;
    if (!series->summary)
        series->summary.emplace();
    series->summary->update(source);
    if (window.axis == XAxis::RelativeTime)
        window.origin = m_runs.value(run).start.value_or(series->summary->minX(XAxis::WallTime));
    return downsampleM4(source, *series->summary, window);
}

Status MetricStore::exportCsv(const QString &run, const QString &metric, QIODevice *out) {
    Series *series = nullptr;
    auto opened = reader(run, metric, &series);
    if (!opened)
        return fail(opened.error());
    const PointSource &source = **opened;
    out->write("step,value,wall_time\n");
    constexpr qint64 chunk = 8192;
    std::vector<MetricPoint> buffer(chunk);
    QByteArray text;
    for (qint64 i = 0; i < series->count; i += chunk) {
        const qint64 n = std::min(chunk, series->count - i);
        source.read(i, n, buffer.data());
        text.clear();
        for (qint64 j = 0; j < n; ++j) {
            text += QByteArray::number(buffer[j].step, 'g', 17) + ',' +
                    QByteArray::number(buffer[j].value, 'g', 17) + ',' +
                    QByteArray::number(buffer[j].wall, 'f', 6) + '\n';
        }
        if (out->write(text) != text.size())
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
