// The curves view in the whole window, offscreen, on a real embedded collector: the filter, run
// colours, grouped runs, annotations, summary columns and the x axis; views are saved as PNGs
// under <build>/screenshots/ to be looked at.
#include "../support/DialogAnswers.h"
#include "../support/WindowFixture.h"
#include "AnalysisPanel.h"
#include "ChartGrid.h"
#include "CurvesView.h"
#include "FrozenColumnTable.h"
#include "MainWindow.h"
#include "RunLegend.h"
#include "SavedViews.h"
#include "Settings.h"
#include "Swatches.h"
#include "charts/CurveChart.h"
#include "charts/ParallelCoordinates.h"
#include "charts/RunScatter.h"
#include "client/CollectorClient.h"
#include "collector/EmbeddedCollector.h"
#include "jobs/JobsModel.h"
#include "metrics/RunColors.h"
#include "metrics/RunsModel.h"
#include "monitor/NodeMonitor.h"

#include <QAbstractItemView>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QGridLayout>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRandomGenerator>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QUrl>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

// Counts the paint events of the widget it watches.
class PaintCounter final : public QObject {
public:
    explicit PaintCounter(int *paints)
        : m_paints(paints) {}
    bool eventFilter(QObject *, QEvent *event) override {
        *m_paints += event->type() == QEvent::Paint;
        return false;
    }

private:
    int *m_paints;
};

class TestCurvesWindow final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void theFilterDrivesTheChartsAndColoursStay();
    void groupedRunsDrawAsOneCurveWithABand();
    void tagsNotesAndSummaryColumns();
    void anotherMetricAsTheXAxis();
    void chartsThatCompose();
    void columnsAndSavedViews();
    void hyperparameterAnalysis();
    void categoriesScatterInBands();
    void scatterAxesFollowTheRuns();
    void aNameKeepsItsRoomWhenItsColourComes();

private:
    QTemporaryDir m_settings; // this run's QSettings, not the user's
};

void TestCurvesWindow::initTestCase() {
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settings.path());
}

void TestCurvesWindow::theFilterDrivesTheChartsAndColoursStay() {
    QSettings().remove(u"remembered"_s); // steps on the x axis, whatever an earlier test left
    QTemporaryDir dir;
    QVERIFY(sb::RunColors::shared().load(dir.filePath(u"run-colors.json"_s)));
    sb::Collector::Options options;
    options.dataDir = dir.path() + u"/collector"_s;
    auto embedded = sb::EmbeddedCollector::start(options);
    QVERIFY2(embedded.ok(), embedded.ok() ? "" : qPrintable(embedded.error()));
    sb::CollectorClient client((*embedded)->url(), (*embedded)->token());
    // alpha logs loss and accuracy, beta loss, gamma bleu.
    const QList<std::pair<QString, QStringList>> runs{{u"alpha"_s, {u"loss"_s, u"accuracy"_s}},
                                                      {u"beta"_s, {u"loss"_s}},
                                                      {u"gamma"_s, {u"bleu"_s}}};
    for (const auto &[run, metrics] : runs) {
        QJsonObject series;
        for (const QString &metric : metrics)
            series.insert(metric, QJsonObject{{u"step"_s, QJsonArray{0, 1, 2}},
                                              {u"value"_s, QJsonArray{1.0, 0.5, 0.25}}});
        bool done = false;
        client.push(QJsonDocument(QJsonObject{{u"run"_s, run}, {u"series"_s, series}}).toJson(),
                    this, [&done](const sb::Result<qint64> &reply) { done = reply.ok(); });
        QTRY_VERIFY(done);
    }
    sb::BackendRegistry registry;
    sb::JobsModel jobs{&registry};
    sb::NodeMonitor monitor;
    sb::MainWindow window(&client, &jobs, &monitor, dir.path() + u"/signalbox.yaml"_s);
    window.resize(1400, 860);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.showView(u"curves"_s); // whichever tab an earlier window was left on
    sb::CurvesView *curves = window.curves();
    auto charted = [curves] {
        QStringList metrics;
        for (const sb::CurveChart *chart : curves->charts())
            metrics << chart->metricName();
        metrics.sort();
        return metrics;
    };
    auto drawnOn = [curves](const QString &metric) {
        QStringList drawn;
        for (const sb::CurveChart *chart : curves->charts()) {
            for (const sb::Curve &curve : chart->curves()) {
                if (chart->metricName() == metric)
                    drawn << curve.run;
            }
        }
        drawn.sort();
        return drawn;
    };
    QTRY_COMPARE(charted(), (QStringList{u"accuracy"_s, u"bleu"_s, u"loss"_s}));
    QTRY_COMPARE(drawnOn(u"loss"_s), (QStringList{u"alpha"_s, u"beta"_s}));
    QTRY_COMPARE(drawnOn(u"bleu"_s), QStringList{u"gamma"_s});
    // Three runs, three of the palette's colours, kept in the data dir.
    QSet<QString> colours;
    for (const QString &run : {u"alpha"_s, u"beta"_s, u"gamma"_s}) {
        const auto colour = sb::RunColors::shared().existing(run);
        QVERIFY2(colour && sb::RunColors::palette().mid(0, 3).contains(*colour), qPrintable(run));
        colours << *colour;
    }
    QCOMPARE(colours.size(), 3);
    auto *legend = curves->findChild<sb::RunLegend *>(u"legend"_s);
    QTRY_VERIFY(legend->isVisible() && legend->texts().contains(u"gamma"_s));
    window.grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/curves-legend.png"_s);

    // A regular expression: the charts draw what the table shows; a chart none of them logs goes.
    auto *filter = curves->findChild<QLineEdit *>(u"filter"_s);
    auto *regex = curves->findChild<QToolButton *>(u"regex"_s);
    regex->setChecked(true);
    filter->setText(u"^(alpha|beta)$"_s);
    QTRY_COMPARE(charted(), (QStringList{u"accuracy"_s, u"loss"_s}));
    QTRY_VERIFY(!legend->texts().contains(u"gamma"_s));
    // One that does not parse matches nothing, and says why.
    filter->setText(u"(alpha"_s);
    QTRY_COMPARE(charted(), QStringList());
    auto *problem = curves->findChild<QLabel *>(u"filterProblem"_s);
    QVERIFY(problem->isVisible() && !problem->text().isEmpty());
    QTRY_VERIFY(legend->isHidden());
    // Plain text again: "gamma" alone, its one chart.
    regex->setChecked(false);
    filter->setText(u"gamma"_s);
    QTRY_COMPARE(charted(), QStringList{u"bleu"_s});
    QVERIFY(problem->isHidden());
    // A query over the runs' fields: alpha, whose last loss is below 1, and not beta.
    filter->setText(u"loss < 1 and not name = beta"_s);
    QTRY_COMPARE(charted(), (QStringList{u"accuracy"_s, u"loss"_s}));
    QTRY_COMPARE(drawnOn(u"loss"_s), QStringList{u"alpha"_s});
    QVERIFY(problem->isHidden());
    // Typed with completion: "acc" offers the metric, Enter puts it in place.
    filter->setFocus();
    filter->end(false);
    QTest::keyClicks(filter, u" or acc"_s);
    auto *completer = filter->findChild<QCompleter *>();
    QTRY_VERIFY(completer->popup()->isVisible());
    QCOMPARE(completer->currentCompletion(), u"accuracy"_s);
    // The popup never takes the keyboard (one that grabs it as it opens loses a key typed fast):
    // keys stay in the filter, which hands the popup the ones that choose.
    QCOMPARE(completer->popup()->windowType(), Qt::ToolTip);
    QCOMPARE(filter->focusPolicy(), Qt::StrongFocus); // a click still focuses the filter
    QTest::keyClick(filter, Qt::Key_Return);
    QCOMPARE(filter->text(), u"loss < 1 and not name = beta or accuracy"_s);
    // Not yet a query: it filters nothing, and says where it goes wrong.
    QTRY_COMPARE(charted().size(), 3);
    QVERIFY(problem->isVisible());
    QVERIFY2(problem->text().contains(u"column 33"_s), qPrintable(problem->text()));
    QTest::keyClicks(filter, u" > 0.9"_s);
    QTRY_COMPARE(drawnOn(u"loss"_s), QStringList{u"alpha"_s});
    QVERIFY(problem->isHidden());
    // The table: A to Z at first; the runs shown unchecked at once (the others keep theirs), and
    // checked again.
    auto *runsView = curves->findChild<sb::FrozenColumnTable *>();
    filter->setText(u"a"_s); // alpha, beta, gamma
    QTRY_COMPARE(runsView->model()->rowCount(), 3);
    QCOMPARE(runsView->model()->index(0, 0).data(sb::RunsModel::RunNameRole).toString(),
             u"alpha"_s);
    filter->setText(u"gamma"_s);
    QTRY_COMPARE(runsView->model()->rowCount(), 1);
    runsView->findChild<QAction *>(u"uncheckShown"_s)->trigger();
    QCOMPARE(curves->runsModel()->checkedRuns(), (QStringList{u"alpha"_s, u"beta"_s}));
    runsView->findChild<QAction *>(u"checkShown"_s)->trigger();
    QCOMPARE(curves->runsModel()->checkedRuns().size(), 3);
    // A job's or sweep's curves add its runs: beta's, the others still checked behind the filter.
    filter->clear();
    runsView->findChild<QAction *>(u"uncheckShown"_s)->trigger();
    curves->runsModel()->check({u"alpha"_s});
    curves->showCurvesOf({u"beta"_s});
    QCOMPARE(filter->text(), u"beta"_s);
    QCOMPARE(curves->runsModel()->checkedRuns(), (QStringList{u"alpha"_s, u"beta"_s}));
    QTRY_COMPARE(drawnOn(u"loss"_s), QStringList{u"beta"_s});
    curves->runsModel()->check({u"gamma"_s});
    // The legend can be put away.
    curves->findChild<QCheckBox *>(u"showLegend"_s)->setChecked(false);
    QVERIFY(legend->isHidden());
    filter->clear();
    QTRY_COMPARE(charted().size(), 3);
    // The user's colour: every chart repaints with it, and it is kept.
    QVERIFY(sb::RunColors::shared().setColor(u"beta"_s, u"#000000"_s));
    auto blackBeta = [curves] {
        const QList<sb::CurveChart *> charts = curves->charts(); // a copy: iterated once
        return std::any_of(charts.cbegin(), charts.cend(), [](const sb::CurveChart *chart) {
            return std::any_of(chart->curves().cbegin(), chart->curves().cend(),
                               [](const sb::Curve &c) {
                                   return c.run == u"beta"_s && c.color == QColor(Qt::black);
                               });
        });
    };
    QTRY_VERIFY(blackBeta());
    curves->findChild<QCheckBox *>(u"showLegend"_s)->setChecked(true);

    // Two runs selected: the keys of their configs that differ, side by side.
    for (const auto &[run, lr] : {std::pair{u"alpha"_s, 0.1}, std::pair{u"beta"_s, 0.2}}) {
        const QJsonObject info{{u"config"_s, QJsonObject{{u"lr"_s, lr}, {u"seed"_s, 7}}}};
        bool done = false;
        client.push(QJsonDocument(QJsonObject{{u"run"_s, run}, {u"info"_s, info}}).toJson(), this,
                    [&done](const sb::Result<qint64> &reply) { done = reply.ok(); });
        QTRY_VERIFY(done);
    }
    auto *runsTable = curves->findChild<sb::FrozenColumnTable *>();
    QTRY_VERIFY(!curves->runsModel()->info(u"beta"_s).config.isEmpty());
    runsTable->clearSelection();
    for (int row = 0; row < runsTable->model()->rowCount(); ++row) {
        const QModelIndex index = runsTable->model()->index(row, 0);
        if (index.data(sb::RunsModel::RunNameRole).toString() != u"gamma"_s)
            runsTable->selectionModel()->select(index, QItemSelectionModel::Select |
                                                           QItemSelectionModel::Rows);
    }
    runsTable->findChild<QAction *>(u"compareConfigs"_s)->trigger();
    auto *diff = window.findChild<QDialog *>(u"configDiff"_s);
    QVERIFY(diff);
    auto *table = diff->findChild<QTableWidget *>();
    QCOMPARE(table->rowCount(), 1); // lr; seed is the same
    QCOMPARE(table->verticalHeaderItem(0)->text(), u"lr"_s);
    QStringList values{table->item(0, 0)->text(), table->item(0, 1)->text()};
    values.sort();
    QCOMPARE(values, (QStringList{u"0.1"_s, u"0.2"_s}));
    diff->grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/config-diff.png"_s);
    diff->close();

    // What a run ran, as its client recorded it: plain text, markup in a command line too.
    {
        const QJsonObject info{
            {u"code"_s,
             QJsonObject{{u"commit"_s, u"0123abc"_s}, {u"dirty"_s, true}, {u"diff_bytes"_s, 120}}},
            {u"environment"_s,
             QJsonObject{{u"argv"_s, QJsonArray{u"train.py"_s, u"--name=<b>bold</b>"_s}},
                         {u"python"_s, u"3.11.7"_s}}}};
        bool done = false;
        client.push(QJsonDocument(QJsonObject{{u"run"_s, u"alpha"_s}, {u"info"_s, info}}).toJson(),
                    this, [&done](const sb::Result<qint64> &reply) { done = reply.ok(); });
        QTRY_VERIFY(done);
    }
    QTRY_VERIFY(!curves->runsModel()->info(u"alpha"_s).code.isEmpty());
    for (int row = 0; row < runsTable->model()->rowCount(); ++row) {
        const QModelIndex index = runsTable->model()->index(row, 0);
        if (index.data(sb::RunsModel::RunNameRole).toString() == u"alpha"_s)
            runsTable->setCurrentIndex(index);
    }
    runsTable->findChild<QAction *>(u"showRecord"_s)->trigger();
    auto *record = window.findChild<QDialog *>(u"runRecord"_s);
    QVERIFY(record);
    QStringList shown;
    for (const QLabel *label : record->findChildren<QLabel *>()) {
        if (label->textFormat() == Qt::PlainText)
            shown << label->text();
    }
    QVERIFY2(shown.contains(u"0123abc"_s), qPrintable(shown.join(u" | "_s)));
    QVERIFY(shown.contains(u"train.py --name=<b>bold</b>"_s));
    QVERIFY(shown.contains(u"3.11.7"_s));
    record->grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/run-record.png"_s);
    record->close();

    // alpha restarted from its checkpoint at step 0: its later points hidden, until the person
    // shows them again from the same dialog.
    {
        const QJsonObject push{
            {u"run"_s, u"alpha"_s},
            {u"batch"_s, u"restart"_s},
            {u"resume"_s, QJsonObject{{u"mode"_s, u"rewind"_s}, {u"step"_s, 0}}},
            {u"series"_s, QJsonObject{{u"loss"_s, QJsonObject{{u"step"_s, QJsonArray{1}},
                                                              {u"value"_s, QJsonArray{0.75}}}}}}};
        bool done = false;
        client.push(QJsonDocument(push).toJson(), this,
                    [&done](const sb::Result<qint64> &reply) { done = reply.ok(); });
        QTRY_VERIFY(done);
    }
    curves->refresh();
    QTRY_COMPARE(curves->runsModel()->pointCount(u"alpha"_s, u"loss"_s), 2);
    QCOMPARE(curves->runsModel()->rewinds(u"alpha"_s).size(), std::size_t(1));
    runsTable->findChild<QAction *>(u"showRecord"_s)->trigger();
    record = window.findChild<QDialog *>(u"runRecord"_s);
    QVERIFY(record);
    auto *restore = record->findChild<QPushButton *>(
        u"restoreRewind%1"_s.arg(curves->runsModel()->rewinds(u"alpha"_s).front().id));
    QVERIFY(restore);
    record->grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) +
                        u"/screenshots/run-record-restart.png"_s);
    restore->click();
    QTRY_COMPARE(curves->runsModel()->pointCount(u"alpha"_s, u"loss"_s), 4);
    QVERIFY(curves->runsModel()->rewinds(u"alpha"_s).empty());
    record->close();

    // Each chart's own options: log y on one chart alone; another pinned first, full width.
    auto chartOf = [curves](const QString &metric) {
        for (sb::CurveChart *chart : curves->charts()) {
            if (chart->metricName() == metric)
                return chart;
        }
        return static_cast<sb::CurveChart *>(nullptr);
    };
    auto choose = [](sb::CurveChart *chart, const QString &option) {
        Q_EMIT chart->optionsMenu()->aboutToShow();
        chart->optionsMenu()->findChild<QAction *>(option)->trigger();
    };
    choose(chartOf(u"loss"_s), u"logY"_s);
    QVERIFY(chartOf(u"loss"_s)->logY());
    QVERIFY(!chartOf(u"accuracy"_s)->logY());
    choose(chartOf(u"bleu"_s), u"pinned"_s);
    choose(chartOf(u"bleu"_s), u"fullWidth"_s);
    auto place = [](sb::CurveChart *chart) {
        auto *grid = qobject_cast<QGridLayout *>(chart->parentWidget()->layout());
        int row = -1, column = -1, rows = 0, columns = 0;
        grid->getItemPosition(grid->indexOf(chart), &row, &column, &rows, &columns);
        return QList<int>{row, column, columns};
    };
    QTRY_COMPARE(place(chartOf(u"bleu"_s)), (QList<int>{0, 0, 2})); // first, across both
    QCOMPARE(place(chartOf(u"accuracy"_s)), (QList<int>{1, 0, 1}));
    QCOMPARE(place(chartOf(u"loss"_s)), (QList<int>{1, 1, 1}));
    window.grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/curves-pinned.png"_s);
    // Remembered: a new window arranges them so again.
    {
        sb::MainWindow again(&client, &jobs, &monitor, dir.path() + u"/signalbox.yaml"_s);
        again.show();
        QTRY_COMPARE(again.curves()->charts().size(), 3);
        for (sb::CurveChart *chart : again.curves()->charts()) {
            QCOMPARE(chart->logY(), chart->metricName() == u"loss"_s);
            QCOMPARE(chart->pinned(), chart->metricName() == u"bleu"_s);
        }
    }
    // Metrics with prefixes come in sections that fold away (and are not fetched while folded).
    QJsonObject prefixed;
    for (const QString &metric : {u"train/loss"_s, u"train/acc"_s, u"val/loss"_s})
        prefixed.insert(
            metric, QJsonObject{{u"step"_s, QJsonArray{0, 1}}, {u"value"_s, QJsonArray{1.0, 0.5}}});
    bool pushed = false;
    client.push(
        QJsonDocument(QJsonObject{{u"run"_s, u"delta"_s}, {u"series"_s, prefixed}}).toJson(), this,
        [&pushed](const sb::Result<qint64> &reply) { pushed = reply.ok(); });
    QTRY_VERIFY(pushed);
    QTRY_COMPARE(curves->charts().size(), 6);
    auto *train = curves->findChild<QToolButton *>(u"section:train"_s);
    QVERIFY(train && curves->findChild<QToolButton *>(u"section:val"_s));
    QVERIFY(train->text().startsWith(u"train/"_s) && train->text().contains(u"(2)"_s));
    QTRY_VERIFY(!chartOf(u"train/acc"_s)->isHidden()); // once the grid has laid it out
    train->click();                                    // folded
    QVERIFY(chartOf(u"train/acc"_s)->isHidden() && chartOf(u"train/loss"_s)->isHidden());
    QVERIFY(!chartOf(u"val/loss"_s)->isHidden());
    window.grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) +
                       u"/screenshots/curves-sections.png"_s);
    train->click();
    QVERIFY(!chartOf(u"train/acc"_s)->isHidden());
    QSettings().remove(u"charts"_s);

    // Export: every point of the shown runs and charted metrics, as JSON Lines or long CSV.
    filter->setText(u"alpha"_s);
    QTRY_COMPARE(charted(), (QStringList{u"accuracy"_s, u"loss"_s}));
    QSignalSpy exported(curves, &sb::CurvesView::exported);
    curves->exportPoints(dir.filePath(u"points.jsonl"_s));
    QTRY_COMPARE(exported.size(), 1);
    QFile jsonl(dir.filePath(u"points.jsonl"_s));
    QVERIFY(jsonl.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = jsonl.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 7); // loss: 3 points and the restart's; accuracy: 3
    QSet<QString> metrics;
    for (const QByteArray &line : lines) {
        const QJsonObject point = QJsonDocument::fromJson(line).object();
        QCOMPARE(point.value(u"run"_s).toString(), u"alpha"_s);
        QVERIFY(point.value(u"value"_s).isDouble() && point.value(u"step"_s).isDouble());
        metrics.insert(point.value(u"metric"_s).toString());
    }
    QCOMPARE(metrics, (QSet<QString>{u"accuracy"_s, u"loss"_s}));
    curves->exportPoints(dir.filePath(u"points.csv"_s));
    QTRY_COMPARE(exported.size(), 2);
    QFile csv(dir.filePath(u"points.csv"_s));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QByteArray> rows = csv.readAll().trimmed().split('\n');
    QCOMPARE(rows.first(), QByteArray("run,metric,step,value,wall_time"));
    QCOMPARE(rows.size(), 8); // a header and the 7 points
    QVERIFY(rows[1].startsWith("alpha,"));
    filter->clear();
}

void TestCurvesWindow::groupedRunsDrawAsOneCurveWithABand() {
    WindowFixture fixture;
    // Two learning rates, three seeds each; and a run of no config.
    auto push = [&](const QString &run, const QJsonObject &config, int offset) {
        QJsonArray steps, values;
        for (int i = 0; i < 50; ++i) { // seeds 0.1 apart at every step
            steps.append(i * 10);
            values.append(config.value(u"lr"_s).toDouble() * 10 - i * 0.01 + offset * 0.1);
        }
        const QJsonObject body{
            {u"run"_s, run},
            {u"info"_s, QJsonObject{{u"config"_s, config}}},
            {u"series"_s,
             QJsonObject{{u"loss"_s, QJsonObject{{u"step"_s, steps}, {u"value"_s, values}}}}}};
        QVERIFY(fixture.push(body));
    };
    for (int seed = 0; seed < 3; ++seed) {
        for (const double lr : {0.1, 0.3})
            push(u"lr%1-seed%2"_s.arg(lr).arg(seed), QJsonObject{{u"lr"_s, lr}, {u"seed"_s, seed}},
                 seed);
    }
    push(u"baseline"_s, {}, 0);
    const auto shown = fixture.window();
    sb::MainWindow &window = *shown;
    sb::CurvesView *curves = window.curves();
    auto loss = [curves]() -> const sb::CurveChart * {
        for (const sb::CurveChart *chart : curves->charts()) {
            if (chart->metricName() == u"loss"_s)
                return chart;
        }
        return nullptr;
    };
    auto drawn = [&loss] {
        QStringList names;
        if (loss()) {
            for (const sb::Curve &curve : loss()->curves())
                names << curve.run + (curve.members.isEmpty()
                                          ? u""_s
                                          : u" ×%1"_s.arg(curve.members.size()));
        }
        names.sort();
        return names;
    };
    QTRY_COMPARE(drawn().size(), 7);

    // Grouped by the key "lr", ticked in the menu's dialog: two groups of three, and the baseline.
    auto *button = curves->findChild<QToolButton *>(u"group"_s);
    DialogAnswers dialogs;
    dialogs.expect(u"the grouping keys"_s, [curves](QDialog *) {
        auto *keys = curves->findChild<QListWidget *>(u"groupKeys"_s);
        QVERIFY(keys);
        QCOMPARE(keys->count(), 2); // lr, seed
        QVERIFY(keys->item(0)->text().contains(u"2 values"_s));
        keys->item(0)->setCheckState(Qt::Checked);
        keys->parentWidget()
            ->findChild<QDialogButtonBox *>()
            ->button(QDialogButtonBox::Ok)
            ->click();
    });
    button->menu()->findChild<QAction *>(u"groupBy1"_s)->trigger();
    QVERIFY(dialogs.answered());
    const QStringList grouped{u"baseline"_s, u"lr=0.1 ×3"_s, u"lr=0.3 ×3"_s};
    QTRY_COMPARE(drawn(), grouped);
    QVERIFY(button->text().contains(u"lr"_s));
    const sb::Curve group = *std::find_if(loss()->curves().cbegin(), loss()->curves().cend(),
                                          [](const auto &c) { return c.run == u"lr=0.1"_s; });
    QVERIFY(!group.lower.isEmpty() && group.lower.size() == group.upper.size());
    QVERIFY(group.lower.last().y() < group.points.last().y() &&
            group.points.last().y() < group.upper.last().y());
    QCOMPARE(group.color.name(), sb::RunColors::shared().colorOf(group.members.first()));
    window.grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/curves-groups.png"_s);
    // The chart for a paper: SVG keeps lines as vectors and says which curve is which; PNG at
    // twice the asked size. Both laid out at the asked size, the chart on screen untouched.
    {
        QSignalSpy exported(curves, &sb::CurvesView::exported);
        auto *chart = const_cast<sb::CurveChart *>(loss());
        const QSize onScreen = chart->size();
        const QString svgPath = fixture.dir.filePath(u"loss.svg"_s);
        curves->exportChart(chart, svgPath, QSize(800, 500));
        QCOMPARE(exported.size(), 1);
        QFile svg(svgPath);
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray text = svg.readAll();
        QVERIFY(text.contains("<svg") && text.contains("viewBox=\"0 0 800 500\""));
        QVERIFY(text.contains("lr=0.3") && text.contains("baseline"));   // the legend
        QVERIFY(text.contains("<polyline") && !text.contains("<image")); // vector curves
        const QString pngPath =
            QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/curves-export.png"_s;
        curves->exportChart(chart, pngPath, QSize(800, 500));
        QCOMPARE(QImage(pngPath).size(), QSize(1600, 1000));
        QCOMPARE(chart->size(), onScreen);
        curves->exportChart(chart, fixture.dir.filePath(u"tiny.png"_s), QSize(10, 10));
        QCOMPARE(exported.size(), 2); // refused, and said so
    }

    // The band's kind and the centre: three seeds 0.1 apart are ± 0.1 (std), ± 0.1/√3 (stderr),
    // and 0.2 wide from the smallest to the largest.
    const qsizetype middle = group.points.size() / 2;
    QVERIFY(std::abs(group.upper[middle].y() - group.lower[middle].y() - 0.2) < 1e-9);
    auto middleWidth = [&loss] {
        for (const sb::Curve &curve : loss()->curves()) {
            const qsizetype at = curve.lower.size() / 2;
            if (curve.run == u"lr=0.1"_s && !curve.lower.isEmpty())
                return curve.upper[at].y() - curve.lower[at].y();
        }
        return 0.0;
    };
    button->menu()->findChild<QAction *>(u"band:stderr"_s)->trigger();
    QTRY_VERIFY(std::abs(middleWidth() - 0.2 / std::sqrt(3.0)) < 1e-9);
    button->menu()->findChild<QAction *>(u"band:minmax"_s)->trigger();
    button->menu()->findChild<QAction *>(u"center:median"_s)->trigger();
    QTRY_VERIFY(std::abs(middleWidth() - 0.2) < 1e-9);
    QCOMPARE(curves->grouping().center, sb::GroupCenter::Median);
    button->menu()->findChild<QAction *>(u"band:none"_s)->trigger();
    QTRY_COMPARE(middleWidth(), 0.0);

    // The legend's entry unfolds a group into its runs, and folds it back.
    auto *legend = curves->findChild<sb::RunLegend *>(u"legend"_s);
    QTRY_VERIFY(legend->texts().contains(u"lr=0.1 (3 runs)"_s));
    const auto clickEntry = [legend](const QString &text) {
        const auto entry = static_cast<int>(legend->texts().indexOf(text));
        QVERIFY(entry >= 0);
        const QRect at = legend->visualItemRect(legend->item(entry));
        QTest::mouseClick(legend->viewport(), Qt::LeftButton, {}, at.center());
    };
    clickEntry(u"lr=0.1 (3 runs)"_s);
    QTRY_COMPARE(drawn(), (QStringList{u"baseline"_s, u"lr0.1-seed0"_s, u"lr0.1-seed1"_s,
                                       u"lr0.1-seed2"_s, u"lr=0.3 ×3"_s}));
    QTRY_VERIFY(legend->texts().contains(u"lr=0.1: as one"_s));
    clickEntry(u"lr=0.1: as one"_s);
    QTRY_COMPARE(drawn(), grouped);
    // A click on a group's curve selects its runs in the table.
    Q_EMIT const_cast<sb::CurveChart *>(loss())->runClicked(u"lr=0.3"_s);
    auto *table = curves->findChild<sb::FrozenColumnTable *>();
    QStringList selected;
    for (const QModelIndex &row : table->selectionModel()->selectedRows())
        selected << row.data(sb::RunsModel::RunNameRole).toString();
    selected.sort();
    QCOMPARE(selected, (QStringList{u"lr0.3-seed0"_s, u"lr0.3-seed1"_s, u"lr0.3-seed2"_s}));
    // The table's action unfolds the current run's group.
    table->setCurrentIndex(table->selectionModel()->selectedRows().first());
    table->findChild<QAction *>(u"toggleGroup"_s)->trigger();
    QTRY_COMPARE(drawn().size(), 5);

    // By a name pattern, and remembered by the next window; no groups again draws every run.
    sb::RunGrouping byName;
    byName.by = sb::RunGrouping::By::Pattern;
    byName.pattern = u"(.*)-seed\\d"_s;
    curves->setGrouping(byName);
    QTRY_COMPARE(drawn(), (QStringList{u"baseline"_s, u"lr0.1 ×3"_s, u"lr0.3 ×3"_s}));
    QCOMPARE(fixture.window()->curves()->grouping().pattern, byName.pattern);
    button->menu()->findChild<QAction *>(u"groupBy0"_s)->trigger();
    QTRY_COMPARE(drawn().size(), 7);
}

void TestCurvesWindow::tagsNotesAndSummaryColumns() {
    WindowFixture fixture;
    for (const QString &run : {u"first"_s, u"second"_s}) {
        const QJsonObject body{
            {u"run"_s, run},
            {u"series"_s,
             QJsonObject{{u"loss"_s, QJsonObject{{u"step"_s, QJsonArray{0, 1, 2}},
                                                 {u"value"_s, QJsonArray{3.0, 0.5, 1.0}}}}}}};
        QVERIFY(fixture.push(body));
    }
    const auto window = fixture.window();
    sb::CurvesView *curves = window->curves();
    auto *table = curves->findChild<sb::FrozenColumnTable *>();
    QTRY_COMPARE(table->model()->rowCount(), 2);
    const int lossColumn = 5;
    // The smallest value of each run's loss rather than its last.
    auto *statistic = curves->findChild<QComboBox *>(u"statistic"_s);
    statistic->setCurrentIndex(statistic->findData(int(sb::RunsModel::Statistic::Min)));
    QCOMPARE(table->model()->headerData(lossColumn, Qt::Horizontal).toString(), u"loss (min)"_s);
    QTRY_COMPARE(table->model()->index(0, lossColumn).data().toString(), u"0.5"_s);
    statistic->setCurrentIndex(statistic->findData(int(sb::RunsModel::Statistic::Last)));
    QCOMPARE(table->model()->index(0, lossColumn).data().toString(), u"1"_s);

    // Tags and a note on a run, from its context menu: kept by the collector, found by the filter.
    QModelIndex second;
    for (int row = 0; row < 2; ++row) {
        if (table->model()->index(row, 0).data(sb::RunsModel::RunNameRole) == u"second"_s)
            second = table->model()->index(row, 0);
    }
    table->setCurrentIndex(second);
    table->findChild<QAction *>(u"annotate"_s)->trigger();
    auto *dialog = curves->findChild<QDialog *>(u"annotateRun"_s);
    QVERIFY(dialog);
    dialog->findChild<QLineEdit *>(u"tags"_s)->setText(u"ablation, , no-warmup, ablation"_s);
    dialog->findChild<QPlainTextEdit *>(u"note"_s)->setPlainText(u"Warmup off: diverged twice"_s);
    dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Save)->click();
    QTRY_COMPARE(curves->runsModel()->info(u"second"_s).tags,
                 (QStringList{u"ablation"_s, u"no-warmup"_s}));
    QCOMPARE(curves->runsModel()->info(u"second"_s).note, u"Warmup off: diverged twice"_s);
    curves->findChild<QLineEdit *>(u"filter"_s)->setText(u"diverged"_s);
    QTRY_COMPARE(table->model()->rowCount(), 1);
    QCOMPARE(table->model()->index(0, 0).data(sb::RunsModel::RunNameRole).toString(), u"second"_s);
    curves->findChild<QLineEdit *>(u"filter"_s)->clear();
    QTRY_COMPARE(table->model()->rowCount(), 2);

    // Deleted from its context menu: asked first, saying what goes; Cancel keeps it, Delete
    // takes it from the collector and the table.
    table->selectRow(0); // first
    DialogAnswers answers;
    QString asked;
    answers.expect(u"the confirmation"_s, [&asked](QDialog *confirmation) {
        auto *box = qobject_cast<QMessageBox *>(confirmation);
        asked = box->text() + u' ' + box->informativeText();
        box->button(QMessageBox::Cancel)->click();
    });
    table->findChild<QAction *>(u"deleteRuns"_s)->trigger();
    QVERIFY(answers.answered());
    QVERIFY2(asked.contains(u"Delete this run for good?"_s) && asked.contains(u"first"_s) &&
                 asked.contains(u"What it logged (3 points)"_s),
             qPrintable(asked));
    QTest::qWait(200);
    QCOMPARE(table->model()->rowCount(), 2);
    answers.expect(u"the confirmation again"_s, [](QDialog *confirmation) {
        confirmation->findChild<QPushButton *>(u"confirmDeleteButton"_s)->click();
    });
    table->findChild<QAction *>(u"deleteRuns"_s)->trigger();
    QVERIFY(answers.answered());
    QTRY_COMPARE(table->model()->rowCount(), 1);
    QCOMPARE(table->model()->index(0, 0).data(sb::RunsModel::RunNameRole).toString(), u"second"_s);
    std::optional<QStringList> listed;
    fixture.client->runs({}, this, [&listed](const sb::Result<QList<sb::RunSummary>> &runs) {
        listed = QStringList();
        for (const sb::RunSummary &run : runs.value())
            *listed << run.info.name;
    });
    QTRY_VERIFY(listed);
    QCOMPARE(*listed, QStringList{u"second"_s});

    // Archived: out of the table, kept, counted; the archive shows it; brought back.
    auto *archive = curves->findChild<QToolButton *>(u"archived"_s);
    table->selectRow(0);
    table->findChild<QAction *>(u"archiveRuns"_s)->trigger();
    QTRY_COMPARE(table->model()->rowCount(), 0);
    QTRY_COMPARE(archive->text(), u"Archived (1)"_s);
    archive->setChecked(true);
    QTRY_COMPARE(table->model()->rowCount(), 1);
    curves->findChild<QLineEdit *>(u"filter"_s)->setText(u"archived = true"_s);
    QCOMPARE(table->model()->rowCount(), 1);
    curves->findChild<QLineEdit *>(u"filter"_s)->clear();
    table->selectRow(0);
    table->findChild<QAction *>(u"unarchiveRuns"_s)->trigger();
    QTRY_COMPARE(table->model()->rowCount(), 0);
    archive->setChecked(false);
    QTRY_COMPARE(table->model()->rowCount(), 1);
    QCOMPARE(archive->text(), u"Archived (0)"_s);
}

void TestCurvesWindow::anotherMetricAsTheXAxis() {
    WindowFixture fixture;
    // Two runs at different batch sizes: the same steps are different numbers of epochs.
    for (const auto &[run, batch] : {std::pair{u"small"_s, 1.0}, std::pair{u"large"_s, 4.0}}) {
        QJsonArray steps, losses, epochs;
        for (int step = 0; step < 20; ++step) {
            steps.append(step);
            losses.append(1.0 / (1 + step * batch));
            epochs.append(step * batch / 10);
        }
        const QJsonObject body{
            {u"run"_s, run},
            {u"series"_s,
             QJsonObject{{u"loss"_s, QJsonObject{{u"step"_s, steps}, {u"value"_s, losses}}},
                         {u"epoch"_s, QJsonObject{{u"step"_s, steps}, {u"value"_s, epochs}}}}}};
        QVERIFY(fixture.push(body));
    }
    // A run that logs no epoch: not drawn against it, and the chart says so.
    QVERIFY(fixture.push(QJsonObject{
        {u"run"_s, u"no-epoch"_s},
        {u"series"_s, QJsonObject{{u"loss"_s, QJsonObject{{u"step"_s, QJsonArray{0, 1}},
                                                          {u"value"_s, QJsonArray{1, 0.5}}}}}}}));
    const auto window = fixture.window();
    sb::CurvesView *curves = window->curves();
    auto *xAxis = curves->findChild<QComboBox *>(u"xAxis"_s);
    QTRY_VERIFY(xAxis->findData(u"epoch"_s) >= 0);
    xAxis->setCurrentIndex(xAxis->findData(u"epoch"_s));
    // On the loss chart, each run ends at its last epoch, not at step 19.
    auto lastX = [curves](const QString &run) {
        for (const sb::CurveChart *chart : curves->charts()) {
            for (const sb::Curve &curve : chart->curves()) {
                if (chart->metricName() == u"loss"_s && curve.run == run && !curve.points.isEmpty())
                    return curve.points.last().x();
            }
        }
        return -1.0;
    };
    QTRY_COMPARE(lastX(u"large"_s), 7.6);
    QTRY_COMPARE(lastX(u"small"_s), 1.9);
    const auto lossChart = [curves]() -> const sb::CurveChart * {
        for (const sb::CurveChart *chart : curves->charts())
            if (chart->metricName() == u"loss"_s)
                return chart;
        return nullptr;
    };
    QTRY_COMPARE(lossChart()->noteText(), u"Not drawn: no-epoch (no epoch, the x axis)"_s);
    QCOMPARE(lastX(u"no-epoch"_s), -1.0);
    // Remembered by name for the next window, whose metrics arrive later.
    const auto again = fixture.window();
    auto *againX = again->curves()->findChild<QComboBox *>(u"xAxis"_s);
    QTRY_COMPARE(againX->currentData().toString(), u"epoch"_s);
    xAxis->setCurrentIndex(0); // steps again
    QTRY_COMPARE(lastX(u"small"_s), 19.0);
    QTRY_COMPARE(lossChart()->noteText(), QString());
}

void TestCurvesWindow::chartsThatCompose() {
    WindowFixture fixture;
    // Fourteen runs of train and val loss, more than the palette's twelve colours.
    for (int i = 0; i < 14; ++i) {
        QJsonArray steps, train, val;
        for (int step = 0; step <= 1000; ++step) {
            steps.append(step);
            train.append(3.0 / std::sqrt(step + 1.0) + i * 0.01);
            val.append(3.3 / std::sqrt(step + 1.0) + i * 0.01);
        }
        QVERIFY(fixture.push(QJsonObject{
            {u"run"_s, u"seed-%1"_s.arg(i, 2, 10, QChar(u'0'))},
            {u"series"_s,
             QJsonObject{{u"train/loss"_s, QJsonObject{{u"step"_s, steps}, {u"value"_s, train}}},
                         {u"val/loss"_s, QJsonObject{{u"step"_s, steps}, {u"value"_s, val}}}}}}));
    }
    const auto window = fixture.window();
    sb::CurvesView *curves = window->curves();
    const auto chartOf = [curves](const QString &metric) -> sb::CurveChart * {
        for (sb::CurveChart *chart : curves->charts())
            if (chart->metricName() == metric)
                return chart;
        return nullptr;
    };
    QTRY_VERIFY(chartOf(u"train/loss"_s) && chartOf(u"val/loss"_s));
    sb::CurveChart *train = chartOf(u"train/loss"_s);
    sb::CurveChart *val = chartOf(u"val/loss"_s);
    QTRY_COMPARE(train->drawnLines(), 14);
    // Past the palette, runs that share a colour wear shapes, the same in the legend.
    QSet<int> shapes;
    for (const sb::Curve &curve : train->curves())
        shapes << curve.marker;
    QVERIFY(shapes.size() >= 2 && shapes.contains(0));

    // Log x: every chart's columns even in log10(step), so steps 1 to 9 are each drawn.
    curves->findChild<QCheckBox *>(u"logX"_s)->setChecked(true);
    QVERIFY(train->logX() && val->logX());
    const auto drawsStep = [](const sb::CurveChart *chart, double step) {
        const QList<sb::Curve> &drawn = chart->curves();
        return !drawn.isEmpty() && std::all_of(drawn.cbegin(), drawn.cend(), [step](const auto &c) {
            return c.points.size() > 2 && c.points.first().x() == 1 &&
                   std::any_of(c.points.cbegin(), c.points.cend(),
                               [step](const QPointF &p) { return p.x() == step; });
        });
    };
    QTRY_VERIFY(drawsStep(train, 3) && drawsStep(val, 7));

    // Zoom x on one chart: the other follows (the layout menu's choice, on at first), and asks
    // for its columns in that range.
    const QRectF plot = train->chart()->plotArea();
    const QPointF at(plot.left() + plot.width() / 2, plot.center().y());
    QWheelEvent wheel(at, train->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(train->viewport(), &wheel);
    QVERIFY(train->xRange());
    QCOMPARE(val->xRange(), train->xRange());
    QTRY_VERIFY(!val->curves().isEmpty() &&
                val->curves().first().points.first().x() >= train->xRange()->first * 0.9);
    QTest::mouseClick(train->viewport(), Qt::RightButton, {}, at.toPoint()); // fit: both
    QVERIFY(!val->xRange());
    auto *layout = curves->findChild<QToolButton *>(u"layout"_s);
    layout->menu()->findChild<QAction *>(u"syncZoom"_s)->trigger(); // off
    QApplication::sendEvent(train->viewport(), &wheel);
    QVERIFY(train->xRange() && !val->xRange());

    // Three charts a row, small: the grid lays them out so.
    layout->menu()->findChild<QAction *>(u"columns3"_s)->trigger();
    layout->menu()->findChild<QAction *>(u"height200"_s)->trigger();
    auto *grid = curves->findChild<sb::ChartGrid *>();
    QCOMPARE(grid->columns(), 3);
    QTRY_COMPARE(train->height(), 200);

    // val/loss drawn on train/loss's chart too: dashed, each curve named by its metric.
    QMenu *together = train->optionsMenu()->findChild<QMenu *>(u"drawHereToo"_s);
    Q_EMIT together->aboutToShow();
    QCOMPARE(together->actions().first()->text(), u"val/loss"_s);
    together->actions().first()->setChecked(true);
    QTRY_COMPARE(train->drawnLines(), 28);
    int dashed = 0;
    for (const sb::Curve &curve : train->curves()) {
        QVERIFY(curve.metric == u"train/loss"_s || curve.metric == u"val/loss"_s);
        dashed += curve.metric == u"val/loss"_s && curve.style == Qt::DashLine;
    }
    QCOMPARE(dashed, 14);
    // Remembered for the next window.
    const auto again = fixture.window();
    QTRY_VERIFY(std::any_of(again->curves()->charts().cbegin(), again->curves()->charts().cend(),
                            [](const sb::CurveChart *chart) {
                                return chart->otherMetrics() == QStringList{u"val/loss"_s};
                            }));
    // Taken away again: train/loss alone.
    Q_EMIT together->aboutToShow();
    together->actions().first()->setChecked(false);
    QTRY_COMPARE(train->drawnLines(), 14);

    // "Charts as PNG": the whole legend above the charts (every run named, not the three rows
    // the list shows), the charts' ⋯ buttons left out and back afterwards.
    const QString picture =
        QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/curves-picture.png"_s;
    QSignalSpy exported(curves, &sb::CurvesView::exported);
    curves->exportPicture(picture);
    QCOMPARE(exported.size(), 1);
    const QImage image(picture);
    const QImage names = curves->findChild<sb::RunLegend *>(u"legend"_s)->image(image.width());
    QVERIFY(names.height() > 40);
    QCOMPARE(image.height() / image.devicePixelRatio(),
             names.deviceIndependentSize().height() + grid->area()->height());
    QVERIFY(train->findChild<QToolButton *>(u"chartOptions"_s)->isVisible());
}

void TestCurvesWindow::columnsAndSavedViews() {
    WindowFixture fixture;
    for (int i = 0; i < 6; ++i) {
        QVERIFY(fixture.push(QJsonObject{
            {u"run"_s, u"a-rather-long-run-name-%1"_s.arg(i)},
            {u"info"_s, QJsonObject{{u"config"_s, QJsonObject{{u"lr"_s, 0.001 * (i + 1)},
                                                              {u"optimizer"_s, u"adam"_s},
                                                              {u"batch_size"_s, 32 << i}}}}},
            {u"series"_s,
             QJsonObject{{u"loss"_s, QJsonObject{{u"step"_s, QJsonArray{0, 1}},
                                                 {u"value"_s, QJsonArray{1, 0.5}}}}}}}));
    }
    const auto window = fixture.window();
    sb::CurvesView *curves = window->curves();
    auto *table = curves->findChild<sb::FrozenColumnTable *>();
    QVERIFY(table);
    QTRY_COMPARE(table->model()->rowCount(), 6);
    const auto columnOf = [table](const QString &title) {
        for (int c = 0; c < table->model()->columnCount(); ++c)
            if (table->model()->headerData(c, Qt::Horizontal).toString() == title)
                return c;
        return -1;
    };
    QTRY_VERIFY(columnOf(u"config.lr"_s) > 0);

    // The chooser: a search narrows the list; unchecking puts the column away.
    auto *chooser = curves->findChild<QToolButton *>(u"columns"_s);
    Q_EMIT chooser->menu()->aboutToShow();
    auto *list = chooser->menu()->findChild<QListWidget *>(u"columnList"_s);
    chooser->menu()->findChild<QLineEdit *>(u"columnSearch"_s)->setText(u"config."_s);
    int listed = 0;
    QListWidgetItem *lr = nullptr;
    for (int i = 0; i < list->count(); ++i) {
        listed += list->item(i)->isHidden() ? 0 : 1;
        if (list->item(i)->data(Qt::UserRole).toString() == u"config.lr"_s)
            lr = list->item(i);
    }
    QCOMPARE(listed, 3); // config.batch_size, config.lr, config.optimizer
    QVERIFY(lr);
    lr->setCheckState(Qt::Unchecked);
    QVERIFY(table->isColumnHidden(columnOf(u"config.lr"_s)));

    // The names stay in sight while the columns scroll sideways.
    table->resize(300, 300);
    QTRY_VERIFY(table->horizontalScrollBar()->maximum() > 0);
    QTableView *frozen = table->frozen();
    QVERIFY(frozen->isVisible());
    QCOMPARE(frozen->columnWidth(0), table->columnWidth(0));
    const QRect before = frozen->geometry();
    table->horizontalScrollBar()->setValue(table->horizontalScrollBar()->maximum());
    QCOMPARE(frozen->geometry(), before);
    QCOMPARE(frozen->model(), table->model());
    QCOMPARE(frozen->selectionModel(), table->selectionModel());

    // A view: saved by name, changed, put back.
    auto *filter = curves->findChild<QLineEdit *>(u"filter"_s);
    filter->setText(u"config.lr > 0.002"_s);
    curves->findChild<QCheckBox *>(u"logY"_s)->setChecked(true);
    auto *layout = curves->findChild<QToolButton *>(u"layout"_s);
    layout->menu()->findChild<QAction *>(u"columns3"_s)->trigger();
    sb::SavedViews *views = curves->savedViews();
    QVERIFY(views->save(u"lr sweep & co"_s));
    filter->clear();
    curves->findChild<QCheckBox *>(u"logY"_s)->setChecked(false);
    layout->menu()->findChild<QAction *>(u"columns1"_s)->trigger();
    lr->setCheckState(Qt::Checked);
    QVERIFY(!table->isColumnHidden(columnOf(u"config.lr"_s)));
    QVERIFY(views->apply(u"lr sweep & co"_s));
    QCOMPARE(filter->text(), u"config.lr > 0.002"_s);
    QVERIFY(curves->findChild<QCheckBox *>(u"logY"_s)->isChecked());
    QCOMPARE(curves->findChild<sb::ChartGrid *>()->columns(), 3);
    QVERIFY(table->isColumnHidden(columnOf(u"config.lr"_s)));
    QTRY_COMPARE(table->model()->rowCount(), 4);
    // The menu lists it (an & is no shortcut), and another window of this collector has it.
    Q_EMIT views->button()->menu()->aboutToShow();
    QVERIFY(views->button()->menu()->findChild<QAction *>(u"view:lr sweep & co"_s));
    QCOMPARE(fixture.window()->curves()->savedViews()->names(), QStringList{u"lr sweep & co"_s});
    // Names bounded; a view not there is not applied; a broken store lists nothing.
    QVERIFY(!views->save(QString(201, u'x')));
    QVERIFY(!views->save(u"   "_s));
    QVERIFY(!views->apply(u"no such view"_s));
    views->remove(u"lr sweep & co"_s);
    QVERIFY(views->names().isEmpty());
    // A store that is not JSON (edited by hand): nothing listed, and saving starts afresh.
    sb::writeSetting(sb::Setting::CurvesViews, QByteArray("{not json"), u"elsewhere"_s);
    sb::SavedViews elsewhere(u"elsewhere"_s, [] { return QJsonObject{{u"a"_s, 1}}; }, {});
    QVERIFY(elsewhere.names().isEmpty());
    QVERIFY(elsewhere.save(u"v"_s));
    QCOMPARE(elsewhere.names(), QStringList{u"v"_s});
}

void TestCurvesWindow::hyperparameterAnalysis() {
    WindowFixture fixture;
    // Forty runs whose validation loss is a bowl in log10(lr) and grows with dropout; each runs
    // faster with a larger batch (throughput), so loss and throughput trade off.
    QRandomGenerator random(3);
    for (int i = 0; i < 40; ++i) {
        const double lr = std::pow(10.0, -5 + 4 * random.generateDouble());
        const double dropout = 0.5 * random.generateDouble();
        const int batch = 32 << random.bounded(4);
        const double loss = 2 * std::pow(std::log10(lr) + 3, 2) + 4 * dropout + batch / 256.0;
        QVERIFY(fixture.push(QJsonObject{
            {u"run"_s, u"trial-%1"_s.arg(i, 2, 10, QChar(u'0'))},
            {u"info"_s, QJsonObject{{u"config"_s, QJsonObject{{u"lr"_s, lr},
                                                              {u"dropout"_s, dropout},
                                                              {u"batch"_s, batch},
                                                              {u"seed"_s, random.bounded(100)}}}}},
            {u"series"_s,
             QJsonObject{
                 {u"val/loss"_s, QJsonObject{{u"step"_s, QJsonArray{0, 1}},
                                             {u"value"_s, QJsonArray{loss + 1, loss}}}},
                 {u"throughput"_s, QJsonObject{{u"step"_s, QJsonArray{1}},
                                               {u"value"_s, QJsonArray{batch * 10.0}}}}}}}));
    }
    const auto window = fixture.window();
    sb::CurvesView *curves = window->curves();
    QTRY_COMPARE(curves->runsModel()->rowCount(), 40);
    curves->showAnalysisTab();
    sb::AnalysisPanel *analysis = curves->analysis();
    QTRY_VERIFY(!analysis->effects().isEmpty() && !analysis->busy());
    QCOMPARE(analysis->analysedMetric(), u"val/loss"_s); // a loss is analysed first
    QCOMPARE(analysis->effects().first().param, u"lr"_s);
    QTRY_COMPARE(analysis->coordinates()->lineCount(), 40);
    auto *importance = analysis->findChild<QTableWidget *>(u"importance"_s);
    QCOMPARE(importance->rowCount(), 4);
    // The scatter shows the most important key against the metric until one is chosen.
    QCOMPARE(analysis->findChild<QComboBox *>(u"scatterX"_s)->currentText(), u"config.lr"_s);
    QCOMPARE(analysis->findChild<QComboBox *>(u"scatterY"_s)->currentText(), u"val/loss"_s);

    // Brushing the lr axis chooses those runs in the table, and the table's choice is drawn.
    auto *table = curves->findChild<sb::FrozenColumnTable *>();
    analysis->coordinates()->brush(u"lr"_s, 1e-4, 1e-2);
    const QStringList brushed = analysis->coordinates()->brushedRuns();
    QVERIFY(brushed.size() > 5 && brushed.size() < 40);
    QStringList selected;
    for (const QModelIndex &row : table->selectionModel()->selectedRows())
        selected << row.data(sb::RunsModel::RunNameRole).toString();
    selected.sort();
    QStringList expected = brushed;
    expected.sort();
    QCOMPARE(selected, expected);
    analysis->coordinates()->clearBrushes();
    QVERIFY(table->selectionModel()->selectedRows().isEmpty());
    // A repaint for another reason, or the same selection said again, copies what was drawn;
    // a change draws the lines afresh.
    sb::ParallelCoordinates *coordinates = analysis->coordinates();
    coordinates->repaint();
    const int redraws = coordinates->redraws();
    QVERIFY(redraws > 0);
    coordinates->repaint();
    coordinates->setHighlighted({});
    coordinates->repaint();
    QCOMPARE(coordinates->redraws(), redraws);
    coordinates->setHighlighted({u"trial-01"_s});
    coordinates->repaint();
    QCOMPARE(coordinates->redraws(), redraws + 1);
    coordinates->setHighlighted({});
    // An axis moved keeps its place when the runs come again.
    analysis->coordinates()->moveAxis(u"val/loss"_s, 0);
    QCOMPARE(analysis->coordinates()->axisOrder().first(), u"val/loss"_s);

    // A row of the importance table plots the parameter against the metric; a click on a point
    // selects its run.
    Q_EMIT importance->cellClicked(0, 0);
    QCOMPARE(analysis->findChild<QComboBox *>(u"scatterX"_s)->currentText(), u"config.lr"_s);
    QCOMPARE(analysis->scatter()->pointCount(), 40);
    // Loss against throughput: the Pareto front, none of its runs beaten on both.
    analysis->setScatter(u"val/loss"_s, u"throughput"_s);
    analysis->setParetoShown(true);
    const QStringList front = analysis->scatter()->front();
    QVERIFY(!front.isEmpty() && front.size() < 40);
    const auto value = [curves](const QString &run, const QString &metric) {
        return curves->runsModel()->summaryOf(run)->metrics.value(metric).last.value;
    };
    for (const QString &run : front) {
        for (int i = 0; i < 40; ++i) {
            const QString other = u"trial-%1"_s.arg(i, 2, 10, QChar(u'0'));
            QVERIFY2(!(value(other, u"val/loss"_s) < value(run, u"val/loss"_s) &&
                       value(other, u"throughput"_s) > value(run, u"throughput"_s)),
                     qPrintable(run + u" beaten by "_s + other));
        }
    }
    const QString first = front.first();
    Q_EMIT analysis->scatter()->runClicked(first);
    QCOMPARE(table->selectionModel()->selectedRows().size(), 1);
    QCOMPARE(table->selectionModel()->selectedRows().first().data(sb::RunsModel::RunNameRole),
             QVariant(first));
    analysis->grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots/analysis.png"_s);
}

// A config key with words for values (an optimizer) is an axis of categories: each run in its
// category's band, the names in order and as plain text, a click still naming the run.
void TestCurvesWindow::categoriesScatterInBands() {
    WindowFixture fixture;
    const QStringList optimizers{u"sgd"_s, u"AdamW"_s, u"<b>adam</b>"_s};
    for (int i = 0; i < 12; ++i) {
        const QString optimizer = optimizers[i % 3];
        const double loss = 0.2 * (i % 3) + 0.01 * i;
        QJsonObject config{{u"optimizer"_s, optimizer}, {u"lr"_s, 1e-4 * (1 + i)}};
        if (i == 11)
            config[u"optimizer"_s] = 3; // a number among the words: a category of its own
        QVERIFY(fixture.push(QJsonObject{
            {u"run"_s, u"opt-%1"_s.arg(i, 2, 10, QChar(u'0'))},
            {u"info"_s, QJsonObject{{u"config"_s, config}}},
            {u"series"_s,
             QJsonObject{{u"val/loss"_s, QJsonObject{{u"step"_s, QJsonArray{0}},
                                                     {u"value"_s, QJsonArray{loss}}}}}}}));
    }
    const auto window = fixture.window();
    sb::CurvesView *curves = window->curves();
    QTRY_COMPARE(curves->runsModel()->rowCount(), 12);
    curves->showAnalysisTab();
    sb::AnalysisPanel *analysis = curves->analysis();
    QTRY_VERIFY(!analysis->effects().isEmpty() && !analysis->busy());
    analysis->setScatter(u"config.optimizer"_s, u"val/loss"_s);
    const sb::RunScatter *scatter = analysis->scatter();
    QCOMPARE(scatter->pointCount(), 12);
    QCOMPARE(scatter->xAxis().categories,
             (QStringList{u"3"_s, u"<b>adam</b>"_s, u"AdamW"_s, u"sgd"_s}));
    QVERIFY(!scatter->xAxis().log && scatter->yAxis().categories.isEmpty());
    // Each run in its category's band: the four bands left to right.
    const auto bandOf = [scatter](const QString &run) {
        const double x = scatter->positionOf(run)->x();
        return int(x / (scatter->width() / 4.0 + 1e-9));
    };
    QVERIFY(std::abs(bandOf(u"opt-11"_s) - 0) <= 1 && bandOf(u"opt-00"_s) > bandOf(u"opt-01"_s));
    QVERIFY(scatter->positionOf(u"opt-00"_s)->x() > scatter->positionOf(u"opt-02"_s)->x());
    QVERIFY(scatter->positionOf(u"opt-02"_s)->x() > scatter->positionOf(u"opt-11"_s)->x());
    // Runs of one category spread across its band, and a click names the run under it.
    QVERIFY(scatter->positionOf(u"opt-00"_s)->x() != scatter->positionOf(u"opt-03"_s)->x());
    QCOMPARE(scatter->runAt(*scatter->positionOf(u"opt-04"_s)), u"opt-04"_s);
    // Both axes categories, and a row of the importance table of a category plots it.
    analysis->setScatter(u"config.optimizer"_s, u"config.optimizer"_s);
    QCOMPARE(scatter->pointCount(), 12);
    auto *importance = analysis->findChild<QTableWidget *>(u"importance"_s);
    const QList<sb::ParamEffect> effects = analysis->effects();
    for (int row = 0; row < effects.size(); ++row) {
        if (effects[row].param == u"optimizer"_s)
            Q_EMIT importance->cellClicked(row, 0);
    }
    QCOMPARE(analysis->findChild<QComboBox *>(u"scatterX"_s)->currentText(), u"config.optimizer"_s);
    QCOMPARE(analysis->findChild<QComboBox *>(u"scatterY"_s)->currentText(), u"val/loss"_s);
    analysis->grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) +
                          u"/screenshots/analysis-categories.png"_s);
}

void TestCurvesWindow::scatterAxesFollowTheRuns() {
    // Nested config keys are axes of their own; a learning rate of 0 among decades keeps the log
    // axis (its run in a band beneath); numbers among words in order of value; an axis whose key
    // the filter takes away goes back to the automatic choice.
    WindowFixture fixture;
    const QJsonArray batches{2, 10, u"auto"_s};
    for (int i = 0; i < 10; ++i) {
        const QJsonObject config{{u"lr"_s, i == 9 ? 0.0 : std::pow(10.0, -1 - i / 2.0)},
                                 {u"batch"_s, batches[i % 3]},
                                 {u"opt"_s, QJsonObject{{u"beta"_s, 0.9 + i * 0.01}}}};
        QVERIFY(fixture.push(
            QJsonObject{{u"run"_s, u"lr-%1"_s.arg(i)},
                        {u"info"_s, QJsonObject{{u"config"_s, config}}},
                        {u"series"_s,
                         QJsonObject{{u"val/loss"_s, QJsonObject{{u"step"_s, QJsonArray{0}},
                                                                 {u"value"_s, QJsonArray{i}}}}}}}));
    }
    for (int i = 0; i < 3; ++i)
        QVERIFY(fixture.push(QJsonObject{
            {u"run"_s, u"plain-%1"_s.arg(i)},
            {u"info"_s, QJsonObject{{u"config"_s, QJsonObject{{u"lr"_s, 0.1 * (i + 1)}}}}},
            {u"series"_s,
             QJsonObject{{u"val/loss"_s, QJsonObject{{u"step"_s, QJsonArray{0}},
                                                     {u"value"_s, QJsonArray{i * 2}}}}}}}));
    const auto window = fixture.window();
    sb::CurvesView *curves = window->curves();
    QTRY_COMPARE(curves->runsModel()->rowCount(), 13);
    curves->showAnalysisTab();
    sb::AnalysisPanel *analysis = curves->analysis();
    QTRY_VERIFY(!analysis->effects().isEmpty() && !analysis->busy());
    auto *x = analysis->findChild<QComboBox *>(u"scatterX"_s);
    QStringList choices;
    for (int i = 0; i < x->count(); ++i)
        choices << x->itemText(i);
    QVERIFY2(choices.contains(u"config.opt.beta"_s) && !choices.contains(u"config.opt"_s),
             qPrintable(choices.join(u", "_s)));

    analysis->setScatter(u"config.lr"_s, u"val/loss"_s);
    const sb::RunScatter *scatter = analysis->scatter();
    QCOMPARE(scatter->pointCount(), 13);
    QVERIFY(scatter->xAxis().log);
    const double zero = scatter->positionOf(u"lr-9"_s)->x();
    for (const QString &run : {u"lr-8"_s, u"lr-0"_s, u"plain-0"_s})
        QVERIFY(zero < scatter->positionOf(run)->x());
    QVERIFY(scatter->positionOf(u"lr-8"_s)->x() < scatter->positionOf(u"lr-0"_s)->x());

    analysis->setScatter(u"config.batch"_s, u"val/loss"_s);
    QCOMPARE(scatter->xAxis().categories, (QStringList{u"2"_s, u"10"_s, u"auto"_s}));

    auto *filter = curves->findChild<QLineEdit *>(u"filter"_s);
    filter->setText(u"plain"_s);
    QTRY_COMPARE(x->currentText(), u"config.lr"_s);
    QCOMPARE(analysis->findChild<QComboBox *>(u"scatterY"_s)->currentText(), u"val/loss"_s);
    QTRY_COMPARE(scatter->pointCount(), 3);
    // Two runs: too few to rank parameters, still the one that varies against the metric.
    filter->setText(u"name ~ \"plain-[01]\""_s);
    QTRY_COMPARE(scatter->pointCount(), 2);
    QCOMPARE(x->currentText(), u"config.lr"_s);
    QVERIFY2(analysis->coordinates()->axisOrder().contains(u"lr"_s),
             qPrintable(analysis->coordinates()->axisOrder().join(u", "_s)));

    // The metric analysed follows the shown runs until the user picks one: runs that log only
    // "loss" are analysed by it, and the validation loss comes back with its runs.
    QVERIFY(fixture.push(QJsonObject{
        {u"run"_s, u"other"_s},
        {u"info"_s, QJsonObject{{u"config"_s, QJsonObject{{u"lr"_s, 0.5}}}}},
        {u"series"_s, QJsonObject{{u"loss"_s, QJsonObject{{u"step"_s, QJsonArray{0}},
                                                          {u"value"_s, QJsonArray{1}}}},
                                  {u"acc"_s, QJsonObject{{u"step"_s, QJsonArray{0}},
                                                         {u"value"_s, QJsonArray{0.5}}}}}}}));
    auto *metric = analysis->findChild<QComboBox *>(u"analysisMetric"_s);
    filter->setText(u"other"_s);
    QTRY_COMPARE(metric->currentText(), u"loss"_s);
    QCOMPARE(metric->count(), 2); // acc and loss: the shown runs' metrics only
    QTRY_COMPARE(analysis->findChild<QComboBox *>(u"scatterY"_s)->currentText(), u"loss"_s);
    filter->setText(u"lr-"_s);
    QTRY_COMPARE(metric->currentText(), u"val/loss"_s);

    // The name column, sized to short names, widens for a long one that comes into view.
    auto *table = curves->findChild<sb::FrozenColumnTable *>();
    const int narrow = table->columnWidth(0);
    const QString longName = u"resnet50-imagenet-lr3e-4-wd0.05-warmup5-seed1234"_s;
    QVERIFY(fixture.push(QJsonObject{
        {u"run"_s, longName},
        {u"series"_s, QJsonObject{{u"val/loss"_s, QJsonObject{{u"step"_s, QJsonArray{0}},
                                                              {u"value"_s, QJsonArray{1}}}}}}}));
    curves->findChild<QLineEdit *>(u"filter"_s)->setText(u"resnet"_s);
    const int wanted = std::min(table->fontMetrics().horizontalAdvance(longName),
                                table->viewport()->width() * 2 / 3);
    QTRY_VERIFY2(table->columnWidth(0) >= wanted && wanted > narrow,
                 qPrintable(u"%1 %2 %3"_s.arg(narrow).arg(table->columnWidth(0)).arg(wanted)));
}

void TestCurvesWindow::aNameKeepsItsRoomWhenItsColourComes() {
    // A column sized to its names while the runs had no colour still shows them whole after.
    QStandardItemModel model(1, 1);
    const QString run = u"never-coloured-before-%1"_s.arg(QDateTime::currentMSecsSinceEpoch());
    model.setItem(0, 0, new QStandardItem(run));
    QTableView table;
    table.setModel(&model);
    auto *delegate = new sb::RunSwatchDelegate(
        &table, [](const QModelIndex &index) { return index.data().toString(); });
    QStyleOptionViewItem option;
    option.initFrom(table.viewport());
    QVERIFY(!sb::RunColors::shared().existing(run));
    const int uncoloured = delegate->sizeHint(option, model.index(0, 0)).width();
    (void)sb::RunColors::shared().colorOf(run);
    QCOMPARE(delegate->sizeHint(option, model.index(0, 0)).width(), uncoloured);
    // A name with line breaks in it is one line still: as tall as any other.
    const int oneLineHigh = delegate->sizeHint(option, model.index(0, 0)).height();
    model.setItem(0, 0, new QStandardItem(u"a\u2028b\nc\u2029d\x1b"_s));
    QCOMPARE(delegate->sizeHint(option, model.index(0, 0)).height(), oneLineHigh);

    // A colour that comes is painted in the frozen name column too (a view within the view).
    sb::FrozenColumnTable frozen;
    frozen.setModel(&model);
    frozen.setItemDelegateForColumn(
        0, new sb::RunSwatchDelegate(
               &frozen, [](const QModelIndex &index) { return index.data().toString(); }));
    frozen.show();
    QVERIFY(QTest::qWaitForWindowExposed(&frozen));
    auto *names = frozen.findChild<QTableView *>(u"frozenColumn"_s);
    QTest::qWait(50);
    int paints = 0;
    PaintCounter counter(&paints);
    names->viewport()->installEventFilter(&counter);
    (void)sb::RunColors::shared().colorOf(run + u"-2"_s); // a colour handed out elsewhere
    QTRY_VERIFY(paints > 0);
}

QTEST_MAIN(TestCurvesWindow)
#include "tst_curveswindow.moc"
