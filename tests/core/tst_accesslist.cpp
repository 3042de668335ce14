// A lab collector's users: tokens found by their digest only, rights per project with "*",
// revocation by id, user or whole token, and users files that are not what they should be.
#include "collector/AccessList.h"

#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using Right = sb::AccessList::Right;

class TestAccessList : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tokensAreKeptAsDigests() {
        sb::AccessList list;
        QVERIFY(list.addUser(u"alice@lab.org"_s));
        const auto token = list.issueToken(u"alice@lab.org"_s, u"laptop"_s);
        QVERIFY(token);
        QVERIFY(token->startsWith(u"sbt_"_s));
        QCOMPARE(list.userOf(token->toLatin1()), u"alice@lab.org"_s);
        QVERIFY(!list.userOf(token->chopped(1).toLatin1()));
        QVERIFY(!list.userOf(""));
        const QByteArray json = list.toJson();
        QVERIFY(!json.contains(token->sliced(13).toLatin1())); // the secret after "sbt_ID_"
        // What the file holds finds the same user again.
        const auto read = sb::AccessList::parse(json, u"users.json"_s);
        QVERIFY2(read, qPrintable(read.error()));
        QCOMPARE(read->userOf(token->toLatin1()), u"alice@lab.org"_s);
        QCOMPARE(read->users().value(u"alice@lab.org"_s).tokens.value(0).label, u"laptop"_s);
    }

    void rightsPerProjectAndForEvery() {
        sb::AccessList list;
        QVERIFY(list.addUser(u"bob"_s));
        QVERIFY(list.grant(u"bob"_s, u"*"_s, Right::Read));
        QVERIFY(list.grant(u"bob"_s, u"vision"_s, Right::Write));
        QCOMPARE(list.rightOf(u"bob"_s, u"vision"_s), Right::Write);
        QCOMPARE(list.rightOf(u"bob"_s, u"nlp"_s), Right::Read);
        QCOMPARE(list.rightOf(u"nobody"_s, u"nlp"_s), Right::None);
        // A project's own "none" does not take away what "*" gives: rights only add up.
        QVERIFY(list.grant(u"bob"_s, u"vision"_s, Right::None));
        QCOMPARE(list.rightOf(u"bob"_s, u"vision"_s), Right::Read);
        QVERIFY(list.grant(u"bob"_s, u"*"_s, Right::None));
        QCOMPARE(list.rightOf(u"bob"_s, u"vision"_s), Right::None);
        QVERIFY(!list.grant(u"bob"_s, u"a/b"_s, Right::Read));
        QVERIFY(!list.grant(u"bob"_s, u".hidden"_s, Right::Read));
        QVERIFY(!list.grant(u"carol"_s, u"vision"_s, Right::Read));
    }

    void revokedByIdUserOrWholeToken() {
        sb::AccessList list;
        QVERIFY(list.addUser(u"a"_s));
        QVERIFY(list.addUser(u"b"_s));
        const QString first = *list.issueToken(u"a"_s, {});
        const QString second = *list.issueToken(u"a"_s, {});
        const QString third = *list.issueToken(u"b"_s, {});
        QVERIFY(list.revokeToken(first.sliced(4, sb::AccessList::kIdLength)));
        QVERIFY(!list.userOf(first.toLatin1()));
        QCOMPARE(list.userOf(second.toLatin1()), u"a"_s);
        QVERIFY(list.revokeToken(third)); // the whole token names its id
        QVERIFY(!list.userOf(third.toLatin1()));
        QCOMPARE(*list.revokeUser(u"a"_s), 1);
        QVERIFY(!list.userOf(second.toLatin1()));
        QVERIFY(!list.revokeToken(u"zzzzzzzz"_s));
        QVERIFY(!list.revokeUser(u"nobody"_s));
        // A user named like a token's id: revoking the token by its id takes the token, never
        // the user's.
        const QString leaked = *list.issueToken(u"b"_s, {});
        const QString id = leaked.sliced(4, sb::AccessList::kIdLength);
        QVERIFY(list.addUser(id));
        const QString theirs = *list.issueToken(id, {});
        QVERIFY(list.revokeToken(id));
        QVERIFY(!list.userOf(leaked.toLatin1()));
        QCOMPARE(list.userOf(theirs.toLatin1()), id);
        QVERIFY(list.removeUser(u"b"_s));
        QVERIFY(!list.removeUser(u"b"_s));
    }

    void namesAreChecked() {
        sb::AccessList list;
        for (const QString &bad :
             {u""_s, u"a b"_s, u"a/b"_s, u".x"_s, u"é"_s, QString(65, u'a'), u"<b>x</b>"_s})
            QVERIFY2(!list.addUser(bad), qPrintable(bad));
        QVERIFY(list.addUser(u"x"_s));
        QVERIFY(!list.addUser(u"x"_s));
    }

    void badFilesSayWhatIsWrong() {
        const QList<std::pair<QByteArray, QString>> cases{
            {"{", u"not JSON"_s},
            {"[]", u"must be {\"users\""_s},
            {R"({"users": {"a b": {}}})", u"is not a user name"_s},
            {R"({"users": {"a": {"tokens": [{"id": "x", "sha256": "00"}]}}})", u"no id of 8"_s},
            {R"({"users": {"a": {"projects": {"p": "admin"}}}})", u"read, write or none"_s},
            {R"({"users": {"a": {"projects": {"a/b": "read"}}}})", u"read, write or none"_s},
        };
        for (const auto &[json, says] : cases) {
            const auto parsed = sb::AccessList::parse(json, u"users.json"_s);
            QVERIFY2(!parsed, json.constData());
            QVERIFY2(parsed.error().contains(says), qPrintable(parsed.error()));
            QVERIFY(parsed.error().contains(u"users.json"_s));
        }
        QTemporaryDir dir;
        QVERIFY(sb::AccessList::load(dir.filePath(u"none.json"_s))); // none yet: no users
        QVERIFY(!sb::AccessList::load(dir.path()));                  // a directory is no users file
    }

    void aFileIsReadAgainWhenItChanges() {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"users.json"_s);
        sb::AccessFile file(path);
        QVERIFY(!file.current()); // none: refused, not "no users"
        QVERIFY(file.current().error().contains(u"there is no users file"_s));
        sb::AccessList list;
        QVERIFY(list.addUser(u"a"_s));
        const QString token = *list.issueToken(u"a"_s, {});
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(list.toJson());
        out.close();
        QCOMPARE((*file.current())->userOf(token.toLatin1()), u"a"_s);
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write("{\"users\": ");
        out.close();
        QVERIFY(!file.current()); // refused until fixed: a revocation is never missed
    }
};

QTEST_GUILESS_MAIN(TestAccessList)
#include "tst_accesslist.moc"
