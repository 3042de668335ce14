#pragma once

#include "BatchLedger.h"
#include "RewindTable.h"
#include "RunIndex.h"
#include "SampleTable.h"
#include "SeriesTable.h"
#include "metrics/MetricPoint.h"
#include "storage/DataFiles.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QSet>

#include <vector>

namespace sb {

// The metric store's records (framed by journal_framing): their types and payloads, written and
// read back.
enum class RecordType : quint32 {
    Run = 1,
    SeriesCreated = 2,
    Commit = 3,
    Batch = 4,
    Summary = 5, // in the summaries file
    Format = 6,
    Extent = 7,
    Series = 8,     // binary: id, the run's length, run and metric (UTF-8)
    Committed = 9,  // entries of id, count and the last point (36 bytes)
    BatchKey = 10,  // a batch's key (BatchLedger::key) as UTF-8; Batch: the earlier form
    SampleTag = 11, // these three: see SampleTable (format 3 on)
    Blobs = 12,
    Samples = 13,
    Rewind = 14, // these two: see RewindTable (format 4 on)
    RewindRestored = 15,
    SummaryOfView = 16, // in the summaries file: a Summary of what a series' rewinds show
    RunDeleted = 17,    // runs' names (u32 length, UTF-8 each): they and all they held are gone
};

namespace store_records {
// A RunDeleted record's payload, and the names read back from one (a damaged entry ends them).
QByteArray deletedRuns(const QStringList &runs);
QSet<QString> readDeletedRuns(QByteArrayView payload);
// 5: deleted runs, until compaction takes their records away (an earlier Signalbox would show
// the room given back as points of zeros); 4: rewinds; 3: samples and blobs (a store says each
// with its first rewind or sample, so that an earlier Signalbox, which would drop them, refuses
// it); 2: data files; 1 (no format record): series files.
constexpr quint32 kFormat = 5; // the latest this Signalbox reads
constexpr quint32 kFormatOfDeletions = 5;
constexpr quint32 kFormatOfRewinds = 4;
constexpr quint32 kFormatOfSamples = 3;
constexpr quint32 kFormatOfPointsOnly = 2;
constexpr qint64 kSeriesIdBytes = 4;        // a series' id, as records and summaries give it
constexpr qint64 kCommittedEntryBytes = 36; // of a Committed record: id, count, last point
void append(QByteArray *out, RecordType type, QByteArrayView payload);
QByteArray format(quint32 version);
QByteArray run(const RunInfo &info);
QByteArray series(quint32 id, const QString &run, const QString &metric);
QByteArray extent(quint32 series, const Extent &extent);
// One committed series of a Committed record: its count and last point.
void appendCommitted(QByteArray *out, quint32 id, qint64 count, const MetricPoint &last);
} // namespace store_records

// Reads the journal's records back, in order, into the store's runs, series and batch ledger,
// and gathers what opening the data files needs: committed counts, last points, extents.
class JournalReplay {
public:
    JournalReplay(RunIndex &runs, SeriesTable &series, BatchLedger &batches, SampleTable &samples,
                  RewindTable &rewinds)
        : m_runs(runs)
        , m_series(series)
        , m_batches(batches)
        , m_samples(samples)
        , m_rewinds(rewinds) {}
    void read(quint32 type, QByteArrayView payload);

    QHash<quint32, qint64> committed;
    QHash<quint32, MetricPoint> lastPoints;
    std::vector<std::pair<quint32, Extent>> extents;
    quint32 format = 1;
    bool dataRecords = false; // any record only the data-file layout writes
    // Runs deleted since the last compaction: the room their series and blobs held, to give back.
    std::vector<Extent> deletedRoom;
    bool deletions = false;
    // The bytes a snapshot of what was read would take: the journal is compacted when it holds
    // twice that.
    qint64 snapshotBytes() const;

private:
    // A RunDeleted record: the runs, their series, samples, rewinds and batches taken out of
    // the tables, in one pass whatever their number.
    void deleteRuns(const QSet<QString> &runs);

    RunIndex &m_runs;
    SeriesTable &m_series;
    BatchLedger &m_batches;
    SampleTable &m_samples;
    RewindTable &m_rewinds;
    QSet<quint32> m_ids;                     // of the series read
    QHash<QString, qint64> m_runRecordBytes; // the latest record of each run: what a snapshot holds
    qint64 m_otherBytes = 0;                 // of records other than runs'
};

} // namespace sb
