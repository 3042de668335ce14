// The sweeps view, offscreen, on a real sweep: examples/sweeps/branin.py trials run on this
// computer, their metric lines go through a real embedded collector, bayes picks the later
// trials and hyperband stops hopeless ones. Saves <build>/screenshots/sweep-view.png.
#include "CurvesView.h"
#include "MainWindow.h"
#include "SweepsView.h"
#include "charts/ParallelCoordinates.h"
#include "client/CollectorClient.h"
#include "collector/EmbeddedCollector.h"
#include "jobs/JobsModel.h"
#include "jobs/MetricLineForwarder.h"
#include "jobs/local/LocalBackend.h"
#include "metrics/RunsModel.h"
#include "monitor/NodeMonitor.h"
#include "sweeps/Sweep.h"
#include "sweeps/TrialsModel.h"

#include <QDir>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

class TestSweepsView final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void showsASweepAndItsBest();
    void badSweepFileSaysWhere();
};

void TestSweepsView::showsASweepAndItsBest() {
    QTemporaryDir dir;
    sb::Collector::Options options;
    options.dataDir = dir.filePath(u"collector"_s);
    auto embedded = sb::EmbeddedCollector::start(options);
    QVERIFY2(embedded, qPrintable(embedded.error()));
    sb::CollectorClient client((*embedded)->url(), (*embedded)->token());
    sb::LocalBackend local({dir.path(), 2000, {}});
    sb::BackendRegistry registry;
    sb::JobsModel jobs{&registry};
    registry.add(&local);
    sb::MetricLineForwarder forwarder(&client);
    forwarder.watch(&local);
    sb::NodeMonitor monitor;
    sb::MainWindow window(&client, &jobs, &monitor, dir.filePath(u"signalbox.yaml"_s));
    window.resize(1400, 860);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    sb::SweepsView *view = window.sweeps();
    view->setStateDirectory(dir.filePath(u"sweeps"_s));

    // The example sweep, quicker: 30 trials of 30 short epochs, 4 at a time.
    QFile example(QStringLiteral(SIGNALBOX_SOURCE_DIR "/examples/sweeps/branin-bayes.yaml"));
    QVERIFY(example.open(QIODevice::ReadOnly));
    QByteArray yaml = example.readAll();
    yaml.replace("run_cap: 40", "run_cap: 30");
    yaml.replace("  epochs:\n    value: 30",
                 "  epochs:\n    value: 30\n  seconds_per_epoch:\n    value: 0.02");
    const QString file = dir.filePath(u"branin-bayes.yaml"_s);
    QFile copy(file);
    QVERIFY(copy.open(QIODevice::WriteOnly));
    copy.write(yaml);
    copy.close();
    QVERIFY(QFile::copy(QStringLiteral(SIGNALBOX_SOURCE_DIR "/examples/sweeps/branin.py"),
                        dir.filePath(u"branin.py"_s)));
    window.showView(u"sweeps"_s);
    const auto sweep = view->open(file, 8);
    QVERIFY2(sweep, qPrintable(sweep.error()));
    QTRY_VERIFY_WITH_TIMEOUT((*sweep)->state() == sb::Sweep::State::Finished, 240000);

    QCOMPARE(view->trialsModel()->rowCount(), 30);
    QCOMPARE(view->chart()->lineCount(), 30);
    const int best = (*sweep)->bestTrial();
    QVERIFY(best >= 0);
    // The best trial's row is the highlighted one, also after sorting by the metric.
    QTableView *table = view->table();
    const int bestColumn = view->trialsModel()->columnCount() - 4; // loss (best)
    table->sortByColumn(bestColumn, Qt::AscendingOrder);
    QCOMPARE(table->model()->index(0, 0).data(sb::TrialsModel::TrialRole).toInt(), best);
    QVERIFY(table->model()->index(0, 0).data(sb::TrialsModel::BestRole).toBool());
    int highlighted = 0;
    for (int row = 0; row < table->model()->rowCount(); ++row)
        highlighted += table->model()->index(row, 0).data(sb::TrialsModel::BestRole).toBool();
    QCOMPARE(highlighted, 1);
    QVERIFY(view->findChild<QLabel *>()->text().isEmpty() == false);
    // Trials after the first ten came from the model; hyperband stopped some.
    int early = 0;
    for (const sb::Trial &trial : (*sweep)->trials())
        early += trial.earlyStopped;
    qInfo("best trial %d: loss %.4f; %d of 30 stopped early", best,
          *(*sweep)->trials()[best].best(false), early);

    const QString shots = QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots"_s;
    QDir().mkpath(shots);
    QTest::qWait(300);
    QVERIFY(window.grab().save(shots + u"/sweep-view.png"_s));

    // "Show curves": the curves view charts the sweep's runs alone.
    QTRY_VERIFY_WITH_TIMEOUT(window.curves()->runsModel()->rowCount() >= 30, 20000);
    const auto buttons = view->findChildren<QPushButton *>();
    const auto curves = std::find_if(buttons.begin(), buttons.end(),
                                     [](QPushButton *b) { return b->text() == u"Show curves"_s; });
    QVERIFY(curves != buttons.end());
    (*curves)->click();
    QCOMPARE(window.findChild<QTabWidget *>()->currentWidget(), window.curves());
    QStringList checked = window.curves()->runsModel()->checkedRuns();
    QStringList runs = (*sweep)->runs();
    checked.sort();
    runs.sort();
    QCOMPARE(checked, runs);
    QTest::qWait(1500);
    QVERIFY(window.grab().save(shots + u"/sweep-curves.png"_s));

    // Extend: four more trials, and the sweep runs again.
    window.showView(u"sweeps"_s);
    view->findChild<QSpinBox *>()->setValue(4);
    const auto extend = std::find_if(buttons.begin(), buttons.end(),
                                     [](QPushButton *b) { return b->text() == u"Extend"_s; });
    (*extend)->click();
    QCOMPARE((*sweep)->limit(), 34);
    QTRY_VERIFY_WITH_TIMEOUT((*sweep)->state() == sb::Sweep::State::Finished, 120000);
    QCOMPARE(view->trialsModel()->rowCount(), 34);
}

void TestSweepsView::badSweepFileSaysWhere() {
    QTemporaryDir dir;
    sb::CollectorClient client(QUrl(u"http://127.0.0.1:9"_s), {});
    sb::LocalBackend local({dir.path(), 2000, {}});
    sb::BackendRegistry registry;
    sb::JobsModel jobs{&registry};
    registry.add(&local);
    sb::SweepsView view(&jobs, &client);
    view.setStateDirectory(dir.filePath(u"sweeps"_s));
    QFile file(dir.filePath(u"bad.yaml"_s));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("method: bayes\nprogram: p.py\nparameters:\n  lr: {min: 0.1, max: 1.0}\n");
    file.close();
    const auto refused = view.open(file.fileName(), 1);
    QVERIFY(!refused);
    QCOMPARE(refused.error(), file.fileName() + u":1: method bayes needs a metric (metric.name)"_s);
    QVERIFY(view.sweeps().isEmpty());
    // A corrupt state file is reported, and the others still load.
    QDir().mkpath(dir.filePath(u"sweeps"_s));
    QFile corrupt(dir.filePath(u"sweeps/broken.json"_s));
    QVERIFY(corrupt.open(QIODevice::WriteOnly));
    corrupt.write("{\"version\": 1, \"trials\": [");
    corrupt.close();
    QSignalSpy errors(&view, &sb::SweepsView::error);
    view.resumeAll();
    QCOMPARE(errors.size(), 1);
    QVERIFY(errors[0][0].toString().contains(u"broken.json: not a sweep's state"_s));
}

QTEST_MAIN(TestSweepsView)
#include "tst_sweepsview.moc"
