#pragma once

#include "util/Result.h"
#include "util/UniqueFd.h"

#include <QByteArray>
#include <QString>

namespace sb {

// Files and directories of a private store (the collector's metrics), opened so that nothing
// planted in the store's directory makes it read or write elsewhere: a symbolic link is never
// followed, a FIFO or device never opened for use, a directory it did not create never chmod'ed.
struct StoreFile {
    enum class Problem {
        None,
        Missing, // nothing there (only without O_CREAT)
        Foreign, // a symbolic link or a file that is not regular: the store keeps it aside
        Failed,  // the system refused (permissions, full disk...)
    };
    int fd = -1;
    Problem problem = Problem::None;
    QString error; // what is wrong, naming the path
};
// Opens `path` (O_NOFOLLOW, O_CLOEXEC added) if it is a regular file, creating it (0600) with
// O_CREAT. The descriptor is blocking, as usual.
StoreFile openStoreFile(const QString &path, int flags);
// A file created afresh for writing (a temporary to rename into place): whatever is at `path`
// (a stale temporary, a link, a FIFO) is removed first, never written through.
Result<int> createStoreFile(const QString &path);
// The store's directory, or a subdirectory of it: created with mode 0700 when absent; when there,
// used as it is (its mode never changed) unless every user may write to it (a shared one such as
// /tmp, mode 1777, is refused). A subdirectory must be a real one, not a link.
Status prepareStoreDirectory(const QString &path, bool subdirectory);

// Writes all `size` bytes at `offset`, or at the file's end (its offset, or O_APPEND's) when
// `offset` is -1. False when the system refused (errno says why).
bool writeFully(int fd, const char *data, qint64 size, qint64 offset = -1);
// Reads exactly `size` bytes at `offset`. False when the read failed (errno says why) or the file
// ended first (errno then 0).
bool readFully(int fd, char *data, qint64 size, qint64 offset);
// A whole file of at most `maxBytes`, read from its descriptor.
bool readWholeFile(int fd, qint64 maxBytes, QByteArray *out);
// "what: the system's reason" for the last call that failed (errno).
QString systemError(const QString &what);

} // namespace sb
