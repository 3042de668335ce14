#include "config/Config.h"
#include "config/YamlFile.h"
#include "ssh/ShellQuote.h"
#include "ssh/SshSession.h"

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
    void jobTemplates();
    void yamlAsJson();
    void shellQuoting();
    void proxyJumps();
    void otherNodesStillLoad();
    void slurmClusters();
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
                               << u"f.yaml:3: nodes[1].name: a second entry named \"a\""_s;
    QTest::newRow("not a list") << QByteArray("nodes: gpu-box\n") << u"f.yaml:1: nodes must be"_s;
    QTest::newRow("template without name")
        << QByteArray("job_templates:\n  - image: x\n")
        << u"f.yaml:2: job_templates[0]: a job template needs a name"_s;
    QTest::newRow("template key") << QByteArray(
                                         "job_templates:\n  - name: a\n    nodeSelector: {}\n")
                                  << u"f.yaml:3: job_templates[0].nodeSelector: unknown key"_s;
    QTest::newRow("toleration operator")
        << QByteArray("job_templates:\n  - name: a\n    tolerations:\n      - key: k\n"
                      "        operator: Is\n")
        << u"f.yaml:5: job_templates[0].tolerations[0].operator: the operator is Equal or Exists"_s;
    QTest::newRow("toleration effect")
        << QByteArray("job_templates:\n- name: a\n  tolerations: [{key: k, effect: Never}]\n")
        << u"f.yaml:3: job_templates[0].tolerations[0].effect: the effect is"_s;
    QTest::newRow("selector value")
        << QByteArray("job_templates:\n- name: a\n  node_selector: {pool: [a, b]}\n")
        << u"f.yaml:3: job_templates[0].node_selector.pool must be a single value"_s;
    QTest::newRow("store secret")
        << QByteArray("object_store:\n  endpoint: https://s3.lab\n  bucket: b\n  secret_key: x\n")
        << u"f.yaml:4: object_store.secret_key: secrets are never kept in this file"_s;
    QTest::newRow("store url") << QByteArray("object_store: {endpoint: s3.lab, bucket: b}\n")
                               << u"object_store.endpoint: \"s3.lab\" is not an http(s) URL"_s;
    QTest::newRow("store bucket") << QByteArray("object_store: {endpoint: https://s3.lab}\n")
                                  << u"an object store needs an endpoint and a bucket"_s;
    QTest::newRow("syntax") << QByteArray("nodes:\n  - host: [a\n") << u"f.yaml:"_s;
    // Valid YAML that no reader may throw on or walk for long.
    QTest::newRow("list as key") << QByteArray("nodes: [{? [a, b] : 1, host: 127.0.0.1}]\n")
                                 << u"f.yaml:1: a key must be a plain value"_s;
    QTest::newRow("map as key in templates")
        << QByteArray("job_templates:\n- name: a\n  ? {x: 1}\n  : 2\n")
        << u"f.yaml:3: a key must be a plain value"_s;
    QTest::newRow("map as key in store") << QByteArray("object_store: {? {a: 1} : 2}\n")
                                         << u"f.yaml:1: a key must be a plain value"_s;
    QByteArray bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i < 9; ++i)
        bomb +=
            QByteArray("a%1: &a%1 [*a%2, *a%2, *a%2, *a%2, *a%2, *a%2, *a%2, *a%2, *a%2, *a%2]\n")
                .replace("%1", QByteArray::number(i))
                .replace("%2", QByteArray::number(i - 1));
    QTest::newRow("alias bomb") << bomb << u"expands to more than"_s;
    QTest::newRow("self alias") << QByteArray("a: &a [*a, *a]\n") << u"f.yaml:"_s;
    QTest::newRow("deep") << QByteArray(300, '[') + QByteArray(300, ']') << u"f.yaml:"_s;
    QTest::newRow("proxy_jump shell")
        << QByteArray("nodes:\n- host: a\n  proxy_jump: \"127.0.0.1 -p 1 $(touch /tmp/pwned)\"\n")
        << u"f.yaml:3: nodes[0].proxy_jump: \"127.0.0.1 -p 1 $(touch /tmp/pwned)\" is not a jump host"_s;
    QTest::newRow("proxy_jump option")
        << QByteArray("nodes:\n- {host: a, proxy_jump: -oProxyCommand=x}\n")
        << u"is not a jump host"_s;
}

void TestConfig::errorsNameLineAndKey() {
    QFETCH(QByteArray, yaml);
    QFETCH(QString, expected);
    const auto parsed = sb::Config::parse(yaml, u"f.yaml"_s);
    // A bad node entry is skipped and named; anything else fails the file.
    const QString error = parsed ? parsed->problems.join(u'\n') : parsed.error();
    QVERIFY2(!error.isEmpty(), "accepted");
    QVERIFY2(error.contains(expected), qPrintable(error));
}

void TestConfig::otherNodesStillLoad() {
    const auto parsed = sb::Config::parse("nodes:\n- host: a\n- {host: b, port: ssh}\n- host: c\n"
                                          "- {host: d, proxy_jump: \"x $(y)\"}\n- host: a\n",
                                          u"f.yaml"_s);
    QVERIFY2(parsed, qPrintable(parsed.error()));
    QCOMPARE(parsed->nodes.size(), 2);
    QCOMPARE(parsed->nodes[0].host, u"a"_s);
    QCOMPARE(parsed->nodes[1].host, u"c"_s);
    QCOMPARE(parsed->problems.size(), 3);
    QVERIFY(parsed->problems[0].startsWith(u"f.yaml:3: nodes[1].port"_s));
    QVERIFY(parsed->problems[2].contains(u"a second entry named \"a\""_s));
}

// Slurm clusters: their defaults, and a bad entry noted while the others load.
void TestConfig::slurmClusters() {
    const auto parsed = sb::Config::parse(
        "nodes:\n- {name: login, host: hpc.example.edu}\nslurm_clusters:\n"
        "- {name: hpc, login: login, partition: gpu, account: lab-ml, qos: normal, "
        "time_limit: \"4:00:00\", workspace: /scratch/me/sb, all_users: true}\n"
        "- {name: nologin}\n- {name: odd, login: login, partiton: gpu}\n",
        u"f.yaml"_s);
    QVERIFY2(parsed, qPrintable(parsed.error()));
    QCOMPARE(parsed->slurmClusters.size(), 1);
    const sb::SlurmClusterConfig &hpc = parsed->slurmClusters.front();
    QCOMPARE(hpc.login, u"login"_s);
    QCOMPARE(hpc.partition, u"gpu"_s);
    QCOMPARE(hpc.account, u"lab-ml"_s);
    QCOMPARE(hpc.qos, u"normal"_s);
    QCOMPARE(hpc.timeLimit, u"4:00:00"_s);
    QCOMPARE(hpc.workspace, u"/scratch/me/sb"_s);
    QVERIFY(hpc.allUsers);
    QCOMPARE(parsed->problems.size(), 2);
    QVERIFY2(parsed->problems[0].contains(u"needs a name and a login node"_s),
             qPrintable(parsed->problems[0]));
    QVERIFY2(parsed->problems[1].contains(u"partiton: unknown key"_s),
             qPrintable(parsed->problems[1]));
}

void TestConfig::jobTemplates() {
    const auto parsed = sb::Config::parse(R"(job_templates:
  - name: h100
    image: nvcr.io/nvidia/pytorch:24.10-py3
    node_selector:
      nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      pool: "1"
    tolerations:
      - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      - key: spot
        value: "true"
        effect: NoExecute
        tolerationSeconds: 300
    priority_class: research-high
    service_account: trainer
  - name: cpu
)",
                                          u"signalbox.yaml"_s);
    QVERIFY2(parsed, qPrintable(parsed.error()));
    QCOMPARE(parsed->jobTemplates.size(), 2);
    const sb::JobTemplate &h100 = parsed->jobTemplates.front();
    QCOMPARE(h100.image, u"nvcr.io/nvidia/pytorch:24.10-py3"_s);
    QCOMPARE(h100.nodeSelector,
             (QJsonObject{{u"nvidia.com/gpu.product"_s, u"NVIDIA-H100-80GB-HBM3"_s},
                          {u"pool"_s, u"1"_s}}));
    QCOMPARE(h100.tolerations[1].toObject(),
             (QJsonObject{{u"key"_s, u"spot"_s},
                          {u"value"_s, u"true"_s}, // quoted: a string, as the API wants
                          {u"effect"_s, u"NoExecute"_s},
                          {u"tolerationSeconds"_s, 300}}));
    QCOMPARE(h100.priorityClass, u"research-high"_s);
    QCOMPARE(h100.serviceAccount, u"trainer"_s);
    QVERIFY(parsed->jobTemplates[1].tolerations.isEmpty());
    QVERIFY(!parsed->objectStore.configured());

    qputenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE");
    qputenv("AWS_SECRET_ACCESS_KEY", "secret");
    const auto store = sb::Config::parse("object_store:\n  endpoint: https://minio.lab:9000\n"
                                         "  bucket: code\n  region: eu-west-1\n"
                                         "  pod_endpoint: http://minio.storage:9000\n",
                                         u"f.yaml"_s);
    QVERIFY2(store, qPrintable(store.error()));
    QCOMPARE(store->objectStore.endpoint, QUrl(u"https://minio.lab:9000"_s));
    QCOMPARE(store->objectStore.podEndpoint, QUrl(u"http://minio.storage:9000"_s));
    QCOMPARE(store->objectStore.region, u"eu-west-1"_s);
    QCOMPARE(store->objectStore.accessKey, u"AKIDEXAMPLE"_s); // from the environment
    QCOMPARE(store->objectStore.secretKey, u"secret"_s);
}

void TestConfig::yamlAsJson() {
    const QJsonObject json{{u"plain"_s, u"text"_s},
                           {u"looksNumeric"_s, u"8"_s},
                           {u"looksBoolean"_s, u"true"_s},
                           {u"empty"_s, u""_s},
                           {u"nullWord"_s, u"null"_s},
                           {u"multiline"_s, u"line one\nline: two\n"_s},
                           {u"colon"_s, u"a: b"_s},
                           {u"number"_s, 29500},
                           {u"fraction"_s, 0.25},
                           {u"flag"_s, false},
                           {u"nothing"_s, QJsonValue::Null},
                           {u"list"_s, QJsonArray{1, u"2"_s, QJsonObject{{u"k"_s, u"v"_s}}}},
                           {u"emptyList"_s, QJsonArray{}},
                           {u"emptyMap"_s, QJsonObject{}}};
    const QByteArray yaml = sb::jsonToYaml(json);
    const auto parsed = sb::parseYaml(yaml, u"x"_s);
    QVERIFY2(parsed, qPrintable(parsed.error()));
    QCOMPARE(sb::yamlToJson(*parsed).toObject(), json);
    QVERIFY2(yaml.contains("plain: text\n"), yaml.constData()); // unquoted where it can be
    QVERIFY(yaml.contains("number: 29500\n"));
    // A person's YAML reads as Kubernetes reads it.
    const auto typed =
        sb::parseYaml("a: 1.5e3\nb: 'yes'\nc: yes\nd: 0x1F\ne: ~\nf: \"007\"\n", u"x"_s);
    QCOMPARE(sb::yamlToJson(*typed).toObject(),
             (QJsonObject{{u"a"_s, 1500},
                          {u"b"_s, u"yes"_s},
                          {u"c"_s, u"yes"_s}, // YAML 1.2: only true/false are booleans
                          {u"d"_s, u"0x1F"_s},
                          {u"e"_s, QJsonValue::Null},
                          {u"f"_s, u"007"_s}}));
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

void TestConfig::proxyJumps() {
    const auto hops = sb::parseProxyJump(u"alice@bastion.lab:2222,[::1],gw"_s);
    QVERIFY2(hops, qPrintable(hops.error()));
    QCOMPARE(hops->size(), 3);
    QCOMPARE(hops->at(0).user, u"alice"_s);
    QCOMPARE(hops->at(0).port, 2222);
    QCOMPARE(hops->at(1).host, u"::1"_s);
    QCOMPARE(hops->at(2).port, 22);
    for (const QString &bad : {u""_s, u"a b"_s, u"a;b"_s, u"-oX"_s, u"a:0"_s, u"a:99999"_s,
                               u"$(x)"_s, u"a@@b"_s, u"a,"_s, u"`x`"_s, u"a\nb"_s})
        QVERIFY2(!sb::parseProxyJump(bad), qPrintable(bad));
    // The command libssh runs through a shell holds only checked, quoted words.
    const auto command = sb::proxyCommand(u"alice@bastion:2222"_s);
    QVERIFY(command);
    QCOMPARE(*command, u"ssh -W '[%h]:%p' -p 2222 -l alice -- bastion"_s);
    QVERIFY(!sb::proxyCommand(u"127.0.0.1 -p 1 $(touch /tmp/pwned)"_s));
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
