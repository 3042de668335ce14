// kubeconfig files as kubectl reads them: merging, inline and file credentials, exec plugins,
// and refusals that name the file, line and key.
#include "kube/KubeConfig.h"
#include "kube/KubeExec.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

const QByteArray kPem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

void write(const QString &path, const QByteArray &text) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
}

QByteArray config(const QByteArray &cluster, const QByteArray &user) {
    return "apiVersion: v1\nkind: Config\ncurrent-context: lab\n"
           "clusters:\n- name: c\n  cluster:\n" +
           cluster + "users:\n- name: u\n  user:\n" + user +
           "contexts:\n- name: lab\n  context: {cluster: c, user: u, namespace: ml}\n";
}

} // namespace

class TestKubeConfig : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void execStatusChannel();
    void inlineDataAndToken();
    void filesRelativeToTheKubeconfig();
    void execPlugin();
    void firstFileWins();
    void refusals_data();
    void refusals();
    void oneBrokenContextLeavesTheOthers();
};

void TestKubeConfig::inlineDataAndToken() {
    const QByteArray b64 = kPem.toBase64();
    auto parsed = sb::KubeConfig::parse(
        config("    server: https://10.0.0.1:6443\n    certificate-authority-data: " + b64 + "\n",
               "    token: abc\n"),
        u"kc"_s);
    QVERIFY2(parsed, qPrintable(parsed.error()));
    auto context = parsed->context();
    QVERIFY2(context, qPrintable(context.error()));
    QCOMPARE(context->name, u"lab"_s);
    QCOMPARE(context->server, u"https://10.0.0.1:6443"_s);
    QCOMPARE(context->ns, u"ml"_s);
    QCOMPARE(context->caPem, kPem);
    QCOMPARE(context->token, u"abc"_s);
    QVERIFY(!context->exec);
}

void TestKubeConfig::filesRelativeToTheKubeconfig() {
    QTemporaryDir dir;
    QDir(dir.path()).mkpath(u"kube/pki"_s);
    write(dir.filePath(u"kube/pki/ca.crt"_s), kPem);
    write(dir.filePath(u"kube/pki/me.crt"_s), "CERT");
    write(dir.filePath(u"kube/pki/me.key"_s), "KEY");
    write(dir.filePath(u"kube/config"_s),
          config("    server: https://h:6443\n    certificate-authority: pki/ca.crt\n",
                 "    client-certificate: pki/me.crt\n    client-key: pki/me.key\n"
                 "    tokenFile: pki/token\n"));
    auto parsed = sb::KubeConfig::load({dir.filePath(u"kube/config"_s)});
    QVERIFY2(parsed, qPrintable(parsed.error()));
    auto context = parsed->context(u"lab"_s);
    QVERIFY2(context, qPrintable(context.error()));
    QCOMPARE(context->caPem, kPem);
    QCOMPARE(context->clientCertPem, "CERT");
    QCOMPARE(context->clientKeyPem, "KEY");
    QCOMPARE(context->tokenFile, dir.filePath(u"kube/pki/token"_s)); // read at each request
}

void TestKubeConfig::execPlugin() {
    auto parsed = sb::KubeConfig::parse(
        config("    server: https://h\n",
               "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
               "      command: gke-gcloud-auth-plugin\n      args: [--verbose, \"a b\"]\n"
               "      env: [{name: CLOUDSDK_CORE_PROJECT, value: lab}]\n"
               "      installHint: install it\n      provideClusterInfo: true\n"),
        u"/home/me/.kube/config"_s);
    QVERIFY2(parsed, qPrintable(parsed.error()));
    auto context = parsed->context();
    QVERIFY2(context, qPrintable(context.error()));
    QVERIFY(context->exec);
    QCOMPARE(context->exec->command, u"gke-gcloud-auth-plugin"_s);
    QCOMPARE(context->exec->args, QStringList({u"--verbose"_s, u"a b"_s}));
    QCOMPARE(context->exec->env.value(u"CLOUDSDK_CORE_PROJECT"_s), u"lab"_s);
    QCOMPARE(context->exec->installHint, u"install it"_s);
    QVERIFY(context->exec->provideClusterInfo);
    QCOMPARE(context->exec->baseDir, u"/home/me/.kube"_s);
}

void TestKubeConfig::firstFileWins() {
    QTemporaryDir dir;
    write(dir.filePath(u"a"_s), config("    server: https://first\n", "    token: one\n"));
    write(dir.filePath(u"b"_s),
          "current-context: other\nclusters:\n- name: c\n  cluster: {server: https://second}\n"
          "contexts:\n- name: other\n  context: {cluster: c}\n");
    auto parsed = sb::KubeConfig::load(
        {dir.filePath(u"a"_s), dir.filePath(u"missing"_s), dir.filePath(u"b"_s)});
    QVERIFY2(parsed, qPrintable(parsed.error()));
    QCOMPARE(parsed->currentContext, u"lab"_s);
    QCOMPARE(parsed->contexts.size(), 2u);
    QCOMPARE(parsed->context(u"other"_s)->server, u"https://first"_s); // cluster c of file a
    QCOMPARE(parsed->context(u"other"_s)->token, QString());           // no user: anonymous
}

void TestKubeConfig::refusals_data() {
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("message");
    QTest::newRow("plain http") << config("    server: http://h:8080\n", "    token: t\n")
                                << u"kc:7: server: \"http://h:8080\" is not an https:// address"_s;
    QTest::newRow("insecure") << config(
                                     "    server: https://h\n    insecure-skip-tls-verify: true\n",
                                     "    token: t\n")
                              << u"kc:8: insecure-skip-tls-verify: Signalbox always verifies"_s;
    QTest::newRow("bad base64") << config("    server: https://h\n    certificate-authority-data: "
                                          "not*base64\n",
                                          "    token: t\n")
                                << u"kc:8: certificate-authority-data is not base64"_s;
    QTest::newRow("missing file")
        << config("    server: https://h\n    certificate-authority: "
                  "/nonexistent/ca.crt\n",
                  "    token: t\n")
        << u"kc:8: certificate-authority: cannot read /nonexistent/ca.crt"_s;
    QTest::newRow("a device") << config("    server: https://h\n    certificate-authority: "
                                        "/dev/zero\n",
                                        "    token: t\n")
                              << u"kc:8: certificate-authority: /dev/zero is not a certificate"_s;
    QTest::newRow("cert without key")
        << config("    server: https://h\n", "    client-certificate-data: Q0VSVA==\n")
        << u"a client certificate needs its key"_s;
    QTest::newRow("old exec api")
        << config("    server: https://h\n",
                  "    exec: {apiVersion: client.authentication.k8s.io/v1alpha1, command: x}\n")
        << u"\"client.authentication.k8s.io/v1alpha1\" is not supported"_s;
    QTest::newRow("auth-provider")
        << config("    server: https://h\n", "    auth-provider: {name: gcp}\n")
        << u"auth-provider plugins were removed"_s;
    QTest::newRow("no such cluster")
        << QByteArray("contexts:\n- name: lab\n  context: {cluster: gone}\ncurrent-context: lab\n")
        << u"kc:3: contexts[lab].cluster: no cluster named \"gone\""_s;
}

void TestKubeConfig::refusals() {
    QFETCH(QByteArray, yaml);
    QFETCH(QString, message);
    auto parsed = sb::KubeConfig::parse(yaml, u"kc"_s);
    QVERIFY2(parsed, qPrintable(parsed.error()));
    auto context = parsed->context();
    QVERIFY(!context);
    QVERIFY2(context.error().contains(message), qPrintable(context.error()));
}

void TestKubeConfig::oneBrokenContextLeavesTheOthers() {
    auto parsed = sb::KubeConfig::parse(
        "clusters:\n- name: ok\n  cluster: {server: https://ok}\n"
        "- name: bad\n  cluster: {server: http://bad}\n"
        "contexts:\n- name: a\n  context: {cluster: ok}\n- name: b\n  context: {cluster: bad}\n",
        u"kc"_s);
    QVERIFY2(parsed, qPrintable(parsed.error()));
    QVERIFY(parsed->context(u"a"_s));
    QVERIFY(!parsed->context(u"b"_s));
    QCOMPARE(parsed->context().error(),
             u"the kubeconfig names no current-context; choose a context"_s);
    QVERIFY(!sb::KubeConfig::parse("clusters: {a: b}\n", u"kc"_s));
    QVERIFY(!sb::KubeConfig::parse("[unclosed\n", u"kc"_s));
}

void TestKubeConfig::execStatusChannel() {
    // The status channel's Status objects, as the exec subresource documents them.
    QCOMPARE(sb::kubeExecExitCode(R"({"metadata":{},"status":"Success"})").value(), 0);
    QCOMPARE(
        sb::kubeExecExitCode(
            R"({"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}})")
            .value(),
        3);
    QCOMPARE(sb::kubeExecExitCode("").value(), 0);
    // kwok's local exec says it in words.
    QCOMPARE(sb::kubeExecExitCode(R"({"status":"Failure","message":"cmd wait: x: exit status 7"})")
                 .value(),
             7);
    const auto refused = sb::kubeExecExitCode(
        R"({"status":"Failure","message":"exec: \"sh\": executable file not found in $PATH"})");
    QVERIFY(!refused);
    QVERIFY(refused.error().contains(u"executable file not found"_s));
    QVERIFY(!sb::kubeExecExitCode("garbage"));
}

QTEST_GUILESS_MAIN(TestKubeConfig)
#include "tst_kubeconfig.moc"
