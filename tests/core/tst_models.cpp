#include "jobs/JobsModel.h"
#include "jobs/local/LocalBackend.h"
#include "metrics/ConfigDiff.h"
#include "metrics/MetricLineParser.h"
#include "metrics/RunsModel.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {
// A run as the collector's /runs sends it, read back as the client does.
sb::RunSummary run(const QString &name, double loss, QJsonObject config = {}) {
    return sb::RunSummary::fromJson(
        {{u"name"_s, name},
         {u"status"_s, u"running"_s},
         {u"config"_s, config},
         {u"metrics"_s, QJsonObject{{u"loss"_s, QJsonObject{{u"value"_s, sb::metricJson(loss)},
                                                            {u"count"_s, 1}}}}}});
}
} // namespace

class TestModels final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void runsModel();
    void configDiffShowsOnlyWhatDiffers();
    void runsAreNamedAfterTheirScript();
    void jobsModel();
    void registryFindsBackendsByNameAndCapability();
    void sweepsFoldTheirJobs();
    void jobSpecsNameTheirBackend();
};

void TestModels::configDiffShowsOnlyWhatDiffers() {
    auto run = [](const QString &name, const char *config) {
        sb::RunInfo info;
        info.name = name;
        info.config = QJsonDocument::fromJson(config).object();
        return info;
    };
    const sb::ConfigDiff diff = sb::diffConfigs(
        {run(u"a"_s, R"({"lr": 0.001, "seed": 1, "optimizer": {"name": "adam", "beta": 0.9},
                        "layers": [64, 64], "amp": true})"),
         run(u"b"_s, R"({"lr": 0.01, "seed": 1, "optimizer": {"name": "adam", "beta": 0.99},
                        "layers": [64, 64]})")});
    QCOMPARE(diff.runs, (QStringList{u"a"_s, u"b"_s}));
    QCOMPARE(diff.keys, (QStringList{u"amp"_s, u"lr"_s, u"optimizer.beta"_s}));
    QCOMPARE(diff.values.value(u"lr"_s), (QStringList{u"0.001"_s, u"0.01"_s}));
    QCOMPARE(diff.values.value(u"amp"_s), (QStringList{u"true"_s, QString()})); // b lacks it
    QCOMPARE(diff.sameKeys, 3); // seed, optimizer.name, layers
    QCOMPARE(sb::configValueText(QJsonArray{1, u"x"_s}), u"[1,\"x\"]"_s);
    QCOMPARE(sb::diffConfigs({run(u"only"_s, R"({"lr": 1})")}).keys, QStringList());

    // What they ran, where recorded, beside the config; a config key of the same name wins.
    sb::RunInfo c = run(u"c"_s, R"({"lr": 1, "code.commit": "mine"})");
    sb::RunInfo d = run(u"d"_s, R"({"lr": 1})");
    c.code = QJsonDocument::fromJson(R"({"commit": "abc", "dirty": false})").object();
    d.code = QJsonDocument::fromJson(R"({"commit": "def", "dirty": true})").object();
    c.environment = QJsonDocument::fromJson(R"({"python": "3.11.7", "argv": ["t.py"]})").object();
    d.environment =
        QJsonDocument::fromJson(R"({"python": "3.11.7", "argv": ["t.py", "--lr=1"]})").object();
    const sb::ConfigDiff recorded = sb::diffConfigs({c, d});
    QCOMPARE(recorded.keys,
             (QStringList{u"code.commit"_s, u"code.dirty"_s, u"environment.argv"_s}));
    QCOMPARE(recorded.values.value(u"code.commit"_s), (QStringList{u"mine"_s, u"def"_s}));
    QCOMPARE(recorded.values.value(u"environment.argv"_s),
             (QStringList{u"t.py"_s, u"t.py --lr=1"_s}));
    QCOMPARE(recorded.sameKeys, 2); // lr, environment.python
}

void TestModels::runsModel() {
    sb::RunsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRuns({run(u"a"_s, 1.0, {{u"lr"_s, 0.1}}), run(u"b"_s, 2.0, {{u"lr"_s, 0.2}}),
                   sb::RunSummary::fromJson(
                       {{u"name"_s, u"no-metrics-yet"_s}, {u"metrics"_s, QJsonObject{}}})});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), 7); // name, status, host, tags, note, loss, lr
    QCOMPARE(model.headerData(sb::RunsModel::kTagsColumn, Qt::Horizontal).toString(), u"Tags"_s);
    QCOMPARE(model.headerData(5, Qt::Horizontal).toString(), u"loss"_s);
    QCOMPARE(model.headerData(6, Qt::Horizontal).toString(), u"config.lr"_s);
    QCOMPARE(model.index(1, 6).data().toDouble(), 0.2);
    QCOMPARE(model.checkedRuns(), (QStringList{u"a"_s, u"b"_s}));

    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QVERIFY(model.setData(model.index(0, 0), Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(model.checkedRuns(), QStringList{u"b"_s});
    // Same columns: rows update in place, checks survive, new runs are appended checked.
    model.setRuns({run(u"a"_s, 0.5, {{u"lr"_s, 0.1}}), run(u"b"_s, 2.0, {{u"lr"_s, 0.2}}),
                   run(u"c"_s, 3.0, {{u"lr"_s, 0.3}})});
    QCOMPARE(resets.size(), 0);
    QVERIFY(!changed.isEmpty());
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.checkedRuns(), (QStringList{u"b"_s, u"c"_s}));
    QCOMPARE(model.index(0, 5).data(sb::RunsModel::SortRole).toDouble(), 0.5);
    // A new hyperparameter changes the columns: a reset, and the check on "a" still holds.
    model.setRuns({run(u"a"_s, 0.5, {{u"seed"_s, 1}})});
    QCOMPARE(resets.size(), 1);
    QCOMPARE(model.checkedRuns(), QStringList());
    // A last value that is not finite reads as what it is (before: an Infinity showed as 0).
    model.setRuns({run(u"a"_s, qInf()), run(u"b"_s, -qInf()), run(u"c"_s, qQNaN())});
    QCOMPARE(model.index(0, 5).data().toString(), u"inf"_s);
    QCOMPARE(model.index(1, 5).data().toString(), u"-inf"_s);
    QCOMPARE(model.index(2, 5).data().toString(), u"nan"_s);
    QCOMPARE(model.index(0, 5).data(sb::RunsModel::SortRole).toDouble(), qInf());

    // The smallest, largest or best value instead of the last: best is the smallest of a loss,
    // the largest of an accuracy; empty until the collector has read the series.
    auto withRange = [](const QString &name) {
        return sb::RunSummary::fromJson(
            {{u"name"_s, name},
             {u"tags"_s, QJsonArray{u"baseline"_s, u"paper"_s}},
             {u"note"_s, u"first line\nsecond line"_s},
             {u"metrics"_s,
              QJsonObject{
                  {u"loss"_s,
                   QJsonObject{
                       {u"value"_s, 0.5}, {u"count"_s, 9}, {u"min"_s, 0.25}, {u"max"_s, 4}}},
                  {u"val/accuracy"_s,
                   QJsonObject{
                       {u"value"_s, 0.8}, {u"count"_s, 3}, {u"min"_s, 0.1}, {u"max"_s, 0.9}}},
                  {u"unread"_s, QJsonObject{{u"value"_s, 1}, {u"count"_s, 3}}}}}});
    };
    model.setRuns({withRange(u"r"_s)});
    QCOMPARE(model.index(0, sb::RunsModel::kTagsColumn).data().toString(), u"baseline, paper"_s);
    QCOMPARE(model.index(0, sb::RunsModel::kNoteColumn).data().toString(), u"first line"_s);
    QVERIFY(model.index(0, sb::RunsModel::kNoteColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(u"second"_s));
    auto values = [&model] {
        return QStringList{model.index(0, 5).data().toString(), model.index(0, 6).data().toString(),
                           model.index(0, 7).data().toString()}; // loss, unread, val/accuracy
    };
    QCOMPARE(values(), (QStringList{u"0.5"_s, u"1"_s, u"0.8"_s}));
    model.setStatistic(sb::RunsModel::Statistic::Min);
    QCOMPARE(values(), (QStringList{u"0.25"_s, QString(), u"0.1"_s}));
    QCOMPARE(model.headerData(5, Qt::Horizontal).toString(), u"loss (min)"_s);
    model.setStatistic(sb::RunsModel::Statistic::Best);
    QCOMPARE(values(), (QStringList{u"0.25"_s, QString(), u"0.9"_s}));
    model.setStatistic(sb::RunsModel::Statistic::Max);
    QCOMPARE(values(), (QStringList{u"4"_s, QString(), u"0.9"_s}));
    // Issue 29, finding 2: lost and crashed runs are statuses of their own, counted as they are.
    auto withStatus = [](sb::RunSummary summary, const QString &status, double lastSeen) {
        summary.info.status = status;
        summary.info.lastSeen = lastSeen;
        summary.info.end = lastSeen;
        return summary;
    };
    model.setRuns({withStatus(run(u"a"_s, 0.5), u"lost"_s, 10), run(u"b"_s, 2.0),
                   withStatus(run(u"c"_s, 3.0), u"crashed"_s, 20),
                   withStatus(run(u"d"_s, 3.0), u"crashed"_s, 30)});
    QCOMPARE(model.statusCounts(),
             (QMap<QString, int>{{u"lost"_s, 1}, {u"running"_s, 1}, {u"crashed"_s, 2}}));
    QCOMPARE(model.index(0, sb::RunsModel::kStatusColumn).data(sb::RunsModel::StatusRole),
             QVariant(u"lost"_s));
    QCOMPARE(model.index(0, sb::RunsModel::kStatusColumn).data().toString(), u"lost"_s);
    QCOMPARE(sb::runStatusText(u"crashed"_s), u"crashed"_s);
    QCOMPARE(model.info(u"c"_s).lastSeen, std::optional<double>(20));
    QVERIFY(sb::lowerIsBetter(u"train/loss"));
    QVERIFY(sb::lowerIsBetter(u"val/WER"));
    QVERIFY(!sb::lowerIsBetter(u"val/accuracy"));
    QVERIFY(!sb::lowerIsBetter(u"bleu"));
}

// A run is named after its script, not its interpreter or launcher.
void TestModels::runsAreNamedAfterTheirScript() {
    auto named = [](const QStringList &command) {
        return sb::jobBaseName({.command = command});
    };
    QCOMPARE(named({u"/usr/bin/python3"_s, u"-u"_s, u"examples/train_mlp.py"_s, u"--lr"_s}),
             u"train_mlp"_s);
    QCOMPARE(named({u"torchrun"_s, u"--nproc-per-node=8"_s, u"train.py"_s}), u"train"_s);
    QCOMPARE(named({u"python3"_s, u"-m"_s, u"lab.experiments.sweep"_s}), u"sweep"_s);
    QCOMPARE(named({u"bash"_s, u"-c"_s, u"echo hi"_s}), u"bash"_s); // no script to name it
    QCOMPARE(named({u"/opt/bin/my-trainer"_s, u"x.py"_s}), u"my-trainer"_s);
    QCOMPARE(sb::jobBaseName({.name = u"mine"_s, .command = {u"python3"_s, u"a.py"_s}}), u"mine"_s);
}

void TestModels::jobsModel() {
    QTemporaryDir dir;
    sb::LocalBackend backend({dir.path(), 1000, {}});
    sb::BackendRegistry registry;
    sb::JobsModel model{&registry};
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    registry.add(&backend);
    QCOMPARE(registry.backend(u"local"_s), &backend);
    const auto first = backend.submit({.name = u"one"_s, .command = {u"/bin/true"_s}});
    const auto second = backend.submit({.name = u"two"_s, .command = {u"/bin/false"_s}});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, sb::JobsModel::Name).data().toString(), *second); // newest first
    QTRY_COMPARE(model.index(0, sb::JobsModel::ExitCode).data().toInt(), 1);
    QTRY_VERIFY(model.index(0, sb::JobsModel::State).data().toString().startsWith(u"failed"_s));
    QTRY_COMPARE(model.index(1, sb::JobsModel::State).data().toString(), u"succeeded"_s);
    QCOMPARE(model.index(1, sb::JobsModel::Backend).data().toString(), u"local"_s);
    QCOMPARE(model.index(1, 0).data(sb::JobsModel::JobIdRole).toString(), *first);
    // When it was submitted, how long it waited and ran; a run that asked for no GPU shows none.
    QVERIFY(!model.index(1, sb::JobsModel::Submitted).data().toString().isEmpty());
    QTRY_COMPARE(model.index(1, sb::JobsModel::Waited).data().toString(), u"0:00"_s);
    QCOMPARE(model.index(1, sb::JobsModel::Gpus).data().toString(), QString());
    QCOMPARE(model.headerData(sb::JobsModel::Waited, Qt::Horizontal).toString(), u"Waited"_s);

    // A backend that stops showing a job (a cluster's watch narrowed): its row goes, the rest
    // keep their order and still take changes.
    const auto third = backend.submit({.name = u"three"_s, .command = {u"/bin/true"_s}});
    QTRY_COMPARE(model.index(0, sb::JobsModel::State).data().toString(), u"succeeded"_s);
    Q_EMIT backend.jobRemoved(*second);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, 0).data(sb::JobsModel::JobIdRole).toString(), *third);
    QCOMPARE(model.index(1, 0).data(sb::JobsModel::JobIdRole).toString(), *first);
    sb::Job renamed = *model.job(model.index(1, 0));
    renamed.message = u"changed after the removal"_s;
    Q_EMIT backend.jobChanged(renamed);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(1, 0).data(Qt::ToolTipRole).toString(), u"changed after the removal"_s);
    Q_EMIT backend.jobRemoved(u"nonesuch"_s);
    QCOMPARE(model.rowCount(), 2);

    // A job of trials unfolds into a row per trial; trials that come and go keep the tree sound
    // (the model tester checks every change).
    sb::Job trials = *model.job(model.index(0, 0));
    trials.indexStates = {{0, sb::JobState::Running}, {1, sb::JobState::Queued}};
    Q_EMIT backend.jobChanged(trials);
    const QModelIndex parent = model.index(0, 0);
    QCOMPARE(model.rowCount(parent), 2);
    QCOMPARE(model.index(1, sb::JobsModel::Name, parent).data().toString(), *third + u"-1"_s);
    QCOMPARE(model.index(1, sb::JobsModel::State, parent).data().toString(), u"queued"_s);
    QCOMPARE(model.index(1, 0, parent).data(sb::JobsModel::TrialRole).toInt(), 1);
    QCOMPARE(model.index(0, 0).data(sb::JobsModel::TrialRole).toInt(), -1);
    QCOMPARE(model.parent(model.index(1, 0, parent)), parent);
    QCOMPARE(model.job(model.index(1, 0, parent))->id, *third);
    trials.indexStates = {
        {0, sb::JobState::Succeeded}, {1, sb::JobState::Running}, {2, sb::JobState::Queued}};
    Q_EMIT backend.jobChanged(trials);
    QCOMPARE(model.rowCount(parent), 3);
    trials.indexStates[2] = sb::JobState::Stopped;
    Q_EMIT backend.jobChanged(trials);
    QCOMPARE(model.index(2, sb::JobsModel::State, parent).data().toString(), u"stopped"_s);
    Q_EMIT backend.jobRemoved(*first); // a row below it goes: the trials stay under their job
    QCOMPARE(model.job(model.index(1, 0, model.index(0, 0)))->id, *third);
    QCOMPARE(model.rowCount(model.index(0, 0)), 3);

    // A running job's duration goes on without any change of the job.
    const auto running = backend.submit({.name = u"long"_s, .command = {u"sleep"_s, u"30"_s}});
    QTRY_COMPARE(model.index(0, sb::JobsModel::State).data().toString(), u"running"_s);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QTRY_VERIFY(std::any_of(changed.begin(), changed.end(), [](const QList<QVariant> &args) {
        return args[0].toModelIndex().column() <= sb::JobsModel::Duration &&
               args[1].toModelIndex().column() >= sb::JobsModel::Duration;
    }));
    QVERIFY(backend.stop(*running));
}

// A sweep's jobs sit under one row of the sweep, newest first; the user's own jobs stay at the top
// level; a sweep's row says how its jobs stand and goes with its last job.
// The registry knows each backend once, by name and by what it can do; a model made on it shows
// the jobs of backends added later too.
void TestModels::registryFindsBackendsByNameAndCapability() {
    QTemporaryDir dir;
    sb::LocalBackend local({dir.path(), 1000, {}});
    sb::LocalBackend twin({dir.filePath(u"twin"_s), 1000, {}});
    sb::BackendRegistry registry;
    sb::JobsModel model{&registry};
    QCOMPARE(registry.backend(sb::BackendName::kLocal), nullptr);
    const auto id = local.submit({.name = u"early"_s, .command = {u"/bin/true"_s}});
    QVERIFY2(id, qPrintable(id.error()));
    registry.add(&local);
    registry.add(&twin); // the same name: refused
    QCOMPARE(registry.backends(), QList<sb::JobBackend *>{&local});
    QCOMPARE(registry.backend(sb::BackendName::kLocal), &local);
    QCOMPARE(registry.backend(sb::BackendName::kKubernetes), nullptr);
    QCOMPARE(model.rowCount(), 1); // its jobs from before it was added
    const auto here = [](const sb::JobBackend::Capabilities &can) {
        return can.thisComputer;
    };
    const auto preview = [](const sb::JobBackend::Capabilities &can) {
        return can.preview;
    };
    QCOMPARE(registry.with(here), QList<sb::JobBackend *>{&local});
    QVERIFY(registry.with(preview).isEmpty());
    QTRY_COMPARE(local.unfinished(), 0);
}

void TestModels::sweepsFoldTheirJobs() {
    QTemporaryDir dir;
    sb::LocalBackend backend({dir.path(), 1000, {}});
    sb::BackendRegistry registry;
    sb::JobsModel model{&registry};
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    registry.add(&backend);
    auto trial = [&](const QString &sweep, const QStringList &command) {
        sb::JobSpec spec{.name = u"t"_s, .command = command};
        spec.environment.insert(u"SIGNALBOX_SWEEP"_s, sweep);
        const auto id = backend.submit(spec);
        return id ? *id : QString();
    };
    const QString a0 = trial(u"lr-grid-1a2b3c"_s, {u"/bin/true"_s});
    const auto own = backend.submit({.name = u"mine"_s, .command = {u"sleep"_s, u"30"_s}});
    const QString a1 = trial(u"lr-grid-1a2b3c"_s, {u"/bin/false"_s});
    const QString b0 = trial(u"other-9f8e7d"_s, {u"sleep"_s, u"30"_s});
    QCOMPARE(model.rowCount(), 3); // other's row, my job, lr-grid's row
    const QModelIndex grid = model.index(2, 0);
    QCOMPARE(grid.data(sb::JobsModel::SweepRole).toString(), u"lr-grid-1a2b3c"_s);
    QCOMPARE(grid.data(sb::JobsModel::JobIdRole).toString(), QString());
    QCOMPARE(model.job(grid), nullptr);
    QCOMPARE(model.sweepJobs(grid).size(), 2);
    QCOMPARE(model.rowCount(grid), 2);
    QCOMPARE(model.index(0, 0, grid).data(sb::JobsModel::JobIdRole).toString(), a1);
    QCOMPARE(model.index(1, 0, grid).data(sb::JobsModel::JobIdRole).toString(), a0);
    QCOMPARE(model.index(1, 0, grid).data(sb::JobsModel::SweepRole).toString(),
             u"lr-grid-1a2b3c"_s);
    QCOMPARE(model.indexOf(u"local"_s, a0), model.index(1, 0, grid));
    QCOMPARE(model.parent(model.indexOf(u"local"_s, a0)), grid);
    QCOMPARE(model.index(1, 0).data(sb::JobsModel::JobIdRole).toString(), *own);
    QVERIFY(model.index(0, sb::JobsModel::Name).data().toString().startsWith(u"other-9f8e7d"_s));
    QTRY_COMPARE(grid.siblingAtColumn(sb::JobsModel::State).data().toString(),
                 u"1 succeeded · 1 failed"_s);
    QCOMPARE(grid.data(sb::JobsModel::StateRole).toInt(), int(sb::JobState::Failed));
    QCOMPARE(grid.siblingAtColumn(sb::JobsModel::Name).data().toString(),
             u"lr-grid-1a2b3c (sweep, 2 jobs)"_s);
    // A sweep run as one job of trials (an Indexed Job): the trials' rows under the job's row
    // under the sweep's row (the model tester checks the three levels).
    sb::Job indexed = *model.job(model.index(0, 0, grid));
    indexed.indexStates = {{0, sb::JobState::Running}, {1, sb::JobState::Succeeded}};
    Q_EMIT backend.jobChanged(indexed);
    const QModelIndex job = model.index(0, 0, grid);
    QCOMPARE(model.rowCount(job), 2);
    QCOMPARE(model.parent(model.index(1, 0, job)), job);
    QCOMPARE(model.index(1, sb::JobsModel::Name, job).data().toString(), a1 + u"-1"_s);
    QCOMPARE(model.job(model.index(1, 0, job))->id, a1);
    // Removed one by one: the sweep's row goes with its last job; the others keep their rows.
    QVERIFY(backend.forget(a0));
    QCOMPARE(model.rowCount(model.index(2, 0)), 1);
    QVERIFY(backend.forget(a1));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(1, 0).data(sb::JobsModel::JobIdRole).toString(), *own);
    QCOMPARE(model.indexOf(u"local"_s, b0).parent(), model.index(0, 0));
    QVERIFY(backend.stop(b0));
    QVERIFY(backend.stop(*own));
}

// Each backend's options travel with the spec, and the flat form that histories (and cluster
// annotations) written before the backend was named hold is read as the backend it meant.
void TestModels::jobSpecsNameTheirBackend() {
    sb::JobSpec kube{
        .name = u"ddp"_s, .backend = sb::BackendName::kKubernetes, .target = u"lab"_s, .gpus = 8};
    kube.workers = 4;
    kube.kube.image = u"pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime"_s;
    kube.kube.failExitCodes = {2, 42};
    kube.kube.ttlSeconds = 3600;
    sb::JobSpec slurm{
        .name = u"sweep"_s, .backend = sb::BackendName::kSlurm, .target = u"hpc"_s, .trials = 20};
    slurm.slurm.partition = u"gpu"_s;
    slurm.slurm.timeLimit = u"4:00:00"_s;
    slurm.slurm.extraArgs = {u"--exclusive"_s};
    for (const sb::JobSpec &spec : {kube, slurm}) {
        const sb::JobSpec back = sb::JobSpec::fromJson(spec.toJson());
        QCOMPARE(back.toJson(), spec.toJson());
        QCOMPARE(back.backend, spec.backend);
    }
    QCOMPARE(sb::JobSpec::fromJson(kube.toJson()).kube.failExitCodes, QList<int>({2, 42}));
    QCOMPARE(sb::JobSpec::fromJson(slurm.toJson()).slurm.extraArgs, QStringList{u"--exclusive"_s});
    QVERIFY(!kube.toJson().contains(u"slurm"_s)); // only the backend's own options are kept

    const auto flat = [](const char *json) {
        return sb::JobSpec::fromJson(QJsonDocument::fromJson(json).object());
    };
    const sb::JobSpec oldKube = flat(
        R"({"name":"r","command":["python3","t.py"],"node":"","gpus":1,"cluster":"lab",)"
        R"("image":"python:3.12-slim","workers":2,"memory":"4Gi","ttlSeconds":60,"trials":3})");
    QCOMPARE(oldKube.backend, u"kubernetes"_s);
    QCOMPARE(oldKube.target, u"lab"_s);
    QCOMPARE(oldKube.kube.image, u"python:3.12-slim"_s);
    QCOMPARE(oldKube.kube.memory, u"4Gi"_s);
    QCOMPARE(oldKube.kube.ttlSeconds, 60);
    QCOMPARE(oldKube.workers, 2);
    QCOMPARE(oldKube.trials, 3);
    const sb::JobSpec oldNode = flat(R"({"name":"r","node":"*","nodes":["a","b"],"gpus":2})");
    QCOMPARE(oldNode.backend, u"ssh"_s);
    QCOMPARE(oldNode.target, sb::JobSpec::kAnyNode.toString());
    QCOMPARE(oldNode.nodes, (QStringList{u"a"_s, u"b"_s}));
    QCOMPARE(flat(R"({"name":"r","node":"","gpus":0})").backend, u"local"_s);
}

QTEST_GUILESS_MAIN(TestModels)
#include "tst_models.moc"
