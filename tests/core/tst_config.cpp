#include "config/Config.h"
#include "ssh/ShellQuote.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

class TestConfig : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void nodesRoundTrip();
    void errorsNameLineAndKey_data();
    void errorsNameLineAndKey();
    void importsSshConfig();
    void shellQuoting();
};

void TestConfig::nodesRoundTrip() {
    const auto parsed = sb::Config::parse(R"(# the lab
nodes:
  - name: gpu-box
    host: 10.0.0.5
    user: alice
    port: 2222
    identity_file: ~/.ssh/lab
    proxy_jump: bastion.lab
    interval: 0.5
  - host: cpu-1.lab
kube: {keep: me}
)",
                                          u"signalbox.yaml"_s);
    QVERIFY2(parsed, qPrintable(parsed.error()));
    QCOMPARE(parsed->nodes.size(), 2);
    const sb::NodeConfig &box = parsed->nodes.front();
    QCOMPARE(box.name, u"gpu-box"_s);
    QCOMPARE(box.port, 2222);
    QCOMPARE(box.intervalSeconds, 0.5);
    QCOMPARE(box.proxyJump, u"bastion.lab"_s);
    QCOMPARE(parsed->nodes[1].name, u"cpu-1.lab"_s); // named by its host when unnamed
    QCOMPARE(parsed->nodes[1].port, 22);

    QTemporaryDir dir;
    const QString path = dir.path() + u"/conf/signalbox.yaml"_s;
    {
        QFile f(dir.path() + u"/conf"_s);
        QDir().mkpath(dir.path() + u"/conf"_s);
        QFile other(path);
        QVERIFY(other.open(QIODevice::WriteOnly));
        other.write("kube:\n  context: lab\n");
    }
    QVERIFY(parsed->save(path));
    const auto reloaded = sb::Config::load(path);
    QVERIFY2(reloaded, qPrintable(reloaded.error()));
    QCOMPARE(reloaded->nodes, parsed->nodes);
    QFile saved(path);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    QVERIFY(saved.readAll().contains("context: lab")); // other sections survive a save
    QVERIFY(sb::Config::load(dir.path() + u"/missing.yaml"_s)->nodes.isEmpty());
}

void TestConfig::errorsNameLineAndKey_data() {
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("expected");
    QTest::newRow("password") << QByteArray("nodes:\n  - host: a\n    password: hunter2\n")
                              << u"f.yaml:3: nodes[0].password: secrets are never kept"_s;
    QTest::newRow("unknown key") << QByteArray("nodes:\n  - host: a\n    hots: b\n")
                                 << u"f.yaml:3: nodes[0].hots: unknown key"_s;
    QTest::newRow("bad port") << QByteArray("nodes:\n  - host: a\n  - host: b\n    port: ssh\n")
                              << u"f.yaml:4: nodes[1].port: \"ssh\" is not a number"_s;
    QTest::newRow("port range") << QByteArray("nodes:\n- {host: a, port: 70000}\n")
                                << u"nodes[0].port: a port is 1 to 65535"_s;
    QTest::newRow("no host") << QByteArray("nodes:\n  - name: a\n") << u"a node needs a host"_s;
    QTest::newRow("duplicate") << QByteArray("nodes:\n  - host: a\n  - host: a\n")
                               << u"f.yaml:3: nodes[1].name: a second node named \"a\""_s;
    QTest::newRow("not a list") << QByteArray("nodes: gpu-box\n") << u"f.yaml:1: nodes must be"_s;
    QTest::newRow("syntax") << QByteArray("nodes:\n  - host: [a\n") << u"f.yaml:"_s;
}

void TestConfig::errorsNameLineAndKey() {
    QFETCH(QByteArray, yaml);
    QFETCH(QString, expected);
    const auto parsed = sb::Config::parse(yaml, u"f.yaml"_s);
    QVERIFY(!parsed);
    QVERIFY2(parsed.error().contains(expected), qPrintable(parsed.error()));
}

void TestConfig::importsSshConfig() {
    const auto nodes = sb::importSshConfig(R"(
# defaults for the lab, ssh's first-value-wins order
Host gpu-* !gpu-old
    User researcher
    ProxyJump bastion

Host gpu-a gpu-b
    HostName %h.lab.example.org
    Port 2200

Host gpu-a
    User someone-else
    IdentityFile ~/.ssh/lab_ed25519

Host bastion
    HostName=203.0.113.7
    ProxyJump none

Host gpu-old
    HostName 10.0.0.9

Match host foo
    User ignored

Host *
    User fallback
)");
    QStringList names;
    for (const auto &n : nodes)
        names << n.name;
    QCOMPARE(names, (QStringList{u"gpu-a"_s, u"gpu-b"_s, u"bastion"_s, u"gpu-old"_s}));
    QCOMPARE(nodes[0].host, u"gpu-a.lab.example.org"_s);
    QCOMPARE(nodes[0].user, u"researcher"_s); // the first value obtained wins
    QCOMPARE(nodes[0].port, 2200);
    QCOMPARE(nodes[0].identityFile, u"~/.ssh/lab_ed25519"_s);
    QCOMPARE(nodes[0].proxyJump, u"bastion"_s);
    QCOMPARE(nodes[1].identityFile, QString());
    QCOMPARE(nodes[2].host, u"203.0.113.7"_s);
    QCOMPARE(nodes[2].proxyJump, QString());
    QCOMPARE(nodes[2].user, u"fallback"_s);
    QCOMPARE(nodes[3].user, u"fallback"_s); // excluded from gpu-* by the negation
    QCOMPARE(nodes[3].proxyJump, QString());
}

void TestConfig::shellQuoting() {
    QCOMPARE(sb::shellQuote(u"plain-word_1.txt"_s), u"plain-word_1.txt"_s);
    QCOMPARE(sb::shellQuote(u""_s), u"''"_s);
    QCOMPARE(sb::shellQuote(u"it's"_s), u"'it'\\''s'"_s);
    QCOMPARE(sb::shellQuote(u"A=B"_s), u"'A=B'"_s); // never mistaken for an assignment
    QCOMPARE(sb::shellQuote(u"~"_s), u"'~'"_s);
    // The local shell agrees: each argument comes back as it went in.
    const QStringList hostile{u"; rm -rf ~"_s, u"$(id)"_s, u"`id`"_s, u"a\nb"_s,
                              u"'\"\\"_s,      u"*"_s,     u"-e"_s,   u""_s};
    QProcess sh;
    sh.start(u"sh"_s, {u"-c"_s, sb::shellCommand(QStringList{u"printf"_s, u"%s\\n"_s} + hostile)});
    QVERIFY(sh.waitForFinished());
    QCOMPARE(QString::fromUtf8(sh.readAllStandardOutput()), hostile.join(u'\n') + u'\n');
}

QTEST_GUILESS_MAIN(TestConfig)
#include "tst_config.moc"
