#include "Paths.h"

#include "Files.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QStandardPaths>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace sb {

using namespace Qt::StringLiterals;

QString defaultDataDir() {
    QString fromEnv = qEnvironmentVariable("SIGNALBOX_DATA_DIR");
    if (!fromEnv.isEmpty())
        return fromEnv;
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + u"/signalbox"_s;
}

QUrl defaultCollectorUrl() {
    const QString fromEnv = qEnvironmentVariable("SIGNALBOX_COLLECTOR");
    if (!fromEnv.isEmpty())
        return QUrl::fromUserInput(fromEnv);
    if (const auto published = publishedCollector())
        return published->url;
    return QUrl(u"http://127.0.0.1:%1"_s.arg(kDefaultCollectorPort));
}

namespace {

constexpr auto kUrlFile = "/collector.url";
constexpr auto kTokenFile = "/collector.token";

bool isLoopbackHost(const QString &host) {
    if (host.compare(u"localhost"_s, Qt::CaseInsensitive) == 0)
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}

// Whether the process that published still runs (a crashed app leaves its files behind). Ours:
// a pid another user holds now (EPERM) is a stale file, never our app.
bool processRuns(qint64 pid) {
    return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) == 0;
}

} // namespace

Result<QString> runtimeDirectory(bool create) {
    const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    const QString path = QDir::isAbsolutePath(runtime) ? QDir::cleanPath(runtime) + u"/signalbox"_s
                                                       : u"/tmp/signalbox-%1"_s.arg(::getuid());
    const QByteArray name = QFile::encodeName(path);
    if (create && ::mkdir(name.constData(), 0700) != 0 && errno != EEXIST)
        return fail(u"cannot create %1: %2"_s.arg(path, QString::fromLocal8Bit(strerror(errno))));
    struct stat info {};
    if (::lstat(name.constData(), &info) != 0)
        return fail(u"%1: %2"_s.arg(path, QString::fromLocal8Bit(strerror(errno))));
    // Another user could have made it first in /tmp, to read or replace what is put there.
    if (!S_ISDIR(info.st_mode) || info.st_uid != ::getuid() || (info.st_mode & 022) != 0)
        return fail(
            u"%1 is not a directory of this user's that only they may write to"_s.arg(path));
    return path;
}

std::optional<PublishedCollector> publishedCollector() {
    const auto directory = runtimeDirectory(false);
    if (!directory)
        return std::nullopt;
    const auto where = readRegularFile(*directory + QLatin1StringView(kUrlFile), 4096);
    const auto secret = readRegularFile(*directory + QLatin1StringView(kTokenFile), 4096);
    if (!where || !secret)
        return std::nullopt;
    const QList<QByteArray> lines = where->split('\n');
    const QUrl url(QString::fromUtf8(lines.value(0).trimmed()), QUrl::StrictMode);
    if (!url.isValid() || url.scheme() != u"http"_s || url.port() <= 0 ||
        !isLoopbackHost(url.host()) || !processRuns(lines.value(1).trimmed().toLongLong()))
        return std::nullopt;
    return PublishedCollector{url, QString::fromUtf8(secret->split('\n').constFirst()).trimmed()};
}

Status publishCollector(const QUrl &url, const QString &token) {
    const auto directory = runtimeDirectory(true);
    if (!directory)
        return directory.failure();
    // The token first: whoever finds the URL finds the token with it.
    if (Status written =
            writeFileAtomically(*directory + QLatin1StringView(kTokenFile), token.toUtf8() + '\n');
        !written)
        return written;
    return writeFileAtomically(*directory + QLatin1StringView(kUrlFile),
                               url.toString().toUtf8() + '\n' +
                                   QByteArray::number(QCoreApplication::applicationPid()) + '\n');
}

void withdrawCollector(const QUrl &url) {
    const auto directory = runtimeDirectory(false);
    if (!directory)
        return;
    const auto where = readRegularFile(*directory + QLatin1StringView(kUrlFile), 4096);
    if (!where ||
        where->split('\n').value(1).trimmed().toLongLong() != QCoreApplication::applicationPid() ||
        where->split('\n').value(0).trimmed() != url.toString().toUtf8())
        return; // another app's now
    QFile::remove(*directory + QLatin1StringView(kUrlFile));
    QFile::remove(*directory + QLatin1StringView(kTokenFile));
}

QString publishedCollectorToken(const QUrl &url) {
    const auto published = publishedCollector();
    if (!published || !isLoopbackHost(url.host()) || url.port(80) != published->url.port())
        return {};
    return published->token;
}

QString sharedFile(const QString &relative) {
    const QStringList candidates{QCoreApplication::applicationDirPath() +
                                     u"/../share/signalbox/"_s + relative,
                                 QStringLiteral(SIGNALBOX_SOURCE_DIR) + u"/"_s + relative};
    for (const QString &path : candidates) {
        if (QFileInfo::exists(path))
            return QDir::cleanPath(path);
    }
    return {};
}

QString pythonClientDirectory() {
    return sharedFile(u"clients/python"_s);
}

} // namespace sb
