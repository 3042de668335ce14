// Sweeps running for real: trials packed onto the fake GPUs of real sshd nodes, parameters that
// a shell would misread, a sweep resumed after the app restarts, and hyperband stopping the
// hopeless trials of this computer's runs. Metric lines go through a real embedded collector.
#include "../support/SshNodes.h"
#include "client/CollectorClient.h"
#include "collector/EmbeddedCollector.h"
#include "jobs/JobsModel.h"
#include "jobs/MetricLineForwarder.h"
#include "jobs/local/LocalBackend.h"
#include "jobs/ssh/SshBackend.h"
#include "sweeps/Sweep.h"
#include "sweeps/SweepSearch.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

// A training script whose loss curve is known: it decays towards --quality, one value every
// --pause seconds, and it prints the arguments it received.
constexpr char kTrain[] = R"(import json, sys, time
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--"))
print("argv " + json.dumps(sys.argv[1:]), flush=True)
quality = float(args.get("quality", 1))
for step in range(int(args.get("steps", 3))):
    time.sleep(float(args.get("pause", 0.05)))
    loss = quality + 10.0 / (step + 1)
    print("@signalbox " + json.dumps({"step": step, "loss": loss}), flush=True)
)";

// The parts of the app a sweep needs: nodes, backends, the jobs model and a collector.
struct App {
    sb::NodeMonitor monitor;
    sb::SshBackend ssh;
    sb::LocalBackend local;
    sb::BackendRegistry registry;
    sb::JobsModel jobs{&registry};
    std::unique_ptr<sb::EmbeddedCollector> collector;
    std::unique_ptr<sb::CollectorClient> client;
    std::unique_ptr<sb::MetricLineForwarder> forwarder;

    App(const SshNodes *nodes, const QString &data)
        : monitor({nodes ? nodes->knownHostsFile() : QString()})
        , ssh(&monitor, {data + u"/ssh"_s, 2000, 300, {}})
        , local({data + u"/local"_s, 2000, {}}) {
        if (nodes) {
            QList<sb::NodeConfig> configs;
            for (const auto &n : nodes->nodes())
                configs << nodes->config(n.name);
            monitor.setNodes(configs);
        }
        registry.add(&ssh);
        registry.add(&local);
        sb::Collector::Options options;
        options.dataDir = data + u"/collector"_s;
        options.port = 0;
        auto started = sb::EmbeddedCollector::start(options);
        if (!started)
            qFatal("%s", qPrintable(started.error()));
        collector = std::move(started).value();
        client = std::make_unique<sb::CollectorClient>(collector->url(), collector->token());
        forwarder = std::make_unique<sb::MetricLineForwarder>(client.get());
        forwarder->watch(&ssh);
        forwarder->watch(&local);
    }
    sb::Sweep::Options options(const QString &data) const { return {data + u"/sweeps"_s, 42, 200}; }
    std::optional<sb::Job> job(const QString &id) const {
        for (const sb::Job &j : ssh.jobs() + local.jobs())
            if (j.id == id)
                return j;
        return std::nullopt;
    }
};

sb::SweepSpec spec(const QString &dir, const QByteArray &yaml) {
    QFile train(dir + u"/train.py"_s);
    if (!train.exists() && train.open(QIODevice::WriteOnly))
        train.write(kTrain);
    auto parsed = sb::SweepSpec::parse(yaml, dir + u"/sweep.yaml"_s);
    if (!parsed)
        qFatal("%s", qPrintable(parsed.error()));
    return *parsed;
}

bool allFinished(const sb::Sweep &sweep) {
    return sweep.state() == sb::Sweep::State::Finished;
}

} // namespace

class TestSweepRun : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void packsTrialsOntoFreeGpus();
    void resumesAfterRestart();
    void hyperbandStopsHopelessTrials();
    void stopAndExtend();

private:
    std::unique_ptr<SshNodes> m_nodes;
};

void TestSweepRun::initTestCase() {
    m_nodes = std::make_unique<SshNodes>(
        QStringList{u"h100=linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt@free"_s,
                    u"h200=linux-x86_64__nvidia-h200__590.48.01.txt@free"_s});
    QVERIFY2(m_nodes->error().isEmpty(), qPrintable(m_nodes->error()));
    QVERIFY(m_nodes->trustAll());
}

void TestSweepRun::packsTrialsOntoFreeGpus() {
    QTemporaryDir data;
    App app(m_nodes.get(), data.path());
    // Five trials, one GPU each, four allowed at once, on two nodes of one GPU each: two run,
    // three wait. The values are what a shell would run, split or expand.
    const QStringList tags{u"$(touch pwned)"_s, u"a b; rm -rf ~"_s, u"'\"`\\"_s, u"--lr=9"_s,
                           u"${HOME}"_s};
    QJsonArray values;
    for (const QString &tag : tags)
        values.append(tag);
    const QByteArray yaml =
        "name: packing\nmethod: grid\nprogram: " + data.filePath(u"train.py"_s).toUtf8() +
        "\nmetric: {name: loss}\nparameters:\n  tag: {values: " +
        QJsonDocument(values).toJson(QJsonDocument::Compact) +
        "}\n  pause: {value: 0.5}\nsignalbox:\n  nodes: [h100, h200]\n"
        "  gpus_per_trial: 1\n  parallelism: 4\n";
    auto created = sb::Sweep::create(spec(data.path(), yaml), &app.jobs, app.client.get(),
                                     app.options(data.path()));
    QVERIFY2(created, qPrintable(created.error()));
    std::unique_ptr<sb::Sweep> sweep(*created);
    int mostRunning = 0;
    bool sharedGpu = false;
    connect(&app.ssh, &sb::JobBackend::jobChanged, this, [&] {
        QSet<QString> gpus;
        int running = 0;
        for (const sb::Job &job : app.ssh.jobs()) {
            if (job.state != sb::JobState::Running)
                continue;
            ++running;
            const QString gpu = job.node + u':' + job.gpuIds;
            sharedGpu = sharedGpu || gpus.contains(gpu);
            gpus.insert(gpu);
        }
        mostRunning = std::max(mostRunning, running);
    });
    sweep->start();
    QCOMPARE(sweep->trials().size(), 4); // parallelism 4: four submitted, two of them queued
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(*sweep), 120000);
    QCOMPARE(sweep->trials().size(), 5);
    QCOMPARE(mostRunning, 2);
    QVERIFY(!sharedGpu);
    QSet<QString> nodesUsed;
    for (const sb::Trial &trial : sweep->trials()) {
        QCOMPARE(trial.state, sb::JobState::Succeeded);
        nodesUsed.insert(trial.node);
        const auto job = app.job(trial.jobId);
        QVERIFY(job);
        QCOMPARE(job->gpuIds, u"0"_s);
        // The program got the value as one argument, exactly as written.
        const QByteArray log = app.ssh.log(trial.jobId).value();
        const QByteArray argvLine = log.mid(log.indexOf("argv ") + 5).split('\n').first();
        const QJsonArray argv = QJsonDocument::fromJson(argvLine).array();
        QVERIFY2(argv.contains(QJsonValue(u"--tag="_s + tags[trial.number])), argvLine.constData());
        QCOMPARE(trial.values.size(), 3); // the collector's curve of the run
    }
    QCOMPARE(nodesUsed, (QSet<QString>{u"h100"_s, u"h200"_s}));
    QVERIFY(!QFile::exists(QDir::home().filePath(u"pwned"_s)));
    QVERIFY(!QFile::exists(m_nodes->node(u"h100"_s).home + u"/pwned"_s));
}

void TestSweepRun::resumesAfterRestart() {
    QTemporaryDir data;
    const QByteArray yaml =
        "name: resume\nmethod: random\nprogram: " + data.filePath(u"train.py"_s).toUtf8() +
        "\nmetric: {name: loss}\nrun_cap: 4\nparameters:\n  quality: {min: "
        "0.0, max: 1.0}\n  pause: {value: 0.4}\n  steps: {value: 4}\n"
        "signalbox:\n  nodes: [h100]\n  parallelism: 2\n";
    QString state;
    QList<QJsonObject> firstParameters;
    {
        App app(m_nodes.get(), data.path());
        auto created = sb::Sweep::create(spec(data.path(), yaml), &app.jobs, app.client.get(),
                                         app.options(data.path()));
        QVERIFY2(created, qPrintable(created.error()));
        std::unique_ptr<sb::Sweep> sweep(*created);
        sweep->start();
        QTRY_VERIFY_WITH_TIMEOUT(
            std::any_of(sweep->trials().begin(), sweep->trials().end(),
                        [](const sb::Trial &t) { return t.state == sb::JobState::Running; }),
            60000);
        state = sweep->statePath();
        for (const sb::Trial &trial : sweep->trials())
            firstParameters << trial.parameters;
        QCOMPARE(firstParameters.size(), 2);
    } // the app quits while two trials run on the node
    App app(m_nodes.get(), data.path());
    QCOMPARE(sb::Sweep::stateFiles(data.filePath(u"sweeps"_s)), QStringList{state});
    auto resumed = sb::Sweep::resume(state, &app.jobs, app.client.get(), app.options(data.path()));
    QVERIFY2(resumed, qPrintable(resumed.error()));
    std::unique_ptr<sb::Sweep> sweep(*resumed);
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(*sweep), 120000);
    QCOMPARE(sweep->trials().size(), 4);
    QCOMPARE(app.ssh.jobs().size(), 4); // the two running trials were followed, not started again
    for (int i = 0; i < 2; ++i)
        QCOMPARE(sweep->trials()[i].parameters, firstParameters[i]);
    for (const sb::Trial &trial : sweep->trials()) {
        QCOMPARE(trial.state, sb::JobState::Succeeded);
        QCOMPARE(trial.values.size(), 4);
    }
    // A random sweep draws the same trials from the same seed, resumed or not.
    QCOMPARE(sweep->trials()[3].parameters,
             sb::randomTrial(sweep->spec(), app.options(data.path()).seed, 3));
}

void TestSweepRun::hyperbandStopsHopelessTrials() {
    QTemporaryDir data;
    App app(nullptr, data.path());
    // Six trials at once on this computer; their curves differ by `quality` alone, so at the
    // band of 3 logged values hyperband (eta 2) keeps the better half.
    const QByteArray yaml = "name: hyperband\nmethod: grid\nprogram: train.py\nmetric: {name: "
                            "loss}\nparameters:\n  quality: {values: [6, 1, 5, 2, 4, 3]}\n  "
                            "steps: {value: 30}\n  pause: {value: 0.2}\nearly_terminate: {type: "
                            "hyperband, min_iter: 3, eta: 2}\nsignalbox: {parallelism: 6}\n";
    auto created = sb::Sweep::create(spec(data.path(), yaml), &app.jobs, app.client.get(),
                                     app.options(data.path()));
    QVERIFY2(created, qPrintable(created.error()));
    std::unique_ptr<sb::Sweep> sweep(*created);
    sweep->start();
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(*sweep), 120000);
    QSet<double> stopped;
    for (const sb::Trial &trial : sweep->trials()) {
        if (trial.earlyStopped) {
            QCOMPARE(trial.state, sb::JobState::Stopped);
            QVERIFY(trial.values.size() < 30);
            stopped.insert(trial.parameters[u"quality"_s].toDouble());
        }
    }
    // Ideally 6 and 5 at the first band and 4 at the second; trials that start late on a busy
    // machine meet fewer others at a band, so only the clear cases are required.
    QVERIFY2(stopped.size() >= 2, qPrintable(QString::number(stopped.size())));
    QVERIFY(stopped.contains(6));
    QVERIFY(!stopped.contains(1)); // the best trial runs to the end
    const sb::Trial &best = sweep->trials()[sweep->bestTrial()];
    QCOMPARE(best.parameters[u"quality"_s].toDouble(), 1.0);
    QCOMPARE(best.state, sb::JobState::Succeeded);
    QCOMPARE(best.values.size(), 30);
}

void TestSweepRun::stopAndExtend() {
    QTemporaryDir data;
    App app(nullptr, data.path());
    const QByteArray yaml = "name: extend\nmethod: random\nprogram: train.py\nmetric: {name: "
                            "loss}\nrun_cap: 2\nparameters:\n  quality: {min: 0.0, max: 1.0}\n  "
                            "steps: {value: 200}\nsignalbox: {parallelism: 2}\n";
    auto created = sb::Sweep::create(spec(data.path(), yaml), &app.jobs, app.client.get(),
                                     app.options(data.path()));
    QVERIFY2(created, qPrintable(created.error()));
    std::unique_ptr<sb::Sweep> sweep(*created);
    sweep->start();
    QCOMPARE(sweep->trials().size(), 2);
    sweep->stop();
    QTRY_VERIFY_WITH_TIMEOUT(
        std::all_of(sweep->trials().begin(), sweep->trials().end(),
                    [](const sb::Trial &t) { return t.state == sb::JobState::Stopped; }),
        30000);
    QCOMPARE(sweep->state(), sb::Sweep::State::Stopped);
    QVERIFY(sweep->statusText().startsWith(u"stopped"_s));
    // Two more, quick ones this time: the sweep runs again up to its new limit.
    sweep->extend(2);
    QCOMPARE(sweep->limit(), 4);
    QCOMPARE(sweep->state(), sb::Sweep::State::Running);
    QCOMPARE(sweep->trials().size(), 4);
    for (int i = 2; i < 4; ++i)
        QVERIFY(app.local.stop(sweep->trials()[i].jobId));
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(*sweep), 30000);
}

QTEST_GUILESS_MAIN(TestSweepRun)
#include "tst_sweeprun.moc"
