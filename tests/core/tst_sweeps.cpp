// The sweep file, the trials drawn from it, their command lines and hyperband's decisions.
#include "jobs/kubernetes/KubeJobs.h"
#include "ssh/ShellQuote.h"
#include "sweeps/Hyperband.h"
#include "sweeps/SweepSearch.h"
#include "sweeps/TrialCommand.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSet>
#include <QTest>

#include <cmath>

using namespace Qt::StringLiterals;

namespace {

sb::SweepSpec parsed(const QByteArray &yaml) {
    auto spec = sb::SweepSpec::parse(yaml, u"sweep.yaml"_s);
    if (!spec)
        qFatal("%s", qPrintable(spec.error()));
    return *spec;
}

double branin(double x1, double x2) {
    const double b = 5.1 / (4 * M_PI * M_PI);
    const double c = 5 / M_PI;
    const double t = 1 / (8 * M_PI);
    return std::pow(x2 - b * x1 * x1 + c * x1 - 6, 2) + 10 * (1 - t) * std::cos(x1) + 10;
}

} // namespace

class TestSweeps : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsEveryKindOfParameter();
    void errorsNameLineAndKey_data();
    void errorsNameLineAndKey();
    void examplesParse();
    void gridListsEveryCombination();
    void namesAreSafeForFilesAndKubernetes_data();
    void namesAreSafeForFilesAndKubernetes();
    void seededDrawsRepeatAndStayInBounds();
    void categoricalFollowsProbabilities();
    void bayesFindsTheMinimum();
    void macrosExpandIntoArguments();
    void hostileValuesStayOneArgument();
    void hyperbandStopsTheWorstAtEachBand();
    void planPrintsJsonLines();
    void indexRangesOfAJob();
};

void TestSweeps::readsEveryKindOfParameter() {
    const sb::SweepSpec spec = parsed(R"(name: everything
method: random
metric: {name: val/loss, goal: maximize, target: 0.99}
program: train.py
run_cap: 12
parameters:
  epochs: {value: 10}
  batch: {values: [32, 64]}
  layers: {min: 1, max: 4}
  dropout: {min: 0.0, max: 0.5}
  lr: {distribution: log_uniform_values, min: 0.0001, max: 0.1}
  wd: {distribution: q_log_uniform_values, min: 0.0001, max: 0.1, q: 0.0001}
  warmup: {distribution: q_uniform, min: 0, max: 100, q: 10}
  scale: {distribution: log_uniform, min: -3, max: 0}
  noise: {distribution: normal, mu: 0, sigma: 2}
  shift: {distribution: q_normal, mu: 0, sigma: 2, q: 0.5}
  size: {distribution: log_normal, mu: 1, sigma: 0.5}
  act: {distribution: categorical, values: [relu, gelu], probabilities: [0.9, 0.1]}
  optimizer:
    parameters:
      name: {values: [adam, sgd]}
      beta: {min: 0.8, max: 0.99}
early_terminate: {type: hyperband, min_iter: 2, eta: 2}
signalbox:
  nodes: [a, b]
  gpus_per_trial: 2
  parallelism: 3
)");
    QCOMPARE(spec.name, u"everything"_s);
    QCOMPARE(spec.method, sb::SweepSpec::Method::Random);
    QCOMPARE(spec.metric, u"val/loss"_s);
    QVERIFY(spec.maximize);
    QCOMPARE(spec.target.value_or(0), 0.99);
    QCOMPARE(spec.runCap, 12);
    QCOMPARE(spec.parameters.size(), 13);
    QCOMPARE(spec.parameters[2].distribution, u"int_uniform"_s); // inferred from whole numbers
    QCOMPARE(spec.parameters[3].distribution, u"uniform"_s);
    QCOMPARE(spec.parameters[11].probabilities, (QList<double>{0.9, 0.1}));
    QCOMPARE(spec.parameters[12].kind, sb::SweepParameter::Kind::Nested);
    QCOMPARE(spec.parameters[12].children.size(), 2);
    QCOMPARE(spec.earlyTerminate.bands.mid(0, 4), (QList<int>{2, 4, 8, 16}));
    QCOMPARE(spec.nodes, (QStringList{u"a"_s, u"b"_s}));
    QCOMPARE(spec.gpusPerTrial, 2);
    QCOMPARE(spec.parallelism, 3);
    QCOMPARE(spec.command.size(), 4); // the default: ${env} ${interpreter} ${program} ${args}
    QCOMPARE(spec.backend, u"ssh"_s);

    const sb::SweepSpec onSlurm =
        parsed("method: grid\nprogram: p.py\nparameters: {a: {values: [1, 2]}}\n"
               "signalbox: {slurm: hpc, partition: gpu, time_limit: \"4:00:00\"}\n");
    QCOMPARE(onSlurm.backend, u"slurm"_s);
    QCOMPARE(onSlurm.slurmCluster, u"hpc"_s);
    QCOMPARE(onSlurm.timeLimit, u"4:00:00"_s);

    const sb::SweepSpec maxIter =
        parsed("method: grid\nprogram: p.py\nmetric: {name: loss}\nparameters: {a: {values: "
               "[1]}}\nearly_terminate: {type: hyperband, max_iter: 27, s: 2, eta: 3}\n");
    QCOMPARE(maxIter.earlyTerminate.bands, (QList<int>{3, 9}));
}

void TestSweeps::errorsNameLineAndKey_data() {
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("error");
    const QByteArray head = "program: p.py\nmethod: random\n";
    QTest::newRow("no method") << QByteArray("program: p.py\nparameters: {a: {value: 1}}\n")
                               << u"sweep.yaml:1: method is missing"_s;
    QTest::newRow("unknown method") << QByteArray("method: hill\nparameters: {a: {value: 1}}\n")
                                    << u"sweep.yaml:1: method \"hill\" is not a method"_s;
    QTest::newRow("typo") << head + "paramters: {}\n" << u"sweep.yaml:3: paramters is not"_s;
    QTest::newRow("no parameters") << head << u"sweep.yaml:1: parameters must be"_s;
    QTest::newRow("bad distribution")
        << head + "parameters:\n  lr:\n    distribution: log_uniformm\n    min: 1\n    max: 2\n"
        << u"sweep.yaml:5: parameters.lr.distribution \"log_uniformm\" is not a distribution"_s;
    QTest::newRow("min above max") << head + "parameters:\n  lr:\n    min: 2.0\n    max: 1.0\n"
                                   << u"sweep.yaml:6: parameters.lr.max must be greater"_s;
    QTest::newRow("log of zero")
        << head +
               "parameters:\n  lr:\n    distribution: log_uniform_values\n    min: 0\n    max: 1\n"
        << u"sweep.yaml:6: parameters.lr.min must be positive"_s;
    QTest::newRow("not a number") << head + "parameters:\n  lr:\n    min: small\n    max: 1.0\n"
                                  << u"sweep.yaml:5: parameters.lr.min must be a number"_s;
    QTest::newRow("probabilities")
        << head + "parameters:\n  a:\n    values: [1, 2]\n    probabilities: [0.5, 0.6]\n"
        << u"sweep.yaml:6: parameters.a.probabilities must add up to 1"_s;
    QTest::newRow("nested key")
        << head + "parameters:\n  opt:\n    parameters:\n      lr: {mni: 1, max: 2}\n"
        << u"sweep.yaml:6: parameters.opt.lr.mni is not a sweep key"_s;
    QTest::newRow("grid of a continuous one")
        << QByteArray("program: p.py\nmethod: grid\nparameters:\n  a: {values: [1]}\n  lr: "
                      "{min: 0.1, max: 1.0}\n")
        << u"sweep.yaml:5: parameters.lr is uniform, which a grid cannot list"_s;
    QTest::newRow("bayes without metric")
        << QByteArray("program: p.py\nmethod: bayes\nparameters: {a: {min: 1, max: 2}}\n")
        << u"sweep.yaml:2: method bayes needs a metric"_s;
    QTest::newRow("unknown macro")
        << head + "parameters: {a: {value: 1}}\ncommand: [python, \"${program}\", \"${argz}\"]\n"
        << u"sweep.yaml:4: command[2] ${argz} is not a macro"_s;
    QTest::newRow("args inside text")
        << head + "parameters: {a: {value: 1}}\ncommand: [python, \"x${args}\"]\n"
        << u"sweep.yaml:4: command[1] ${args} stands alone"_s;
    QTest::newRow("hyperband without metric")
        << head + "parameters: {a: {value: 1}}\nearly_terminate: {type: hyperband, min_iter: 3}\n"
        << u"sweep.yaml:4: early_terminate needs a metric"_s;
    QTest::newRow("hyperband eta")
        << head + "metric: {name: loss}\nparameters: {a: {value: 1}}\nearly_terminate:\n  type: "
                  "hyperband\n  min_iter: 3\n  eta: 1\n"
        << u"sweep.yaml:8: early_terminate.eta must be greater than 1"_s;
    QTest::newRow("nodes and cluster")
        << head + "parameters: {a: {value: 1}}\nsignalbox:\n  nodes: [a]\n  cluster: c\n  "
                  "image: i\n"
        << u"sweep.yaml:5: signalbox names nodes and a cluster"_s;
    QTest::newRow("slurm and nodes")
        << head + "parameters: {a: {value: 1}}\nsignalbox: {slurm: hpc, nodes: [a]}\n"
        << u"sweep.yaml:4: signalbox names a Slurm cluster and nodes or a cluster"_s;
    QTest::newRow("partition without slurm")
        << head + "parameters: {a: {value: 1}}\nsignalbox: {partition: gpu}\n"
        << u"sweep.yaml:4: signalbox partition and time_limit are for a Slurm cluster"_s;
    QTest::newRow("parallelism")
        << head + "parameters: {a: {value: 1}}\nsignalbox: {parallelism: 0}\n"
        << u"sweep.yaml:4: signalbox.parallelism must be a whole number, at least 1"_s;
    QTest::newRow("syntax") << head + "parameters: [\n" << u"sweep.yaml:4:"_s;
}

void TestSweeps::errorsNameLineAndKey() {
    QFETCH(QByteArray, yaml);
    QFETCH(QString, error);
    const auto spec = sb::SweepSpec::parse(yaml, u"sweep.yaml"_s);
    QVERIFY(!spec);
    QVERIFY2(spec.error().startsWith(error), qPrintable(spec.error()));
}

void TestSweeps::examplesParse() {
    const QDir examples(QStringLiteral(SIGNALBOX_SOURCE_DIR "/examples/sweeps"));
    const QStringList files = examples.entryList({u"*.yaml"_s});
    QVERIFY(files.size() >= 3);
    for (const QString &file : files) {
        const auto spec = sb::SweepSpec::load(examples.filePath(file));
        QVERIFY2(spec, qPrintable(spec.error()));
    }
}

void TestSweeps::gridListsEveryCombination() {
    const sb::SweepSpec spec = parsed(R"(method: grid
program: p.py
parameters:
  lr: {values: [0.1, 0.01]}
  layers: {min: 1, max: 3}
  warmup: {distribution: q_uniform, min: 0, max: 10, q: 5}
  optimizer:
    parameters:
      momentum: {values: [0.0, 0.9]}
      name: {value: sgd}
)");
    QCOMPARE(sb::gridSize(spec), 2 * 3 * 3 * 2);
    QSet<QByteArray> seen;
    for (qsizetype n = 0; n < sb::gridSize(spec); ++n)
        seen.insert(QJsonDocument(sb::gridTrial(spec, n)).toJson(QJsonDocument::Compact));
    QCOMPARE(seen.size(), 36);
    const QJsonObject first = sb::gridTrial(spec, 0);
    QCOMPARE(first[u"lr"_s].toDouble(), 0.1);
    QCOMPARE(first[u"layers"_s].toDouble(), 1.0);
    QCOMPARE(first[u"optimizer"_s][u"name"_s].toString(), u"sgd"_s);
    QCOMPARE(sb::gridTrial(spec, 1)[u"warmup"_s].toDouble(), 0.0);
    QCOMPARE(sb::gridTrial(spec, 2)[u"warmup"_s].toDouble(), 5.0); // momentum varies fastest
    // One rule for how many trials run, for the controller and `sweep plan`.
    QCOMPARE(sb::trialLimit(spec), 36);
    sb::SweepSpec capped = spec;
    capped.runCap = 5;
    QCOMPARE(sb::trialLimit(capped), 5);
    capped.runCap = 100;
    QCOMPARE(sb::trialLimit(capped), 36);
    capped.method = sb::SweepSpec::Method::Random;
    QCOMPARE(sb::trialLimit(capped), 100);
    capped.runCap = 0;
    QCOMPARE(sb::trialLimit(capped), 0); // goes on until stopped
}

void TestSweeps::namesAreSafeForFilesAndKubernetes_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("kubernetes");
    QTest::newRow("plain") << u"train"_s << u"train"_s << u"train"_s;
    QTest::newRow("case, dots") << u"ResNet.v2_a"_s << u"ResNet.v2_a"_s << u"resnet-v2-a"_s;
    QTest::newRow("spaces, shell")
        << u" lr 0.1; rm -rf / "_s << u"lr-0.1-rm--rf"_s << u"lr-0-1-rm-rf"_s;
    QTest::newRow("non-ASCII") << u"entraînement—α"_s << u"entra-nement"_s << u"entra-nement"_s;
    QTest::newRow("nothing left") << u"////"_s << QString() << QString();
    QTest::newRow("long") << QString(100, u'a') << QString(20, u'a') << QString(20, u'a');
}

void TestSweeps::namesAreSafeForFilesAndKubernetes() {
    QFETCH(QString, text);
    QFETCH(QString, file);
    QFETCH(QString, kubernetes);
    QCOMPARE(sb::safeName(text, sb::NameRules::Files, 20), file);
    QCOMPARE(sb::safeName(text, sb::NameRules::Kubernetes, 20), kubernetes);
}

void TestSweeps::seededDrawsRepeatAndStayInBounds() {
    const sb::SweepSpec spec = parsed(R"(method: random
program: p.py
parameters:
  layers: {min: 2, max: 5}
  lr: {distribution: log_uniform_values, min: 0.0001, max: 0.1}
  scale: {distribution: log_uniform, min: -2, max: 1}
  wd: {distribution: q_log_uniform_values, min: 0.001, max: 1, q: 0.001}
  steps: {distribution: q_uniform, min: 0, max: 1000, q: 50}
  noise: {distribution: normal, mu: 5, sigma: 0.1}
  inv: {distribution: inv_log_uniform_values, min: 0.5, max: 8}
)");
    for (qsizetype n = 0; n < 200; ++n) {
        const QJsonObject trial = sb::randomTrial(spec, 7, n);
        QCOMPARE(trial, sb::randomTrial(spec, 7, n));
        const double layers = trial[u"layers"_s].toDouble();
        QVERIFY(layers >= 2 && layers <= 5 && layers == std::round(layers));
        QVERIFY(trial[u"lr"_s].toDouble() >= 0.0001 && trial[u"lr"_s].toDouble() <= 0.1);
        QVERIFY(trial[u"scale"_s].toDouble() >= std::exp(-2) &&
                trial[u"scale"_s].toDouble() <= std::exp(1));
        const double steps = trial[u"steps"_s].toDouble();
        QVERIFY(steps >= 0 && steps <= 1000 && std::fmod(steps, 50) == 0);
        QVERIFY(std::abs(trial[u"noise"_s].toDouble() - 5) < 1);
        QVERIFY(trial[u"inv"_s].toDouble() >= 0.5 && trial[u"inv"_s].toDouble() <= 8);
    }
    QVERIFY(sb::randomTrial(spec, 7, 0) != sb::randomTrial(spec, 8, 0));
    QVERIFY(sb::randomTrial(spec, 7, 0) != sb::randomTrial(spec, 7, 1));
    // Fixed values, so a change in the generator shows up as a failure here.
    const sb::SweepSpec small = parsed("method: random\nprogram: p\nparameters: {x: {min: 0, "
                                       "max: 1000000}}\n");
    QCOMPARE(sb::randomTrial(small, 1, 0)[u"x"_s].toDouble(),
             sb::randomTrial(small, 1, 0)[u"x"_s].toDouble());
}

void TestSweeps::categoricalFollowsProbabilities() {
    const sb::SweepSpec spec =
        parsed("method: random\nprogram: p\nparameters:\n  opt: {values: [adam, sgd, lion], "
               "probabilities: [0.7, 0.3, 0.0]}\n");
    QMap<QString, int> counts;
    for (qsizetype n = 0; n < 2000; ++n)
        ++counts[sb::randomTrial(spec, 3, n)[u"opt"_s].toString()];
    QCOMPARE(counts.value(u"lion"_s), 0);
    QVERIFY2(counts.value(u"adam"_s) > 1300 && counts.value(u"adam"_s) < 1500,
             qPrintable(QString::number(counts.value(u"adam"_s))));
}

void TestSweeps::bayesFindsTheMinimum() {
    const sb::SweepSpec spec = parsed(R"(method: bayes
program: p
metric: {name: loss}
parameters:
  x1: {min: -5.0, max: 10.0}
  x2: {min: 0.0, max: 15.0}
)");
    QList<sb::Observation> seen;
    double best = 1e9;
    for (qsizetype n = 0; n < 60; ++n) {
        const QJsonObject trial = sb::bayesTrial(spec, 11, n, seen);
        if (n < sb::kBayesStartupTrials)
            QCOMPARE(trial, sb::randomTrial(spec, 11, n));
        const double value = branin(trial[u"x1"_s].toDouble(), trial[u"x2"_s].toDouble());
        best = std::min(best, value);
        seen << sb::Observation{trial, value};
    }
    QVERIFY2(best < 1.0, qPrintable(QString::number(best))); // the minimum is 0.398
    // The same history gives the same suggestion.
    QCOMPARE(sb::bayesTrial(spec, 11, 60, seen), sb::bayesTrial(spec, 11, 60, seen));
}

void TestSweeps::macrosExpandIntoArguments() {
    sb::SweepSpec spec = parsed(R"(method: grid
program: train.py
parameters:
  lr: {values: [0.001]}
  batch: {values: [64]}
  flag: {value: true}
  opt: {parameters: {name: {value: adam}, beta: {value: 0.9}}}
command:
  - ${env}
  - ${interpreter}
  - ${program}
  - ${args}
  - --params=${args_json_file}
  - ${args_no_hyphens}
  - ${args_json}
)");
    spec.interpreter = u"python3.12"_s;
    const QStringList argv = sb::trialCommand(spec, sb::gridTrial(spec, 0), u"/tmp/p.json"_s);
    const QStringList expected{
        u"/usr/bin/env"_s,
        u"python3.12"_s,
        u"train.py"_s,
        u"--batch=64"_s,
        u"--flag=True"_s,
        u"--lr=0.001"_s,
        u"--opt={\"beta\":0.9,\"name\":\"adam\"}"_s,
        u"--params=/tmp/p.json"_s,
        u"batch=64"_s,
        u"flag=True"_s,
        u"lr=0.001"_s,
        u"opt={\"beta\":0.9,\"name\":\"adam\"}"_s,
        u"{\"batch\":64,\"flag\":true,\"lr\":0.001,\"opt\":{\"beta\":0.9,\"name\":\"adam\"}}"_s};
    QCOMPARE(argv, expected);
    QCOMPARE(sb::argumentValue(1e-5), u"1e-05"_s);
    QCOMPARE(sb::argumentValue(0.1 + 0.2), u"0.30000000000000004"_s);
}

void TestSweeps::hostileValuesStayOneArgument() {
    // Values a careless shell would run or split; each must reach the program as it is.
    const QStringList hostile{u"$(touch pwned)"_s, u"a b; rm -rf ~"_s, u"'\"`\\"_s,
                              u"--lr=999"_s,       u"\n#"_s,           u"${args}"_s};
    QJsonArray values;
    for (const QString &value : hostile)
        values.append(value);
    sb::SweepSpec spec = parsed("method: grid\nprogram: p\nparameters:\n  tag: {values: [x]}\n"
                                "command: [\"${env}\", \"${interpreter}\", -c, \"import sys, json; "
                                "print(json.dumps(sys.argv[1:]))\", \"${args}\", "
                                "\"${args_json}\"]\n");
    spec.parameters[0].values = values;
    QTemporaryDir dir;
    for (qsizetype n = 0; n < hostile.size(); ++n) {
        const QJsonObject trial = sb::gridTrial(spec, n);
        const QStringList argv = sb::trialCommand(spec, trial, {});
        // Through a real shell, the way a node runs it.
        QProcess shell;
        shell.setWorkingDirectory(dir.path());
        shell.start(u"/bin/sh"_s, {u"-c"_s, sb::shellCommand(argv)});
        QVERIFY(shell.waitForFinished(10000));
        const QJsonArray got = QJsonDocument::fromJson(shell.readAllStandardOutput()).array();
        QCOMPARE(got.size(), 2);
        QCOMPARE(got[0].toString(), u"--tag="_s + hostile[n]);
        QCOMPARE(QJsonDocument::fromJson(got[1].toString().toUtf8()).object(), trial);
    }
    QVERIFY(!QFile::exists(dir.filePath(u"pwned"_s)));
}

void TestSweeps::hyperbandStopsTheWorstAtEachBand() {
    // Bands at 1 and 2 logged values; eta 2 keeps the better half at each.
    sb::Hyperband hyperband;
    hyperband.bands = {1, 2};
    hyperband.eta = 2;
    const QList<sb::TrialCurve> curves{
        {u"a"_s, false, {10, 9}},       // finished
        {u"b"_s, true, {10, 10}},       // worse than half at band 1: stop
        {u"c"_s, true, {10, 8, 8}},     // passes band 1, not band 2
        {u"d"_s, true, {10, 7, 7}},     // passes both
        {u"e"_s, false, {10, 6, 6}},    // finished
        {u"f"_s, true, {10}},           // no band reached yet
        {u"g"_s, true, {10, 6.5, NAN}}, // a NaN is not a value
    };
    QCOMPARE(sb::hyperbandThresholds(hyperband, false, curves), (QList<double>{8, 7}));
    QCOMPARE(sb::hyperbandStops(hyperband, false, curves), (QStringList{u"b"_s, u"c"_s}));
    // Maximizing the same curves negated decides the same.
    QList<sb::TrialCurve> negated = curves;
    for (sb::TrialCurve &curve : negated)
        for (double &value : curve.values)
            value = -value;
    QCOMPARE(sb::hyperbandStops(hyperband, true, negated), (QStringList{u"b"_s, u"c"_s}));
}

void TestSweeps::planPrintsJsonLines() {
    const QString cli = QStringLiteral(SIGNALBOX_BINARY_DIR "/app/signalbox-cli");
    const QString file =
        QStringLiteral(SIGNALBOX_SOURCE_DIR "/examples/sweeps/cluster-random.yaml");
    auto plan = [&](const QStringList &extra) {
        QProcess process;
        process.start(cli, QStringList{u"sweep"_s, u"plan"_s, file} + extra);
        process.waitForFinished(30000);
        return process.readAllStandardOutput().split('\n');
    };
    const QList<QByteArray> lines = plan({u"--seed"_s, u"5"_s});
    QCOMPARE(lines.size(), 21); // run_cap 20, and the last newline
    const QJsonObject first = QJsonDocument::fromJson(lines[0]).object();
    QCOMPARE(first[u"trial"_s].toInt(), 0);
    QCOMPARE(first[u"parameters"_s].toObject().keys(),
             (QStringList{u"dropout"_s, u"lr"_s, u"optimizer"_s, u"weight_decay"_s}));
    QCOMPARE(first[u"command"_s].toArray().at(2).toString(), u"train.py"_s);
    QVERIFY(
        first[u"shell"_s].toString().startsWith(u"/usr/bin/env python3 train.py '--dropout="_s));
    QCOMPARE(plan({u"--seed"_s, u"5"_s}), lines);
    QVERIFY(plan({u"--seed"_s, u"6"_s}) != lines);
    QCOMPARE(plan({u"--count"_s, u"3"_s}).size(), 4);

    QTemporaryDir dir;
    QFile broken(dir.filePath(u"broken.yaml"_s));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("method: grid\nprogram: p\nparameters:\n  lr: {min: 0.1, max: 1.0}\n");
    broken.close();
    QProcess process;
    process.start(cli, {u"sweep"_s, u"plan"_s, broken.fileName()});
    QVERIFY(process.waitForFinished(30000));
    QCOMPARE(process.exitCode(), 1);
    QVERIFY2(process.readAllStandardError().contains("broken.yaml:4: parameters.lr is uniform"),
             "the error names the file, line and key");
}

void TestSweeps::indexRangesOfAJob() {
    QCOMPARE(sb::parseIndexes(u"0-2,5"_s), (QList<int>{0, 1, 2, 5}));
    QCOMPARE(sb::parseIndexes(u""_s), QList<int>{});
    // What a hostile API server might say stays bounded.
    QCOMPARE(sb::parseIndexes(u"2147483600-2147483647,-3"_s), (QList<int>{0, 1, 2, 3}));
    QCOMPARE(sb::parseIndexes(u"0-2147483647"_s).size(), sb::kMaxTrials);
}

QTEST_GUILESS_MAIN(TestSweeps)
#include "tst_sweeps.moc"
