#include "jobs/JobsModel.h"
#include "jobs/LocalBackend.h"
#include "metrics/MetricLineParser.h"
#include "metrics/RunsModel.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
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
    void jobsModel();
};

void TestModels::runsModel() {
    sb::RunsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRuns({run(u"a"_s, 1.0, {{u"lr"_s, 0.1}}), run(u"b"_s, 2.0, {{u"lr"_s, 0.2}}),
                   sb::RunSummary::fromJson(
                       {{u"name"_s, u"no-metrics-yet"_s}, {u"metrics"_s, QJsonObject{}}})});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), 5); // name, status, host, loss, lr
    QCOMPARE(model.headerData(3, Qt::Horizontal).toString(), u"loss"_s);
    QCOMPARE(model.headerData(4, Qt::Horizontal).toString(), u"lr"_s);
    QCOMPARE(model.index(1, 4).data().toDouble(), 0.2);
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
    QCOMPARE(model.index(0, 3).data(sb::RunsModel::SortRole).toDouble(), 0.5);
    // A new hyperparameter changes the columns: a reset, and the check on "a" still holds.
    model.setRuns({run(u"a"_s, 0.5, {{u"seed"_s, 1}})});
    QCOMPARE(resets.size(), 1);
    QCOMPARE(model.checkedRuns(), QStringList());
    // A last value that is not finite reads as what it is (before: an Infinity showed as 0).
    model.setRuns({run(u"a"_s, qInf()), run(u"b"_s, -qInf()), run(u"c"_s, qQNaN())});
    QCOMPARE(model.index(0, 3).data().toString(), u"inf"_s);
    QCOMPARE(model.index(1, 3).data().toString(), u"-inf"_s);
    QCOMPARE(model.index(2, 3).data().toString(), u"nan"_s);
    QCOMPARE(model.index(0, 3).data(sb::RunsModel::SortRole).toDouble(), qInf());
}

void TestModels::jobsModel() {
    QTemporaryDir dir;
    sb::LocalBackend backend({dir.path(), 1000, {}});
    sb::JobsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.addBackend(&backend);
    QCOMPARE(model.backend(u"local"_s), &backend);
    const auto first = backend.submit({.name = u"one"_s, .command = {u"/bin/true"_s}});
    const auto second = backend.submit({.name = u"two"_s, .command = {u"/bin/false"_s}});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, sb::JobsModel::Name).data().toString(), *second); // newest first
    QTRY_COMPARE(model.index(0, sb::JobsModel::ExitCode).data().toInt(), 1);
    QTRY_VERIFY(model.index(0, sb::JobsModel::State).data().toString().startsWith(u"failed"_s));
    QTRY_COMPARE(model.index(1, sb::JobsModel::State).data().toString(), u"succeeded"_s);
    QCOMPARE(model.index(1, sb::JobsModel::Backend).data().toString(), u"local"_s);
    QCOMPARE(model.index(1, 0).data(sb::JobsModel::JobIdRole).toString(), *first);

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
}

QTEST_GUILESS_MAIN(TestModels)
#include "tst_models.moc"
