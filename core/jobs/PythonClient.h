#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

namespace sb {

// Signalbox's Python client (clients/python/signalbox.py, as installed or in the source tree),
// shipped to where runs start so that `import signalbox` works there without the user's help.
struct PythonClient {
    QByteArray source;
    QString version; // a digest of the source: each version gets a directory of its own
};
// Read once; none when Signalbox was installed without it.
const std::optional<PythonClient> &pythonClient();

// sh -c SCRIPT NAME DIR: writes stdin to DIR/signalbox.py unless that is there already (DIR being
// per version, what is there is this version); DIR may start with "~/". Prints DIR, absolute.
QString installPythonClientScript();
// Where a node keeps the client's versions: `root` + "/client/" + version.
QString pythonClientDirectory(const QString &root, const PythonClient &client);
// `command` run with `directory` first on PYTHONPATH, ahead of what the environment had.
QStringList withPythonClient(const QString &directory, const QStringList &command);

} // namespace sb
