#include "UsersCommand.h"

#include "collector/AccessList.h"
#include "util/Files.h"
#include "util/PlainText.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QLockFile>

#include <cstdio>

using namespace Qt::StringLiterals;

namespace {

constexpr char kUsage[] =
    "usage: signalbox-collector users COMMAND --users FILE\n"
    "  list                           users, their rights and tokens (never the tokens "
    "themselves)\n"
    "  add USER [--label TEXT]        a new user, and a first token for them (shown this once)\n"
    "  token USER [--label TEXT]      another token for the user (shown this once)\n"
    "  revoke ID                      a token, by its id (or the whole token)\n"
    "  revoke-user USER               every token of a user\n"
    "  grant USER PROJECT read|write|none   the user's right on a project (* for every project)\n"
    "  remove USER                    the user and their tokens\n"
    "The collector (--users FILE) reads the file again when it changes: a revoked token is\n"
    "refused from the next request on.\n";

int failWith(const QString &message) {
    std::fprintf(stderr, "signalbox-collector users: %s\n", qUtf8Printable(sb::printable(message)));
    return 1;
}

void printList(const sb::AccessList &list) {
    if (list.users().isEmpty())
        std::printf("no users\n");
    for (auto user = list.users().begin(); user != list.users().end(); ++user) {
        QStringList rights;
        for (auto p = user->projects.begin(); p != user->projects.end(); ++p)
            rights << p.key() + u'=' + sb::AccessList::rightName(p.value());
        std::printf("%s\t%s\n", qUtf8Printable(user.key()),
                    qUtf8Printable(rights.isEmpty() ? u"(no projects)"_s : rights.join(u' ')));
        for (const sb::AccessList::Token &token : user->tokens)
            std::printf("\ttoken %s\t%s\t%s\n", qUtf8Printable(sb::printable(token.id)),
                        qUtf8Printable(sb::printable(token.created)),
                        qUtf8Printable(sb::printable(token.label)));
    }
}

} // namespace

int runUsersCommand(const QStringList &arguments) {
    QCommandLineParser parser;
    const QCommandLineOption users(u"users"_s, u"The users file."_s, u"file"_s);
    const QCommandLineOption label(u"label"_s, u"What the token is for (laptop, cluster)."_s,
                                   u"text"_s);
    parser.addOptions({users, label});
    if (!parser.parse(arguments))
        return failWith(parser.errorText() + u'\n' + QLatin1StringView(kUsage));
    const QStringList words = parser.positionalArguments().mid(1); // after "users"
    const QString command = words.value(0);
    const auto shape = std::initializer_list<std::pair<QString, qsizetype>>{
        {u"list"_s, 1},        {u"add"_s, 2},   {u"token"_s, 2}, {u"revoke"_s, 2},
        {u"revoke-user"_s, 2}, {u"grant"_s, 4}, {u"remove"_s, 2}};
    const auto known = std::find_if(shape.begin(), shape.end(), [&command](const auto &entry) {
        return entry.first == command;
    });
    if (known == shape.end() || words.size() != known->second || !parser.isSet(users)) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    const QString path = parser.value(users);
    // Two people editing at once: one waits for the other, and neither's change is lost.
    QLockFile lock(path + u".lock"_s);
    if (command != u"list"_s) {
        QDir().mkpath(QFileInfo(path).absolutePath());
        if (!lock.tryLock(10'000))
            return failWith(lock.error() == QLockFile::LockFailedError
                                ? u"%1 is being edited by another command (%1.lock)"_s.arg(path)
                                : u"cannot make the lock %1.lock beside it: %2"_s.arg(
                                      path, lock.error() == QLockFile::PermissionError
                                                ? u"permission denied"_s
                                                : u"the system refused"_s));
    }
    auto loaded = sb::AccessList::load(path);
    if (!loaded)
        return failWith(loaded.error());
    sb::AccessList list = std::move(loaded).value();
    QString token;
    if (command == u"list"_s) {
        printList(list);
        return 0;
    } else if (command == u"add"_s || command == u"token"_s) {
        if (command == u"add"_s) {
            if (const sb::Status added = list.addUser(words[1]); !added)
                return failWith(added.error());
        }
        auto issued = list.issueToken(words[1], parser.value(label));
        if (!issued)
            return failWith(issued.error());
        token = *issued;
    } else if (command == u"revoke"_s) {
        if (const sb::Status revoked = list.revokeToken(words[1]); !revoked)
            return failWith(revoked.error());
    } else if (command == u"revoke-user"_s) {
        const auto revoked = list.revokeUser(words[1]);
        if (!revoked)
            return failWith(revoked.error());
        std::printf("revoked %lld token(s)\n", static_cast<long long>(*revoked));
    } else if (command == u"grant"_s) {
        const auto right = sb::AccessList::parseRight(words[3]);
        if (!right)
            return failWith(u"the right must be read, write or none, not %1"_s.arg(words[3]));
        if (const sb::Status granted = list.grant(words[1], words[2], *right); !granted)
            return failWith(granted.error());
        // Rights only add up: "*" still gives what this project's own right no longer does.
        if (const auto left = list.rightOf(words[1], words[2]); left > *right)
            std::fprintf(stderr,
                         "signalbox-collector users: %s still may %s %s through *: grant %s "
                         "'*' none to take that\n",
                         qUtf8Printable(words[1]), qUtf8Printable(sb::AccessList::rightName(left)),
                         qUtf8Printable(words[2]), qUtf8Printable(words[1]));
    } else if (const sb::Status removed = list.removeUser(words[1]); !removed) {
        return failWith(removed.error());
    }
    // One that a service user reads keeps its owner and mode when root rewrites it.
    if (const sb::Status saved = sb::writeFileAtomically(path, list.toJson(), true); !saved)
        return failWith(saved.error());
    if (!token.isEmpty()) {
        // Only the token on stdout, for scripts: `TOKEN=$(signalbox-collector users add ...)`.
        std::printf("%s\n", qUtf8Printable(token));
        std::fprintf(stderr, "this token is shown once: it is kept only as its SHA-256\n");
    }
    return 0;
}
