#include "LogdirFollower.h"

#include "TfRecord.h"
#include "util/Files.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QtConcurrentMap>

#include <algorithm>
#include <numeric>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// Records up to kLargestScalarRecord always fit in a chunk; no scalar event comes near that
// size, so bigger records (graphs, images) are passed over unread when only scalars are wanted.
// With samples, a record up to kLargestRecord (a batch of large images) is read whole.
constexpr qint64 kChunk = 8 << 20;
constexpr std::uint64_t kLargestScalarRecord = 1 << 20;
constexpr std::uint64_t kLargestRecord = 64 << 20;

} // namespace

bool isEventFileName(const QString &fileName) {
    return fileName.contains(u"tfevents"_s);
}

LocalLogdir::LocalLogdir(const QString &root)
    : m_root(QFileInfo(root).absoluteFilePath()) {
}

Result<std::vector<LogdirSource::File>> LocalLogdir::eventFiles() {
    const QFileInfo info(m_root);
    if (info.isFile()) { // one event file: a logdir of one run, "."
        const auto file = regularFileEntry(m_root, info.fileName());
        return file ? std::vector<File>{*file} : std::vector<File>{};
    }
    if (!info.isDir())
        return fail(u"%1: no such directory"_s.arg(m_root));
    std::vector<File> files;
    const QDir root(m_root);
    QDirIterator it(m_root, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        if (!isEventFileName(it.fileName()))
            continue;
        // With its inode, so that a file replaced at the same path is read from its start.
        if (auto file = regularFileEntry(it.filePath(), root.relativeFilePath(it.filePath())))
            files.push_back(*file);
    }
    return files;
}

Result<QByteArray> LocalLogdir::read(const QString &path, qint64 offset, qint64 size) {
    const QFileInfo root(m_root);
    QFile file(root.isFile() ? root.filePath() : QDir(m_root).filePath(path));
    if (!file.open(QIODevice::ReadOnly) || !file.seek(offset))
        return fail(u"cannot read %1: %2"_s.arg(file.fileName(), file.errorString()));
    return file.read(size);
}

QString LogdirFollower::runOf(const QString &path) const {
    const qsizetype slash = path.lastIndexOf(u'/');
    QString run = slash < 0 ? u"."_s : path.left(slash);
    if (m_prefix.isEmpty())
        return run;
    return run == u"."_s ? m_prefix : m_prefix + u'/' + run;
}

Result<LogdirFollower::Progress> LogdirFollower::poll(LogdirSource &source, const Sink &sink,
                                                      qint64 budget, const SampleSink &samples,
                                                      SummaryKinds kinds,
                                                      const RestartSink &restarts) {
    auto listed = source.eventFiles();
    if (!listed)
        return fail(listed.error());
    std::vector<LogdirSource::File> files = std::move(listed).value();
    std::sort(files.begin(), files.end(),
              [](const auto &a, const auto &b) { return a.path < b.path; });
    Progress progress;
    qint64 left = budget;
    for (const LogdirSource::File &file : files) {
        if (left <= 0)
            break;
        const qint64 before = left;
        if (const Status followed =
                follow(source, file, &left, Sinks{sink, samples, restarts}, kinds);
            !followed)
            m_files[file.path].lastError = followed.error(); // the others go on
        progress.bytes += before - left;
    }
    progress.more = left <= 0;
    return progress;
}

Status LogdirFollower::follow(LogdirSource &source, const LogdirSource::File &file, qint64 *budget,
                              const Sinks &sinks, SummaryKinds kinds) {
    FileState &state = m_files[file.path];
    const bool replaced = file.inode != 0 && state.inode != 0 &&
                          (file.inode != state.inode || file.device != state.device);
    if (file.size < state.offset || replaced)
        state = FileState{}; // replaced (rotated) or cut: the file there now, from its start
    if (file.inode != 0) {
        state.inode = file.inode;
        state.device = file.device;
    }
    const QString run = runOf(file.path);
    QHash<QByteArray, SummaryKind> &tagKinds = m_tagKinds[run];
    if (!sinks.samples)
        kinds = 0;
    const bool large = (kinds & ~summaryKinds({SummaryKind::Hparams})) != 0;
    const std::uint64_t largest = large ? kLargestRecord : kLargestScalarRecord;
    TfEvent event;
    qint64 readSize = kChunk;
    while (*budget > 0 && state.offset < file.size) {
        const qint64 requested = std::min(readSize, file.size - state.offset);
        auto bytes = source.read(file.path, state.offset, requested);
        if (!bytes)
            return fail(bytes.error());
        const bool enlarged = readSize != kChunk; // read once more for one large record
        readSize = kChunk;
        // What came between restarts (SessionLog.START), each told after the restart before it.
        struct Segment {
            std::optional<double> restart;
            qint64 start = 0; // the file's offset of its first record
            FileState before; // the file's state there
            std::vector<SeriesPoints> series;
            std::vector<Sample> samples;
            QHash<QByteArray, std::size_t> seriesOfTag;
        };
        std::vector<Segment> segments(1);
        segments.front().start = state.offset;
        segments.front().before = state;
        FileState next = state;
        const RecordScan scan = scanRecords(*bytes, [&](QByteArrayView record) {
            ++next.records;
            if (static_cast<std::uint64_t>(record.size()) > largest) {
                ++next.skipped;
                return;
            }
            if (!parseEvent(record, &event)) {
                ++next.corrupt;
                return;
            }
            if (event.sessionStart && sinks.restarts) {
                Segment &restarted = segments.emplace_back();
                restarted.restart = double(event.step);
                restarted.start =
                    state.offset + (record.data() - bytes->constData()) - kTfRecordHeaderSize;
                restarted.before = next; // what was read before its record, which is read again
                restarted.before.offset = restarted.start;
                --restarted.before.records;
            }
            auto &[restart, start, before, series, samples, seriesOfTag] = segments.back();
            for (const TfEvent::Value &value : event.values) {
                // A name no chart could ask for is refused here, said, and the file goes on.
                if (value.tag.size() > kLongestName &&
                    QString::fromUtf8(value.tag).size() > kLongestName) {
                    ++next.refused;
                    next.lastRefusal = u"a tag of %1 characters at step %2: longer than %3"_s
                                           .arg(QString::fromUtf8(value.tag).size())
                                           .arg(event.step)
                                           .arg(kLongestName);
                    continue;
                }
                const QByteArray tag = QByteArray::fromRawData(value.tag.data(), value.tag.size());
                const auto known = tagKinds.constFind(tag);
                bool remember = false;
                const SummaryKind kind = summaryKind(
                    value, known == tagKinds.cend() ? std::nullopt : std::optional(*known),
                    &remember);
                if (remember)
                    tagKinds.insert(QByteArray(tag.constData(), tag.size()), kind);
                if (kind == SummaryKind::Scalar) {
                    auto it = seriesOfTag.constFind(tag);
                    if (it == seriesOfTag.cend()) {
                        it = seriesOfTag.insert(QByteArray(tag.constData(), tag.size()),
                                                series.size());
                        series.push_back({QString::fromUtf8(value.tag), {}});
                    }
                    series[*it].points.push_back(
                        {static_cast<double>(event.step), value.value, event.wallTime});
                    ++next.points;
                } else if (kinds & summaryKinds({kind})) {
                    auto decoded = decodeSample(value, kind);
                    if (!decoded) {
                        ++next.refused;
                        next.lastRefusal = u"%1 at step %2: %3"_s.arg(QString::fromUtf8(value.tag),
                                                                      QString::number(event.step),
                                                                      decoded.error());
                    } else if (std::optional<SampleData> data = std::move(decoded).value()) {
                        samples.push_back({QString::fromUtf8(value.tag),
                                           static_cast<double>(event.step), event.wallTime,
                                           std::move(*data)});
                    }
                }
            }
        });
        next.corrupt += scan.corrupt;
        next.offset += scan.consumed;
        const auto unscanned = static_cast<std::uint64_t>(file.size - next.offset);
        // One record larger than a chunk: read it whole, once (a short read, of a file cut or
        // replaced since it was listed, waits for the next poll).
        if (!enlarged && bytes->size() == requested && scan.consumed == 0 &&
            scan.pendingSize > static_cast<std::uint64_t>(bytes->size()) &&
            scan.pendingSize <= largest && scan.pendingSize <= unscanned) {
            readSize = static_cast<qint64>(scan.pendingSize);
            continue;
        }
        if (scan.pendingSize > largest && scan.pendingSize <= unscanned) {
            next.offset += static_cast<qint64>(scan.pendingSize);
            ++next.skipped;
        } else if (scan.consumed == 0) {
            break; // the rest is still being written
        }
        for (Segment &segment : segments) {
            // What failed is read again from the start of its segment: what came before it is
            // told once.
            auto failed = [&](Status status) {
                *budget -= segment.start - state.offset;
                state = segment.before;
                return status;
            };
            if (segment.restart) {
                const QString key = u"%1@%2"_s.arg(
                    QString::fromLatin1(
                        QCryptographicHash::hash(file.path.toUtf8(), QCryptographicHash::Md5)
                            .toHex()),
                    QString::number(segment.start));
                if (Status restarted = sinks.restarts(run, *segment.restart, key); !restarted)
                    return failed(restarted);
            }
            // Samples first: storing them again is harmless (a config merged twice), points not.
            if (!segment.samples.empty()) {
                if (Status stored = sinks.samples(run, std::move(segment.samples)); !stored)
                    return failed(stored);
            }
            if (!segment.series.empty()) {
                if (Status stored = sinks.points(run, std::move(segment.series)); !stored)
                    return failed(stored);
            }
        }
        next.lastError.clear();
        // Charged with what was consumed only: a record still being written is no work left.
        *budget -= next.offset - state.offset;
        state = next;
    }
    return success();
}

void LogdirFollower::adopt(const LogdirFollower &polled, const QSet<QString> &unstoredRuns) {
    for (auto it = polled.m_files.begin(); it != polled.m_files.end(); ++it) {
        if (!unstoredRuns.contains(runOf(it.key())))
            m_files[it.key()] = *it;
    }
    m_tagKinds = polled.m_tagKinds;
}

QJsonArray LogdirFollower::filesJson() const {
    QJsonArray out;
    for (auto it = m_files.begin(); it != m_files.end(); ++it) {
        QJsonObject file{{u"path"_s, it.key()},       {u"run"_s, runOf(it.key())},
                         {u"offset"_s, it->offset},   {u"records"_s, it->records},
                         {u"points"_s, it->points},   {u"corrupt"_s, it->corrupt},
                         {u"skipped"_s, it->skipped}, {u"refused"_s, it->refused}};
        if (!it->lastError.isEmpty())
            file[u"lastError"_s] = it->lastError;
        if (!it->lastRefusal.isEmpty())
            file[u"lastRefusal"_s] = it->lastRefusal;
        out.append(file);
    }
    return out;
}

std::vector<Result<std::vector<sb::Sample>>>
LogdirFollower::storedItems(const std::vector<Sample> &samples) {
    std::vector<Result<std::vector<sb::Sample>>> items(samples.size(), std::vector<sb::Sample>{});
    std::vector<std::size_t> values(samples.size());
    std::iota(values.begin(), values.end(), std::size_t{0});
    QtConcurrent::blockingMap(values, [&samples, &items](std::size_t i) {
        const Sample &sample = samples[i];
        items[i] = storedSamples(sample.tag, sample.step, sample.wallTime, sample.data);
    });
    return items;
}

} // namespace sb
