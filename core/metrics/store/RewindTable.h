#pragma once

#include <QByteArray>
#include <QHash>
#include <QString>

#include <cstddef>
#include <optional>
#include <vector>

namespace sb {

// A stretch of a series' points, or of a tag's samples, by index in arrival order: [first, end).
struct IndexRange {
    qint64 first = 0;
    qint64 end = 0;
    bool operator==(const IndexRange &) const = default;
};
// `ranges` sorted and merged: overlapping or touching stretches become one.
std::vector<IndexRange> mergedRanges(std::vector<IndexRange> ranges);
qint64 rangesLength(const std::vector<IndexRange> &ranges);
// The stored index of the `shown`-th point shown, `hidden` (sorted, merged) left out: `shown`
// plus the hidden points before it. `next`, when given: the first stretch after it.
qint64 storedIndex(const std::vector<IndexRange> &hidden, qint64 shown,
                   std::size_t *next = nullptr);

// A run resumed from a checkpoint at `step` (Resume::Mode::Rewind): what it had logged after it
// last stood at that step, per series and per tag of samples, hidden from every read until the
// rewind is restored. Points and samples stay where they are: a rewind only names them.
struct Rewind {
    quint32 id = 0; // the store's, never re-used
    QString run;
    double step = 0;
    bool inclusive = false;
    double wall = 0;   // when it came
    qint64 points = 0; // what it hid that was shown before (they may overlap an earlier's)
    qint64 samples = 0;
    std::vector<std::pair<quint32, IndexRange>> series; // by series id
    std::vector<std::pair<quint32, IndexRange>> tags;   // by sample tag id
};

// The store's rewinds by run, and their journal records:
//   Rewind          id (u32), step (f64), inclusive (u8), wall (f64), points and samples
//                   (i64), run (u32 length and UTF-8), then series and tags: a u32 count and
//                   entries of id (u32), first and end (i64)
//   RewindRestored  the id (u32): the rewind no longer hides anything
class RewindTable {
public:
    const std::vector<Rewind> &ofRun(const QString &run) const;
    std::optional<QString> runOf(quint32 id) const;
    QStringList runs() const { return m_byRun.keys(); }
    bool empty() const { return m_byRun.isEmpty(); }
    quint32 nextId() const { return m_nextId; }
    void add(Rewind rewind);
    // The rewind taken away, or none when no rewind has that id.
    std::optional<Rewind> remove(quint32 id);
    // The stretches of each series (or, `tags`, each tag) of `run` that its rewinds hide,
    // merged, by id: one pass over them, whatever the number of series.
    QHash<quint32, std::vector<IndexRange>> hidden(const QString &run, bool tags = false) const;
    // Cuts every stretch to what its series or tag holds (`sizes`: by id; a series or tag not
    // there holds nothing): the disk lost the rest, and points logged later must stay shown.
    // The records of the rewinds that changed are appended to `journal`.
    void clamp(const QHash<quint32, qint64> &seriesSizes, const QHash<quint32, qint64> &tagSizes,
               QByteArray *journal);

    static QByteArray record(const Rewind &rewind);
    static QByteArray restoredRecord(quint32 id);
    // Read back; a damaged record is skipped (false).
    bool read(QByteArrayView payload);
    bool readRestored(QByteArrayView payload);
    // Every rewind's record (RecordType::Rewind), for a snapshot of the journal.
    void appendSnapshot(QByteArray *snapshot) const;
    qint64 snapshotBytes() const;

private:
    QHash<QString, std::vector<Rewind>> m_byRun;
    QHash<quint32, QString> m_runOf; // by id
    quint32 m_nextId = 1;
};

} // namespace sb
