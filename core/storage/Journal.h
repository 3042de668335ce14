#pragma once

#include "StoreDirectory.h"
#include "util/Result.h"
#include "util/UniqueFd.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QStringList>

#include <functional>

namespace sb {

// How the store frames each record of its journal and summaries file: 16 bytes (magic "SBJ1",
// type, payload length, CRC-32C of type and payload; little-endian), then the payload.
namespace journal_framing {
constexpr qint64 kHeaderSize = 16;
constexpr QByteArrayView kMagicBytes = "SBJ1";
void append(QByteArray *out, quint32 type, QByteArrayView payload);
// The length of the whole, checksummed record at `offset`, or 0.
qint64 recordLength(QByteArrayView bytes, qint64 offset);
// A record's type and payload; `record` starts with a whole record (recordLength > 0).
quint32 typeOf(QByteArrayView record);
QByteArrayView payloadOf(QByteArrayView record);
} // namespace journal_framing

// The store's journal file: records appended whole or not at all, read back past damage, and
// replaced whole by a snapshot when compacted.
class Journal {
public:
    explicit Journal(const StoreDirectory &directory)
        : m_directory(directory) {}
    ~Journal();
    Journal(const Journal &) = delete;
    Journal &operator=(const Journal &) = delete;

    // Gives every readable record, in order, to `visit` (type, payload). A damaged stretch is kept
    // in lost+found (said in `lossNotes`) and reading resumes at the next whole record, so one bad
    // byte costs one record; a torn tail (a write the stop cut short) is cut (`recoveryNotes`).
    // One in the journal's place that is not a file is kept aside: the store starts as after a
    // lost journal.
    Status replay(const std::function<void(quint32, QByteArrayView)> &visit,
                  QStringList *recoveryNotes, QStringList *lossNotes);
    // Opens the journal for appending, unless it is open (replace() leaves it open).
    Status openForAppend(QStringList *notes);
    qint64 size() const { return m_size; }
    // Appends whole records; an error means none is there (a torn append is cut, or said in
    // `notes` when even that fails).
    Status append(const QByteArray &records, QStringList *notes);
    // Replaces the journal with `snapshot`: written and synced beside it, then `beforeSwap` (what
    // the snapshot names made durable), then renamed into place.
    Status replace(const QByteArray &snapshot, const std::function<Status()> &beforeSwap);
    Status sync();

private:
    QString path() const;
    // Keeps a damaged stretch in lost+found; returns where it went.
    Result<QString> keepDamaged(QByteArrayView bytes, qint64 offset);

    const StoreDirectory &m_directory;
    UniqueFd m_fd; // for appending
    qint64 m_size = 0;
};

} // namespace sb
