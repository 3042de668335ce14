#pragma once

#include "RewindTable.h"
#include "metrics/Samples.h"
#include "storage/DataFiles.h"

#include <QByteArray>
#include <QHash>
#include <QSet>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace sb {

// A blob's bytes in a data file: an extent of ceil(size / 24) units, never shared.
struct StoredBlob {
    // A blob whose bytes the disk lost is journaled with this file: it names no data file, so
    // the loss is said once, and the same bytes logged again are written anew.
    static constexpr quint32 kLostFile = 0xFFFFFFFF;
    QByteArray digest; // sampleDigest() of the bytes, 32 bytes
    qint64 size = 0;
    quint32 file = 0;
    qint64 offset = 0;
    bool lost() const { return file == kLostFile; }
    Extent extent() const;
};

// One item of a tag, as the index keeps it (56 bytes).
struct StoredSample {
    double step = 0;
    double wall = 0;
    quint32 blob = 0; // index into the table's blobs
    quint32 index = 0;
    SampleFacts facts{};
};

// A run's tag of samples: all one kind, in the order they arrived.
struct SampleTag {
    quint32 id = 0;
    QString run;
    QString tag;
    SampleKind kind = SampleKind::Image;
    std::vector<StoredSample> samples; // in arrival order
    bool ordered = true;               // steps never went down: a step range is found by halving
    double firstStep = 0;              // the smallest and largest
    double lastStep = 0;
    // Once steps went down: what the tag holds, by fingerprint (a file read again is found
    // without a scan), and its items in step order, made again when asked after a change.
    QSet<quint64> fingerprints;
    mutable std::vector<quint32> byStep;
    std::vector<IndexRange> hidden; // by its run's rewinds: sorted, merged
};

// The store's samples and blobs, as the journal's records build them, and those records:
//   SampleTag  id (u32), kind (u8), the run's length (u32), run and tag (UTF-8)
//   Blobs      entries of digest (32 bytes), size (i64), data file (u32), offset (i64)
//   Samples    entries of tag id (u32), index (u32), step, wall (f64), digest, facts (4 f64)
// A sample names its blob by digest, so records may come in any order after their blobs.
class SampleTable {
public:
    static constexpr qint64 kBlobEntryBytes = 52;
    static constexpr qint64 kSampleEntryBytes = 88;
    static constexpr qint64 kMostSamplesPerTag = 100'000;
    static constexpr qsizetype kMostTagsPerRun = 10'000;
    static constexpr qint64 kMostTagIds = qint64(1) << 30;

    const SampleTag *find(const QString &run, const QString &tag) const {
        return m_byRun.value(run).value(tag, nullptr);
    }
    SampleTag *find(const QString &run, const QString &tag) {
        return m_byRun.value(run).value(tag, nullptr);
    }
    // A run's tags, in tag order.
    std::vector<const SampleTag *> ofRun(const QString &run) const;
    qsizetype tagCount(const QString &run) const { return m_byRun.value(run).size(); }
    const std::vector<std::unique_ptr<SampleTag>> &tags() const { return m_tags; }
    const std::vector<StoredBlob> &blobs() const { return m_blobs; }
    std::optional<quint32> blob(QByteArrayView digest) const;
    qint64 sampleCount() const { return m_samples; }

    // Building a batch: its new tags and blobs are the table's at once, and taken back by
    // truncate() when the batch fails.
    struct Mark {
        std::size_t tags = 0;
        std::size_t blobs = 0;
    };
    Mark mark() const { return {m_tags.size(), m_blobs.size()}; }
    void truncate(const Mark &mark);
    SampleTag *createTag(const QString &run, const QString &tag, SampleKind kind);
    // Takes these runs' tags out (their ids stay used); a blob no other run's item names is
    // marked lost (its digest written anew if logged again). Gives the room those blobs held.
    std::vector<Extent> removeRuns(const QSet<QString> &runs);
    quint32 addBlob(StoredBlob blob);
    // A lost blob's bytes written anew (the old entry returned, to put back if the batch fails).
    StoredBlob replaceBlob(quint32 index, StoredBlob blob);
    void addSample(SampleTag *tag, const StoredSample &sample);
    // Whether the tag holds this very item already (a file read again after a restart).
    static bool holds(const SampleTag &tag, const StoredSample &sample);
    // The tag's items in step order (arrival order within a step), as indices; those a rewind
    // hides left out. Made again when the count shown changed (clear byStep when hidden does).
    static const std::vector<quint32> &inStepOrder(const SampleTag &tag);

    // The records, written and read back (read: what a damaged journal left is skipped).
    static QByteArray tagRecord(const SampleTag &tag);
    static void appendBlobEntry(QByteArray *out, const StoredBlob &blob);
    void appendSampleEntry(QByteArray *out, const SampleTag &tag, const StoredSample &sample) const;
    void readTag(QByteArrayView payload);
    void readBlobs(QByteArrayView payload);
    void readSamples(QByteArrayView payload);
    // Samples whose blob or tag no record named (a damaged journal): said once opened.
    qint64 unplaced() const { return m_unplaced; }
    // Marks the blobs whose bytes are not all there as lost; returns how many (those lost
    // before are not counted again).
    qint64 markLost(const std::function<bool(const StoredBlob &)> &available);
    // Whether no more tags can be made (ids are never re-used).
    bool idsExhausted() const { return m_nextId >= kMostTagIds; }
    // The bytes the records of all samples and blobs take in a snapshot.
    qint64 snapshotBytes() const;
    // Appends every record to a snapshot.
    void appendSnapshot(QByteArray *snapshot) const;

private:
    SampleTag *addTag(quint32 id, const QString &run, const QString &tag, SampleKind kind);

    std::vector<std::unique_ptr<SampleTag>> m_tags;
    QHash<QString, QHash<QString, SampleTag *>> m_byRun;
    QHash<quint32, SampleTag *> m_byId;
    std::vector<StoredBlob> m_blobs;
    QHash<QByteArray, quint32> m_blobsByDigest;
    qint64 m_samples = 0;
    quint32 m_nextId = 0;
    qint64 m_unplaced = 0;
};

} // namespace sb
