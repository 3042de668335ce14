#include "CodeSync.h"

#include "ssh/ShellQuote.h"
#include "util/OffThread.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QLocale>
#include <QProcess>
#include <QRegularExpression>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// The top-level .gitignore, for directories outside git: names, globs, and "dir/" patterns.
QList<QRegularExpression> ignorePatterns(const QString &directory) {
    QList<QRegularExpression> patterns;
    QFile file(directory + u"/.gitignore"_s);
    if (!file.open(QIODevice::ReadOnly))
        return patterns;
    for (const QByteArray &raw : file.readAll().split('\n')) {
        QString line = QString::fromUtf8(raw).trimmed();
        if (line.isEmpty() || line.startsWith(u'#') || line.startsWith(u'!'))
            continue;
        const bool anchored = line.startsWith(u'/') || line.chopped(1).contains(u'/');
        if (line.endsWith(u'/'))
            line.chop(1);
        if (line.startsWith(u'/'))
            line.remove(0, 1);
        // A pattern matches the path itself or anything below it; unanchored, at any depth.
        QString regex;
        for (qsizetype i = 0; i < line.size(); ++i) {
            if (line.mid(i, 2) == u"**"_s) {
                regex += u".*"_s;
                ++i;
            } else if (line[i] == u'*') {
                regex += u"[^/]*"_s;
            } else if (line[i] == u'?') {
                regex += u"[^/]"_s;
            } else {
                regex += QRegularExpression::escape(QString(line[i]));
            }
        }
        patterns << QRegularExpression((anchored ? u"^"_s : u"(^|/)"_s) + regex + u"(/|$)"_s);
    }
    return patterns;
}

} // namespace

Result<QStringList> projectFiles(const QString &directory) {
    if (!QFileInfo(directory).isDir())
        return fail(u"%1 is not a directory"_s.arg(directory));
    QProcess git;
    git.setWorkingDirectory(directory);
    git.start(u"git"_s,
              {u"ls-files"_s, u"-z"_s, u"--cached"_s, u"--others"_s, u"--exclude-standard"_s});
    QStringList files;
    if (git.waitForFinished(30000) && git.exitStatus() == QProcess::NormalExit &&
        git.exitCode() == 0) {
        for (const QByteArray &path : git.readAllStandardOutput().split('\0')) {
            // Deleted but still tracked files are listed too; only existing files travel.
            if (!path.isEmpty() && QFileInfo(directory + u'/' + QString::fromUtf8(path)).isFile())
                files << QString::fromUtf8(path);
        }
    } else {
        const QList<QRegularExpression> ignored = ignorePatterns(directory);
        const QDir root(directory);
        QDirIterator it(directory, QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        constexpr qsizetype kMaxFiles = 100000; // a home or root directory, not a project
        while (it.hasNext()) {
            if (files.size() > kMaxFiles)
                return fail(u"%1 holds more than %2 files: not a project directory?"_s.arg(
                    directory, QLocale::system().toString(kMaxFiles)));
            const QString path = root.relativeFilePath(it.next());
            if (path == u".git"_s || path.startsWith(u".git/"_s))
                continue;
            if (std::none_of(ignored.begin(), ignored.end(),
                             [&](const auto &re) { return re.match(path).hasMatch(); }))
                files << path;
        }
    }
    files.sort();
    return files;
}

namespace {

// What the node is to hold: the directory there and each file's manifest line.
struct CodeListing {
    QString absolute; // the local directory
    QString remote;   // relative to the home directory, or absolute
    QHash<QString, QByteArray> local;
    QByteArray manifest;
};

// Walks the directory (or asks git) and stats every file: slow for a large tree, so never on
// the GUI thread.
Result<CodeListing> listCode(const QString &directory, const QString &root) {
    const auto files = projectFiles(directory);
    if (!files)
        return files.failure();
    CodeListing listing;
    listing.absolute = QFileInfo(directory).absoluteFilePath();
    listing.remote =
        u"%1/%2-%3"_s
            .arg(root.startsWith(u"~/"_s) ? root.mid(2) : root,
                 QFileInfo(listing.absolute).fileName())
            .arg(QString::fromLatin1(
                QCryptographicHash::hash(listing.absolute.toUtf8(), QCryptographicHash::Sha256)
                    .toHex()
                    .left(8)));
    // "size mtime path" per file: what the node has is compared with this.
    for (const QString &path : *files) {
        const QFileInfo info(listing.absolute + u'/' + path);
        const QByteArray line = QByteArray::number(info.size()) + ' ' +
                                QByteArray::number(info.lastModified().toMSecsSinceEpoch()) + ' ' +
                                path.toUtf8();
        listing.local.insert(path, line);
        listing.manifest += line + '\n';
    }
    return listing;
}

// Sends what changed since the node's manifest, then the new manifest.
void sendCode(NodeConnection *connection, const CodeListing &listing, QObject *context,
              const std::function<void(const Result<QString> &)> &done) {
    const QString remote = listing.remote;
    const QString manifestPath = remote + u"/.signalbox-manifest"_s;
    connection->exec(
        // SFTP wants absolute paths (its start directory need not be $HOME): ask for $HOME.
        shellCommand({u"sh"_s, u"-c"_s,
                      u"cd && printf '%s\\n' \"$HOME\" && cat \"$1\" 2>/dev/null; exit 0"_s,
                      u"sb"_s, manifestPath}),
        context, [=](const Result<ExecResult> &previous) {
            if (!previous) {
                done(fail(previous.error()));
                return;
            }
            QList<QByteArray> had = previous->out.split('\n');
            const QString home = QString::fromUtf8(had.takeFirst());
            const QSet<QByteArray> unchanged(had.begin(), had.end());
            QList<std::pair<QString, QString>> uploads;
            QSet<QString> directories{remote};
            for (auto it = listing.local.begin(); it != listing.local.end(); ++it) {
                if (unchanged.contains(it.value()))
                    continue;
                uploads.append({listing.absolute + u'/' + it.key(),
                                (QDir::isAbsolutePath(remote) ? remote : home + u'/' + remote) +
                                    u'/' + it.key()});
                directories.insert(QFileInfo(remote + u'/' + it.key()).path());
            }
            QStringList mkdir{u"sh"_s, u"-c"_s, u"cd && mkdir -p -- \"$@\""_s, u"sb"_s};
            mkdir += directories.values();
            connection->exec(shellCommand(mkdir), context, [=](const Result<ExecResult> &made) {
                if (Status ok = commandSucceeded(made); !ok) {
                    done(ok.failure());
                    return;
                }
                connection->upload(uploads, context, [=](const Status &copied) {
                    if (!copied) {
                        done(fail(copied.error()));
                        return;
                    }
                    connection->exec(
                        shellCommand(
                            {u"sh"_s, u"-c"_s, u"cd && cat > \"$1\""_s, u"sb"_s, manifestPath}),
                        context,
                        [=](const Result<ExecResult> &saved) {
                            if (!saved)
                                done(fail(saved.error()));
                            else
                                done(QDir::isAbsolutePath(remote) ? remote
                                                                  : QString(u"~/"_s + remote));
                        },
                        15000, listing.manifest);
                });
            });
        });
}

} // namespace

void syncCode(NodeConnection *connection, const QString &directory, const QString &root,
              QObject *context, const std::function<void(const Result<QString> &)> &done) {
    runOffThread(
        context, [directory, root] { return listCode(directory, root); },
        [connection = QPointer<NodeConnection>(connection), context,
         done](const Result<CodeListing> &listing) {
            if (!listing)
                done(listing.failure());
            else if (!connection) // the node left the config meanwhile
                done(fail(u"the node's connection closed"_s));
            else
                sendCode(connection, *listing, context, done);
        });
}

} // namespace sb
