#pragma once

#include <QString>

namespace sb {

// A file found under a directory, local or on a node.
struct FileEntry {
    QString path; // relative to the directory searched, '/'-separated
    qint64 size = 0;
    // Which file it is, where known (0 and 0: unknown): a new inode at the same path is a file
    // that replaced the one read so far (a rotation), read from its start.
    quint64 inode = 0;
    quint64 device = 0;
};

} // namespace sb
