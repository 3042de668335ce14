#include "StoreDirectory.h"

#include "StoreFiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cstdio>

namespace sb {

using namespace Qt::StringLiterals;

Result<QString> StoreDirectory::keepInLostFound(const QString &path, const QString &name) const {
    const QString directory = m_path + u"/lost+found"_s;
    if (Status ready = prepareStoreDirectory(directory, true); !ready)
        return ready.failure();
    QString target = directory + u'/' + name;
    for (int n = 2; QFileInfo::exists(target) || QFileInfo(target).isSymLink(); ++n)
        target = u"%1/%2.%3"_s.arg(directory, name, QString::number(n));
    if (std::rename(QFile::encodeName(path).constData(), QFile::encodeName(target).constData()) !=
        0)
        return fail(systemError(u"cannot move %1 to %2"_s.arg(path, target)),
                    ErrorCode::StorageFailed);
    return QString(u"lost+found/"_s + QFileInfo(target).fileName());
}

Result<int> StoreDirectory::openFile(const QString &name, int flags, QStringList *notes) const {
    const QString path = filePath(name);
    StoreFile file = openStoreFile(path, flags);
    if (file.problem == StoreFile::Problem::Foreign) {
        // Never read or written through: kept whole (a link as a link) where a person can look.
        QString aside = name;
        const auto kept = keepInLostFound(path, aside.replace(u'/', u'-') + u".not-a-file"_s);
        if (!kept)
            return fail(u"%1, and %2"_s.arg(file.error, kept.error()), ErrorCode::StorageFailed);
        *notes << u"%1 was a symbolic link or not a regular file: the store never reads or "
                  "writes through one; kept in %2"_s.arg(name, *kept);
        file = openStoreFile(path, flags);
    }
    if (file.problem == StoreFile::Problem::Missing)
        return -1;
    if (file.fd < 0)
        return fail(file.error, ErrorCode::StorageFailed);
    return file.fd;
}

StoreDirectory::NumberedName StoreDirectory::parseNumbered(const QString &name, QStringView suffix,
                                                           qint64 limit) {
    NumberedName parsed;
    parsed.suffixed = name.endsWith(suffix);
    bool numbered = false;
    const qint64 number =
        QStringView(name).chopped(parsed.suffixed ? suffix.size() : 0).toLongLong(&numbered);
    if (numbered && number >= 0 && number < limit)
        parsed.number = static_cast<quint32>(number);
    return parsed;
}

Status StoreDirectory::keepUnnamed(const QString &subdirectory,
                                   const std::function<bool(const QString &)> &keep,
                                   QStringList *notes) const {
    const QDir directory(filePath(subdirectory));
    for (const QString &name : directory.entryList(QDir::Files)) {
        if (keep(name))
            continue;
        const auto kept = keepInLostFound(directory.filePath(name), subdirectory + u'-' + name);
        if (!kept)
            return kept.failure();
        *notes << u"%1/%2 is named by no journal record: kept in %3"_s.arg(subdirectory, name,
                                                                           *kept);
    }
    return success();
}

} // namespace sb
