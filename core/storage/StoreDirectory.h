#pragma once

#include "util/Result.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace sb {

// A store's directory: its files opened so that nothing planted there is read or written through
// (see openStoreFile), and what the store cannot use kept whole in lost+found/.
class StoreDirectory {
public:
    explicit StoreDirectory(QString path)
        : m_path(std::move(path)) {}
    const QString &path() const { return m_path; }
    QString filePath(const QString &name) const { return m_path + u'/' + name; }
    // Moves a file the store cannot use to lost+found/NAME; returns where it went.
    Result<QString> keepInLostFound(const QString &path, const QString &name) const;
    // The store's file NAME opened with `flags` (see openStoreFile); a link or a special file in
    // its place is moved to lost+found, said in `notes`, and treated as missing. -1: missing.
    Result<int> openFile(const QString &name, int flags, QStringList *notes) const;

    // A file named <n><suffix> (or a bare <n>, which no layout writes but which still takes its
    // number): its number when below `limit`, and whether it had the suffix.
    struct NumberedName {
        std::optional<quint32> number;
        bool suffixed = false;
    };
    static NumberedName parseNumbered(const QString &name, QStringView suffix, qint64 limit);
    // Each file of `subdirectory` that `keep` does not claim (by name; it may remove the file) is
    // moved to lost+found/<subdirectory>-NAME and said in `notes` as named by no journal record.
    Status keepUnnamed(const QString &subdirectory,
                       const std::function<bool(const QString &)> &keep, QStringList *notes) const;

private:
    QString m_path;
};

} // namespace sb
