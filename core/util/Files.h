#pragma once

#include "util/FileEntry.h"
#include "util/Result.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QString>

#include <optional>

namespace sb {

// Reads a file named by a person or a config: it must be a regular file (not a FIFO, a device such
// as /dev/zero, or a directory) of at most `maxBytes`. Errors name the path and say why.
Result<QByteArray> readRegularFile(const QString &path, qint64 maxBytes);

// Replaces a state file whole or not at all (a temporary beside it, fsync, rename, fsync of the
// directory), readable by the owner only: a crash leaves the old version or the new one. With
// `keepOwnerAndMode`, a file that was there keeps its owner, group and mode (one root edits
// for a service user), or nothing is written.
Status writeFileAtomically(const QString &path, const QByteArray &bytes,
                           bool keepOwnerAndMode = false);

// A JSON state file Signalbox wrote (jobs, sweeps, offsets): the document; an empty one when
// there is no file yet; or, when it cannot be read as a JSON object or array, an error saying
// where the broken file was kept aside (it is never overwritten: the next save starts afresh).
Result<QJsonDocument> readStateFile(const QString &path);

// The regular file at `path` as a listing holds it (size, inode, device), named `relative`;
// nullopt when there is none (gone, or a directory, FIFO or device).
std::optional<FileEntry> regularFileEntry(const QString &path, const QString &relative);

// Moves a file that cannot be read as it should aside, to PATH.broken-TIME, so that nothing
// overwrites the only copy of what it held; returns the new name, or an error.
Result<QString> keepAside(const QString &path);

// A bearer token, from the first of: `file` (its first line: kept out of the process list, where a
// --token value is shown to every user), `value`, $SIGNALBOX_TOKEN. Empty when none is given.
Result<QString> bearerToken(const QString &file, const QString &value);

} // namespace sb
