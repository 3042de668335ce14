// The Kubernetes client against a real API server (tests/harness/k8scluster.py): every way of
// authenticating over verified TLS, refusals in plain words, and an informer that lists, pages,
// watches, survives an API server restart and recovers from a resourceVersion the server forgot.
#include "../support/K8sCluster.h"
#include "kube/KubeClient.h"
#include "kube/KubeInformer.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <memory>

using namespace Qt::StringLiterals;

namespace {

const QString kConfigMaps = u"/api/v1/namespaces/default/configmaps"_s;

QJsonObject configMap(const QString &name, bool labelled = true) {
    QJsonObject meta{{u"name"_s, name}};
    if (labelled)
        meta[u"labels"_s] = QJsonObject{{u"app"_s, u"sb-test"_s}};
    return {{u"apiVersion"_s, u"v1"_s},
            {u"kind"_s, u"ConfigMap"_s},
            {u"metadata"_s, meta},
            {u"data"_s, QJsonObject{{u"k"_s, u"v"_s}}}};
}

QStringList sortedNames(const QHash<QString, QJsonObject> &objects) {
    QStringList names = objects.keys();
    names.sort();
    return names;
}

} // namespace

class TestKubeClient : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void authenticatesEveryWay_data();
    void authenticatesEveryWay();
    void execCredentialIsCached();
    void wrongCertificateAuthorityIsRefused();
    void refusedConnectionSaysSo();
    void refusalCarriesTheServersMessage();
    void informerListsInPagesAndWatches();
    void informerSurvivesAnApiServerRestart();
    void informerRelistsWhenItsVersionIsForgotten();
    void execIntoAPodOverAWebSocket_data();
    void execIntoAPodOverAWebSocket();

private:
    std::unique_ptr<K8sCluster> m_cluster;
    std::unique_ptr<sb::KubeClient> m_client;
};

void TestKubeClient::initTestCase() {
    m_cluster = std::make_unique<K8sCluster>();
    QVERIFY2(m_cluster->error().isEmpty(), qPrintable(m_cluster->error()));
    auto context = m_cluster->context(u"cert"_s);
    QVERIFY2(context, qPrintable(context.error()));
    m_client = std::make_unique<sb::KubeClient>(*context);
}

void TestKubeClient::authenticatesEveryWay_data() {
    QTest::addColumn<QString>("auth");
    QTest::addColumn<QString>("user");
    QTest::newRow("client certificate") << u"cert"_s << u"signalbox-admin"_s;
    QTest::newRow("bearer token") << u"token"_s << u"token-user"_s;
    QTest::newRow("token file") << u"tokenFile"_s << u"token-user"_s;
    QTest::newRow("exec plugin") << u"exec"_s << u"exec-user"_s;
}

void TestKubeClient::authenticatesEveryWay() {
    QFETCH(QString, auth);
    QFETCH(QString, user);
    auto context = m_cluster->context(auth);
    QVERIFY2(context, qPrintable(context.error()));
    sb::KubeClient client(*context);
    const sb::KubeReply reply = sb::kubeCall(
        client, "POST", u"/apis/authentication.k8s.io/v1/selfsubjectreviews"_s,
        {{u"apiVersion"_s, u"authentication.k8s.io/v1"_s}, {u"kind"_s, u"SelfSubjectReview"_s}});
    QVERIFY2(reply.ok(), qPrintable(reply.error));
    QCOMPARE(reply.json[u"status"_s][u"userInfo"_s][u"username"_s].toString(), user);
}

void TestKubeClient::execCredentialIsCached() {
    auto context = m_cluster->context(u"exec"_s);
    QVERIFY2(context, qPrintable(context.error()));
    const int before = m_cluster->execRuns();
    sb::KubeClient client(*context);
    for (int i = 0; i < 3; ++i)
        QVERIFY(sb::kubeCall(client, "GET", u"/api/v1/namespaces/default"_s).ok());
    QCOMPARE(m_cluster->execRuns(), before + 1); // valid for an hour: asked once
}

void TestKubeClient::wrongCertificateAuthorityIsRefused() {
    auto context = m_cluster->context(u"wrongCa"_s);
    QVERIFY2(context, qPrintable(context.error()));
    sb::KubeClient client(*context);
    const sb::KubeReply reply = sb::kubeCall(client, "GET", u"/api/v1/namespaces"_s);
    QVERIFY(!reply.ok());
    QCOMPARE(reply.status, 0);
    QVERIFY2(reply.error.contains(u"certificate is not trusted"_s), qPrintable(reply.error));
    QVERIFY2(reply.error.contains(u"certificate-authority"_s), qPrintable(reply.error));
}

void TestKubeClient::refusedConnectionSaysSo() {
    sb::KubeContext context = m_client->context();
    context.server = u"https://127.0.0.1:1"_s;
    sb::KubeClient client(context);
    const sb::KubeReply reply = sb::kubeCall(client, "GET", u"/api/v1/namespaces"_s);
    QVERIFY(!reply.ok());
    QVERIFY2(reply.error.contains(u"cannot connect"_s), qPrintable(reply.error));
}

void TestKubeClient::refusalCarriesTheServersMessage() {
    const sb::KubeReply reply = sb::kubeCall(*m_client, "GET", kConfigMaps + u"/no-such-map"_s);
    QCOMPARE(reply.status, 404);
    QCOMPARE(reply.error, u"HTTP 404: configmaps \"no-such-map\" not found"_s);
}

void TestKubeClient::informerListsInPagesAndWatches() {
    // More than one page (500) of labelled maps, and one the selector leaves out.
    const int count = 620;
    int created = 0;
    QObject receiver;
    for (int i = 0; i < count; ++i) {
        sb::KubeRequest request;
        request.method = "POST";
        request.path = kConfigMaps;
        request.body = QJsonDocument(configMap(u"paged-%1"_s.arg(i))).toJson();
        m_client->send(request, &receiver, [&](const sb::KubeReply &reply) {
            QVERIFY2(reply.ok(), qPrintable(reply.error));
            ++created;
        });
    }
    QTRY_COMPARE_WITH_TIMEOUT(created, count, 120000);
    QVERIFY(sb::kubeCall(*m_client, "POST", kConfigMaps, configMap(u"unlabelled"_s, false)).ok());

    sb::KubeInformer informer(m_client.get(), kConfigMaps, u"app=sb-test"_s);
    QSignalSpy updates(&informer, &sb::KubeInformer::updated);
    informer.start();
    QTRY_VERIFY_WITH_TIMEOUT(informer.synced(), 60000);
    QCOMPARE(informer.objects().size(), count);
    QVERIFY(!informer.objects().contains(u"unlabelled"_s));

    QVERIFY(sb::kubeCall(*m_client, "POST", kConfigMaps, configMap(u"watched"_s)).ok());
    QTRY_VERIFY_WITH_TIMEOUT(informer.objects().contains(u"watched"_s), 30000);
    QVERIFY(sb::kubeCall(*m_client, "DELETE", kConfigMaps + u"/paged-0"_s).ok());
    QTRY_VERIFY_WITH_TIMEOUT(!informer.objects().contains(u"paged-0"_s), 30000);
    const auto last = updates.last();
    QVERIFY(last.at(1).toStringList().contains(u"paged-0"_s));
    QCOMPARE(informer.relists(), 0);
}

void TestKubeClient::informerSurvivesAnApiServerRestart() {
    sb::KubeInformer informer(m_client.get(), kConfigMaps, u"app=sb-test"_s);
    informer.start();
    QTRY_VERIFY_WITH_TIMEOUT(informer.synced(), 60000);
    QVERIFY(m_cluster->command(u"restart-apiserver"_s));
    QVERIFY(sb::kubeCall(*m_client, "POST", kConfigMaps, configMap(u"after-restart"_s)).ok());
    QTRY_VERIFY_WITH_TIMEOUT(informer.objects().contains(u"after-restart"_s), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(informer.error().isEmpty(), 30000);
}

void TestKubeClient::informerRelistsWhenItsVersionIsForgotten() {
    sb::KubeInformer informer(m_client.get(), kConfigMaps, u"app=sb-test"_s);
    informer.start();
    QTRY_VERIFY_WITH_TIMEOUT(informer.synced(), 60000);
    informer.stop(); // offline a while: the cluster changes, then forgets the old versions
    QVERIFY(sb::kubeCall(*m_client, "POST", kConfigMaps, configMap(u"while-away"_s)).ok());
    QVERIFY(sb::kubeCall(*m_client, "DELETE", kConfigMaps + u"/paged-1"_s).ok());
    QVERIFY(m_cluster->command(u"compact"_s));
    QVERIFY(m_cluster->command(u"restart-apiserver"_s));
    QSignalSpy updates(&informer, &sb::KubeInformer::updated);
    informer.start();
    QTRY_COMPARE_WITH_TIMEOUT(informer.relists(), 1, 60000);
    QVERIFY(informer.objects().contains(u"while-away"_s));
    QVERIFY(!informer.objects().contains(u"paged-1"_s));
    bool reportedGone = false;
    for (const auto &update : updates)
        reportedGone = reportedGone || update.at(1).toStringList().contains(u"paged-1"_s);
    QVERIFY(reportedGone);

    const sb::KubeReply listed =
        sb::kubeCall(*m_client, "GET", kConfigMaps + u"?labelSelector=app%3Dsb-test"_s);
    QStringList names;
    for (const QJsonValue item : listed.json[u"items"_s].toArray())
        names << sb::kubeName(item.toObject());
    names.sort();
    QCOMPARE(sortedNames(informer.objects()), names);
}

void TestKubeClient::execIntoAPodOverAWebSocket_data() {
    QTest::addColumn<QString>("auth");
    for (const char *auth : {"cert", "token", "exec"})
        QTest::newRow(auth) << QString::fromLatin1(auth);
}

void TestKubeClient::execIntoAPodOverAWebSocket() {
    // kwok runs a default-namespace pod's exec here (its ClusterExec); a pod of another namespace
    // has none, as an image without sh.
    QFETCH(QString, auth);
    auto admin = m_cluster->context(u"cert"_s);
    QVERIFY(admin);
    sb::KubeClient adminClient(*admin);
    auto pod = [](const QString &name) {
        return QJsonObject{
            {u"apiVersion"_s, u"v1"_s},
            {u"kind"_s, u"Pod"_s},
            {u"metadata"_s, QJsonObject{{u"name"_s, name}}},
            {u"spec"_s,
             QJsonObject{{u"nodeName"_s, u"gpu-0"_s},
                         {u"containers"_s, QJsonArray{QJsonObject{{u"name"_s, u"main"_s},
                                                                  {u"image"_s, u"busybox"_s}}}}}}};
    };
    if (auth == u"cert"_s) {
        QVERIFY(
            sb::kubeCall(adminClient, "POST", u"/api/v1/namespaces/default/pods"_s, pod(u"shell"_s))
                .ok());
        QVERIFY(sb::kubeCall(adminClient, "POST", u"/api/v1/namespaces"_s,
                             QJsonObject{{u"apiVersion"_s, u"v1"_s},
                                         {u"kind"_s, u"Namespace"_s},
                                         {u"metadata"_s, QJsonObject{{u"name"_s, u"bare"_s}}}})
                    .ok());
        QVERIFY(
            sb::kubeCall(adminClient, "POST", u"/api/v1/namespaces/bare/pods"_s, pod(u"no-shell"_s))
                .ok());
    }
    QTRY_COMPARE_WITH_TIMEOUT(
        m_cluster->get(u"/api/v1/namespaces/default/pods/shell"_s)[u"status"_s][u"phase"_s]
            .toString(),
        u"Running"_s, 30000);
    auto context = m_cluster->context(auth);
    QVERIFY(context);
    sb::KubeClient client(*context);
    std::optional<sb::Result<sb::KubeExecResult>> ran;
    auto exec = [&](const QString &ns, const QString &name, const QStringList &command) {
        ran.reset();
        client.exec(ns, name, u"main"_s, command, this, [&](const auto &r) { ran = r; });
        QTRY_VERIFY_WITH_TIMEOUT(ran.has_value(), 40000);
    };
    // Each word stays one word; both streams and the exit code come back.
    exec(u"default"_s, u"shell"_s,
         {u"sh"_s, u"-c"_s, u"printf '<%s>' \"$@\"; echo oops >&2; exit 3"_s, u"x"_s, u"a b"_s,
          u"&c=d"_s, u"'q'"_s, u"$(id)"_s});
    QVERIFY2(*ran, qPrintable(ran->error()));
    QCOMPARE((*ran)->out, QByteArray("<a b><&c=d><'q'><$(id)>"));
    QCOMPARE((*ran)->err, QByteArray("oops\n"));
    QCOMPARE((*ran)->exitCode, 3);
    QVERIFY2((*ran)->protocol.startsWith(u"v5.channel"_s) || (*ran)->protocol.startsWith(u"v4."_s),
             qPrintable((*ran)->protocol));
    qInfo("exec over %s", qPrintable((*ran)->protocol));
    exec(u"default"_s, u"shell"_s, {u"true"_s});
    QVERIFY(*ran);
    QCOMPARE((*ran)->exitCode, 0);
    // No exec for that pod, no such pod, no such command: said, not hung.
    exec(u"bare"_s, u"no-shell"_s, {u"sh"_s, u"-c"_s, u"true"_s});
    QVERIFY(!*ran);
    exec(u"default"_s, u"missing"_s, {u"true"_s});
    QVERIFY(!*ran);
    QVERIFY2(ran->error().contains(u"404"_s) || ran->error().contains(u"not found"_s),
             qPrintable(ran->error()));
    exec(u"default"_s, u"shell"_s, {u"/nonexistent/program"_s});
    QVERIFY(!*ran || (*ran)->exitCode != 0);
}

QTEST_GUILESS_MAIN(TestKubeClient)
#include "tst_kubeclient.moc"
