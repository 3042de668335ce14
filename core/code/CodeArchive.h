#pragma once

#include "util/Result.h"

#include <QByteArray>
#include <QString>

namespace sb {

// A project directory packed for delivery into a container: its project files (projectFiles():
// what git tracks or would track) as a gzip-compressed POSIX tar. The archive is reproducible —
// files in sorted order, no times, owners or umask, only the executable bit — so the same tree
// always gives the same bytes and the same hash, and unchanged code need not travel again.
struct CodeArchive {
    QByteArray gzip;
    QString hash; // SHA-256 of the uncompressed tar, in hex
    int files = 0;
    qint64 bytes = 0; // the files' content, uncompressed
};

// Refuses trees whose content exceeds `limitBytes`, and paths a tar header cannot hold.
Result<CodeArchive> packCode(const QString &directory, qint64 limitBytes);

} // namespace sb
