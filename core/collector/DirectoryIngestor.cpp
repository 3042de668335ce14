#include "DirectoryIngestor.h"

#include "Collector.h"
#include "tensorboard/Summaries.h"
#include "util/Files.h"
#include "util/Log.h"
#include "util/OffThread.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

namespace sb {

using namespace Qt::StringLiterals;

DirectoryIngestor::DirectoryIngestor(Collector *collector, const QStringList &directories,
                                     QString statePath)
    : m_collector(collector)
    , m_statePath(std::move(statePath)) {
    // Absolute: a relative directory would be joined to paths already relative to it.
    for (const QString &directory : directories)
        m_directories.append(QFileInfo(directory).absoluteFilePath());
    loadState();
    m_timer.setInterval(kPoll);
    connect(&m_timer, &QTimer::timeout, this, &DirectoryIngestor::scan);
    m_timer.start();
    // What is there at start is read before the first query is answered; later looks are made
    // on a worker thread.
    m_listed = list(m_directories, {}, true);
    m_nextWalk.setRemainingTime(m_walkEvery);
    followListed();
}

namespace {

// A watched directory's event files as the last listing found them (no walk of its own).
class ListedLogdir final : public LogdirSource {
public:
    ListedLogdir(const QString &root, std::vector<File> files)
        : m_local(root)
        , m_files(std::move(files)) {}
    Result<std::vector<File>> eventFiles() override { return m_files; }
    Result<QByteArray> read(const QString &path, qint64 offset, qint64 size) override {
        return m_local.read(path, offset, size);
    }

private:
    LocalLogdir m_local;
    std::vector<File> m_files;
};

} // namespace

std::vector<DirectoryIngestor::Listed>
DirectoryIngestor::list(const QStringList &directories, std::vector<Listed> known, bool walk) {
    std::vector<Listed> found;
    auto same = [](const FileEntry &a, const FileEntry &b) {
        return a.size == b.size && a.inode == b.inode && a.device == b.device;
    };
    if (!walk) {
        for (Listed &listed : known) {
            const QString path = QDir(listed.directory).filePath(listed.file.path);
            if (auto file = regularFileEntry(path, listed.file.path)) {
                listed.changed = !same(*file, listed.file);
                listed.file = *file;
                found.push_back(std::move(listed));
            }
        }
        return found;
    }
    QHash<QString, FileEntry> before; // by directory and path
    for (const Listed &listed : known)
        before.insert(listed.directory + u'\0' + listed.file.path, listed.file);
    for (const QString &directory : directories) {
        const QDir root(directory);
        if (QFileInfo(directory).isFile()) { // one event file: a logdir of one run
            if (auto file = regularFileEntry(directory, QFileInfo(directory).fileName()))
                found.push_back({directory, *file, true});
            continue;
        }
        QDirIterator it(directory, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            it.next();
            const QString name = it.fileName();
            const bool events = isEventFileName(name);
            if (!events && !name.endsWith(u".jsonl"_s) && !name.endsWith(u".csv"_s))
                continue;
            if (auto file = regularFileEntry(it.filePath(), root.relativeFilePath(it.filePath()))) {
                const auto seen = before.constFind(directory + u'\0' + file->path);
                found.push_back(
                    {directory, *file, events, seen == before.constEnd() || !same(*seen, *file)});
            }
        }
    }
    return found;
}

void DirectoryIngestor::scan() {
    if (m_looking)
        return; // the last look is still running: the file system is slow, not this thread
    m_looking = true;
    const bool walk = m_nextWalk.hasExpired();
    runOffThread(
        this,
        [directories = m_directories, known = m_listed, walk]() mutable {
            return list(directories, std::move(known), walk);
        },
        [this, walk](std::vector<Listed> listed) {
            m_looking = false;
            if (walk) {
                // New files since the last walk: walk again soon; none: less and less often.
                QSet<QString> before;
                for (const Listed &known : std::as_const(m_listed))
                    before.insert(known.directory + u'\0' + known.file.path);
                const bool appeared =
                    std::any_of(listed.begin(), listed.end(), [&](const Listed &l) {
                        return !before.contains(l.directory + u'\0' + l.file.path);
                    });
                m_walkEvery = appeared ? kPoll : std::min(m_walkEvery * 2, kSlowestWalk);
                m_nextWalk.setRemainingTime(m_walkEvery);
            }
            m_listed = std::move(listed);
            followListed();
        });
}

void DirectoryIngestor::followListed() {
    bool more = false;
    // Only what changed, or was not read to its end: 10,000 idle files cost no work here.
    for (const Listed &listed : std::as_const(m_listed)) {
        if (listed.events || (!listed.changed && m_behind.isEmpty()))
            continue;
        const QString path = QDir(listed.directory).filePath(listed.file.path);
        if (!listed.changed && !m_behind.contains(path))
            continue;
        more = follow(listed.directory, listed.file) || more;
        const auto source = m_sources.constFind(path);
        if (source != m_sources.constEnd() && source->offset < listed.file.size)
            m_behind.insert(path);
        else
            m_behind.remove(path);
    }
    for (const QString &directory : std::as_const(m_directories))
        more = followEventFiles(directory) || more;
    // Once a pass, not once a file: saving every offset after each of 10,000 files made the
    // first pass quadratic. A kill mid-pass reads that pass's lines again.
    if (m_unsaved) {
        saveState();
        m_unsaved = false;
    }
    if (more) // a big backlog: go on reading once queries waiting meanwhile are answered
        QTimer::singleShot(0, this, &DirectoryIngestor::followListed);
}

bool DirectoryIngestor::followEventFiles(const QString &directory) {
    LogdirFollower &follower = m_logdirs[directory];
    std::vector<LogdirSource::File> listed;
    for (const Listed &file : std::as_const(m_listed)) {
        if (file.events && file.directory == directory)
            listed.push_back(file.file);
    }
    if (listed.empty() && follower.files().isEmpty())
        return false;
    ListedLogdir source(directory, std::move(listed));
    const QDir root(directory);
    // Offsets saved by the last run apply to files the follower has not seen yet.
    auto restore = [&](const std::vector<LogdirSource::File> &files) {
        for (const auto &file : files) {
            const QString path = root.filePath(file.path);
            if (!follower.files().contains(file.path) && m_savedOffsets.contains(path))
                follower.restoreOffset(file.path, m_savedOffsets.take(path));
        }
    };
    if (!m_savedOffsets.isEmpty()) {
        if (auto files = source.eventFiles())
            restore(*files);
    }
    // Besides scalars, images, histograms, text and audio, and the hyperparameters of
    // TensorBoard's hparams sessions as runs' configs.
    const auto progress = follower.poll(
        source,
        [&](const QString &run, std::vector<SeriesPoints> &&series) {
            return m_collector->ingestSeries(run, series);
        },
        LogdirFollower::kBudget,
        [&](const QString &run, std::vector<LogdirFollower::Sample> &&samples) {
            return storeSamples(run, samples);
        },
        kEverySampleKind,
        [&](const QString &run, double step, const QString &key) {
            return m_collector->ingestRestart(run, step, key);
        });
    if (progress && progress->bytes > 0)
        m_unsaved = true;
    return progress && progress->more;
}

Status DirectoryIngestor::storeSamples(const QString &run,
                                       const std::vector<LogdirFollower::Sample> &samples) {
    // What is refused for good is said, and the file goes on; a disk that failed is read again.
    auto store = [&](const std::vector<Sample> &items) -> Status {
        const auto stored = m_collector->store().appendSamples(run, items);
        if (stored)
            return success();
        if (stored.errorCode() != ErrorCode::InvalidInput)
            return stored.failure();
        qCWarning(lcCollector).noquote() << u"%1: %2"_s.arg(run, stored.error());
        return success();
    };
    std::vector<Sample> batch;
    std::vector<std::vector<Sample>> byValue; // a value's items: stored one value at a time
    for (const LogdirFollower::Sample &sample : samples) {
        if (const auto *session = std::get_if<HparamsSample>(&sample.data)) {
            Status stored = m_collector->ingestConfig(run, session->hparams);
            if (!stored && stored.errorCode() != ErrorCode::InvalidInput)
                return stored;
            if (!stored)
                qCWarning(lcCollector).noquote() << stored.error();
        }
    }
    for (auto &items : LogdirFollower::storedItems(samples)) {
        if (!items) {
            qCWarning(lcCollector).noquote() << u"%1: %2"_s.arg(run, items.error());
            continue;
        }
        if (items->empty())
            continue; // an hparams value
        batch.insert(batch.end(), items->begin(), items->end());
        byValue.push_back(std::move(items).value());
    }
    if (batch.empty())
        return success();
    // One batch; when it is refused (a tag that changed kind, one full), value by value, so that
    // one refused value costs only itself.
    const auto stored = m_collector->store().appendSamples(run, batch);
    if (stored)
        return success();
    if (stored.errorCode() != ErrorCode::InvalidInput)
        return stored.failure();
    for (const std::vector<Sample> &items : byValue) {
        if (Status one = store(items); !one)
            return one;
    }
    return success();
}

bool DirectoryIngestor::follow(const QString &directory, const FileEntry &listed) {
    const QString path = QDir(directory).filePath(listed.path);
    Source &source = m_sources[path];
    const bool csv = path.endsWith(u".csv"_s);
    const bool replaced =
        source.inode != 0 && (listed.inode != source.inode || listed.device != source.device);
    // The listing may be older than our last read, which went on to the file's end: a shorter
    // size is checked against the file as it is now before it counts as a cut.
    const bool cut = listed.size < source.offset && QFileInfo(path).size() < source.offset;
    if (cut || replaced) {
        // Rotated (another file now at the path) or cut: the file there now, from its start.
        Source fresh;
        fresh.errors = source.errors;
        fresh.lastError = source.lastError;
        source = fresh;
    }
    source.inode = listed.inode;
    source.device = listed.device;
    if (listed.size == source.offset)
        return false; // nothing new: not even opened
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    if (csv && !source.csv.hasHeader() && source.offset > 0)
        (void)source.csv.readLine(file.readLine(kMaxLine)); // a restart resumes after the header
    file.seek(source.offset);
    // Bounded reads: a huge file is taken a chunk at a time, between answers to queries.
    constexpr qint64 kChunk = 16 * kMaxLine;
    QByteArray bytes = file.read(std::min(file.size() - source.offset, kChunk));
    const bool more = source.offset + bytes.size() < file.size();
    if (source.skippingLongLine) {
        const qsizetype newline = bytes.indexOf('\n');
        source.offset += newline < 0 ? bytes.size() : newline + 1;
        source.skippingLongLine = newline < 0;
        m_unsaved = true;
        return more || newline >= 0;
    }
    const qsizetype end = bytes.lastIndexOf('\n') + 1; // a partial last line waits
    // No newline within kMaxLine: a line this long is no record; it is reported once, read past.
    const bool tooLong = bytes.size() - end > kMaxLine;
    if (end == 0 && !tooLong)
        return more;
    const QString relative = QDir(directory).relativeFilePath(path);
    const QString run = relative.left(relative.lastIndexOf(u'.'));
    // Work on copies: the source's state moves on only once the store took the records, so a
    // retry after a refusal reads the same lines the same way.
    CsvMetricReader csvReader = source.csv;
    qint64 lines = source.lines;
    qint64 errors = source.errors;
    QString lastError = source.lastError;
    std::vector<MetricRecord> records;
    qsizetype start = 0;
    while (start < end) {
        const qsizetype newline = bytes.indexOf('\n', start);
        const QByteArrayView line(bytes.constData() + start, newline - start);
        start = newline + 1;
        ++lines;
        if (line.trimmed().isEmpty())
            continue;
        auto record = [&]() -> Result<std::optional<MetricRecord>> {
            if (csv)
                return csvReader.readLine(line);
            auto parsed = MetricLines::parseJsonObject(line);
            if (!parsed)
                return fail(parsed.error());
            return std::optional<MetricRecord>(std::move(parsed).value());
        }();
        if (!record) {
            ++errors;
            lastError = u"line %1: %2"_s.arg(lines).arg(record.error());
        } else if (record.value()) {
            records.push_back(std::move(*record.value()));
        }
    }
    const Collector::IngestResult stored = m_collector->ingestRecords(run, records);
    if (stored.storageFailed && stored.points == 0) {
        ++source.errors;
        source.lastError = stored.errors.join(u"; "_s);
        return false; // the disk refused: retried on the next scan, from the same offset
    }
    // Anything else refused was refused for its content: reported, and the file moves on.
    errors += stored.errors.size();
    if (!stored.errors.isEmpty())
        lastError = stored.errors.last();
    if (tooLong) {
        ++lines;
        ++errors;
        lastError = u"line %1: longer than %2 bytes, skipped"_s.arg(lines).arg(kMaxLine);
        source.skippingLongLine = true;
    }
    source.csv = csvReader;
    source.lines = lines;
    source.errors = errors;
    source.lastError = lastError;
    source.offset += end;
    m_unsaved = true;
    return more || tooLong;
}

QJsonArray DirectoryIngestor::sourcesJson() const {
    QJsonArray out;
    for (auto it = m_logdirs.begin(); it != m_logdirs.end(); ++it) {
        for (QJsonValue file : it->filesJson()) {
            QJsonObject json = file.toObject();
            json[u"path"_s] = QDir(it.key()).filePath(json.value(u"path"_s).toString());
            out.append(json);
        }
    }
    for (auto it = m_sources.begin(); it != m_sources.end(); ++it) {
        out.append(QJsonObject{{u"path"_s, it.key()},
                               {u"offset"_s, it->offset},
                               {u"lines"_s, it->lines},
                               {u"errors"_s, it->errors},
                               {u"lastError"_s, it->lastError}});
    }
    return out;
}

void DirectoryIngestor::loadState() {
    const auto document = readStateFile(m_statePath);
    if (!document) {
        qCWarning(lcCollector).noquote() << document.error(); // files are read again from the start
        return;
    }
    const QJsonObject state = document->object();
    for (auto it = state.begin(); it != state.end(); ++it) {
        if (isEventFileName(QFileInfo(it.key()).fileName())) {
            m_savedOffsets[it.key()] = it.value().toInteger();
        } else if (it.value().isObject()) { // with the file's identity (an offset alone before)
            const QJsonObject saved = it.value().toObject();
            Source &source = m_sources[it.key()];
            source.offset = saved.value(u"offset"_s).toInteger();
            source.inode = saved.value(u"inode"_s).toString().toULongLong();
            source.device = saved.value(u"device"_s).toString().toULongLong();
        } else {
            m_sources[it.key()].offset = it.value().toInteger();
        }
    }
}

void DirectoryIngestor::saveState() const {
    QJsonObject state;
    // Identities as text: an inode may be past what a JSON number holds exactly.
    for (auto it = m_sources.begin(); it != m_sources.end(); ++it)
        state[it.key()] = QJsonObject{{u"offset"_s, it->offset},
                                      {u"inode"_s, QString::number(it->inode)},
                                      {u"device"_s, QString::number(it->device)}};
    for (auto it = m_savedOffsets.begin(); it != m_savedOffsets.end(); ++it)
        state[it.key()] = it.value();
    for (auto it = m_logdirs.begin(); it != m_logdirs.end(); ++it) {
        const auto &files = it->files();
        for (auto file = files.begin(); file != files.end(); ++file)
            state[QDir(it.key()).filePath(file.key())] = file->offset;
    }
    if (Status saved =
            writeFileAtomically(m_statePath, QJsonDocument(state).toJson(QJsonDocument::Compact));
        !saved)
        qCWarning(lcCollector).noquote() << saved.error();
}

} // namespace sb
