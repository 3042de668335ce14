#include "MetricStore.h"

#include "LegacySeriesFiles.h"
#include "StoreRecords.h"
#include "metrics/MetricAxis.h"
#include "storage/StoreFiles.h"
#include "util/Files.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtConcurrentMap>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace sb {

using namespace Qt::StringLiterals;

namespace {
constexpr qint64 kCompactJournalAt = 8 << 20;
} // namespace

QString MetricStore::newNameProblem(const QString &what, const QString &name, bool known) {
    if (name.isEmpty())
        return u"%1 needs a name"_s.arg(what);
    if (name.size() > kLongestName && !known) // one stored before the bound keeps taking points
        return u"%1's name is %2 characters, more than %3 (it names the run in every request "
               "for its curves)"_s.arg(what)
                   .arg(name.size())
                   .arg(kLongestName);
    return {};
}

MetricStore::MetricStore(const QString &directory)
    : m_directory(directory) {
}

MetricStore::~MetricStore() = default;

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
    auto lock = store->m_directory.openFile(u"lock"_s, O_RDWR | O_CREAT, &openNotes);
    if (!lock)
        return lock.failure();
    store->m_lock.reset(*lock);
    if (::flock(store->m_lock.get(), LOCK_EX | LOCK_NB) != 0)
        return fail(u"the store %1 is in use by another Signalbox collector"_s.arg(directory));
    // Notes of earlier starts come first, and stay until acknowledged.
    const QString notesPath = directory + u"/recovery.json"_s;
    QStringList earlier;
    if (auto notes = store->m_directory.openFile(u"recovery.json"_s, O_RDONLY, &openNotes);
        notes && *notes >= 0) {
        const UniqueFd fd(*notes);
        QByteArray bytes;
        (void)readWholeFile(fd.get(), 1 << 20, &bytes); // unreadable: no earlier notes
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
    const QString notesPath = m_directory.filePath(u"recovery.json"_s);
    if (QFileInfo::exists(notesPath) && !QFile::remove(notesPath))
        return fail(u"cannot remove %1"_s.arg(notesPath), ErrorCode::StorageFailed);
    m_recoveryNotes.clear();
    return success();
}

Status MetricStore::load() {
    JournalReplay replay(m_runs, m_series, m_batches, m_samples, m_rewinds);
    if (Status read = m_journal.replay(
            [&replay](quint32 type, QByteArrayView payload) { replay.read(type, payload); },
            &m_recoveryNotes, &m_lossNotes);
        !read)
        return read;
    if (replay.format > store_records::kFormat)
        return fail(u"the store %1 was written by a newer Signalbox (format %2); this one reads "
                    "format %3 and earlier"_s.arg(m_directory.path())
                        .arg(replay.format)
                        .arg(store_records::kFormat));
    m_format = replay.format;
    // Opening adds no series: one look-up by id serves every step below.
    const QHash<quint32, StoredSeries *> byId = m_series.byId();
    LegacySeriesFiles legacy(m_directory, m_series, &m_recoveryNotes, &m_lossNotes);
    QStringList unreadable; // said this time only: no damage to repair, no compaction to force
    // The earlier layout: none of the records only data files write (one damaged record, the
    // format's say, cannot make a store of data files look like one of series files).
    if (!replay.dataRecords && (m_series.size() > 0 || legacy.present())) {
        if (Status moved = migrateSeriesFiles(legacy, replay.committed, byId); !moved)
            return moved;
    } else if (Status loaded = loadDataFiles(replay, byId, &unreadable); !loaded) {
        return loaded;
    } else if (Status cleared = legacy.clearLeftovers(byId); !cleared) {
        return cleared; // leftovers of a migration whose new journal was in place: points moved
    }
    // What rewinds hide, before the summaries (each is of one view of its series) are read.
    // A rewind names no more than its series and tags hold now (the disk may have lost some).
    QHash<quint32, qint64> seriesSizes;
    for (const auto &each : m_series.all()) {
        each->shownLast = each->last;
        seriesSizes.insert(each->id, each->count);
    }
    QHash<quint32, qint64> tagSizes;
    for (const auto &tag : m_samples.tags())
        tagSizes.insert(tag->id, qint64(tag->samples.size()));
    QByteArray clamped;
    m_rewinds.clamp(seriesSizes, tagSizes, &clamped);
    for (const QString &run : m_rewinds.runs()) {
        if (Status refreshed = refreshRun(run); !refreshed)
            unreadable << refreshed.error();
    }
    const qint64 snapshotBytes = replay.snapshotBytes();
    // After a damaged journal, extents it no longer names may hold data: none is written over.
    if (!m_lossNotes.isEmpty())
        m_data.fillNewFile();

    m_summaries.load(m_series, byId, &m_recoveryNotes);
    // Compacted when half of it or more is stale, or after a repair: a store of a million series
    // is not written again at every start.
    m_compactAt = std::max(kCompactJournalAt, 2 * snapshotBytes);
    if (replay.deletions) { // runs deleted before the last close: given back once open below
        m_freed.push_back({replay.deletedRoom, {}});
        m_deletionsInJournal = true;
    } else if (m_journal.size() > std::max(kCompactJournalAt / 8, 2 * snapshotBytes) ||
               !m_recoveryNotes.isEmpty() || !m_lossNotes.isEmpty()) {
        compactOrNote(); // the journal as it stands is valid: a full disk does not stop the open
    }
    m_recoveryNotes += unreadable;
    if (Status opened = m_journal.openForAppend(&m_lossNotes); !opened)
        return opened;
    if (!clamped.isEmpty()) { // said again, or a later start would cut them again, wrongly
        if (Status appended = m_journal.append(clamped, &m_recoveryNotes); !appended)
            return appended;
    }
    if (m_deletionsInJournal)
        reclaim();               // and the journal compacted without the deletions
    if (m_journal.size() == 0) { // a new store: its journal says its format first
        QByteArray record;
        m_format = store_records::kFormatOfPointsOnly; // until its first sample
        store_records::append(&record, RecordType::Format, store_records::format(m_format));
        if (Status appended = m_journal.append(record, &m_recoveryNotes); !appended)
            return appended;
    }
    return success();
}

Status MetricStore::migrateSeriesFiles(LegacySeriesFiles &legacy,
                                       const QHash<quint32, qint64> &committed,
                                       const QHash<quint32, StoredSeries *> &byId) {
    if (Status loaded = legacy.load(committed, byId); !loaded)
        return loaded;
    // Data files no journal names: what a migration cut short had written. They go.
    m_data.removeAll();
    QByteArray unused; // the new journal is written whole below
    if (Status copied = legacy.copyInto(m_data,
                                        [this, &unused](StoredSeries *series, qint64 points) {
                                            return allocate(series, points, &unused);
                                        });
        !copied)
        return copied;
    // The points are on disk before the journal that names them replaces the old one.
    if (Status written = compactJournal(); !written)
        return written;
    legacy.removeMoved();
    return success();
}

Status MetricStore::loadDataFiles(const JournalReplay &replay,
                                  const QHash<quint32, StoredSeries *> &byId,
                                  QStringList *unreadable) {
    QSet<quint32> named;
    for (const auto &[id, extent] : replay.extents) {
        if (byId.contains(id))
            named.insert(extent.file);
    }
    for (const StoredBlob &blob : m_samples.blobs()) {
        if (!blob.lost()) // one lost before names no file: its loss was said then
            named.insert(blob.file);
    }
    // Deleted runs' room, not given back before the last close: opened to be given back now.
    for (const Extent &extent : replay.deletedRoom)
        named.insert(extent.file);
    QHash<quint32, qint64> sizes;
    if (Status opened = m_data.recover(named, &sizes, &m_lossNotes); !opened)
        return opened;
    for (const Extent &extent : replay.deletedRoom) { // never allocated again before it is
        if (m_data.isOpen(extent.file))
            m_data.reserve(extent);
    }
    // Every extent keeps its room taken, whatever it holds.
    for (const auto &[id, extent] : replay.extents) {
        m_data.reserve(extent);
        if (StoredSeries *series = byId.value(id, nullptr))
            series->extents.push_back(extent);
    }
    for (const StoredBlob &blob : m_samples.blobs()) {
        if (!blob.lost())
            m_data.reserve(blob.extent());
    }
    // A blob the disk lost keeps its record (the loss is said, never hidden by a rewrite).
    if (const qint64 lost = m_samples.markLost([&](const StoredBlob &blob) {
            return m_data.isOpen(blob.file) && sizes.value(blob.file) >= blob.offset + blob.size;
        });
        lost > 0)
        m_lossNotes << u"%1 blobs (images, histograms, text or audio) were lost by the disk: "
                       "their samples are listed, reading them fails, and the same bytes logged "
                       "again are stored anew"_s.arg(lost);
    if (m_samples.unplaced() > 0)
        m_lossNotes << u"%1 samples name a tag or blob that no journal record holds (a damaged "
                       "journal): they are left out"_s.arg(m_samples.unplaced());
    for (const auto &series : m_series.all()) {
        const qint64 committedCount = replay.committed.value(series->id, 0);
        // Points readable in order: up to the first extent the disk lost, in part or whole.
        qint64 readable = 0;
        std::size_t kept = 0;
        for (const Extent &extent : series->extents) {
            if (readable >= committedCount || !m_data.isOpen(extent.file))
                break;
            const qint64 onDisk =
                std::clamp((sizes.value(extent.file) - extent.offset) / DataFiles::kPointBytes,
                           qint64(0), extent.capacity);
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
        const auto last = replay.lastPoints.constFind(series->id);
        if (last != replay.lastPoints.constEnd() && series->count == committedCount) {
            series->last = *last;
        } else if (series->count > 0) {
            StoredSeries *found = nullptr;
            auto points = reader(series->run, series->metric, &found);
            if (!points)
                return points.failure();
            (*points)->read(series->count - 1, 1, &series->last);
            if (const QString failure = (*points)->failure(); !failure.isEmpty())
                *unreadable << u"series %1/%2: its last point cannot be read: %3"_s.arg(
                    series->run, series->metric, failure);
        }
    }
    m_data.fillLastFile();
    return success();
}

Result<Extent> MetricStore::allocate(StoredSeries *series, qint64 points, QByteArray *journal) {
    auto extent = m_data.allocate(series->capacity(), points);
    if (!extent)
        return extent;
    series->extents.push_back(*extent);
    store_records::append(journal, RecordType::Extent, store_records::extent(series->id, *extent));
    return extent;
}

Status MetricStore::saveSummaries() {
    reclaim();
    return m_summaries.save(m_series, &m_recoveryNotes);
}

Result<MetricStore::Deleted> MetricStore::deleteRuns(const QStringList &runs) {
    Deleted deleted;
    QSet<QString> doomed;
    QByteArray journal;
    if (m_format < store_records::kFormatOfDeletions) // an earlier Signalbox would read zeros
        store_records::append(&journal, RecordType::Format,
                              store_records::format(store_records::kFormatOfDeletions));
    for (const QString &run : runs) {
        if (!m_runs.contains(run))
            return fail(u"there is no run named \"%1\""_s.arg(run));
        if (doomed.contains(run))
            continue;
        doomed.insert(run);
        deleted.runs << run;
        for (const StoredSeries *series : m_series.ofRun(run))
            deleted.points += series->count;
        for (const SampleTag *tag : m_samples.ofRun(run))
            deleted.samples += qint64(tag->samples.size());
    }
    if (doomed.isEmpty())
        return deleted;
    store_records::append(&journal, RecordType::RunDeleted,
                          store_records::deletedRuns(deleted.runs));
    if (Status appended = m_journal.append(journal, &m_recoveryNotes); !appended)
        return appended.failure();
    // Written: the runs are gone from here on, whatever happens to their room.
    m_format = std::max(m_format, store_records::kFormatOfDeletions);
    m_deletionsInJournal = true;
    for (const auto &series : m_series.removeRuns(doomed))
        m_freed.push_back({series->extents, series->lease});
    m_freed.push_back({m_samples.removeRuns(doomed), {}}); // blobs are read whole, at once
    m_batches.forgetRuns(doomed); // a run of the name later is a new one: its batches are new
    for (const QString &run : std::as_const(deleted.runs)) {
        for (const Rewind &rewind : std::vector<Rewind>(m_rewinds.ofRun(run)))
            (void)m_rewinds.remove(rewind.id);
        m_runs.remove(run);
    }
    m_summarized = 0; // positions in the series table moved
    reclaim();
    return deleted;
}

void MetricStore::reclaim() {
    const auto note = [this](const QString &text) {
        if (!m_recoveryNotes.contains(text))
            m_recoveryNotes << text;
    };
    const bool ready = std::any_of(m_freed.begin(), m_freed.end(),
                                   [](const Freed &freed) { return freed.lease.expired(); });
    // The deletion on the disk before its room is given back: after a power loss, a journal
    // without it must not name room that reads as zeros.
    if (ready) {
        if (Status synced = m_journal.sync(); !synced)
            return note(u"deleted runs' room is not given back yet, retried later: %1"_s.arg(
                synced.error()));
    }
    std::vector<Freed> waiting;
    for (Freed &freed : m_freed) {
        if (!freed.lease.expired()) { // a reader (a chart, an export) still reads it
            waiting.push_back(std::move(freed));
            continue;
        }
        std::vector<Extent> kept;
        for (const Extent &extent : freed.room) {
            if (Status given = m_data.release(extent); !given) {
                kept.push_back(extent);
                note(u"deleted runs' room is not given back yet, retried later: %1"_s.arg(
                    given.error()));
            }
        }
        if (!kept.empty())
            waiting.push_back({std::move(kept), {}});
    }
    m_freed = std::move(waiting);
    if (!m_freed.empty() || !m_deletionsInJournal)
        return;
    // No summary of a deleted series outlives it (its id may be another's one day); then the
    // journal without the deletions. A data file left all holes goes at the next open.
    if (Status saved = m_summaries.save(m_series, &m_recoveryNotes, true); !saved)
        return note(u"the summaries file was not written after a deletion, retried later: %1"_s.arg(
            saved.error()));
    if (Status compacted = compactJournal(); !compacted)
        return note(u"journal compaction failed, retried later: %1"_s.arg(compacted.error()));
    m_deletionsInJournal = false;
}

Status MetricStore::compactJournal() {
    QByteArray snapshot;
    const quint32 format = !m_rewinds.empty() ? store_records::kFormatOfRewinds
                           : m_samples.tags().empty() && m_samples.blobs().empty()
                               ? store_records::kFormatOfPointsOnly
                               : store_records::kFormatOfSamples;
    store_records::append(&snapshot, RecordType::Format, store_records::format(format));
    for (const RunInfo &run : m_runs.byName())
        store_records::append(&snapshot, RecordType::Run, store_records::run(run));
    QByteArray commit;
    for (const auto &series : m_series.all()) {
        store_records::append(&snapshot, RecordType::Series,
                              store_records::series(series->id, series->run, series->metric));
        for (const Extent &extent : series->extents)
            store_records::append(&snapshot, RecordType::Extent,
                                  store_records::extent(series->id, extent));
        store_records::appendCommitted(&commit, series->id, series->count, series->last);
    }
    store_records::append(&snapshot, RecordType::Committed, commit);
    for (const QString &batch : m_batches.keys())
        store_records::append(&snapshot, RecordType::BatchKey, batch.toUtf8());
    m_samples.appendSnapshot(&snapshot);
    m_rewinds.appendSnapshot(&snapshot); // after the series and tags they name
    // Series data must be on disk before a journal that no longer lists older commits.
    if (Status swapped = m_journal.replace(snapshot, [this] { return sync(); }); !swapped)
        return swapped;
    m_format = format;
    // Compacting again only once as much again was appended keeps the bytes written per append
    // flat however many runs the snapshot holds.
    m_compactAt = std::max(kCompactJournalAt, 2 * m_journal.size());
    return success();
}

void MetricStore::compactOrNote() {
    // Deletions waiting for their room stay in the journal until reclaim() compacts it.
    if (m_deletionsInJournal) {
        m_compactAt = m_journal.size() + kCompactJournalAt;
        return;
    }
    if (Status compacted = compactJournal(); !compacted) {
        m_compactAt = m_journal.size() + kCompactJournalAt;
        const QString note =
            u"journal compaction failed, retried later: %1"_s.arg(compacted.error());
        if (m_recoveryNotes.isEmpty() || m_recoveryNotes.last() != note)
            m_recoveryNotes << note;
    }
}

Status MetricStore::writePoints(StoredSeries *series, qint64 at, const MetricPoint *next,
                                qint64 left, QByteArray *journal) {
    qint64 start = 0; // of the extent at hand
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
        if (Status written =
                m_data.write(extent, at - start, reinterpret_cast<const char *>(next), n);
            !written)
            return written;
        next += n;
        left -= n;
        at += n;
    }
    return success();
}

Result<qint64> MetricStore::keptBy(const StoredSeries &series, const Resume &resume) const {
    if (series.shown() == 0 || !resume.past(series.shownLast.step))
        return series.shown(); // nothing past the step: nothing read
    auto points = sourceOf(series);
    if (!points)
        return points.failure();
    constexpr qint64 kChunk = 4096; // read backwards: the cost is what lies past the step
    std::vector<MetricPoint> chunk(kChunk);
    for (qint64 end = series.shown(); end > 0;) {
        const qint64 n = std::min(kChunk, end);
        (*points)->read(end - n, n, chunk.data());
        if (QString failure = (*points)->failure(); !failure.isEmpty())
            return fail(std::move(failure), ErrorCode::StorageFailed);
        for (qint64 i = n - 1; i >= 0; --i) {
            if (!resume.past(chunk[std::size_t(i)].step))
                return end - n + i + 1;
        }
        end -= n;
    }
    return 0;
}

qint64 MetricStore::keptBy(const SampleTag &tag, const Resume &resume) {
    auto range = tag.hidden.rbegin();
    for (auto i = qint64(tag.samples.size()) - 1; i >= 0; --i) {
        for (; range != tag.hidden.rend() && range->first > i; ++range) {
        }
        if (range != tag.hidden.rend() && i < range->end)
            i = range->first; // hidden: on before it
        else if (!resume.past(tag.samples[std::size_t(i)].step))
            return i + 1;
    }
    return 0;
}

Result<Rewind> MetricStore::planRewind(const QString &run, const Resume &resume,
                                       QByteArray *journal) const {
    Rewind rewind{m_rewinds.nextId(),
                  run,
                  resume.step,
                  resume.inclusive,
                  double(QDateTime::currentMSecsSinceEpoch()) / 1000,
                  {},
                  {}};
    for (const StoredSeries *series : m_series.ofRun(run)) {
        auto kept = keptBy(*series, resume);
        if (!kept)
            return kept.failure();
        if (*kept == series->shown())
            continue;
        rewind.series.emplace_back(series->id,
                                   IndexRange{storedIndex(series->hidden, *kept), series->count});
        rewind.points += series->shown() - *kept;
    }
    for (const SampleTag *tag : m_samples.ofRun(run)) {
        const qint64 kept = keptBy(*tag, resume);
        const auto stored = qint64(tag->samples.size());
        std::vector<IndexRange> after = tag->hidden;
        after.push_back({kept, stored});
        const qint64 more =
            rangesLength(mergedRanges(std::move(after))) - rangesLength(tag->hidden);
        if (more > 0) {
            rewind.tags.emplace_back(tag->id, IndexRange{kept, stored});
            rewind.samples += more;
        }
    }
    if (!rewind.series.empty() || !rewind.tags.empty())
        store_records::append(journal, RecordType::Rewind, RewindTable::record(rewind));
    return rewind;
}

Result<bool> MetricStore::append(const QString &run, const std::vector<SeriesPoints> &series,
                                 const RunInfo *info, const QString &batch, Batch kind,
                                 const Resume *resume) {
    if (const QString problem = newNameProblem(u"a run"_s, run, m_runs.contains(run));
        !problem.isEmpty())
        return fail(problem, ErrorCode::InvalidInput);
    const QString key = batch.isEmpty() ? QString() : BatchLedger::key(run, batch, kind);
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
    QSet<QString> seen; // before any work: a batch refused costs nothing
    for (const SeriesPoints &points : series) {
        if (points.points.empty())
            continue;
        if (const QString problem = newNameProblem(u"a metric"_s, points.metric,
                                                   m_series.find(run, points.metric) != nullptr);
            !problem.isEmpty())
            return fail(problem, ErrorCode::InvalidInput);
        if (seen.contains(points.metric))
            return fail(u"metric \"%1\" appears twice in one batch"_s.arg(points.metric),
                        ErrorCode::InvalidInput);
        seen.insert(points.metric);
    }
    const bool forking = resume && resume->mode == Resume::Mode::Fork;
    // A fork's part sent again (metric lines) finds its run made: the copy is not made twice.
    const bool forked = forking && known;
    if (forking && !forked) {
        if (resume->from == run)
            return fail(u"a fork starts a new run: \"%1\" cannot be forked from itself"_s.arg(run),
                        ErrorCode::InvalidInput);
        if (!m_runs.contains(resume->from))
            return fail(
                u"no run \"%1\" to fork \"%2\" from"_s.arg(resume->from.left(kLongestName), run),
                ErrorCode::InvalidInput);
        if (!m_series.ofRun(run).isEmpty() || m_samples.tagCount(run) > 0)
            return fail(u"run \"%1\" holds points already: a fork starts a new run"_s.arg(run),
                        ErrorCode::InvalidInput);
    }
    QByteArray journal;
    std::optional<double> earliest;
    for (const SeriesPoints &s : series) {
        if (!s.points.empty())
            earliest = std::min(earliest.value_or(s.points.front().wall), s.points.front().wall);
    }
    // A fork starts with its parent's config and origin of time, and says where it came from.
    RunInfo forkInfo;
    if (forking && !forked) {
        const RunInfo parent = m_runs.value(resume->from);
        forkInfo = RunInfo{run, parent.config, {}, {}, parent.start, {}};
        forkInfo.forkedFrom = {{u"run"_s, resume->from},
                               {u"step"_s, resume->step},
                               {u"inclusive"_s, resume->inclusive}};
        if (info)
            forkInfo.merge(*info);
        info = &forkInfo;
    }
    std::optional<Rewind> rewind;
    QByteArray rewindRecord;
    if (resume && resume->mode == Resume::Mode::Rewind && !known) {
        auto planned = planRewind(run, *resume, &rewindRecord);
        if (!planned)
            return planned.failure();
        if (!planned->series.empty() || !planned->tags.empty())
            rewind = std::move(planned).value();
    }
    if (rewind && m_format < store_records::kFormatOfRewinds) // an earlier one would show it all
        store_records::append(&journal, RecordType::Format,
                              store_records::format(store_records::kFormatOfRewinds));
    const RunInfo merged = mergedRun(run, info, earliest, &journal);
    journal += rewindRecord;

    // Write the points; on failure, forget the room this batch took (what it wrote past the
    // committed counts is never read, and is written over by the next batch).
    const std::size_t seriesBefore = m_series.size();
    std::vector<std::pair<StoredSeries *, std::size_t>> extentsBefore;
    const DataFiles::Mark mark = m_data.mark();
    const SampleTable::Mark samplesMark = m_samples.mark();
    auto rollBack = [&] {
        for (const auto &[s, count] : extentsBefore)
            s->extents.resize(count);
        m_data.rollBack(mark);
        // Series and tags created by this batch were never journaled: forget them.
        m_series.truncate(seriesBefore);
        m_samples.truncate(samplesMark);
    };
    // What each series gains, in order: a fork's copy of its parent's, then the batch's.
    struct Gain {
        qint64 added = 0;
        MetricPoint last;
        const SeriesPoints *points = nullptr; // the batch's
    };
    std::vector<std::pair<StoredSeries *, Gain>> gains;
    QHash<QString, std::size_t> forkedGains; // by metric: where a fork's copy is in gains
    auto target = [&](const QString &metric) {
        StoredSeries *found = m_series.find(run, metric);
        if (!found) {
            found = m_series.create(run, metric); // its id is never re-used
            store_records::append(&journal, RecordType::Series,
                                  store_records::series(found->id, run, metric));
        }
        extentsBefore.emplace_back(found, found->extents.size());
        return found;
    };
    std::vector<std::pair<SampleTag *, StoredSample>> copiedSamples;
    if (forking && !forked) {
        constexpr qint64 kChunk = 65536; // copied a piece at a time: any length in little memory
        std::vector<MetricPoint> chunk;
        for (const StoredSeries *parent : m_series.ofRun(resume->from)) {
            auto kept = keptBy(*parent, *resume);
            auto points = sourceOf(*parent);
            if (!kept || !points) {
                rollBack();
                return kept ? points.failure() : kept.failure();
            }
            if (*kept == 0)
                continue;
            StoredSeries *copy = target(parent->metric);
            Gain gain;
            for (qint64 at = 0; at < *kept; at += qint64(chunk.size())) {
                chunk.resize(std::size_t(std::min(kChunk, *kept - at)));
                (*points)->read(at, qint64(chunk.size()), chunk.data());
                Status written =
                    (*points)->failure().isEmpty()
                        ? writePoints(copy, at, chunk.data(), qint64(chunk.size()), &journal)
                        : fail((*points)->failure());
                if (!written) {
                    rollBack();
                    return fail(written.error(), ErrorCode::StorageFailed);
                }
            }
            gain.added = *kept;
            gain.last = chunk.back();
            forkedGains.insert(parent->metric, gains.size());
            gains.emplace_back(copy, gain);
        }
        QByteArray entries;
        for (const SampleTag *parent : m_samples.ofRun(resume->from)) {
            const qint64 kept = keptBy(*parent, *resume);
            SampleTag *copy = nullptr;
            auto range = parent->hidden.begin();
            for (qint64 i = 0; i < kept; ++i) {
                if (range != parent->hidden.end() && i == range->first) {
                    i = (range++)->end - 1;
                    continue;
                }
                if (!copy) {
                    copy = m_samples.createTag(run, parent->tag, parent->kind);
                    store_records::append(&journal, RecordType::SampleTag,
                                          SampleTable::tagRecord(*copy));
                }
                m_samples.appendSampleEntry(&entries, *copy, parent->samples[std::size_t(i)]);
                copiedSamples.emplace_back(copy, parent->samples[std::size_t(i)]);
            }
        }
        if (!entries.isEmpty())
            store_records::append(&journal, RecordType::Samples, entries);
    }
    for (const SeriesPoints &points : series) {
        if (points.points.empty())
            continue;
        // A fork's copy of this metric, when it made one (few: a hash only then).
        auto copied = forkedGains.constFind(points.metric);
        std::size_t at = copied != forkedGains.constEnd() ? *copied : gains.size();
        if (at == gains.size())
            gains.emplace_back(target(points.metric), Gain{});
        StoredSeries *into = gains[at].first;
        Gain &gain = gains[at].second;
        const auto n = static_cast<qint64>(points.points.size());
        if (Status stored =
                writePoints(into, into->count + gain.added, points.points.data(), n, &journal);
            !stored) {
            rollBack();
            return fail(stored.error(), ErrorCode::StorageFailed);
        }
        gain.added += n;
        gain.last = points.points.back();
        gain.points = &points;
    }
    QByteArray commit;
    for (const auto &[s, gain] : gains)
        store_records::appendCommitted(&commit, s->id, s->count + gain.added, gain.last);
    if (!key.isEmpty() && !known) // in the same write as the commit: both or neither survive
        store_records::append(&journal, RecordType::BatchKey, key.toUtf8());
    if (!commit.isEmpty())
        store_records::append(&journal, RecordType::Committed, commit);
    if (journal.isEmpty())
        return true;
    if (Status appended = m_journal.append(journal, &m_recoveryNotes); !appended) {
        rollBack();
        return appended.failure();
    }

    // Committed: publish the new state.
    if (rewind)
        m_format = std::max(m_format, store_records::kFormatOfRewinds);
    if (!key.isEmpty())
        m_batches.remember(key);
    m_runs.set(merged);
    QStringList unreadable;
    if (rewind) {
        m_rewinds.add(std::move(*rewind));
        if (Status refreshed = refreshRun(run); !refreshed)
            unreadable << refreshed.error();
    }
    for (const auto &[tag, item] : copiedSamples)
        m_samples.addSample(tag, item);
    for (const auto &[s, gain] : gains) {
        const qint64 shownBefore = s->shown();
        s->count += gain.added;
        s->last = gain.last;
        s->shownLast = gain.last;
        // One behind its series (a stale cache, a failed read) catches up by reading instead.
        if (gain.points && gain.added == qint64(gain.points->points.size()) && s->summary &&
            s->summary->count() == shownBefore)
            s->summary->append(gain.points->points.data(), gain.added);
    }
    // The batch is stored: what cannot be read now (a rewind's last shown point) or compacted is
    // the store's own problem, said and retried later, never the writer's (an error reply must
    // mean nothing was stored).
    m_recoveryNotes += unreadable;
    if (m_journal.size() > m_compactAt)
        compactOrNote();
    if (m_appended)
        m_appended(run);
    return true;
}

Status MetricStore::restoreRewind(quint32 id) {
    const std::optional<QString> run = m_rewinds.runOf(id);
    if (!run)
        return fail(u"no rewind %1 to restore"_s.arg(id));
    QByteArray journal;
    store_records::append(&journal, RecordType::RewindRestored, RewindTable::restoredRecord(id));
    if (Status appended = m_journal.append(journal, &m_recoveryNotes); !appended)
        return appended;
    m_rewinds.remove(id);
    if (Status refreshed = refreshRun(*run); !refreshed)
        m_recoveryNotes << refreshed.error();
    if (m_appended)
        m_appended(*run);
    return success();
}

QHash<QString, std::vector<IndexRange>> MetricStore::hiddenPoints(const QString &run) const {
    QHash<QString, std::vector<IndexRange>> out;
    for (const StoredSeries *series : m_series.ofRun(run)) {
        if (!series->hidden.empty())
            out.insert(series->metric, series->hidden);
    }
    return out;
}

Status MetricStore::refreshRun(const QString &run) {
    Status result = success();
    const QHash<quint32, std::vector<IndexRange>> hidden = m_rewinds.hidden(run);
    for (StoredSeries *series : m_series.ofRun(run)) {
        if (Status refreshed = refreshView(series, hidden.value(series->id)); !refreshed)
            result = refreshed;
    }
    const QHash<quint32, std::vector<IndexRange>> hiddenItems = m_rewinds.hidden(run, true);
    for (const SampleTag *tag : m_samples.ofRun(run)) {
        SampleTag *each = m_samples.find(run, tag->tag);
        each->hidden = hiddenItems.value(tag->id);
        each->byStep.clear();
    }
    return result;
}

namespace {
// FNV-1a over the ranges: the same on every machine, as the summaries file needs.
quint64 viewKeyOf(const std::vector<IndexRange> &hidden) {
    quint64 hash = 14695981039346656037ULL;
    for (const IndexRange &range : hidden) {
        for (const qint64 value : {range.first, range.end}) {
            for (int byte = 0; byte < 8; ++byte)
                hash = (hash ^ ((quint64(value) >> (8 * byte)) & 0xff)) * 1099511628211ULL;
        }
    }
    return hidden.empty() ? 0 : hash | 1;
}
} // namespace

Status MetricStore::refreshView(StoredSeries *series, std::vector<IndexRange> hidden) {
    if (hidden == series->hidden)
        return success();
    series->hidden = std::move(hidden);
    series->hiddenCount = rangesLength(series->hidden);
    series->viewKey = viewKeyOf(series->hidden);
    m_summarized = 0;        // summarize() goes through the series again
    series->summary.reset(); // of other points: built again when asked
    series->savedBlocks = 0;
    series->savedCount = -1;
    series->unreadableAt = -1;
    series->shownLast = series->last;
    if (series->hidden.empty() || series->hidden.back().end < series->count)
        return success();
    series->shownLast = {};
    if (series->shown() == 0)
        return success();
    auto points = sourceOf(*series, true);
    if (!points)
        return points.failure();
    (*points)->read(series->hidden.back().first - 1, 1, &series->shownLast);
    if (QString failure = (*points)->failure(); !failure.isEmpty())
        return fail(u"series %1/%2: its last shown point cannot be read: %3"_s.arg(
            series->run, series->metric, failure));
    return success();
}

std::vector<MetricStore::SeriesInfo> MetricStore::series(const QString &run) const {
    std::vector<SeriesInfo> out;
    for (const StoredSeries *s : m_series.ofRun(run))
        out.push_back({s->metric, s->shown(), s->shownLast,
                       s->summary ? s->summary->valueRange() : std::nullopt});
    std::sort(out.begin(), out.end(),
              [](const SeriesInfo &a, const SeriesInfo &b) { return a.metric < b.metric; });
    return out;
}

Result<MetricStore::StoredPoints> MetricStore::storedPoints(const QString &run,
                                                            const QString &metric, qint64 first,
                                                            qint64 most) const {
    const StoredSeries *series = m_series.find(run, metric);
    if (!series)
        return fail(u"run \"%1\" has no metric \"%2\""_s.arg(run, metric));
    auto source = sourceOf(*series, true);
    if (!source)
        return source.failure();
    StoredPoints out;
    out.total = (*source)->size();
    first = std::clamp<qint64>(first, 0, out.total);
    out.points.resize(std::size_t(std::min(std::max<qint64>(most, 0), out.total - first)));
    (*source)->read(first, qint64(out.points.size()), out.points.data());
    if (QString failure = (*source)->failure(); !failure.isEmpty())
        return fail(std::move(failure), ErrorCode::StorageFailed);
    return out;
}

std::optional<MetricSummary> MetricStore::metricSummary(const QString &run,
                                                        const QString &metric) const {
    const StoredSeries *s = m_series.find(run, metric);
    return s ? metricSummary(*s) : std::nullopt;
}

std::optional<MetricSummary> MetricStore::metricSummary(const StoredSeries &s, bool withRange) {
    if (s.shown() == 0) // none shown (a rewind hides them all), as listings leave it out
        return std::nullopt;
    return MetricSummary{s.shown(), s.shownLast,
                         withRange && s.summary ? s.summary->valueRange() : std::nullopt};
}

void MetricStore::keepColumnsCurrent() const {
    if (m_columns.runs != m_runs.generation()) {
        m_columns.inOrder.clear();
        m_columns.seriesByMetric.clear();
        m_columns.runs = m_runs.generation();
    }
    if (m_columns.series != m_series.generation()) {
        m_columns.seriesByMetric.clear();
        m_columns.series = m_series.generation();
    }
}

const std::vector<const RunInfo *> &MetricStore::runsInOrder() const {
    keepColumnsCurrent();
    if (m_columns.inOrder.empty()) {
        m_columns.inOrder.reserve(std::size_t(m_runs.byName().size()));
        for (const RunInfo &info : m_runs.byName())
            m_columns.inOrder.push_back(&info);
    }
    return m_columns.inOrder;
}

MetricStore::SeriesColumn MetricStore::seriesOfEachRun(const QString &metric) const {
    constexpr qsizetype kMostColumns = 64; // of 800 kB each at 100,000 runs
    const auto &runs = runsInOrder();
    if (const auto found = m_columns.seriesByMetric.constFind(metric);
        found != m_columns.seriesByMetric.constEnd())
        return *found;
    auto column = std::make_shared<std::vector<const StoredSeries *>>(runs.size(), nullptr);
    for (std::size_t row = 0; row < runs.size(); ++row)
        (*column)[row] = m_series.find(runs[row]->name, metric);
    if (m_columns.seriesByMetric.size() >= kMostColumns)
        m_columns.seriesByMetric.clear();
    m_columns.seriesByMetric.insert(metric, column);
    return column;
}

qint64 MetricStore::totalPoints() const {
    qint64 total = 0;
    for (const auto &s : m_series.all())
        total += s->count;
    return total;
}

bool MetricStore::needsSummary(const StoredSeries &series) {
    // One whose read failed is read again only once its count changed (points were appended).
    return (!series.summary || series.summary->count() < series.shown()) &&
           series.unreadableAt != series.count;
}

void MetricStore::summarizeOne(StoredSeries *series) {
    StoredSeries *found = nullptr;
    if (auto source = reader(series->run, series->metric, &found)) {
        (void)SummariesCache::update(*series, **source); // unreadable: noted in the series
    } else {
        series->unreadableAt = series->count;
    }
}

bool MetricStore::summarize(QDeadlineTimer deadline) {
    for (; m_summarized < m_series.size(); ++m_summarized) {
        if (deadline.hasExpired())
            return false;
        StoredSeries *series = m_series.all()[m_summarized].get();
        if (!needsSummary(*series))
            continue;
        summarizeOne(series);
    }
    return true;
}

bool MetricStore::summarize(const QString &run, QDeadlineTimer deadline) {
    for (StoredSeries *series : m_series.ofRun(run)) {
        if (!needsSummary(*series))
            continue;
        if (deadline.hasExpired())
            return false;
        summarizeOne(series);
    }
    return true;
}

std::size_t MetricStore::summaryBytes() const {
    return SummariesCache::memoryBytes(m_series);
}

Result<std::unique_ptr<ExtentSource>> MetricStore::reader(const QString &run, const QString &metric,
                                                          StoredSeries **series) const {
    *series = m_series.find(run, metric);
    if (!*series)
        return fail(u"run \"%1\" has no metric \"%2\""_s.arg(run, metric));
    return sourceOf(**series);
}

Result<std::unique_ptr<ExtentSource>> MetricStore::sourceOf(const StoredSeries &series,
                                                            bool stored) const {
    std::vector<ExtentSource::Piece> pieces;
    qint64 first = 0;
    for (const Extent &extent : series.extents) {
        if (first >= series.count)
            break;
        auto file = m_data.file(extent.file);
        if (!file)
            return fail(u"cannot read the points of %1/%2: data/%3.dat is not open"_s
                            .arg(series.run, series.metric)
                            .arg(extent.file),
                        ErrorCode::StorageFailed);
        pieces.push_back({std::move(file), extent.file, extent.offset, first, extent.capacity});
        first += extent.capacity;
    }
    if (!series.lease)
        series.lease = std::make_shared<const char>();
    return std::make_unique<ExtentSource>(
        series.run + u'/' + series.metric, std::move(pieces), series.count,
        stored ? std::vector<IndexRange>{} : series.hidden, series.lease);
}

Result<MetricStore::Opened> MetricStore::openSeries(const QString &run, const QString &metric,
                                                    const QString &xMetric) {
    StoredSeries *series = nullptr;
    auto opened = reader(run, metric, &series);
    if (!opened)
        return opened.failure();
    if (Status updated = SummariesCache::update(*series, **opened); !updated)
        return updated.failure();
    const double origin = m_runs.value(run).start.value_or(series->summary->minX(XAxis::WallTime));
    if (xMetric.isEmpty())
        return Opened{std::move(opened).value(), &*series->summary, origin, nullptr};
    StoredSeries *xSeries = nullptr;
    auto x = reader(run, xMetric, &xSeries);
    if (!x)
        return x.failure();
    std::vector<MetricPoint> xPoints(static_cast<std::size_t>((*x)->size()));
    (*x)->read(0, (*x)->size(), xPoints.data());
    if (QString failure = (*x)->failure(); !failure.isEmpty())
        return fail(std::move(failure), ErrorCode::StorageFailed);
    auto mapped = std::make_unique<MetricAxisSource>(std::move(opened).value(), std::move(xPoints));
    auto summary = std::make_unique<SeriesSummary>();
    summary->update(*mapped);
    if (QString failure = mapped->failure(); !failure.isEmpty())
        return fail(std::move(failure), ErrorCode::StorageFailed);
    const SeriesSummary *view = summary.get();
    return Opened{std::move(mapped), view, origin, std::move(summary)};
}

Result<Downsampled> MetricStore::query(const QString &run, const QString &metric,
                                       const SeriesWindow &window) {
    return std::move(query({{run, metric}}, window).front());
}

std::vector<Result<Downsampled>> MetricStore::query(const std::vector<SeriesName> &names,
                                                    const SeriesWindow &window) {
    struct Job {
        Result<Opened> series;
        std::optional<Result<Downsampled>> answer;
    };
    std::vector<Result<Downsampled>> answers;
    answers.reserve(names.size());
    constexpr std::size_t kBatch = 256; // opened at a time: the open files stay few
    for (std::size_t first = 0; first < names.size(); first += kBatch) {
        std::vector<Job> batch;
        for (std::size_t i = first; i < std::min(names.size(), first + kBatch); ++i)
            batch.push_back({openSeries(names[i].run, names[i].metric, window.xMetric), {}});
        QtConcurrent::blockingMap(batch, [&window](Job &job) {
            if (!job.series) {
                job.answer = job.series.failure();
                return;
            }
            SeriesWindow own = window;
            if (!own.xMetric.isEmpty())
                own.axis = XAxis::Step; // the mapped steps
            if (own.axis == XAxis::RelativeTime)
                own.origin = job.series->origin;
            Downsampled downsampled = downsampleM4(*job.series->points, *job.series->summary, own);
            if (QString failure = job.series->points->failure(); !failure.isEmpty())
                job.answer = fail(std::move(failure), ErrorCode::StorageFailed);
            else
                job.answer = std::move(downsampled);
        });
        for (Job &job : batch)
            answers.push_back(std::move(*job.answer));
    }
    return answers;
}

Result<std::unique_ptr<CsvExport>> MetricStore::exportCsv(const QString &run,
                                                          const QString &metric) const {
    StoredSeries *series = nullptr;
    auto opened = reader(run, metric, &series);
    if (!opened)
        return opened.failure();
    if (Status whole = (*opened)->check(); !whole)
        return whole.failure();
    return std::make_unique<CsvExport>(std::move(opened).value());
}

Status MetricStore::exportCsv(const QString &run, const QString &metric, QIODevice *out) const {
    auto csv = exportCsv(run, metric);
    if (!csv)
        return csv.failure();
    for (QByteArray piece = (*csv)->next(); !piece.isEmpty(); piece = (*csv)->next()) {
        if (out->write(piece) != piece.size())
            return fail(u"cannot write the CSV: %1"_s.arg(out->errorString()));
    }
    if (!(*csv)->error().isEmpty())
        return fail((*csv)->error(), ErrorCode::StorageFailed);
    return success();
}

Status MetricStore::sync() {
    if (Status synced = m_data.sync(); !synced)
        return synced;
    return m_journal.sync();
}

RunInfo MetricStore::mergedRun(const QString &run, const RunInfo *info,
                               std::optional<double> earliest, QByteArray *journal) const {
    const RunInfo stored = m_runs.value(run);
    RunInfo merged = stored;
    if (info)
        merged.merge(*info);
    if (!merged.start)
        merged.start = earliest;
    if (!m_runs.contains(run) || info || merged.start != stored.start)
        store_records::append(journal, RecordType::Run, store_records::run(merged));
    return merged;
}

Result<qint64> MetricStore::appendSamples(const QString &run, const std::vector<Sample> &samples) {
    if (const QString problem = newNameProblem(u"a run"_s, run, m_runs.contains(run));
        !problem.isEmpty())
        return fail(problem, ErrorCode::InvalidInput);
    for (const Sample &sample : samples) {
        if (const QString problem =
                newNameProblem(u"a tag"_s, sample.tag, m_samples.find(run, sample.tag) != nullptr);
            !problem.isEmpty())
            return fail(problem, ErrorCode::InvalidInput);
    }
    if (samples.empty())
        return 0;
    QByteArray journal;
    if (m_format < store_records::kFormatOfSamples) // an earlier Signalbox would drop them
        store_records::append(&journal, RecordType::Format,
                              store_records::format(store_records::kFormatOfSamples));
    std::optional<double> earliest;
    for (const Sample &sample : samples)
        earliest = std::min(earliest.value_or(sample.wall), sample.wall);
    const RunInfo merged = mergedRun(run, nullptr, earliest, &journal);

    // What would refuse the batch is found before anything is written: each tag's kind, and
    // how many tags a run keeps.
    QHash<QString, SampleKind> kinds; // of the batch's tags
    for (const Sample &sample : samples) {
        const SampleTag *held = m_samples.find(run, sample.tag);
        const SampleKind kind = held ? held->kind : kinds.value(sample.tag, sample.kind);
        if (kind != sample.kind)
            return fail(u"tag \"%1\" of run \"%2\" holds %3 samples, not %4"_s.arg(
                            sample.tag, run, sampleKindName(kind), sampleKindName(sample.kind)),
                        ErrorCode::InvalidInput);
        if (!held)
            kinds.insert(sample.tag, kind);
    }
    if (!kinds.isEmpty() && m_samples.tagCount(run) + kinds.size() > SampleTable::kMostTagsPerRun)
        return fail(
            u"run \"%1\" would have more than %2 tags of samples, the most a run keeps"_s.arg(run)
                .arg(SampleTable::kMostTagsPerRun),
            ErrorCode::InvalidInput);
    if (!kinds.isEmpty() && m_samples.idsExhausted())
        return fail(u"the store has made all the tags of samples it can (2^30)"_s,
                    ErrorCode::StorageFailed);

    // New tags and blobs join the table at once (a batch may hold the same bytes twice); on
    // failure they, the room their bytes took, and lost blobs written anew are taken back.
    const SampleTable::Mark tableMark = m_samples.mark();
    const DataFiles::Mark dataMark = m_data.mark();
    std::vector<std::pair<quint32, StoredBlob>> rewritten; // lost blobs' entries before
    auto refuse = [&](Error why) -> Result<qint64> {
        for (auto &[index, before] : rewritten)
            m_samples.replaceBlob(index, std::move(before));
        m_samples.truncate(tableMark);
        m_data.rollBack(dataMark);
        return why;
    };
    bool newTags = false;
    QByteArray blobs, entries;
    std::vector<std::pair<SampleTag *, StoredSample>> added;
    QHash<SampleTag *, qint64> adding; // items per tag in this batch
    for (const Sample &sample : samples) {
        SampleTag *tag = m_samples.find(run, sample.tag);
        if (!tag) {
            tag = m_samples.createTag(run, sample.tag, sample.kind);
            newTags = true;
            store_records::append(&journal, RecordType::SampleTag, SampleTable::tagRecord(*tag));
        }
        const QByteArray digest =
            sample.digest.size() == 32 ? sample.digest : sampleDigest(sample.bytes);
        std::optional<quint32> blob = m_samples.blob(digest);
        // Bytes the store does not hold, or held and lost by the disk: written (again).
        if (!blob || m_samples.blobs()[*blob].lost()) {
            auto extent = m_data.allocateBytes(sample.bytes.size());
            if (!extent)
                return refuse(fail(extent.error(), ErrorCode::StorageFailed));
            if (Status written = m_data.writeBytes(*extent, sample.bytes); !written)
                return refuse(fail(written.error(), ErrorCode::StorageFailed));
            StoredBlob stored{digest, sample.bytes.size(), extent->file, extent->offset};
            if (blob)
                rewritten.emplace_back(*blob, m_samples.replaceBlob(*blob, stored));
            else
                blob = m_samples.addBlob(stored);
            SampleTable::appendBlobEntry(&blobs, stored);
        }
        const StoredSample item{sample.step, sample.wall, *blob, sample.index, sample.facts};
        if (SampleTable::holds(*tag, item))
            continue; // stored before: a file read again, a push sent again
        if (qint64(tag->samples.size()) + ++adding[tag] > SampleTable::kMostSamplesPerTag)
            return refuse(fail(u"tag \"%1\" of run \"%2\" would hold more than %3 samples, the "
                               "most a tag keeps"_s.arg(sample.tag, run)
                                   .arg(SampleTable::kMostSamplesPerTag),
                               ErrorCode::InvalidInput));
        m_samples.appendSampleEntry(&entries, *tag, item);
        added.emplace_back(tag, item);
    }
    if (!blobs.isEmpty())
        store_records::append(&journal, RecordType::Blobs, blobs);
    if (!entries.isEmpty())
        store_records::append(&journal, RecordType::Samples, entries);
    if (added.empty() && !newTags && blobs.isEmpty()) {
        (void)refuse({});
        return 0; // every item was there: nothing to say
    }
    // The blobs' bytes were written before the record that names them; the journal's append is
    // the commit.
    if (Status appended = m_journal.append(journal, &m_recoveryNotes); !appended)
        return refuse(fail(appended.error(), ErrorCode::StorageFailed));
    m_format = std::max(m_format, store_records::kFormatOfSamples);
    m_runs.set(merged);
    for (const auto &[tag, item] : added)
        m_samples.addSample(tag, item);
    if (m_journal.size() > m_compactAt)
        compactOrNote();
    return qint64(added.size());
}

std::vector<MetricStore::SampleTagInfo> MetricStore::sampleTags(const QString &run) const {
    std::vector<SampleTagInfo> out;
    for (const SampleTag *tag : m_samples.ofRun(run)) {
        if (tag->hidden.empty() && !tag->samples.empty()) {
            out.push_back(
                {tag->tag, tag->kind, qint64(tag->samples.size()), tag->firstStep, tag->lastStep});
        } else if (const std::vector<quint32> &shown = SampleTable::inStepOrder(*tag);
                   !shown.empty()) { // a rewind hides some: the steps of those shown
            out.push_back({tag->tag, tag->kind, qint64(shown.size()),
                           tag->samples[shown.front()].step, tag->samples[shown.back()].step});
        } // none: a tag made by a batch that stored no item, or all hidden
    }
    return out;
}

Result<MetricStore::SamplePage> MetricStore::samples(const QString &run, const QString &tag,
                                                     std::optional<double> from,
                                                     std::optional<double> to, qint64 offset,
                                                     qint64 limit) const {
    const SampleTag *found = m_samples.find(run, tag);
    // The items in step order: as they are for a tag whose steps only rose and that no rewind
    // hides part of, else by an index the table keeps until the tag changes.
    const std::vector<quint32> *order = !found || (found->ordered && found->hidden.empty())
                                            ? nullptr
                                            : &SampleTable::inStepOrder(*found);
    if (!found || (order ? order->empty() : found->samples.empty()))
        return fail(u"run \"%1\" has no samples under tag \"%2\""_s.arg(run, tag));
    const std::vector<StoredSample> &all = found->samples;
    const auto count = order ? qint64(order->size()) : qint64(all.size());
    auto at = [&](qint64 i) -> const StoredSample & {
        return all[order ? (*order)[std::size_t(i)] : std::size_t(i)];
    };
    // The first position whose step is not below `step` (or, `after`, is above it).
    auto position = [&](double step, bool after) {
        qint64 low = 0;
        qint64 high = count;
        while (low < high) {
            const qint64 middle = low + (high - low) / 2;
            if (after ? at(middle).step <= step : at(middle).step < step)
                low = middle + 1;
            else
                high = middle;
        }
        return low;
    };
    const qint64 first = from ? position(*from, false) : 0;
    const qint64 end = to ? position(*to, true) : count;
    SamplePage page{found->kind, std::max<qint64>(0, end - first), {}};
    for (qint64 i = first + std::max<qint64>(0, offset);
         i < end && qint64(page.samples.size()) < limit; ++i) {
        const StoredSample &item = at(i);
        const StoredBlob &blob = m_samples.blobs()[item.blob];
        page.samples.push_back({item, blob.digest, blob.size});
    }
    return page;
}

Result<QByteArray> MetricStore::readBlob(QByteArrayView digest, qint64 most) const {
    const auto index = m_samples.blob(digest);
    if (!index)
        return fail(u"no blob %1"_s.arg(QString::fromLatin1(digest.toByteArray().toHex())));
    const StoredBlob &blob = m_samples.blobs()[*index];
    const auto file = m_data.file(blob.file);
    if (blob.lost() || !file)
        return fail(u"blob %1 was lost by the disk"_s.arg(QString::fromLatin1(blob.digest.toHex())),
                    ErrorCode::StorageFailed);
    const qint64 size = most < 0 ? blob.size : std::min(most, blob.size);
    QByteArray bytes(size, Qt::Uninitialized);
    if (!readFully(file->fd.get(), bytes.data(), size, blob.offset))
        return fail(systemError(u"cannot read blob %1 from data/%2.dat"_s
                                    .arg(QString::fromLatin1(blob.digest.toHex()))
                                    .arg(blob.file)),
                    ErrorCode::StorageFailed);
    return bytes;
}

} // namespace sb
