#pragma once

#include "util/Result.h"

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

} // namespace sb
