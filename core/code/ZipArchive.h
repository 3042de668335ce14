#pragma once

#include <QByteArray>
#include <QString>

#include <utility>
#include <vector>

namespace sb {

// A zip archive of `files` (path inside it, content), stored without compression, in the order
// given, with no times or owners: the same files always give the same bytes. Python imports
// packages from such a file on its path (zipimport), which is how the client travels. Empty when
// the files need ZIP64 (4 GiB, or 65,535 files), which this does not write.
QByteArray storedZip(const std::vector<std::pair<QString, QByteArray>> &files);

} // namespace sb
