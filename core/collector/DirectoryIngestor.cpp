#include "DirectoryIngestor.h"

#include "Collector.h"
#include "util/Files.h"
#include "util/Log.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

namespace sb {

using namespace Qt::StringLiterals;

DirectoryIngestor::DirectoryIngestor(Collector *collector, QStringList directories,
                                     QString statePath)
    : m_collector(collector)
    , m_directories(std::move(directories))
    , m_statePath(std::move(statePath)) {
    loadState();
    m_timer.setInterval(500);
    connect(&m_timer, &QTimer::timeout, this, &DirectoryIngestor::scan);
    m_timer.start();
    scan();
}

void DirectoryIngestor::scan() {
    bool more = false;
    for (const QString &directory : std::as_const(m_directories)) {
        QDirIterator it(directory, {u"*.jsonl"_s, u"*.csv"_s}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext())
            more = follow(directory, it.next()) || more;
        more = followEventFiles(directory) || more;
    }
    if (more) // a big backlog: go on reading once queries waiting meanwhile are answered
        QTimer::singleShot(0, this, &DirectoryIngestor::scan);
}

bool DirectoryIngestor::followEventFiles(const QString &directory) {
    LogdirFollower &follower = m_logdirs[directory];
    LocalLogdir source(directory);
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
    const auto progress =
        follower.poll(source, [&](const QString &run, std::vector<SeriesPoints> &&series) {
            return m_collector->ingestSeries(run, series);
        });
    if (progress && progress->bytes > 0)
        saveState();
    return progress && progress->more;
}

bool DirectoryIngestor::follow(const QString &directory, const QString &path) {
    QFile file(path);
    Source &source = m_sources[path];
    const bool csv = path.endsWith(u".csv"_s);
    if (file.size() < source.offset) {
        source = Source{}; // truncated or replaced: start over
    }
    if (file.size() == source.offset || !file.open(QIODevice::ReadOnly))
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
        saveState();
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
    saveState();
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
        if (isEventFileName(QFileInfo(it.key()).fileName()))
            m_savedOffsets[it.key()] = it.value().toInteger();
        else
            m_sources[it.key()].offset = it.value().toInteger();
    }
}

void DirectoryIngestor::saveState() const {
    QJsonObject state;
    for (auto it = m_sources.begin(); it != m_sources.end(); ++it)
        state[it.key()] = it->offset;
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
