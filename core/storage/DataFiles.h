#pragma once

#include "StoreDirectory.h"
#include "util/Result.h"
#include "util/UniqueFd.h"

#include <QByteArray>
#include <QHash>
#include <QSet>
#include <QStringList>

#include <memory>
#include <vector>

namespace sb {

// A series' stretch of room for points in a data file, filled in order.
struct Extent {
    quint32 file = 0;
    qint64 offset = 0;   // bytes into the file
    qint64 capacity = 0; // points
};

// The store's data files, data/<n>.dat: a 16-byte header, then extents of fixed-size points
// (24 bytes). New extents go to the file being filled until it holds kFileBytes; each file is
// created afresh, never over one already there.
class DataFiles {
public:
    static constexpr qint64 kHeaderSize = 16;
    static constexpr qint64 kPointBytes = 24;
    static constexpr qint64 kFileBytes = qint64(1) << 30; // extents go to a file up to this size
    static constexpr qint64 kFirstExtent = 16;            // points
    static constexpr qint64 kLargestExtent = qint64(1) << 20; // points (24 MiB)
    static constexpr qint64 kMostFiles = qint64(1) << 30;

    // An open data file; readers share it, so that its descriptor outlives their reads.
    struct File {
        explicit File(int descriptor)
            : fd(descriptor) {}
        UniqueFd fd;
        qint64 end = kHeaderSize; // where the next extent goes
    };

    // `notes`: where a file found in the way of a new one is said.
    DataFiles(const StoreDirectory &directory, QStringList *notes)
        : m_directory(directory)
        , m_notes(notes) {}

    // The 16 bytes every file of points starts with: `magic`, format version, point size.
    static QByteArray header(QByteArrayView magic);
    // Whether an extent read back from a record can be one that allocate() made.
    static bool plausible(const Extent &extent);
    QString path(quint32 number) const;
    QString name(quint32 number) const; // as notes and errors say it: data/<n>.dat

    // Opening a store: data files no record names are kept in lost+found (one holding only its
    // header, of a batch that failed, or only holes, of deleted runs, is removed), the `named`
    // ones opened; one missing or with a
    // foreign header is said in `lossNotes` (its points are lost). `sizes`: of those opened.
    Status recover(const QSet<quint32> &named, QHash<quint32, qint64> *sizes,
                   QStringList *lossNotes);
    // Removes every data file (what a cut-short migration wrote, named by no journal).
    void removeAll();
    // Marks an extent's room as taken, whatever it holds.
    void reserve(const Extent &extent);
    bool isOpen(quint32 number) const { return number < m_files.size() && m_files[number]; }
    std::shared_ptr<const File> file(quint32 number) const {
        return isOpen(number) ? m_files[number] : nullptr;
    }
    // New extents go to the file after the last one (after recovery), or to a new one (after a
    // damaged journal, whose lost records may have named room in the older files).
    void fillLastFile() { m_fillFile = m_nextFile > 0 ? m_nextFile - 1 : 0; }
    void fillNewFile() { m_fillFile = m_nextFile; }

    // Room for `points` more points of a series that holds `held` points of room: each new
    // extent at least as large as all before it, so that a long series lies in few pieces.
    Result<Extent> allocate(qint64 held, qint64 points);
    // Room for a blob of `bytes` (at most kLargestExtent points' worth), exactly.
    Result<Extent> allocateBytes(qint64 bytes);
    // Writes `count` points (raw bytes) at the extent's point index `at`.
    Status write(const Extent &extent, qint64 at, const char *points, qint64 count);
    // Writes a blob's bytes at the start of its extent.
    Status writeBytes(const Extent &extent, QByteArrayView bytes);
    // Forces written points to the disk.
    Status sync();
    // Gives an extent's room back to the file system: a hole, the file keeping its size (where
    // the file system has no holes, the room stays taken). Readers of it read zeros after.
    Status release(const Extent &extent);
    // Where the files' room ends: allocations after mark() are undone by rollBack().
    struct Mark {
        std::vector<qint64> ends;
        quint32 fillFile = 0;
    };
    Mark mark() const;
    // Files made since the mark are cut back to their header.
    void rollBack(const Mark &mark);

private:
    Result<File *> create(quint32 number);
    Result<Extent> place(qint64 capacity);

    const StoreDirectory &m_directory;
    QStringList *m_notes;
    std::vector<std::shared_ptr<File>> m_files; // by number; null where none is open
    quint32 m_nextFile = 0;   // above every data file the journal or the data directory held
    quint32 m_fillFile = 0;   // the file new extents go to, while it has room
    QSet<quint32> m_unsynced; // written since the last sync
};

} // namespace sb
