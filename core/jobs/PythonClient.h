#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

namespace sb {

// Signalbox's Python client (the package clients/python/signalbox, as installed or in the source
// tree), shipped to where runs start as one zip file that Python imports from, so that `import
// signalbox` (and its trainers' adapters) work there without the user's help.
struct PythonClient {
    QByteArray archive; // signalbox.zip
    QString version;    // a digest of the archive: each version gets a directory of its own
};
// Read once; none when Signalbox was installed without it.
const std::optional<PythonClient> &pythonClient();

// sh -c SCRIPT NAME DIR: writes stdin to DIR/signalbox.zip unless that is there already (DIR being
// per version, what is there is this version); DIR may start with "~/". Prints DIR, absolute.
QString installPythonClientScript();
// Where a node keeps the client's versions: `root` + "/client/" + version.
QString pythonClientDirectory(const QString &root, const PythonClient &client);
// `command` run with `directory`/signalbox.zip first on PYTHONPATH, ahead of what the environment
// had.
QStringList withPythonClient(const QString &directory, const QStringList &command);

} // namespace sb
