#include "StoreFiles.h"

#include <QDir>
#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

QString reason() {
    return qt_error_string(errno);
}

} // namespace

bool writeFully(int fd, const char *data, qint64 size, qint64 offset) {
    while (size > 0) {
        const ssize_t n = offset >= 0 ? ::pwrite(fd, data, size, offset) : ::write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= n;
        if (offset >= 0)
            offset += n;
    }
    return true;
}

bool readFully(int fd, char *data, qint64 size, qint64 offset) {
    while (size > 0) {
        const ssize_t n = ::pread(fd, data, size, offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            errno = 0; // the file ended: no system error to tell
        if (n <= 0)
            return false;
        data += n;
        size -= n;
        offset += n;
    }
    return true;
}

bool readWholeFile(int fd, qint64 maxBytes, QByteArray *out) {
    struct stat info {};
    if (::fstat(fd, &info) != 0 || info.st_size > maxBytes)
        return false;
    out->resize(static_cast<qsizetype>(info.st_size));
    return readFully(fd, out->data(), info.st_size, 0);
}

QString systemError(const QString &what) {
    return u"%1: %2"_s.arg(what, reason());
}

StoreFile openStoreFile(const QString &path, int flags) {
    StoreFile file;
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
    file.fd = ::open(QFile::encodeName(path).constData(),
                     flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (file.fd < 0) {
        const int error = errno;
        // ELOOP: a link; ENXIO: a FIFO without a reader; EISDIR: a directory.
        const bool foreign = error == ELOOP || error == ENXIO || error == EISDIR;
        file.problem = error == ENOENT ? StoreFile::Problem::Missing
                       : foreign       ? StoreFile::Problem::Foreign
                                       : StoreFile::Problem::Failed;
        file.error = error == ELOOP ? u"%1 is a symbolic link"_s.arg(path)
                     : foreign      ? u"%1 is not a regular file"_s.arg(path)
                                    : u"cannot open %1: %2"_s.arg(path, qt_error_string(error));
        return file;
    }
    struct stat info {};
    if (::fstat(file.fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(file.fd);
        file.fd = -1;
        file.problem = StoreFile::Problem::Foreign;
        file.error = u"%1 is not a regular file"_s.arg(path);
        return file;
    }
    const int status = ::fcntl(file.fd, F_GETFL);
    if (status >= 0)
        (void)::fcntl(file.fd, F_SETFL, status & ~O_NONBLOCK);
    return file;
}

Result<int> createStoreFile(const QString &path) {
    const QByteArray name = QFile::encodeName(path);
    if (::unlink(name.constData()) != 0 && errno != ENOENT)
        return fail(u"cannot remove %1: %2"_s.arg(path, reason()), ErrorCode::StorageFailed);
    // O_EXCL: should anything appear there meanwhile, it is not ours to write.
    const int fd =
        ::open(name.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail(u"cannot create %1: %2"_s.arg(path, reason()), ErrorCode::StorageFailed);
    return fd;
}

Status prepareStoreDirectory(const QString &path, bool subdirectory) {
    const QByteArray name = QFile::encodeName(path);
    struct stat info {};
    // The store's own subdirectories must be real ones; the directory a person named may be a
    // link to where they keep it.
    const int found =
        subdirectory ? ::lstat(name.constData(), &info) : ::stat(name.constData(), &info);
    if (found != 0 && errno == ENOENT) {
        if (!QDir().mkpath(path))
            return fail(u"cannot create the store directory %1"_s.arg(path),
                        ErrorCode::StorageFailed);
        // Metrics are private: a directory the store makes is the owner's alone.
        if (::chmod(name.constData(), 0700) != 0)
            return fail(u"cannot make %1 private: %2"_s.arg(path, reason()),
                        ErrorCode::StorageFailed);
        return success();
    }
    if (found != 0)
        return fail(u"cannot use the store directory %1: %2"_s.arg(path, reason()),
                    ErrorCode::StorageFailed);
    if (!S_ISDIR(info.st_mode))
        return fail(u"%1 is not a directory (%2): the store does not follow it; move it away"_s.arg(
                        path, S_ISLNK(info.st_mode) ? u"a symbolic link"_s : u"a file"_s),
                    ErrorCode::InvalidInput);
    // Another user's directory that only its group may write to is fine (a volume mounted with
    // an fsGroup): no file in it is followed. One every user may write to is no place for
    // private metrics, and making it private would take it from the others.
    if ((info.st_mode & S_IWOTH) != 0)
        return fail(u"refusing to keep the store in %1: it is writable by every user (mode %2) "
                    "and the store holds private metrics; name a new directory (the store "
                    "creates it with mode 0700), such as %1/signalbox"_s.arg(
                        path, QString::number(info.st_mode & 07777, 8)),
                    ErrorCode::InvalidInput);
    return success();
}

} // namespace sb
