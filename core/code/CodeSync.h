#pragma once

#include "monitor/NodeConnection.h"

#include <QStringList>

namespace sb {

// The files of a project directory worth copying: what git tracks or would track (honouring
// .gitignore, via `git ls-files`), or, outside a git repository, every file but .git and those
// the top-level .gitignore names. Paths relative to `directory`, sorted.
Result<QStringList> projectFiles(const QString &directory);

// Copies `directory` to <root>/<name>-<hash> on the node over SFTP (`root`: "~/..." or
// absolute), incrementally: a manifest of sizes and modification times kept beside it says which
// files changed since the last copy, and only those travel. The listing (git ls-files or a walk,
// and a stat of each file) runs off the calling thread. `done` gets the remote directory
// ("~/..." or absolute), on `context`'s thread, and is not called if `context` is gone by then.
void syncCode(NodeConnection *connection, const QString &directory, const QString &root,
              QObject *context, const std::function<void(const Result<QString> &)> &done);

} // namespace sb
