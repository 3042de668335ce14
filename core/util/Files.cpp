#include "Files.h"

#include "UniqueFd.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonParseError>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

QString systemError() {
    return QString::fromLocal8Bit(std::strerror(errno));
}

} // namespace

Result<QByteArray> readRegularFile(const QString &path, qint64 maxBytes) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer.
    const UniqueFd file{
        ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
    if (!file.valid())
        return fail(u"cannot read %1: %2"_s.arg(path, systemError()));
    struct stat info {};
    if (::fstat(file.get(), &info) != 0)
        return fail(u"cannot read %1: %2"_s.arg(path, systemError()));
    if (!S_ISREG(info.st_mode))
        return fail(u"%1 is not a regular file"_s.arg(path), ErrorCode::InvalidInput);
    if (info.st_size > maxBytes)
        return fail(u"%1 is larger than %2 bytes"_s.arg(path).arg(maxBytes),
                    ErrorCode::InvalidInput);
    QByteArray bytes(static_cast<qsizetype>(info.st_size) + 1, Qt::Uninitialized);
    qsizetype size = 0;
    while (size < bytes.size()) { // one byte more than expected tells a file that grew
        const ssize_t n = ::read(file.get(), bytes.data() + size, bytes.size() - size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fail(u"cannot read %1: %2"_s.arg(path, systemError()));
        if (n == 0)
            break;
        size += n;
    }
    if (size > maxBytes)
        return fail(u"%1 is larger than %2 bytes"_s.arg(path).arg(maxBytes),
                    ErrorCode::InvalidInput);
    bytes.truncate(size);
    return bytes;
}

Status writeFileAtomically(const QString &path, const QByteArray &bytes, bool keepOwnerAndMode) {
    const QFileInfo target(path);
    if (!QDir().mkpath(target.absolutePath()))
        return fail(u"cannot create %1"_s.arg(target.absolutePath()), ErrorCode::StorageFailed);
    const QByteArray temporary = QFile::encodeName(path + u".tmp"_s);
    auto failed = [&](const QString &what) {
        Error error{u"cannot write %1: %2: %3"_s.arg(path, what, systemError()),
                    ErrorCode::StorageFailed};
        ::unlink(temporary.constData());
        return error;
    };
    {
        // A stale temporary, or a link planted in its place, goes: never written through.
        if (::unlink(temporary.constData()) != 0 && errno != ENOENT)
            return failed(u"unlink"_s);
        const UniqueFd file{::open(temporary.constData(),
                                   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)};
        if (!file.valid())
            return failed(u"open"_s);
        for (qsizetype written = 0; written < bytes.size();) {
            const ssize_t n =
                ::write(file.get(), bytes.constData() + written, bytes.size() - written);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return failed(u"write"_s);
            written += n;
        }
        struct stat before {};
        if (keepOwnerAndMode && ::stat(QFile::encodeName(path).constData(), &before) == 0 &&
            (::fchown(file.get(), before.st_uid, before.st_gid) != 0 ||
             ::fchmod(file.get(), before.st_mode & 07777) != 0))
            return failed(u"keeping its owner and mode"_s);
        if (::fsync(file.get()) != 0)
            return failed(u"fsync"_s);
    }
    if (::rename(temporary.constData(), QFile::encodeName(path).constData()) != 0)
        return failed(u"rename"_s);
    const UniqueFd directory{
        ::open(QFile::encodeName(target.absolutePath()).constData(), O_RDONLY | O_CLOEXEC)};
    if (directory.valid())
        (void)::fsync(directory.get()); // the rename itself survives a power loss
    return success();
}

Result<QJsonDocument> readStateFile(const QString &path) {
    if (!QFileInfo::exists(path) && !QFileInfo(path).isSymLink())
        return QJsonDocument();
    QString why;
    if (auto bytes = readRegularFile(path, 256 << 20); !bytes) {
        why = bytes.error();
    } else {
        QJsonParseError error{};
        const QJsonDocument document = QJsonDocument::fromJson(*bytes, &error);
        if (error.error == QJsonParseError::NoError && (document.isArray() || document.isObject()))
            return document;
        why = error.error != QJsonParseError::NoError
                  ? u"not JSON: %1 at byte %2"_s.arg(error.errorString()).arg(error.offset)
                  : u"not a JSON object or array"_s;
    }
    const auto aside = keepAside(path);
    return fail(u"%1 could not be read (%2); %3"_s.arg(
        path, why,
        aside ? u"kept as %1, starting without it"_s.arg(*aside)
              : u"and could not be moved aside (%1)"_s.arg(aside.error())));
}

std::optional<FileEntry> regularFileEntry(const QString &path, const QString &relative) {
    struct stat info {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0 || !S_ISREG(info.st_mode))
        return std::nullopt;
    return FileEntry{relative, static_cast<qint64>(info.st_size), static_cast<quint64>(info.st_ino),
                     static_cast<quint64>(info.st_dev)};
}

Result<QString> keepAside(const QString &path) {
    const QString aside =
        u"%1.broken-%2"_s.arg(path, QDateTime::currentDateTime().toString(u"yyyyMMdd-HHmmss"_s));
    QString name = aside;
    for (int n = 2; QFileInfo::exists(name); ++n)
        name = u"%1-%2"_s.arg(aside).arg(n);
    if (::rename(QFile::encodeName(path).constData(), QFile::encodeName(name).constData()) != 0)
        return fail(u"cannot move %1 aside: %2"_s.arg(path, systemError()),
                    ErrorCode::StorageFailed);
    return name;
}

Result<QString> bearerToken(const QString &file, const QString &value) {
    if (file.isEmpty())
        return value.isEmpty() ? qEnvironmentVariable("SIGNALBOX_TOKEN") : value;
    const auto bytes = readRegularFile(file, 64 * 1024);
    if (!bytes)
        return fail(bytes.error());
    const QString token = QString::fromUtf8(bytes->split('\n').first()).trimmed();
    if (token.isEmpty())
        return fail(u"the token file %1 is empty"_s.arg(file));
    return token;
}

} // namespace sb
