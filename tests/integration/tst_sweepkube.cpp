// A sweep's trials as one Indexed Job on a real control plane (tests/harness/k8scluster.py):
// the Job controller runs `parallelism` indexes at a time, every pod finds its trial's script by
// its completion index, each index's metric lines become a run of their own, and one index can
// be stopped without touching the others.
#include "../support/K8sCluster.h"
#include "client/CollectorClient.h"
#include "collector/EmbeddedCollector.h"
#include "jobs/JobsModel.h"
#include "jobs/MetricLineForwarder.h"
#include "jobs/kubernetes/KubeBackend.h"
#include "sweeps/Sweep.h"
#include "sweeps/TrialCommand.h"

#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

class TestSweepKube : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void trialsRunAsOneIndexedJob();
    void oneIndexStopsAlone();

private:
    QJsonObject get(const QString &path) const { return m_cluster->get(path); }
    sb::Job job(const QString &id) const {
        for (const sb::Job &j : m_backend->jobs())
            if (j.id == id)
                return j;
        return {};
    }
    sb::SweepSpec spec(const QByteArray &yaml) const {
        auto parsed = sb::SweepSpec::parse(yaml, m_data.filePath(u"sweep.yaml"_s));
        if (!parsed)
            qFatal("%s", qPrintable(parsed.error()));
        return *parsed;
    }

    QTemporaryDir m_data;
    std::unique_ptr<K8sCluster> m_cluster;
    std::unique_ptr<sb::KubeBackend> m_backend;
    sb::BackendRegistry m_backends;
    sb::JobsModel m_jobs{&m_backends};
    std::unique_ptr<sb::EmbeddedCollector> m_collector;
    std::unique_ptr<sb::CollectorClient> m_client;
    std::unique_ptr<sb::MetricLineForwarder> m_forwarder;
};

void TestSweepKube::initTestCase() {
    qRegisterMetaType<sb::Job>();
    m_cluster = std::make_unique<K8sCluster>();
    auto context = m_cluster->context(u"cert"_s);
    QVERIFY2(context, qPrintable(context.error()));
    m_backend = std::make_unique<sb::KubeBackend>(sb::KubeBackend::Options{});
    m_backend->addCluster(*context);
    m_backends.add(m_backend.get());
    sb::Collector::Options options;
    options.dataDir = m_data.filePath(u"collector"_s);
    options.port = 0;
    auto collector = sb::EmbeddedCollector::start(options);
    QVERIFY2(collector, qPrintable(collector.error()));
    m_collector = std::move(collector).value();
    m_client = std::make_unique<sb::CollectorClient>(m_collector->url(), m_collector->token());
    m_forwarder = std::make_unique<sb::MetricLineForwarder>(m_client.get());
    m_forwarder->watch(m_backend.get());
}

void TestSweepKube::trialsRunAsOneIndexedJob() {
    // kwok runs no containers: every pod "prints" the harness's one log file, which holds a
    // curve of three values.
    for (int step = 0; step < 3; ++step)
        m_cluster->appendPodLog(
            {uR"(@signalbox {"step": %1, "loss": %2})"_s.arg(step).arg(1.0 / (1 << step))});
    const sb::SweepSpec sweepSpec = spec(R"yaml(name: Cluster Sweep
method: random
program: train.py
metric: {name: loss}
run_cap: 5
parameters:
  lr: {distribution: log_uniform_values, min: 0.0001, max: 0.1}
  tag: {values: ["$(touch pwned)", "a b; rm -rf ~", "'\"`"]}
signalbox:
  cluster: cert
  image: python:3.12-slim
  gpus_per_trial: 1
  parallelism: 2
  environment: {HARNESS_RUN: 1s}
)yaml");
    auto created = sb::Sweep::create(sweepSpec, &m_jobs, m_client.get(),
                                     {m_data.filePath(u"sweeps"_s), 9, 300});
    QVERIFY2(created, qPrintable(created.error()));
    std::unique_ptr<sb::Sweep> sweep(*created);
    sweep->start();
    QCOMPARE(sweep->trials().size(), 5);
    const QString id = sweep->trials().first().jobId;
    QVERIFY(id.startsWith(u"cluster-sweep-"_s));
    for (const sb::Trial &trial : sweep->trials()) {
        QCOMPARE(trial.jobId, id); // one Job for all five
        QCOMPARE(trial.run, u"%1-%2"_s.arg(id).arg(trial.index));
    }

    // The Job as the API server holds it: indexed, five completions, two at a time, and an index
    // that fails stays failed.
    QJsonObject object;
    QTRY_VERIFY_WITH_TIMEOUT(
        !(object = get(u"/apis/batch/v1/namespaces/default/jobs/"_s + id)).isEmpty() &&
            object[u"kind"_s] == u"Job"_s,
        30000);
    const QJsonObject jobSpec = object[u"spec"_s].toObject();
    QCOMPARE(jobSpec[u"completionMode"_s].toString(), u"Indexed"_s);
    QCOMPARE(jobSpec[u"completions"_s].toInt(), 5);
    QCOMPARE(jobSpec[u"parallelism"_s].toInt(), 2);
    QCOMPARE(jobSpec[u"backoffLimitPerIndex"_s].toInt(-1), 0);

    // Each pod runs its index's script from the ConfigMap; run here (kwok runs nothing), each
    // gives the program exactly its trial's arguments, and hostile values stay values.
    const QJsonObject trialsMap =
        get(u"/api/v1/namespaces/default/configmaps/"_s + sb::trialsName(id));
    QCOMPARE(trialsMap[u"data"_s].toObject().size(), 5);
    QTemporaryDir work;
    QFile train(work.filePath(u"train.py"_s));
    QVERIFY(train.open(QIODevice::WriteOnly));
    train.write("import json, os, sys\nprint(json.dumps([sys.argv[1:], os.environ['SIGNALBOX_RUN'],"
                " json.load(open(os.environ['PARAMETERS_FILE']))]))\n");
    train.close();
    for (const sb::Trial &trial : sweep->trials()) {
        QProcess shell;
        shell.setWorkingDirectory(work.path());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"SIGNALBOX_TRIAL_INDEX"_s, QString::number(trial.index));
        env.insert(u"PARAMETERS_FILE"_s,
                   sb::trialParametersFile(u"%1-%2"_s.arg(sweep->id()).arg(trial.number)));
        env.insert(u"SIGNALBOX_RUN"_s, id);
        shell.setProcessEnvironment(env);
        shell.start(u"/bin/sh"_s,
                    {u"-c"_s, trialsMap[u"data"_s][u"trial-%1.sh"_s.arg(trial.index)].toString()});
        QVERIFY(shell.waitForFinished(30000));
        const QJsonArray got = QJsonDocument::fromJson(shell.readAllStandardOutput()).array();
        QCOMPARE(got.size(), 3);
        QStringList expected = trial.command.mid(3); // after /usr/bin/env python3 train.py
        QCOMPARE(got[0].toArray().toVariantList(),
                 QJsonArray::fromStringList(expected).toVariantList());
        QCOMPARE(got[1].toString(), trial.run);
        QCOMPARE(got[2].toObject(), trial.parameters);
    }
    QVERIFY(!QFile::exists(work.filePath(u"pwned"_s)));

    // All five end; each index's metric lines are a run of their own, read back by the sweep.
    QTRY_VERIFY_WITH_TIMEOUT(sweep->state() == sb::Sweep::State::Finished, 120000);
    for (const sb::Trial &trial : sweep->trials()) {
        QCOMPARE(trial.state, sb::JobState::Succeeded);
        QCOMPARE(trial.values, (QList<double>{1.0, 0.5, 0.25}));
    }
    QCOMPARE(job(id).state, sb::JobState::Succeeded);
}

void TestSweepKube::oneIndexStopsAlone() {
    const sb::SweepSpec sweepSpec = spec(R"(name: long trials
method: grid
program: train.py
parameters:
  seed: {values: [1, 2, 3]}
signalbox:
  cluster: cert
  image: python:3.12-slim
  parallelism: 3
  environment: {HARNESS_RUN: 600s}
)");
    auto created = sb::Sweep::create(sweepSpec, &m_jobs, m_client.get(),
                                     {m_data.filePath(u"sweeps"_s), 1, 300});
    QVERIFY2(created, qPrintable(created.error()));
    std::unique_ptr<sb::Sweep> sweep(*created);
    sweep->start();
    const QString id = sweep->trials().first().jobId;
    QTRY_VERIFY_WITH_TIMEOUT(
        std::all_of(sweep->trials().begin(), sweep->trials().end(),
                    [](const sb::Trial &t) { return t.state == sb::JobState::Running; }),
        60000);
    // What hyperband does to a hopeless trial: its pod goes, its index fails, the rest run on.
    QVERIFY(m_backend->stopIndex(id, 1));
    QTRY_COMPARE_WITH_TIMEOUT(sweep->trials()[1].state, sb::JobState::Failed, 60000);
    QTest::qWait(3000); // the Job controller would have started a replacement by now
    QCOMPARE(job(id).indexStates.value(1), sb::JobState::Failed);
    QCOMPARE(sweep->trials()[0].state, sb::JobState::Running);
    QCOMPARE(sweep->trials()[2].state, sb::JobState::Running);
    QCOMPARE(job(id).state, sb::JobState::Running);
    // Stopping the sweep stops the Job, and with it the trials still running.
    sweep->stop();
    QTRY_VERIFY_WITH_TIMEOUT(sweep->trials()[0].state == sb::JobState::Stopped &&
                                 sweep->trials()[2].state == sb::JobState::Stopped,
                             60000);
    QCOMPARE(sweep->trials()[1].state, sb::JobState::Failed);
}

QTEST_GUILESS_MAIN(TestSweepKube)
#include "tst_sweepkube.moc"
