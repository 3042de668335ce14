#pragma once

#include "util/Result.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMap>
#include <QMutex>
#include <QString>

#include <memory>
#include <optional>

namespace sb {

// Who may use a lab's collector: users, each with tokens and the projects they may read or
// write. Tokens are kept as SHA-256 digests only, so the file gives none away; a token is shown
// once, when it is made. `signalbox-collector users` edits the file; the collector reads it again
// whenever it changed (AccessFile), so a revoked token is refused from the next request on.
//
// The file (JSON):
//   {"users": {"alice": {"tokens": [{"id": "1f0c9a2e", "sha256": HEX, "label": "laptop",
//                                    "created": "2026-11-27T12:00:00Z"}],
//                        "projects": {"vision": "write", "*": "read"}}}}
// "*" stands for every project; a user's right on a project is the higher of the two.
class AccessList {
public:
    enum class Right { None, Read, Write };
    struct Token {
        QString id; // public: names the token in listings and revocations
        QByteArray sha256;
        QString label;
        QString created; // ISO 8601, UTC
    };
    struct User {
        QList<Token> tokens;
        QMap<QString, Right> projects; // project (or "*") -> right
    };

    // A token's form: "sbt_" ID "_" SECRET; the id is part of the token, so that a person can
    // tell which one they hold.
    static constexpr qsizetype kIdLength = 8;

    // The file's list; an empty one when there is no file yet.
    static Result<AccessList> load(const QString &path);
    static Result<AccessList> parse(const QByteArray &json, const QString &path);
    QByteArray toJson() const;

    const QMap<QString, User> &users() const { return m_users; }
    // The user that holds this token, or none.
    std::optional<QString> userOf(QByteArrayView token) const;
    Right rightOf(const QString &user, const QString &project) const;

    // Edits, each checked (a name that is not valid, a user that is missing, ...).
    Status addUser(const QString &name);
    Status removeUser(const QString &name);
    // A new token for the user, returned whole: it is shown this once.
    Result<QString> issueToken(const QString &user, const QString &label);
    // Revokes a token by its id (or the whole token, which holds it).
    Status revokeToken(const QString &idOrToken);
    // Revokes every token of a user; how many went. Apart from revokeToken: a user's name may
    // look like a token's id.
    Result<qsizetype> revokeUser(const QString &user);
    Status grant(const QString &user, const QString &project, Right right);

    static QString rightName(Right right);
    static std::optional<Right> parseRight(const QString &name);
    // User names: a project name's characters (CollectorApi::validProject), and '@'.
    static bool validUser(const QString &name);

private:
    void reindex();

    QMap<QString, User> m_users;
    QHash<QByteArray, QString> m_byDigest; // token's SHA-256 -> user
};

// The access list of a file, read again when the file changes (its inode, size or time: the
// editing commands replace it whole). Safe to use from any thread. A file that cannot be read
// refuses every request, saying why, until it is fixed: a revocation is never missed.
class AccessFile {
public:
    explicit AccessFile(QString path)
        : m_path(std::move(path)) {}
    const QString &path() const { return m_path; }
    Result<std::shared_ptr<const AccessList>> current();

private:
    QString m_path;
    QMutex m_lock;
    QByteArray m_stamp; // what stat said when last read well; empty after a failed read
    QByteArray m_failedStamp;
    qint64 m_failedAt = 0;
    Result<std::shared_ptr<const AccessList>> m_list = fail(QStringLiteral("not read yet"));
};

} // namespace sb
