// The collector in a cluster: installers/kubernetes/collector.yaml passes a real API server's
// validation (server-side dry run), and Signalbox reaches a collector behind a Service through
// the API server's service proxy, with the kubeconfig's credentials and the collector's token.
// kwok runs no containers, so the collector is a real signalbox-collector process on this
// machine's own address; a pod object carries that address so the API server proxies to it.
#include "../support/K8sCluster.h"
#include "client/CollectorClient.h"
#include "config/YamlFile.h"
#include "jobs/kubernetes/KubeJobs.h"

#include <QFile>
#include <QJsonArray>
#include <QNetworkInterface>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

class TestClusterCollector : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void manifestPassesTheApiServer();
    void collectorThroughTheServiceProxy();
    void addresses();
    void cleanupTestCase();

private:
    std::unique_ptr<K8sCluster> m_cluster;
    std::unique_ptr<sb::KubeClient> m_client;
    QProcess m_collector;
    QTemporaryDir m_data;
};

void TestClusterCollector::initTestCase() {
    m_cluster = std::make_unique<K8sCluster>(1);
    auto context = m_cluster->context(u"token"_s);
    QVERIFY2(context, qPrintable(context.error()));
    m_client = std::make_unique<sb::KubeClient>(*context);
}

void TestClusterCollector::manifestPassesTheApiServer() {
    QFile file(QStringLiteral(SIGNALBOX_SOURCE_DIR "/installers/kubernetes/collector.yaml"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const std::vector<YAML::Node> documents = YAML::LoadAll(file.readAll().toStdString());
    QStringList kinds;
    for (const YAML::Node &document : documents) {
        const QJsonObject object = sb::yamlToJson(document).toObject();
        const QString kind = object[u"kind"_s].toString();
        const QString collection = sb::kubeCollection(object, u"default"_s) + u"?dryRun=All"_s;
        const sb::KubeReply reply = sb::kubeCall(*m_client, "POST", collection, object);
        QVERIFY2(reply.ok(), qPrintable(kind + u": "_s + reply.error));
        kinds << kind;
    }
    QCOMPARE(kinds, QStringList({u"PersistentVolumeClaim"_s, u"Deployment"_s, u"Service"_s}));
}

void TestClusterCollector::collectorThroughTheServiceProxy() {
    QHostAddress address;
    for (const QHostAddress &a : QNetworkInterface::allAddresses()) {
        if (a.protocol() == QAbstractSocket::IPv4Protocol && !a.isLoopback() && !a.isLinkLocal())
            address = a;
    }
    if (address.isNull())
        QSKIP("this machine has no address but loopback, and the API server proxies only to "
              "pod addresses, never to loopback");
    QTcpServer probe; // a free port on that address
    QVERIFY(probe.listen(address));
    const quint16 port = probe.serverPort();
    probe.close();
    m_collector.setProcessChannelMode(QProcess::ForwardedChannels);
    m_collector.start(QStringLiteral(SIGNALBOX_BINARY_DIR "/app/signalbox-collector"),
                      {u"--listen"_s, u"%1:%2"_s.arg(address.toString()).arg(port), u"--data-dir"_s,
                       m_data.path(), u"--token"_s, u"cluster-secret"_s});
    QVERIFY(m_collector.waitForStarted());

    // The collector's pod as the API server sees it, its Service and the Service's endpoint.
    QVERIFY(sb::kubeCall(*m_client, "POST", u"/api/v1/namespaces/default/pods"_s,
                         QJsonDocument::fromJson(R"({"apiVersion": "v1", "kind": "Pod",
                           "metadata": {"name": "collector-0"},
                           "spec": {"schedulerName": "not-scheduled",
                                    "containers": [{"name": "collector", "image": "x"}]}})")
                             .object())
                .ok());
    const sb::KubeReply status = sb::kubeCall(
        *m_client, "PATCH", u"/api/v1/namespaces/default/pods/collector-0/status"_s,
        QJsonObject{
            {u"status"_s,
             QJsonObject{{u"podIP"_s, address.toString()},
                         {u"podIPs"_s, QJsonArray{QJsonObject{{u"ip"_s, address.toString()}}}}}}},
        "application/merge-patch+json");
    QVERIFY2(status.ok(), qPrintable(status.error));
    QVERIFY(sb::kubeCall(*m_client, "POST", u"/api/v1/namespaces/default/services"_s,
                         QJsonDocument::fromJson(R"({"apiVersion": "v1", "kind": "Service",
                           "metadata": {"name": "signalbox-collector"},
                           "spec": {"ports": [{"name": "http", "port": 8265}]}})")
                             .object())
                .ok());
    const sb::KubeReply endpoints = sb::kubeCall(
        *m_client, "POST", u"/api/v1/namespaces/default/endpoints"_s,
        QJsonObject{{u"apiVersion"_s, u"v1"_s},
                    {u"kind"_s, u"Endpoints"_s},
                    {u"metadata"_s, QJsonObject{{u"name"_s, u"signalbox-collector"_s}}},
                    {u"subsets"_s,
                     QJsonArray{QJsonObject{
                         {u"addresses"_s,
                          QJsonArray{QJsonObject{
                              {u"ip"_s, address.toString()},
                              {u"targetRef"_s, QJsonObject{{u"kind"_s, u"Pod"_s},
                                                           {u"name"_s, u"collector-0"_s},
                                                           {u"namespace"_s, u"default"_s}}}}}},
                         {u"ports"_s,
                          QJsonArray{QJsonObject{{u"name"_s, u"http"_s}, {u"port"_s, port}}}}}}}});
    QVERIFY2(endpoints.ok(), qPrintable(endpoints.error));

    const auto target =
        sb::parseClusterCollector(u"k8s://token/default/signalbox-collector:8265"_s);
    QVERIFY(target);
    sb::CollectorClient client(m_client.get(), target->service, u"cluster-secret"_s);
    QVERIFY(client.url().toString().endsWith(
        u"/api/v1/namespaces/default/services/signalbox-collector:8265/proxy"_s));
    std::optional<sb::LinesReply> pushed;
    QString error = u"(none)"_s;
    // The collector may still be starting: ask until it answers.
    for (int attempt = 0; attempt < 60 && !pushed; ++attempt) {
        bool answered = false;
        client.pushLines(u"in-cluster"_s,
                         "@signalbox {\"step\": 1, \"loss\": 0.5}\n"
                         "@signalbox {\"step\": 2, \"loss\": 0.25}\n",
                         this, [&](const sb::Result<sb::LinesReply> &reply) {
                             answered = true;
                             if (reply)
                                 pushed = *reply;
                             else
                                 error = reply.error();
                         });
        QTRY_VERIFY_WITH_TIMEOUT(answered, 30000);
        if (!pushed)
            QTest::qWait(500);
    }
    QVERIFY2(pushed, qPrintable(error));
    QCOMPARE(pushed->accepted, 2);
    std::optional<QList<sb::RunSummary>> runs;
    client.runs({}, this, [&](const sb::Result<QList<sb::RunSummary>> &reply) {
        runs = reply ? *reply : QList<sb::RunSummary>();
    });
    QTRY_VERIFY_WITH_TIMEOUT(runs.has_value(), 30000);
    QVERIFY(std::any_of(runs->begin(), runs->end(), [](const sb::RunSummary &run) {
        return run.info.name.contains(u"in-cluster"_s);
    }));

    // The token still matters behind the proxy.
    sb::CollectorClient intruder(m_client.get(), target->service, u"guess"_s);
    QString refused;
    intruder.runs({}, this, [&](const sb::Result<QList<sb::RunSummary>> &reply) {
        refused = reply ? u"accepted"_s : reply.error();
    });
    QTRY_VERIFY_WITH_TIMEOUT(!refused.isEmpty(), 30000);
    QVERIFY2(refused.contains(u"a valid bearer token is required"_s), qPrintable(refused));
}

void TestClusterCollector::addresses() {
    const auto eks = sb::parseClusterCollector(
        u"k8s://arn:aws:eks:eu-west-1:1234:cluster/lab/ml/signalbox-collector:8265"_s);
    QVERIFY(eks);
    QCOMPARE(eks->context, u"arn:aws:eks:eu-west-1:1234:cluster/lab"_s);
    QCOMPARE(eks->service, u"ml/signalbox-collector:8265"_s);
    QVERIFY(!sb::parseClusterCollector(u"http://127.0.0.1:8265"_s));
    QVERIFY(!sb::parseClusterCollector(u"k8s://lab/signalbox-collector:8265"_s));
    QVERIFY(!sb::parseClusterCollector(u"k8s://lab//svc:1"_s));
}

void TestClusterCollector::cleanupTestCase() {
    m_collector.terminate();
    m_collector.waitForFinished(5000);
}

QTEST_GUILESS_MAIN(TestClusterCollector)
#include "tst_clustercollector.moc"
