#pragma once

#include <QString>

namespace sb {

// A file found under a directory, local or on a node.
struct FileEntry {
    QString path; // relative to the directory searched, '/'-separated
    qint64 size = 0;
};

} // namespace sb
