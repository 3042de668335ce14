#include "PythonClient.h"

#include "code/ZipArchive.h"
#include "util/Paths.h"

#include <QCryptographicHash>
#include <QDirIterator>
#include <QFile>

#include <algorithm>

namespace sb {

using namespace Qt::StringLiterals;

const std::optional<PythonClient> &pythonClient() {
    static const std::optional<PythonClient> client = []() -> std::optional<PythonClient> {
        const QString root = pythonClientDirectory();
        if (root.isEmpty())
            return std::nullopt;
        // The package's modules (signalbox/..., no caches), in a fixed order: the same package
        // gives the same archive and version.
        QStringList paths;
        QDirIterator it(root + u"/signalbox"_s, {u"*.py"_s}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext())
            paths << it.next().mid(root.size() + 1);
        std::sort(paths.begin(), paths.end());
        std::vector<std::pair<QString, QByteArray>> files;
        for (const QString &path : paths) {
            QFile file(root + u'/' + path);
            if (!file.open(QIODevice::ReadOnly))
                return std::nullopt;
            files.emplace_back(path, file.readAll());
        }
        if (files.empty())
            return std::nullopt;
        PythonClient found;
        found.archive = storedZip(files);
        if (found.archive.isEmpty())
            return std::nullopt;
        found.version = QString::fromLatin1(
            QCryptographicHash::hash(found.archive, QCryptographicHash::Sha256).toHex().left(16));
        return found;
    }();
    return client;
}

QString installPythonClientScript() {
    return uR"sh(d=$1
case $d in "~/"*) d="$HOME/${d#"~/"}" ;; esac
if [ -s "$d/signalbox.zip" ]; then
  cat > /dev/null
else
  mkdir -p "$d" && cat > "$d/signalbox.zip.$$" && mv "$d/signalbox.zip.$$" "$d/signalbox.zip" || exit 1
fi
case $d in /*) ;; *) d="$PWD/$d" ;; esac
printf '%s\n' "$d"
)sh"_s;
}

QString pythonClientDirectory(const QString &root, const PythonClient &client) {
    return root + u"/client/"_s + client.version;
}

QStringList withPythonClient(const QString &directory, const QStringList &command) {
    return QStringList{u"sh"_s, u"-c"_s,
                       u"PYTHONPATH=\"$0/signalbox.zip${PYTHONPATH:+:$PYTHONPATH}\" && export "
                       u"PYTHONPATH && "
                       "exec \"$@\""_s,
                       directory} +
           command;
}

} // namespace sb
