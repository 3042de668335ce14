#include "metrics/ParamAnalysis.h"

#include <QJsonArray>
#include <QRandomGenerator>
#include <QTest>

#include <cmath>

using namespace Qt::StringLiterals;

namespace {

sb::RunSummary run(const QString &name, const QJsonObject &config, const QString &metric,
                   double last) {
    sb::RunSummary summary;
    summary.info.name = name;
    summary.info.config = config;
    sb::MetricSummary values;
    values.count = 1;
    values.last.value = last;
    values.range = std::make_pair(last, last);
    summary.metrics.insert(metric, values);
    return summary;
}

// A sweep whose answer is known: the loss is a bowl in log10(lr) (its best at 1e-3), grows with
// dropout, is higher with SGD, and owes nothing to the seed or the batch size.
QList<sb::RunSummary> knownSweep(int runs) {
    QRandomGenerator random(7);
    QList<sb::RunSummary> sweep;
    const QStringList optimizers{u"adam"_s, u"sgd"_s};
    for (int i = 0; i < runs; ++i) {
        const double lr = std::pow(10.0, -5 + 4 * random.generateDouble());
        const double dropout = 0.5 * random.generateDouble();
        const QString optimizer = optimizers[random.bounded(2)];
        const int batch = 32 << random.bounded(4);
        const double loss = 2 * std::pow(std::log10(lr) + 3, 2) + 4 * dropout +
                            (optimizer == u"sgd"_s ? 0.8 : 0) + 0.05 * random.generateDouble();
        sweep << run(u"trial-%1"_s.arg(i),
                     {{u"lr"_s, lr},
                      {u"dropout"_s, dropout},
                      {u"optimizer"_s, optimizer},
                      {u"data"_s, QJsonObject{{u"batch"_s, batch}, {u"shuffle"_s, true}}},
                      {u"seed"_s, random.bounded(1000)}},
                     u"val/loss"_s, loss);
    }
    return sweep;
}

} // namespace

class TestParamAnalysis final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Values at the ends of the double range (a diverged loss of 1e308, an lr of 1e-320) keep
    // the importance and correlations finite; a number written as text ("1e-4" from a command
    // line) or left blank in one run keeps its key a number.
    void extremeValuesAndNumbersAsText() {
        QList<sb::RunSummary> runs;
        for (int i = 0; i < 30; ++i) {
            QJsonObject config{{u"width"_s, 1e300 * (1 + i)},
                               {u"lr"_s, 1e-320 * (30 - i)},
                               {u"seed"_s, (i * 7919) % 13}};
            if (i == 3)
                config[u"lr"_s] = u"1e-4"_s;
            if (i == 4)
                config[u"lr"_s] = u" "_s;
            runs << run(u"r%1"_s.arg(i, 2, 10, QChar(u'0')), config, u"loss"_s, 1e306 * (1 + i));
        }
        const sb::ParamTable table = sb::paramTable(runs, u"loss"_s, sb::MetricStatistic::Last);
        const auto lr = std::find_if(table.params.begin(), table.params.end(),
                                     [](const sb::ParamColumn &c) { return c.name == u"lr"_s; });
        QVERIFY(lr != table.params.end());
        QVERIFY(!lr->categorical);
        QCOMPARE(lr->values[3], 1e-4);
        QVERIFY(std::isnan(lr->values[4]));
        const QList<sb::ParamEffect> effects = sb::paramEffects(table, {});
        QCOMPARE(effects.size(), 3);
        for (const sb::ParamEffect &effect : effects) {
            QVERIFY2(std::isfinite(effect.importance), qPrintable(effect.param));
            QVERIFY2(effect.correlation && std::isfinite(*effect.correlation),
                     qPrintable(effect.param));
            if (effect.param == u"width"_s)
                QVERIFY(*effect.correlation > 0.99); // the loss grows with it, exactly
        }
        QCOMPARE(effects.first().param, u"width"_s);
    }

    void zerosAmongDecadesAndTheOrderOfCategories() {
        // A weight decay of 0 among 1e-5..1e-1: still read in log10, the zeros the least (not
        // missing), so the loss that grows with it correlates exactly in rank.
        QList<sb::RunSummary> runs;
        for (int i = 0; i < 24; ++i) {
            const int decade = i % 6; // 0: a decay of zero
            const double decay = decade == 0 ? 0.0 : std::pow(10.0, -6 + decade);
            runs << run(u"r%1"_s.arg(i, 2, 10, QChar(u'0')),
                        {{u"decay"_s, decay}, {u"seed"_s, i % 5}}, u"loss"_s, decade + 0.01 * i);
        }
        const sb::ParamTable table = sb::paramTable(runs, u"loss"_s, sb::MetricStatistic::Last);
        const auto decay =
            std::find_if(table.params.begin(), table.params.end(),
                         [](const sb::ParamColumn &c) { return c.name == u"decay"_s; });
        QVERIFY(decay != table.params.end() && decay->logScale);
        const QList<sb::ParamEffect> effects = sb::paramEffects(table, {});
        QCOMPARE(effects.first().param, u"decay"_s);
        QVERIFY(effects.first().correlation && *effects.first().correlation > 0.9);
        // Categories: "(none)" first, numbers by value, then words A to Z.
        QStringList categories{u"sgd"_s,  u"10"_s,   u"(none)"_s, u"2"_s,
                               u"adam"_s, u"Adam"_s, u"1e-3"_s};
        sb::sortCategories(&categories);
        QCOMPARE(categories, (QStringList{u"(none)"_s, u"1e-3"_s, u"2"_s, u"10"_s, u"Adam"_s,
                                          u"adam"_s, u"sgd"_s}));
    }

    void tableOfTheRunsThatHaveTheMetric() {
        QList<sb::RunSummary> runs = knownSweep(20);
        runs << run(u"diverged"_s, {{u"lr"_s, 1.0}}, u"val/loss"_s, qInf());
        runs << run(u"other"_s, {{u"lr"_s, 1.0}}, u"val/acc"_s, 0.5);
        const sb::ParamTable table = sb::paramTable(runs, u"val/loss"_s, sb::MetricStatistic::Last);
        QCOMPARE(table.runs.size(), 20); // not the infinite one, nor one without the metric
        QStringList names;
        for (const sb::ParamColumn &param : table.params)
            names << param.name;
        // Nested keys flattened; data.shuffle is the same everywhere and says nothing.
        QCOMPARE(names,
                 (QStringList{u"data.batch"_s, u"dropout"_s, u"lr"_s, u"optimizer"_s, u"seed"_s}));
        const auto param = [&table](const QString &name) {
            return *std::find_if(table.params.cbegin(), table.params.cend(),
                                 [&name](const sb::ParamColumn &p) { return p.name == name; });
        };
        QVERIFY(param(u"lr"_s).logScale);
        QVERIFY(!param(u"dropout"_s).logScale);
        QVERIFY(param(u"optimizer"_s).categorical);
        QCOMPARE(param(u"optimizer"_s).values.size(), std::size_t(20));
        // A key some runs lack is a category of its own ("(none)") or a missing number.
        const sb::ParamTable some =
            sb::paramTable({run(u"a"_s, {{u"x"_s, 1}}, u"m"_s, 1), run(u"b"_s, {}, u"m"_s, 2),
                            run(u"c"_s, {{u"x"_s, 3}, {u"kind"_s, u"big"_s}}, u"m"_s, 3)},
                           u"m"_s, sb::MetricStatistic::Last);
        QCOMPARE(some.params.size(), std::size_t(2));
        QCOMPARE(some.params[0].name, u"kind"_s);
        QCOMPARE(some.params[0].categories, (QStringList{u"(none)"_s, u"big"_s}));
        QVERIFY(std::isnan(some.params[1].values[1]));
    }

    void importanceFindsTheKnownAnswer() {
        const sb::ParamTable table =
            sb::paramTable(knownSweep(400), u"val/loss"_s, sb::MetricStatistic::Last);
        const QList<sb::ParamEffect> effects = sb::paramEffects(table);
        QCOMPARE(effects.size(), 5);
        QHash<QString, sb::ParamEffect> by;
        double total = 0;
        for (const sb::ParamEffect &effect : effects) {
            by.insert(effect.param, effect);
            total += effect.importance;
        }
        QVERIFY(std::abs(total - 1) < 1e-9);
        // The learning rate explains most, though its correlation is near zero (a bowl): why
        // importance is asked for, not correlation alone.
        QCOMPARE(effects.first().param, u"lr"_s);
        QVERIFY2(by[u"lr"_s].importance > 0.6, qPrintable(QString::number(by[u"lr"_s].importance)));
        QVERIFY(std::abs(*by[u"lr"_s].correlation) < 0.3);
        // Dropout and the optimizer matter; the seed and the batch size do not (the impurity a
        // forest's splits remove would credit the seed's many values with a tenth).
        for (const QString &idle : {u"seed"_s, u"data.batch"_s}) {
            QVERIFY2(by[idle].importance < by[u"dropout"_s].importance &&
                         by[idle].importance < by[u"optimizer"_s].importance,
                     qPrintable(idle));
            QVERIFY(by[idle].importance < 0.01); // a seed's thousand values explain nothing
            QVERIFY(std::abs(*by[idle].correlation) < 0.15);
        }
        QVERIFY(*by[u"dropout"_s].correlation > 0.1); // more dropout, more loss
        QVERIFY(!by[u"optimizer"_s].signedCorrelation);
        QVERIFY(*by[u"optimizer"_s].correlation > 0.1);
        // The same runs, the same answer, in whatever order they are listed.
        QList<sb::RunSummary> reversed = knownSweep(400);
        std::reverse(reversed.begin(), reversed.end());
        const QList<sb::ParamEffect> again =
            sb::paramEffects(sb::paramTable(reversed, u"val/loss"_s, sb::MetricStatistic::Last));
        for (qsizetype i = 0; i < effects.size(); ++i)
            QCOMPARE(again[i].importance, effects[i].importance);
        // Cancelled: nothing, at once.
        std::atomic_bool stop{true};
        sb::ForestOptions options;
        options.cancelled = &stop;
        QVERIFY(sb::paramEffects(table, options).isEmpty());
    }

    void namesAreNotSettings() {
        // An id per run explains nothing: left out; a text key of three values with no effect
        // reads near zero, bias taken out.
        QList<sb::RunSummary> runs;
        QRandomGenerator random(11);
        for (int i = 0; i < 60; ++i)
            runs << run(u"r%1"_s.arg(i),
                        {{u"id"_s, u"run-%1-%2"_s.arg(i).arg(random.generate())},
                         {u"kind"_s, QStringList{u"a"_s, u"b"_s, u"c"_s}[i % 3]},
                         {u"x"_s, i}},
                        u"m"_s, i + random.generateDouble());
        const sb::ParamTable table = sb::paramTable(runs, u"m"_s, sb::MetricStatistic::Last);
        QCOMPARE(table.params.size(), std::size_t(2)); // kind and x
        for (const sb::ParamEffect &effect : sb::paramEffects(table)) {
            if (effect.param == u"kind"_s)
                QVERIFY2(effect.correlation.value_or(0) < 0.2,
                         qPrintable(QString::number(effect.correlation.value_or(-1))));
        }
    }

    void correlationIsPearsons() {
        QList<sb::RunSummary> runs;
        for (int i = 0; i < 50; ++i)
            runs << run(u"r%1"_s.arg(i), {{u"up"_s, i}, {u"down"_s, -2.0 * i}}, u"m"_s,
                        3.0 * i + 1);
        const QList<sb::ParamEffect> effects =
            sb::paramEffects(sb::paramTable(runs, u"m"_s, sb::MetricStatistic::Last));
        for (const sb::ParamEffect &effect : effects)
            QCOMPARE(*effect.correlation, effect.param == u"up"_s ? 1.0 : -1.0);
    }

    void fewOrStrangeRuns() {
        QVERIFY(sb::paramEffects(sb::paramTable({}, u"m"_s, sb::MetricStatistic::Last)).isEmpty());
        QVERIFY(sb::paramEffects(sb::paramTable({run(u"a"_s, {{u"x"_s, 1}}, u"m"_s, 1),
                                                 run(u"b"_s, {{u"x"_s, 2}}, u"m"_s, 2)},
                                                u"m"_s, sb::MetricStatistic::Last))
                    .isEmpty());
        // One metric for every run, huge values: no split explains anything, nothing breaks.
        QList<sb::RunSummary> flat, huge;
        for (int i = 0; i < 30; ++i) {
            flat << run(u"f%1"_s.arg(i), {{u"x"_s, i}}, u"m"_s, 1);
            huge << run(u"h%1"_s.arg(i), {{u"x"_s, i}}, u"m"_s, i % 2 ? 1e300 : -1e300);
        }
        const auto flatEffects =
            sb::paramEffects(sb::paramTable(flat, u"m"_s, sb::MetricStatistic::Last));
        QCOMPARE(flatEffects.size(), 1);
        QCOMPARE(flatEffects.first().importance, 0.0);
        QVERIFY(!flatEffects.first().correlation);
        for (const sb::ParamEffect &effect :
             sb::paramEffects(sb::paramTable(huge, u"m"_s, sb::MetricStatistic::Last)))
            QVERIFY(std::isfinite(effect.importance));
    }

    void paretoFrontOfTwoMetrics() {
        // Loss (smaller better) against throughput (larger better).
        const std::vector<double> loss{0.5, 0.4, 0.45, 0.3, 0.6, qQNaN(), 0.3};
        const std::vector<double> speed{100, 80, 50, 60, 120, 500, 40};
        const std::vector<qsizetype> front = sb::paretoFront(loss, speed, true, false);
        // 3 (0.3, 60) beats 6 (0.3, 40); 1 (0.4, 80); 0 (0.5, 100); 4 (0.6, 120); 2 is beaten
        // by 1; 5 has no loss.
        QCOMPARE(front, (std::vector<qsizetype>{3, 1, 0, 4}));
        QVERIFY(sb::paretoFront({}, {}, true, true).empty());
    }
};

QTEST_GUILESS_MAIN(TestParamAnalysis)
#include "tst_paramanalysis.moc"
