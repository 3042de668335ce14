#include "AccessList.h"

#include "metrics/CollectorApi.h"
#include "util/Digest.h"
#include "util/Files.h"
#include "util/Log.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>

#include <array>
#include <cerrno>
#include <sys/stat.h>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr qint64 kMostFileBytes = qint64(64) << 20;
constexpr QLatin1StringView kTokenPrefix("sbt_");

QByteArray randomBytes(qsizetype words) {
    QByteArray bytes(words * qsizetype(sizeof(quint32)), Qt::Uninitialized);
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32 *>(bytes.data()), words);
    return bytes;
}

} // namespace

QString AccessList::rightName(Right right) {
    return right == Right::Write ? u"write"_s : right == Right::Read ? u"read"_s : u"none"_s;
}

std::optional<AccessList::Right> AccessList::parseRight(const QString &name) {
    if (name == u"write"_s)
        return Right::Write;
    if (name == u"read"_s)
        return Right::Read;
    if (name == u"none"_s)
        return Right::None;
    return std::nullopt;
}

bool AccessList::validUser(const QString &name) {
    return name.size() <= 64 && CollectorApi::validProject(QString(name).remove(u'@'));
}

Result<AccessList> AccessList::load(const QString &path) {
    if (!QFile::exists(path))
        return AccessList();
    auto bytes = readRegularFile(path, kMostFileBytes);
    if (!bytes)
        return bytes.failure();
    return parse(*bytes, path);
}

Result<AccessList> AccessList::parse(const QByteArray &json, const QString &path) {
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    const auto bad = [&path](const QString &why) {
        return fail(u"the users file %1: %2"_s.arg(path, why), ErrorCode::InvalidInput);
    };
    if (parseError.error != QJsonParseError::NoError)
        return bad(
            u"not JSON (%1 at byte %2)"_s.arg(parseError.errorString()).arg(parseError.offset));
    const QJsonValue users = document.object().value(u"users"_s);
    if (!document.isObject() || !users.isObject())
        return bad(u"it must be {\"users\": {NAME: {...}}}"_s);
    AccessList list;
    const QJsonObject byName = users.toObject();
    for (auto it = byName.begin(); it != byName.end(); ++it) {
        if (!validUser(it.key()))
            return bad(
                u"\"%1\" is not a user name (letters, digits, '.', '_', '-', '@')"_s.arg(it.key()));
        const QJsonObject entry = it.value().toObject();
        User user;
        for (const QJsonValue value : entry.value(u"tokens"_s).toArray()) {
            const QJsonObject token = value.toObject();
            Token kept{token.value(u"id"_s).toString(),
                       QByteArray::fromHex(token.value(u"sha256"_s).toString().toLatin1()),
                       token.value(u"label"_s).toString(), token.value(u"created"_s).toString()};
            if (kept.id.size() != kIdLength || kept.sha256.size() != 32)
                return bad(
                    u"a token of %1 has no id of %2 characters or no SHA-256"_s.arg(it.key()).arg(
                        kIdLength));
            user.tokens << kept;
        }
        const QJsonObject projects = entry.value(u"projects"_s).toObject();
        for (auto p = projects.begin(); p != projects.end(); ++p) {
            const auto right = parseRight(p.value().toString());
            if ((p.key() != u"*"_s && !CollectorApi::validProject(p.key())) || !right)
                return bad(
                    u"%1's right on \"%2\" must be read, write or none, on a project name"_s.arg(
                        it.key(), p.key()));
            user.projects.insert(p.key(), *right);
        }
        list.m_users.insert(it.key(), user);
    }
    list.reindex();
    return list;
}

QByteArray AccessList::toJson() const {
    QJsonObject users;
    for (auto it = m_users.begin(); it != m_users.end(); ++it) {
        QJsonArray tokens;
        for (const Token &token : it->tokens)
            tokens.append(QJsonObject{{u"id"_s, token.id},
                                      {u"sha256"_s, QString::fromLatin1(token.sha256.toHex())},
                                      {u"label"_s, token.label},
                                      {u"created"_s, token.created}});
        QJsonObject projects;
        for (auto p = it->projects.begin(); p != it->projects.end(); ++p)
            projects.insert(p.key(), rightName(p.value()));
        users.insert(it.key(), QJsonObject{{u"tokens"_s, tokens}, {u"projects"_s, projects}});
    }
    return QJsonDocument(QJsonObject{{u"users"_s, users}}).toJson(QJsonDocument::Indented);
}

void AccessList::reindex() {
    m_byDigest.clear();
    for (auto it = m_users.begin(); it != m_users.end(); ++it) {
        for (const Token &token : it->tokens)
            m_byDigest.insert(token.sha256, it.key());
    }
}

std::optional<QString> AccessList::userOf(QByteArrayView token) const {
    // Looked up by digest: timing tells at most about a digest, never about a token.
    if (token.isEmpty())
        return std::nullopt;
    const auto found = m_byDigest.constFind(sha256(token));
    return found == m_byDigest.cend() ? std::nullopt : std::optional<QString>(*found);
}

AccessList::Right AccessList::rightOf(const QString &user, const QString &project) const {
    const auto found = m_users.constFind(user);
    if (found == m_users.cend())
        return Right::None;
    return std::max(found->projects.value(project, Right::None),
                    found->projects.value(u"*"_s, Right::None));
}

Status AccessList::addUser(const QString &name) {
    if (!validUser(name))
        return fail(
            u"\"%1\" is not a user name: 1 to 64 letters, digits, '.', '_', '-' or '@'"_s.arg(name),
            ErrorCode::InvalidInput);
    if (m_users.contains(name))
        return fail(u"there is a user %1 already"_s.arg(name), ErrorCode::InvalidInput);
    m_users.insert(name, User{});
    return success();
}

Status AccessList::removeUser(const QString &name) {
    if (m_users.remove(name) == 0)
        return fail(u"there is no user %1"_s.arg(name), ErrorCode::InvalidInput);
    reindex();
    return success();
}

Result<QString> AccessList::issueToken(const QString &user, const QString &label) {
    const auto found = m_users.find(user);
    if (found == m_users.end())
        return fail(u"there is no user %1"_s.arg(user), ErrorCode::InvalidInput);
    QString id;
    do {
        static_assert(kIdLength == 8, "one random word is 8 hex digits");
        id = QString::fromLatin1(randomBytes(1).toHex());
    } while ([&] {
        for (const User &other : std::as_const(m_users)) {
            for (const Token &token : other.tokens) {
                if (token.id == id)
                    return true;
            }
        }
        return false;
    }());
    // 32 random bytes: past guessing, so one unsalted digest keeps it safe.
    const QString token = kTokenPrefix + id + u'_' +
                          QString::fromLatin1(randomBytes(8).toBase64(
                              QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
    found->tokens << Token{id, sha256(token.toLatin1()), label,
                           QDateTime::currentDateTimeUtc().toString(Qt::ISODate)};
    reindex();
    return token;
}

Status AccessList::revokeToken(const QString &idOrToken) {
    // A whole token names its id too: "sbt_ID_...".
    const QString id = idOrToken.startsWith(kTokenPrefix)
                           ? idOrToken.mid(kTokenPrefix.size(), kIdLength)
                           : idOrToken;
    qsizetype revoked = 0;
    for (User &user : m_users)
        revoked += user.tokens.removeIf([&id](const Token &token) { return token.id == id; });
    if (revoked == 0)
        return fail(u"no token's id is %1 (`users list` shows them)"_s.arg(idOrToken),
                    ErrorCode::InvalidInput);
    reindex();
    return success();
}

Result<qsizetype> AccessList::revokeUser(const QString &user) {
    const auto found = m_users.find(user);
    if (found == m_users.end())
        return fail(u"there is no user %1"_s.arg(user), ErrorCode::InvalidInput);
    const qsizetype revoked = found->tokens.size();
    found->tokens.clear();
    reindex();
    return revoked;
}

Status AccessList::grant(const QString &user, const QString &project, Right right) {
    const auto found = m_users.find(user);
    if (found == m_users.end())
        return fail(u"there is no user %1"_s.arg(user), ErrorCode::InvalidInput);
    if (Status valid = CollectorApi::checkProject(project); project != u"*"_s && !valid)
        return valid.failure();
    if (right == Right::None)
        found->projects.remove(project);
    else
        found->projects.insert(project, right);
    return success();
}

Result<std::shared_ptr<const AccessList>> AccessFile::current() {
    // Cheap enough for every request (one stat), and a change is seen at the next one.
    struct stat info {};
    const QByteArray path = QFile::encodeName(m_path);
    QByteArray stamp;
    if (::stat(path.constData(), &info) == 0) {
        // ctime too: an edit in place within one tick of mtime still moves it.
        const std::array<qint64, 7> fields{
            qint64(info.st_dev),         qint64(info.st_ino),          qint64(info.st_size),
            qint64(info.st_mtim.tv_sec), qint64(info.st_mtim.tv_nsec), qint64(info.st_ctim.tv_sec),
            qint64(info.st_ctim.tv_nsec)};
        stamp = QByteArray(reinterpret_cast<const char *>(fields.data()), sizeof(fields));
    } else {
        stamp = errno == ENOENT ? "missing" : "unreadable"; // read below: its error says why
    }
    const QMutexLocker locked(&m_lock);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    // A file that failed is read again when it changes, or a second later (EMFILE, EIO pass).
    if (stamp == m_stamp || (stamp == m_failedStamp && now - m_failedAt < 1000))
        return m_list;
    // Gone while the collector runs (moved away by mistake): not the same as no users.
    auto loaded = stamp == "missing"
                      ? Result<AccessList>(fail(u"there is no users file %1"_s.arg(m_path)))
                      : AccessList::load(m_path);
    if (!loaded) {
        if (!m_list.error().startsWith(loaded.error()))
            qCWarning(lcCollector).noquote() << loaded.error() << u"(every request is refused)"_s;
        m_list = fail(loaded.error() + u" (every request is refused)"_s);
        m_stamp.clear();
        m_failedStamp = stamp;
        m_failedAt = now;
        return m_list;
    }
    m_list = std::make_shared<const AccessList>(std::move(loaded).value());
    m_stamp = stamp;
    m_failedStamp.clear();
    return m_list;
}

} // namespace sb
