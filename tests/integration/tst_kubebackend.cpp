// Cluster runs against a real control plane (tests/harness/k8scluster.py): the Job controller
// and the scheduler are Kubernetes' own, the GPU nodes are kwok's. A run goes queued → running →
// succeeded; one asking for more GPUs than a node has says why it waits; a failed run carries its
// exit code; stop ends a running job; several workers become an Indexed Job with a headless
// Service and rendezvous variables; a second Signalbox finds the jobs on the cluster alone.
#include "../support/K8sCluster.h"
#include "../support/ObjectStoreServer.h"
#include "client/CollectorClient.h"
#include "collector/EmbeddedCollector.h"
#include "jobs/MetricLineForwarder.h"
#include "jobs/kubernetes/KubeBackend.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QProcess>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;

namespace {

sb::JobSpec clusterRun(const QString &name, int gpus = 1) {
    sb::JobSpec spec;
    spec.name = name;
    spec.backend = sb::BackendName::kKubernetes;
    spec.target = u"cert"_s;
    spec.kube.image = u"python:3.12-slim"_s;
    spec.command = {u"python3"_s, u"train.py"_s, u"--lr"_s, u"0.01; rm -rf ~"_s};
    spec.gpus = gpus;
    spec.kube.cpu = u"2"_s;
    spec.kube.memory = u"4Gi"_s;
    return spec;
}

// The states a job went through, from the backend's signals.
QList<sb::JobState> statesOf(const QSignalSpy &spy, const QString &id) {
    QList<sb::JobState> states;
    for (const auto &args : spy) {
        const auto job = args.at(0).value<sb::Job>();
        if (job.id == id && (states.isEmpty() || states.last() != job.state))
            states << job.state;
    }
    return states;
}

} // namespace

class TestKubeBackend : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void runGoesFromQueuedToSucceeded();
    void unschedulableRunSaysWhy();
    void failedRunCarriesItsExitCode();
    void stopEndsARunningJob();
    void gpusOfTheClusterAndItsQueues();
    void workersBecomeAnIndexedJob();
    void failingExitCodeEndsTheJobAtOnce();
    void templatePlacesTheJob();
    void dryRunRefusesABadManifest();
    void describeTellsConditionsPodsAndEvents();
    void codeTravelsInAConfigMap();
    void logsAreFollowedAcrossAnApiServerRestart();
    void largeCodeTravelsThroughAnObjectStore();
    void allJobsOfTheNamespaceOnRequest();
    void anotherSignalboxFindsTheJobs();

private:
    sb::Job job(const QString &id) const {
        for (const sb::Job &j : m_backend->jobs()) {
            if (j.id == id)
                return j;
        }
        return {};
    }

    // The pods of a Job, read back from the API server.
    QJsonArray podsOf(const QString &id) const {
        return m_cluster
            ->get(u"/api/v1/namespaces/default/pods?labelSelector="
                  "batch.kubernetes.io%2Fjob-name%3D"_s +
                  id)[u"items"_s]
            .toArray();
    }
    // Runs a container's command here (kwok's pods run none) with `env`; what went wrong, if
    // anything.
    static QString runHere(const QJsonObject &container, const QProcessEnvironment &env) {
        QStringList command;
        for (const QJsonValue arg : container[u"command"_s].toArray())
            command << arg.toString();
        QProcess process;
        process.setProcessEnvironment(env);
        process.start(command.takeFirst(), command);
        if (!process.waitForFinished(120000))
            return u"%1 did not finish"_s.arg(container[u"name"_s].toString());
        return process.exitCode() == 0 ? QString()
                                       : QString::fromUtf8(process.readAllStandardError());
    }

    std::unique_ptr<K8sCluster> m_cluster;
    std::unique_ptr<sb::KubeBackend> m_backend;
    QStringList m_submitted;
};

void TestKubeBackend::initTestCase() {
    qRegisterMetaType<sb::Job>();
    m_cluster = std::make_unique<K8sCluster>();
    auto context = m_cluster->context(u"cert"_s);
    QVERIFY2(context, qPrintable(context.error()));
    m_backend = std::make_unique<sb::KubeBackend>(
        sb::KubeBackend::Options{{{u"SIGNALBOX_COLLECTOR"_s, u"http://collector:8265"_s}}, false});
    m_backend->addCluster(*context);
    QCOMPARE(m_backend->clusters(), QStringList{u"cert"_s});
}

void TestKubeBackend::runGoesFromQueuedToSucceeded() {
    QSignalSpy changes(m_backend.get(), &sb::JobBackend::jobChanged);
    auto id = m_backend->submit(clusterRun(u"Train ResNet/50"_s));
    QVERIFY2(id, qPrintable(id.error()));
    QVERIFY(id->startsWith(u"train-resnet-50-"_s)); // a DNS name
    m_submitted << *id;
    QTRY_COMPARE_WITH_TIMEOUT(job(*id).state, sb::JobState::Succeeded, 90000);
    const QList<sb::JobState> states = statesOf(changes, *id);
    QCOMPARE(states.first(), sb::JobState::Queued);
    QVERIFY(states.contains(sb::JobState::Running));
    const sb::Job done = job(*id);
    QCOMPARE(done.exitCode, 0);
    QCOMPARE(done.node, u"cert"_s);
    QVERIFY(done.started.isValid() && done.finished.isValid());
    QCOMPARE(done.spec.command, clusterRun({}).command); // from the Job's own annotation
    QCOMPARE(done.spec.gpus, 1);
}

void TestKubeBackend::unschedulableRunSaysWhy() {
    auto id = m_backend->submit(clusterRun(u"too-big"_s, 64));
    QVERIFY2(id, qPrintable(id.error()));
    m_submitted << *id;
    QTRY_VERIFY_WITH_TIMEOUT(job(*id).message.contains(u"unschedulable"_s), 60000);
    QCOMPARE(job(*id).state, sb::JobState::Queued);
    QVERIFY2(job(*id).message.contains(u"nvidia.com/gpu"_s), qPrintable(job(*id).message));
}

void TestKubeBackend::failedRunCarriesItsExitCode() {
    sb::JobSpec spec = clusterRun(u"crashes"_s);
    spec.environment[u"HARNESS_EXIT_CODE"_s] = u"3"_s;
    auto id = m_backend->submit(spec);
    QVERIFY2(id, qPrintable(id.error()));
    m_submitted << *id;
    QTRY_COMPARE_WITH_TIMEOUT(job(*id).state, sb::JobState::Failed, 90000);
    QCOMPARE(job(*id).exitCode, 3);
    QVERIFY2(job(*id).message.contains(u"BackoffLimitExceeded"_s), qPrintable(job(*id).message));
}

void TestKubeBackend::stopEndsARunningJob() {
    sb::JobSpec spec = clusterRun(u"long"_s);
    spec.environment[u"HARNESS_RUN"_s] = u"600s"_s;
    auto id = m_backend->submit(spec);
    QVERIFY2(id, qPrintable(id.error()));
    m_submitted << *id;
    QTRY_COMPARE_WITH_TIMEOUT(job(*id).state, sb::JobState::Running, 60000);
    QVERIFY(m_backend->stop(*id));
    QTRY_COMPARE_WITH_TIMEOUT(job(*id).state, sb::JobState::Stopped, 60000);
    QVERIFY(!m_backend->stop(*id)); // ended already
}

void TestKubeBackend::gpusOfTheClusterAndItsQueues() {
    auto inventory = [&]() -> sb::Result<sb::KubeGpuInventory> {
        std::optional<sb::Result<sb::KubeGpuInventory>> got;
        m_backend->clusterGpus(u"cert"_s, this, [&](const auto &answer) { got = answer; });
        for (int waited = 0; !got && waited < 300; ++waited)
            QTest::qWait(100);
        return got ? *got : sb::fail(u"no answer in 30 s"_s);
    };
    // A run of 3 GPUs holds them on one node while it runs.
    sb::JobSpec spec = clusterRun(u"holds"_s, 3);
    spec.environment[u"HARNESS_RUN"_s] = u"600s"_s;
    auto id = m_backend->submit(spec);
    QVERIFY2(id, qPrintable(id.error()));
    m_submitted << *id;
    QTRY_COMPARE_WITH_TIMEOUT(job(*id).state, sb::JobState::Running, 60000);
    auto before = inventory();
    QVERIFY2(before, qPrintable(before.error()));
    QCOMPARE(before->nodes.size(), 2);
    QCOMPARE(before->nodes.front().product, u"H100"_s);
    QCOMPARE(before->nodes.front().allocatable + before->nodes.back().allocatable, 16);
    QCOMPARE(before->nodes.front().allocated + before->nodes.back().allocated, 3);
    QVERIFY(!before->kueue); // not installed: the API server answers 404
    QCOMPARE(before->summary(), u"H100: 13 of 16 free on 2 nodes"_s);

    // The run's GPUs read inside its pod: the sampling script through the exec subresource
    // (kwok runs it here, with a fake nvidia-smi of the pod's two GPUs).
    QVERIFY(m_backend->capabilities().jobGpus);
    std::optional<sb::Result<std::vector<sb::JobNodeSample>>> inside;
    m_backend->sampleGpus(*id, this, [&](const auto &got) { inside = got; });
    QTRY_VERIFY_WITH_TIMEOUT(inside.has_value(), 40000);
    QVERIFY2(*inside, qPrintable(inside->error()));
    QCOMPARE((*inside)->size(), std::size_t(1));
    const sb::JobNodeSample &pod = (*inside)->front();
    QVERIFY2(pod.where.startsWith(*id), qPrintable(pod.where));
    QVERIFY2(pod.sample.error.isEmpty() && pod.sample.gpuError.isEmpty(),
             qPrintable(pod.sample.error + pod.sample.gpuError));
    QCOMPARE(pod.sample.gpus.size(), std::size_t(2));
    QVERIFY(std::any_of(pod.sample.gpuProcesses.begin(), pod.sample.gpuProcesses.end(),
                        [](const sb::GpuProcess &p) { return p.smPercent == 99.0; }));
    // A second reading has each process's CPU since the first.
    inside.reset();
    m_backend->sampleGpus(*id, this, [&](const auto &got) { inside = got; });
    QTRY_VERIFY_WITH_TIMEOUT(inside.has_value(), 40000);
    QVERIFY2(*inside, qPrintable(inside->error()));
    const auto &again = (*inside)->front().sample.gpuProcesses;
    QVERIFY(!again.empty());
    QVERIFY(std::all_of(again.begin(), again.end(),
                        [](const sb::GpuProcess &p) { return p.cpuPercent.has_value(); }));
    std::optional<sb::Result<std::vector<sb::JobNodeSample>>> notRunning;
    m_backend->sampleGpus(u"no-such-job"_s, this, [&](const auto &got) { notRunning = got; });
    QTRY_VERIFY(notRunning.has_value());
    QVERIFY(!*notRunning);

    // Kueue's ClusterQueue kind (its CRD as the API server serves it; no Kueue controller runs
    // here, so the test writes the queue's status as Kueue would).
    const auto admin = m_cluster->context(u"cert"_s);
    QVERIFY(admin);
    sb::KubeClient client(*admin);
    const QJsonObject crd = QJsonDocument::fromJson(R"({
      "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
      "metadata": {"name": "clusterqueues.kueue.x-k8s.io"},
      "spec": {"group": "kueue.x-k8s.io", "scope": "Cluster",
               "names": {"plural": "clusterqueues", "singular": "clusterqueue",
                         "kind": "ClusterQueue", "listKind": "ClusterQueueList"},
               "versions": [{"name": "v1beta1", "served": true, "storage": true,
                             "subresources": {"status": {}},
                             "schema": {"openAPIV3Schema": {"type": "object",
                                        "x-kubernetes-preserve-unknown-fields": true}}}]}})")
                                .object();
    const sb::KubeReply defined = sb::kubeCall(
        client, "POST", u"/apis/apiextensions.k8s.io/v1/customresourcedefinitions"_s, crd);
    QVERIFY2(defined.ok(), qPrintable(defined.error));
    const QJsonObject queue = QJsonDocument::fromJson(R"({
      "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
      "metadata": {"name": "team-a"},
      "spec": {"resourceGroups": [{"coveredResources": ["cpu", "nvidia.com/gpu"],
               "flavors": [{"name": "h100", "resources": [{"name": "cpu", "nominalQuota": 64},
                                                          {"name": "nvidia.com/gpu", "nominalQuota": 12}]},
                           {"name": "a100", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "4"}]}]}]}})")
                                  .object();
    sb::KubeReply created; // the kind is served once the CRD is established
    for (int tries = 0; tries < 100 && (tries == 0 || created.status == 404); ++tries) {
        if (tries > 0)
            QTest::qWait(200);
        created =
            sb::kubeCall(client, "POST", u"/apis/kueue.x-k8s.io/v1beta1/clusterqueues"_s, queue);
    }
    QVERIFY2(created.ok(), qPrintable(created.error));
    QJsonObject withStatus = m_cluster->get(u"/apis/kueue.x-k8s.io/v1beta1/clusterqueues/team-a"_s);
    withStatus[u"status"_s] = QJsonDocument::fromJson(R"({
      "pendingWorkloads": 1, "admittedWorkloads": 2,
      "flavorsUsage": [{"name": "h100", "resources": [{"name": "nvidia.com/gpu", "total": "8"}]}]})")
                                  .object();
    QVERIFY(sb::kubeCall(client, "PUT",
                         u"/apis/kueue.x-k8s.io/v1beta1/clusterqueues/team-a/status"_s, withStatus)
                .ok());
    const auto after = inventory();
    QVERIFY2(after, qPrintable(after.error()));
    QVERIFY(after->kueue);
    QCOMPARE(after->queues.size(), 1);
    QCOMPARE(after->queues.front().quota, 16);
    QCOMPARE(after->queues.front().used, 8);
    QCOMPARE(after->summary(),
             u"H100: 13 of 16 free on 2 nodes · queue team-a: 8 of 16 GPUs in use, 1 waiting"_s);
    QVERIFY(m_backend->stop(*id));

    std::optional<sb::Result<sb::KubeGpuInventory>> none;
    m_backend->clusterGpus(u"nowhere"_s, this, [&](const auto &answer) { none = answer; });
    QTRY_VERIFY(none.has_value());
    QVERIFY(!*none);
}

void TestKubeBackend::workersBecomeAnIndexedJob() {
    sb::JobSpec spec = clusterRun(u"ddp"_s, 8);
    spec.workers = 2;
    spec.kube.tfConfig = true;
    spec.environment[u"HARNESS_RUN"_s] = u"600s"_s;
    auto id = m_backend->submit(spec);
    QVERIFY2(id, qPrintable(id.error()));
    m_submitted << *id;
    QTRY_COMPARE_WITH_TIMEOUT(job(*id).state, sb::JobState::Running, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(job(*id).message.startsWith(u"2/2 workers running on gpu-"_s), 60000);

    // What the pods got, read back from the API server.
    QStringList indexes;
    for (const QJsonValue pod : podsOf(*id)) {
        indexes
            << pod[u"metadata"_s][u"annotations"_s][u"batch.kubernetes.io/job-completion-index"_s]
                   .toString();
        const QJsonObject podSpec = pod[u"spec"_s].toObject();
        QCOMPARE(podSpec[u"subdomain"_s].toString(), *id);
        QMap<QString, QJsonObject> env;
        for (const QJsonValue var : podSpec[u"containers"_s][0][u"env"_s].toArray())
            env.insert(var[u"name"_s].toString(), var.toObject());
        QCOMPARE(env[u"MASTER_ADDR"_s][u"value"_s].toString(), *id + u"-0."_s + *id);
        QCOMPARE(env[u"MASTER_PORT"_s][u"value"_s].toString(), u"29500"_s);
        QCOMPARE(env[u"WORLD_SIZE"_s][u"value"_s].toString(), u"2"_s);
        QCOMPARE(env[u"SIGNALBOX_COLLECTOR"_s][u"value"_s].toString(), u"http://collector:8265"_s);
        for (const QString &rank : {u"RANK"_s, u"NODE_RANK"_s})
            QCOMPARE(env[rank][u"valueFrom"_s][u"fieldRef"_s][u"fieldPath"_s].toString(),
                     u"metadata.annotations['batch.kubernetes.io/job-completion-index']"_s);
        QCOMPARE(env[u"TF_CONFIG"_s][u"value"_s].toString(),
                 uR"({"cluster":{"worker":["%1-0.%1:29500","%1-1.%1:29500"]},)"
                 uR"("task":{"type":"worker","index":$(RANK)}})"_s.arg(*id));
        QCOMPARE(podSpec[u"containers"_s][0][u"resources"_s][u"limits"_s][u"nvidia.com/gpu"_s]
                     .toString(),
                 u"8"_s);
    }
    indexes.sort();
    QCOMPARE(indexes, QStringList({u"0"_s, u"1"_s}));
    QVERIFY(m_backend->stop(*id));
}

void TestKubeBackend::failingExitCodeEndsTheJobAtOnce() {
    sb::JobSpec spec = clusterRun(u"bad-data"_s);
    spec.environment[u"HARNESS_EXIT_CODE"_s] = u"42"_s;
    spec.kube.backoffLimit = 3; // retries would not help with exit code 42
    spec.kube.failExitCodes = {42, 43};
    auto id = m_backend->submit(spec);
    QVERIFY2(id, qPrintable(id.error()));
    m_submitted << *id;
    QTRY_COMPARE_WITH_TIMEOUT(job(*id).state, sb::JobState::Failed, 90000);
    QCOMPARE(job(*id).exitCode, 42);
    QVERIFY2(job(*id).message.contains(u"PodFailurePolicy"_s), qPrintable(job(*id).message));
    QCOMPARE(podsOf(*id).size(), 1); // no retry
}

void TestKubeBackend::templatePlacesTheJob() {
    // A reserved GPU pool: labelled, and tainted so that only jobs that tolerate it go there.
    auto context = m_cluster->context(u"cert"_s);
    sb::KubeClient client(*context);
    const sb::KubeReply node =
        sb::kubeCall(client, "POST", u"/api/v1/nodes"_s,
                     QJsonDocument::fromJson(R"({"apiVersion": "v1", "kind": "Node",
          "metadata": {"name": "reserved-0", "labels": {"type": "kwok", "pool": "reserved"},
                       "annotations": {"kwok.x-k8s.io/node": "fake"}},
          "spec": {"taints": [{"key": "pool", "value": "reserved", "effect": "NoSchedule"}]},
          "status": {"capacity": {"cpu": "32", "memory": "256Gi", "pods": "110",
                                  "nvidia.com/gpu": "8"},
                     "allocatable": {"cpu": "32", "memory": "256Gi", "pods": "110",
                                     "nvidia.com/gpu": "8"}}})")
                         .object());
    QVERIFY2(node.ok(), qPrintable(node.error));
    sb::JobTemplate reserved;
    reserved.name = u"reserved"_s;
    reserved.image = u"python:3.13-slim"_s;
    reserved.nodeSelector = {{u"pool"_s, u"reserved"_s}};
    reserved.tolerations = {QJsonObject{{u"key"_s, u"pool"_s},
                                        {u"operator"_s, u"Equal"_s},
                                        {u"value"_s, u"reserved"_s},
                                        {u"effect"_s, u"NoSchedule"_s}}};
    sb::JobTemplate selectorOnly = reserved;
    selectorOnly.name = u"selector-only"_s;
    selectorOnly.tolerations = {};
    m_backend->setJobTemplates({reserved, selectorOnly});

    sb::JobSpec spec = clusterRun(u"on-reserved"_s);
    spec.kube.image.clear(); // the template's
    spec.kube.jobTemplate = u"reserved"_s;
    spec.environment[u"HARNESS_RUN"_s] = u"600s"_s;
    auto id = m_backend->submit(spec);
    QVERIFY2(id, qPrintable(id.error()));
    m_submitted << *id;
    QTRY_COMPARE_WITH_TIMEOUT(job(*id).message, u"on reserved-0"_s, 60000);
    QVERIFY(m_backend->stop(*id));

    spec.kube.jobTemplate = u"selector-only"_s;
    id = m_backend->submit(spec);
    QVERIFY2(id, qPrintable(id.error()));
    m_submitted << *id;
    QTRY_VERIFY_WITH_TIMEOUT(job(*id).message.contains(u"untolerated taint"_s), 60000);
    QCOMPARE(job(*id).state, sb::JobState::Queued);
    QVERIFY(m_backend->stop(*id));

    spec.kube.jobTemplate = u"nonesuch"_s;
    QCOMPARE(m_backend->submit(spec).error(),
             u"no job template named \"nonesuch\" in the config"_s);
}

void TestKubeBackend::dryRunRefusesABadManifest() {
    sb::JobSpec spec = clusterRun(u"bad"_s);
    spec.kube.memory = u"lots"_s;
    auto objects = m_backend->manifests(spec, u"bad-manifest"_s);
    QVERIFY2(objects, qPrintable(objects.error()));
    QString verdict = u"(none)"_s;
    m_backend->apply(u"cert"_s, objects->objects, true, this,
                     [&](const QString &error) { verdict = error; });
    QTRY_VERIFY_WITH_TIMEOUT(verdict != u"(none)"_s, 30000);
    QVERIFY2(verdict.startsWith(u"Job bad-manifest: HTTP 400"_s) &&
                 verdict.contains(u"quantities"_s),
             qPrintable(verdict));
    // A manifest edited by hand in the dialog, checked by the API server's validation.
    spec.kube.memory = u"4Gi"_s;
    objects = m_backend->manifests(spec, u"edited-manifest"_s);
    QJsonObject edited = objects->objects.last();
    QJsonObject jobSpec = edited[u"spec"_s].toObject();
    jobSpec[u"backoffLimit"_s] = -1;
    edited[u"spec"_s] = jobSpec;
    verdict = u"(none)"_s;
    m_backend->apply(u"cert"_s, {edited}, true, this,
                     [&](const QString &error) { verdict = error; });
    QTRY_VERIFY_WITH_TIMEOUT(verdict != u"(none)"_s, 30000);
    QVERIFY2(verdict.contains(u"spec.backoffLimit"_s), qPrintable(verdict));
    spec.kube.failExitCodes = {2};
    spec.kube.ttlSeconds = 3600;
    spec.kube.deadlineSeconds = 86400;
    objects = m_backend->manifests(spec, u"good-manifest"_s);
    verdict = u"(none)"_s;
    m_backend->apply(u"cert"_s, objects->objects, true, this,
                     [&](const QString &error) { verdict = error; });
    QTRY_VERIFY_WITH_TIMEOUT(verdict != u"(none)"_s, 30000);
    QCOMPARE(verdict, QString()); // accepted, and nothing was created
    QVERIFY(!m_backend->manifests(clusterRun(u"x"_s), u"x"_s)->objects.isEmpty());
    spec.kube.image.clear();
    QCOMPARE(m_backend->manifests(spec, u"x"_s).error(),
             u"a run on a cluster needs a container image"_s);
}

void TestKubeBackend::describeTellsConditionsPodsAndEvents() {
    auto describe = [&](const QString &id) {
        QString text;
        m_backend->describe(id, this, [&](const QString &t) { text = t; });
        [&] {
            QTRY_VERIFY_WITH_TIMEOUT(!text.isEmpty(), 30000);
        }();
        return text;
    };
    const QString done = describe(m_submitted.first()); // succeeded
    for (const QString &part :
         {u"State:       succeeded"_s, u"Image:       python:3.12-slim"_s, u"Conditions:"_s,
          u"Complete=True"_s, u"Pods:"_s, u"Succeeded  on gpu-"_s, u"main terminated exit 0"_s,
          u"Events:"_s, u"SuccessfulCreate  job/"_s, u"Scheduled  pod/"_s, u"Completed  job/"_s})
        QVERIFY2(done.contains(part), qPrintable(u"no \"%1\" in:\n%2"_s.arg(part, done)));
    const QString waiting = describe(m_submitted[1]); // unschedulable
    QVERIFY2(waiting.contains(u"FailedScheduling  pod/"_s) && waiting.contains(u"on no node yet"_s),
             qPrintable(waiting));
    QVERIFY(describe(u"nonesuch"_s).startsWith(u"No job nonesuch"_s));
}

void TestKubeBackend::codeTravelsInAConfigMap() {
    QTemporaryDir project;
    auto write = [&](const QString &file, const QByteArray &content) {
        QDir().mkpath(QFileInfo(project.filePath(file)).absolutePath());
        QFile f(project.filePath(file));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
    };
    write(u"train.py"_s, "print('training')\n");
    write(u"configs/base.yaml"_s, "lr: 0.001\n");
    write(u".gitignore"_s, "*.ckpt\n");
    write(u"last.ckpt"_s, QByteArray(100000, 'c'));
    sb::JobSpec spec = clusterRun(u"with-code"_s);
    spec.codeDirectory = project.path();
    auto id = m_backend->submit(spec);
    QVERIFY2(id, qPrintable(id.error()));
    m_submitted << *id;
    QTRY_COMPARE_WITH_TIMEOUT(job(*id).state, sb::JobState::Succeeded, 90000);

    // The pod unpacks the ConfigMap with its init container; here the same command runs on the
    // ConfigMap read back from the API server (kwok's pods run no containers).
    const QJsonObject podSpec = podsOf(*id)[0][u"spec"_s].toObject();
    const QJsonObject init = podSpec[u"initContainers"_s][0].toObject();
    QCOMPARE(podSpec[u"containers"_s][0][u"workingDir"_s].toString(), u"/workspace/code"_s);
    QString configMap;
    for (const QJsonValue volume : podSpec[u"volumes"_s].toArray()) {
        if (volume[u"configMap"_s].isObject() && volume[u"name"_s] != u"signalbox-client"_s)
            configMap = volume[u"configMap"_s][u"name"_s].toString();
    }
    QVERIFY2(configMap.startsWith(u"signalbox-code-"_s), qPrintable(configMap));
    auto context = m_cluster->context(u"cert"_s);
    sb::KubeClient client(*context);
    const sb::KubeReply stored =
        sb::kubeCall(client, "GET", u"/api/v1/namespaces/default/configmaps/"_s + configMap);
    QVERIFY2(stored.ok(), qPrintable(stored.error));
    QTemporaryDir pod;
    QFile archive(pod.filePath(u"code.tar.gz"_s));
    QVERIFY(archive.open(QIODevice::WriteOnly));
    archive.write(QByteArray::fromBase64(
        stored.json[u"binaryData"_s][u"code.tar.gz"_s].toString().toLatin1()));
    archive.close();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"SIGNALBOX_CODE_ARCHIVE"_s, archive.fileName());
    env.insert(u"SIGNALBOX_CODE_DIR"_s, pod.filePath(u"workspace/code"_s));
    const QString unpacked = runHere(init, env);
    QVERIFY2(unpacked.isEmpty(), qPrintable(unpacked));
    QFile trained(pod.filePath(u"workspace/code/train.py"_s));
    QVERIFY(trained.open(QIODevice::ReadOnly));
    QCOMPARE(trained.readAll(), QByteArray("print('training')\n"));
    QVERIFY(QFile::exists(pod.filePath(u"workspace/code/configs/base.yaml"_s)));
    QVERIFY(!QFile::exists(pod.filePath(u"workspace/code/last.ckpt"_s)));

    // The same code again: the same ConfigMap, not uploaded again.
    m_backend->setCodeRepackAfterMs(0); // no packing reused from here on: packed afresh, same hash
    id = m_backend->submit(spec);
    QVERIFY2(id, qPrintable(id.error()));
    m_submitted << *id;
    QTRY_COMPARE_WITH_TIMEOUT(job(*id).state, sb::JobState::Succeeded, 90000);
    const sb::KubeReply again =
        sb::kubeCall(client, "GET", u"/api/v1/namespaces/default/configmaps/"_s + configMap);
    QCOMPARE(again.json[u"metadata"_s][u"resourceVersion"_s],
             stored.json[u"metadata"_s][u"resourceVersion"_s]);

    // Code a ConfigMap cannot hold is refused before anything is sent.
    QByteArray noise(1200 * 1024, '\0');
    for (char &byte : noise)
        byte = static_cast<char>(QRandomGenerator::global()->generate());
    write(u"weights.bin"_s, noise);
    const auto refused = m_backend->submit(spec);
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(u"more than a ConfigMap holds"_s),
             qPrintable(refused.error()));
}

void TestKubeBackend::logsAreFollowedAcrossAnApiServerRestart() {
    m_cluster->appendPodLog({u"step 1 loss 0.90"_s, u"step 2 loss 0.80"_s});
    sb::JobSpec spec = clusterRun(u"logs"_s);
    spec.environment[u"HARNESS_RUN"_s] = u"600s"_s;
    auto id = m_backend->submit(spec);
    QVERIFY2(id, qPrintable(id.error()));
    m_submitted << *id;
    QTRY_COMPARE_WITH_TIMEOUT(job(*id).state, sb::JobState::Running, 60000);
    auto log = [&] {
        return QString::fromUtf8(m_backend->log(*id).value());
    };
    QTRY_VERIFY2_WITH_TIMEOUT(log().contains(u"step 2 loss 0.80\n"_s), qPrintable(log()), 30000);
    QTest::qWait(1100); // the next lines come in a later second than the ones before
    m_cluster->appendPodLog({u"step 3 loss 0.70"_s});
    QTRY_VERIFY_WITH_TIMEOUT(log().contains(u"step 3 loss 0.70\n"_s), 30000); // followed live

    // The stream breaks with the API server; it resumes from the last line's time.
    QVERIFY(m_cluster->command(u"restart-apiserver"_s));
    m_cluster->appendPodLog({u"step 4 loss 0.60"_s});
    QTRY_VERIFY_WITH_TIMEOUT(log().contains(u"step 4 loss 0.60\n"_s), 60000);
    m_cluster->appendPodLog({u"step 5 loss 0.50"_s});
    QTRY_VERIFY_WITH_TIMEOUT(log().contains(u"step 5 loss 0.50\n"_s), 60000);
    for (int step = 1; step <= 5; ++step)
        QCOMPARE(log().count(u"step %1 loss"_s.arg(step)), 1); // no line twice, none lost

    // Metric lines in the pods' output become the run's curves in the collector.
    QTemporaryDir data;
    sb::Collector::Options options;
    options.dataDir = data.filePath(u"collector"_s);
    options.port = 0;
    auto collector = sb::EmbeddedCollector::start(options);
    QVERIFY2(collector, qPrintable(collector.error()));
    sb::CollectorClient client((*collector)->url(), (*collector)->token());
    sb::MetricLineForwarder forwarder(&client);
    forwarder.watch(m_backend.get());
    m_cluster->appendPodLog({uR"(@signalbox {"step": 6, "train/loss": 0.4})"_s});
    QTRY_VERIFY_WITH_TIMEOUT(log().contains(u"\"step\": 6"_s), 60000);
    QList<sb::RunSummary> runs;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            client.runs({}, this, [&](const sb::Result<QList<sb::RunSummary>> &reply) {
                if (reply)
                    runs = *reply;
            });
            QTest::qWait(200);
            return std::any_of(runs.begin(), runs.end(), [&](const sb::RunSummary &run) {
                return run.info.name == *id && run.metrics.contains(u"train/loss"_s);
            });
        }(),
        30000);
    QVERIFY(m_backend->stop(*id));
}

void TestKubeBackend::largeCodeTravelsThroughAnObjectStore() {
    ObjectStoreServer store;
    QVERIFY2(store.error().isEmpty(), qPrintable(store.error()));
    m_backend->setObjectStore(store.config());
    // 55 MB that does not compress: far past a ConfigMap, at the issue's 50 MB and beyond.
    QTemporaryDir project;
    QByteArray noise(5 << 20, '\0');
    QCryptographicHash digest(QCryptographicHash::Sha256);
    for (int i = 0; i < 11; ++i) {
        QRandomGenerator::global()->fillRange(reinterpret_cast<quint32 *>(noise.data()),
                                              noise.size() / 4);
        QFile file(project.filePath(u"shards/shard-%1.bin"_s.arg(i, 2, 10, QLatin1Char('0'))));
        QDir().mkpath(project.filePath(u"shards"_s));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(noise);
        digest.addData(noise);
    }
    QFile script(project.filePath(u"train.py"_s));
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write("print('large')\n");
    script.close();
    sb::JobSpec spec = clusterRun(u"large-code"_s);
    spec.codeDirectory = project.path();
    QElapsedTimer packing;
    packing.start();
    auto id = m_backend->submit(spec);
    qInfo("packing 55 MB of code for the object store took %lld ms", packing.elapsed());
    QVERIFY2(id, qPrintable(id.error()));
    m_submitted << *id;
    QTRY_COMPARE_WITH_TIMEOUT(job(*id).state, sb::JobState::Succeeded, 120000);

    // The init container's script, run here with its environment from the pod: it fetches the
    // presigned URL from the store and unpacks the project.
    const QJsonObject init = podsOf(*id)[0][u"spec"_s][u"initContainers"_s][0].toObject();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    QTemporaryDir pod;
    for (const QJsonValue var : init[u"env"_s].toArray())
        env.insert(var[u"name"_s].toString(), var[u"value"_s].toString());
    const QString key = env.value(u"SIGNALBOX_CODE_OBJECT"_s);
    QVERIFY2(key.startsWith(u"signalbox/code/"_s), qPrintable(key));
    QVERIFY(env.value(u"SIGNALBOX_CODE_URL"_s).contains(u"X-Amz-Signature="_s));
    env.insert(u"SIGNALBOX_CODE_DIR"_s, pod.filePath(u"code"_s));
    env.insert(u"TMPDIR"_s, pod.path());
    const QString fetched = runHere(init, env);
    QVERIFY2(fetched.isEmpty(), qPrintable(fetched));
    QCryptographicHash unpacked(QCryptographicHash::Sha256);
    for (int i = 0; i < 11; ++i) {
        QFile file(pod.filePath(u"code/shards/shard-%1.bin"_s.arg(i, 2, 10, QLatin1Char('0'))));
        QVERIFY(file.open(QIODevice::ReadOnly));
        unpacked.addData(file.readAll());
    }
    QCOMPARE(unpacked.result(), digest.result());
    QVERIFY(QFile::exists(pod.filePath(u"code/train.py"_s)));

    // Unchanged code is not uploaded again.
    const QDateTime uploaded = QFileInfo(store.objectFile(key)).lastModified();
    m_backend->setCodeRepackAfterMs(0); // packed afresh: the unchanged code, the same object
    id = m_backend->submit(spec);
    QVERIFY2(id, qPrintable(id.error()));
    m_submitted << *id;
    QTRY_COMPARE_WITH_TIMEOUT(job(*id).state, sb::JobState::Succeeded, 120000);
    QCOMPARE(QFileInfo(store.objectFile(key)).lastModified(), uploaded);
    m_backend->setObjectStore({});
}

void TestKubeBackend::allJobsOfTheNamespaceOnRequest() {
    // A Job someone made with kubectl: not Signalbox's, so not shown until asked for.
    auto context = m_cluster->context(u"cert"_s);
    sb::KubeClient client(*context);
    const sb::KubeReply created =
        sb::kubeCall(client, "POST", u"/apis/batch/v1/namespaces/default/jobs"_s,
                     QJsonDocument::fromJson(R"({"apiVersion": "batch/v1", "kind": "Job",
          "metadata": {"name": "from-kubectl"},
          "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
            {"name": "c", "image": "busybox:1.37", "command": ["sleep"], "args": ["5"],
             "env": [{"name": "HARNESS_RUN", "value": "600s"}]}]}}}})")
                         .object());
    QVERIFY2(created.ok(), qPrintable(created.error));
    QSignalSpy removed(m_backend.get(), &sb::JobBackend::jobRemoved);
    QTest::qWait(2000);
    QCOMPARE(job(u"from-kubectl"_s).id, QString());
    m_backend->setAllJobs(true);
    QVERIFY(m_backend->allJobs());
    QTRY_COMPARE_WITH_TIMEOUT(job(u"from-kubectl"_s).state, sb::JobState::Running, 60000);
    const sb::Job foreign = job(u"from-kubectl"_s);
    QCOMPARE(foreign.spec.kube.image, u"busybox:1.37"_s);
    QCOMPARE(foreign.spec.command, QStringList({u"sleep"_s, u"5"_s}));
    QTRY_VERIFY_WITH_TIMEOUT(!job(m_submitted.first()).id.isEmpty(), 30000); // ours too
    QCOMPARE(job(m_submitted.first()).spec.name, u"Train ResNet/50"_s);
    m_backend->setAllJobs(false);
    QVERIFY(removed.count() > 0);
    QCOMPARE(job(u"from-kubectl"_s).id, QString());
    QTRY_VERIFY_WITH_TIMEOUT(!job(m_submitted.first()).id.isEmpty(), 30000);
    QTest::qWait(1000);
    QCOMPARE(job(u"from-kubectl"_s).id, QString());
}

void TestKubeBackend::anotherSignalboxFindsTheJobs() {
    auto context = m_cluster->context(u"token"_s); // another user, another computer
    QVERIFY2(context, qPrintable(context.error()));
    context.value().name = u"cert"_s;
    sb::KubeBackend other({{}, false});
    other.addCluster(*context);
    for (const QString &id : m_submitted) {
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (const sb::Job &j : other.jobs()) {
                    if (j.id == id)
                        return j.spec.name == job(id).spec.name && j.state == job(id).state;
                }
                return false;
            }(),
            60000);
    }
}

QTEST_GUILESS_MAIN(TestKubeBackend)
#include "tst_kubebackend.moc"
