#include "charts/CurveChart.h"

#include <QGraphicsScene>
#include <QMenu>
#include <QSignalSpy>
#include <QTest>

#include <cmath>

using namespace Qt::StringLiterals;

namespace {
QList<QPointF> line(int n, double slope, double offset = 0) {
    QList<QPointF> points;
    for (int i = 0; i < n; ++i)
        points.append(QPointF(i, offset + slope * i));
    return points;
}
// The x range the chart draws.
sb::AxisScale xAxis(const sb::CurveChart &chart) {
    return chart.xScale();
}
} // namespace

class TestCurveChart final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fitsAndReplacesSeries();
    void wheelZoomSurvivesLiveUpdates();
    void aChartOfNaNSaysSo();
    void rubberBandZoomAndRightClickReset();
    void logYDropsNonPositivePoints();
    void wallClockAxis();
    void valuesNearTheDoubleRangeStillDraw();
    void aCurveOfOnePointIsADot();
    void readoutListsEveryRunAtTheCursorHighestFirst();
    void hoverEmphasisesACurveAndAClickNamesIt();
    void extremeRangesDrawAHandfulOfTicks();
    void logXIsEvenInDecades();
    void metricsTogetherAndShapesPastThePalette();
};

void TestCurveChart::fitsAndReplacesSeries() {
    sb::CurveChart chart(u"loss"_s);
    chart.resize(600, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.setCurves(
        {{u"a"_s, Qt::red, line(100, 1), line(100, 2)}, {u"b"_s, Qt::blue, line(50, -1), {}}});
    QCOMPARE(chart.drawnLines(), 3); // a, a's raw curve, b
    QVERIFY(xAxis(chart).lo <= 0 && xAxis(chart).hi >= 99);
    QVERIFY(!chart.xRange());
    chart.setCurves({{u"b"_s, Qt::blue, line(10, 1), {}}});
    QCOMPARE(chart.drawnLines(), 1);
    QCOMPARE(chart.drawnPoints(), 10);
    QVERIFY(chart.plotWidth() > 300);
}

void TestCurveChart::aChartOfNaNSaysSo() {
    sb::CurveChart chart(u"loss"_s);
    chart.resize(600, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QList<QPointF> diverged;
    for (int i = 0; i < 10; ++i)
        diverged << QPointF(i, i % 2 ? qQNaN() : qInf());
    chart.setCurves({{u"a"_s, Qt::red, diverged, {}}});
    QVERIFY(chart.noteText().contains(u"NaN"_s));
    diverged[3].setY(0.5); // one number: drawn, nothing to say
    chart.setCurves({{u"a"_s, Qt::red, diverged, {}}});
    QVERIFY(chart.noteText().isEmpty());
    chart.setCurves({});
    QVERIFY(chart.noteText().isEmpty()); // no points at all: nothing to say either
    // As the feed hands them over: the NaN left out of the points, and counted.
    chart.setCurves({{u"a"_s, Qt::red, {}, {}, {}, {}, {}, 10}});
    QVERIFY(chart.noteText().contains(u"NaN"_s));
}

void TestCurveChart::wheelZoomSurvivesLiveUpdates() {
    sb::CurveChart chart(u"loss"_s);
    chart.resize(600, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.setCurves({{u"a"_s, Qt::red, line(1000, 1), {}}});
    QSignalSpy viewport(&chart, &sb::CurveChart::viewportChanged);
    const QPointF center = chart.chart()->plotArea().center();
    // The plain wheel is the page's, to scroll: the chart leaves it alone.
    QWheelEvent scroll(center, chart.mapToGlobal(center), QPoint(), QPoint(0, 120), Qt::NoButton,
                       Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(chart.viewport(), &scroll);
    QVERIFY(!scroll.isAccepted());
    QVERIFY(!chart.xRange());
    QWheelEvent wheel(center, chart.mapToGlobal(center), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(chart.viewport(), &wheel);
    QVERIFY(chart.xRange());
    QVERIFY(!viewport.isEmpty());
    const auto zoomed = *chart.xRange();
    QVERIFY(zoomed.second - zoomed.first < 999 * 0.85);
    chart.setCurves({{u"a"_s, Qt::red, line(2000, 1), {}}}); // new points arrive
    QCOMPARE(*chart.xRange(), zoomed);
    QCOMPARE(xAxis(chart).lo, zoomed.first);
    chart.resetZoom();
    QVERIFY(!chart.xRange());
    QVERIFY(xAxis(chart).hi >= 1999);
}

void TestCurveChart::rubberBandZoomAndRightClickReset() {
    sb::CurveChart chart(u"loss"_s);
    chart.resize(600, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.setCurves({{u"a"_s, Qt::red, line(1000, 1), {}}});
    const QRectF plot = chart.chart()->plotArea();
    const QPoint from = (plot.topLeft() + QPointF(plot.width() * 0.25, 10)).toPoint();
    const QPoint to = (plot.topLeft() + QPointF(plot.width() * 0.5, plot.height() - 10)).toPoint();
    QTest::mousePress(chart.viewport(), Qt::LeftButton, {}, from);
    QTest::mouseMove(chart.viewport(), to);
    QTest::mouseRelease(chart.viewport(), Qt::LeftButton, {}, to);
    QVERIFY(chart.xRange());
    QVERIFY2(chart.xRange()->first > 150 && chart.xRange()->second < 600,
             qPrintable(u"%1..%2"_s.arg(chart.xRange()->first).arg(chart.xRange()->second)));
    QTest::mouseClick(chart.viewport(), Qt::RightButton, {}, from);
    QVERIFY(!chart.xRange());
}

void TestCurveChart::logYDropsNonPositivePoints() {
    sb::CurveChart chart(u"loss"_s);
    chart.setCurves({{u"a"_s, Qt::red, line(10, 1, -3), {}}}); // -3 .. 6
    chart.resize(600, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.setLogY(true);
    QCOMPARE(chart.drawnPoints(), 6);
    chart.setLogY(false);
    QCOMPARE(chart.drawnPoints(), 10);
}

void TestCurveChart::wallClockAxis() {
    sb::CurveChart chart(u"loss"_s);
    chart.resize(600, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QList<QPointF> points{{1.7e9, 1.0}, {1.7e9 + 3600, 0.5}};
    chart.setXUnits(sb::TickUnits::Clock);
    chart.setCurves({{u"a"_s, Qt::red, points, {}}});
    QCOMPARE(xAxis(chart).lo, 1.7e9);
    QCOMPARE(xAxis(chart).hi, 1.7e9 + 3600);
    QCOMPARE(chart.drawnPoints(), 2);
    // Ticks at round clock times (1.7e9 is 22:13:20 UTC): every ten minutes or so, on the minute.
    const QList<sb::Tick> ticks = chart.ticksOf(Qt::Horizontal);
    QVERIFY2(ticks.size() >= 3, qPrintable(QString::number(ticks.size())));
    for (const sb::Tick &tick : ticks) {
        QVERIFY2(std::fmod(tick.at, 60) == 0, qPrintable(tick.label));
        QVERIFY(tick.label.contains(u':') && tick.label.size() == 5); // hh:mm
    }
    chart.setXUnits(sb::TickUnits::Number);
    QCOMPARE(xAxis(chart).lo, 1.7e9);
}

// Before: one value of +-1e308 made the y range infinite, and the whole chart blank.
void TestCurveChart::valuesNearTheDoubleRangeStillDraw() {
    sb::CurveChart chart(u"loss"_s);
    chart.setCurves({{u"a"_s, Qt::red, {{0, 1}, {1, -1e308}, {2, 1.7e308}, {3, 2}}, {}},
                     {u"b"_s, Qt::blue, line(4, 1), {}}});
    chart.resize(600, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const sb::AxisScale y = chart.yScale();
    QVERIFY(std::isfinite(y.lo) && std::isfinite(y.hi));
    QVERIFY(y.lo <= -1e308 && y.hi >= 1.7e308);
    QVERIFY(chart.ticksOf(Qt::Vertical).size() >= 2);
    QCOMPARE(chart.drawnPoints(), 8);
    chart.grab(); // paints without trouble
}

void TestCurveChart::aCurveOfOnePointIsADot() {
    sb::CurveChart chart(u"hparam/accuracy"_s);
    chart.resize(600, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const QColor colour(200, 30, 160);
    auto painted = [&] {
        const QImage image = chart.grab().toImage();
        int count = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                count += image.pixelColor(x, y) == colour;
        return count;
    };
    QCOMPARE(painted(), 0);
    chart.setCurves({{u"session"_s, colour, {{0, 0.9}}, {}}});
    QCOMPARE(chart.drawnPoints(), 1);
    QVERIFY(xAxis(chart).lo < 0 && xAxis(chart).hi > 0);             // in the middle, whole
    QVERIFY2(painted() > 3, qPrintable(QString::number(painted()))); // a dot, not nothing
}

void TestCurveChart::readoutListsEveryRunAtTheCursorHighestFirst() {
    // "short" ended at step 99; "long" goes on to 999; "raw" has a raw curve behind.
    const QList<sb::Curve> curves{{u"short"_s, Qt::red, line(100, 1, 500), {}},
                                  {u"long"_s, Qt::blue, line(1000, 1), {}},
                                  {u"raw"_s, Qt::green, line(1000, 0, 50), line(1000, 0, 60)}};
    auto at = [&curves](double x) {
        QStringList rows;
        for (const sb::ReadoutRow &row : sb::CurveChart::readoutAt(curves, x, 0.5))
            rows << u"%1=%2%3"_s.arg(row.run)
                        .arg(row.smoothed.y())
                        .arg(row.raw ? u"(%1)"_s.arg(*row.raw) : QString());
        return rows;
    };
    QCOMPARE(at(50), (QStringList{u"short=550"_s, u"long=50"_s, u"raw=50(60)"_s}));
    QCOMPARE(at(400), (QStringList{u"long=400"_s, u"raw=50(60)"_s})); // not past short's end
    QCOMPARE(at(99.4), (QStringList{u"short=599"_s, u"long=99"_s, u"raw=50(60)"_s}));
    QCOMPARE(at(-3), QStringList());
}

void TestCurveChart::hoverEmphasisesACurveAndAClickNamesIt() {
    sb::CurveChart chart(u"loss"_s);
    chart.resize(600, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QList<sb::Curve> curves;
    for (int i = 0; i < 20; ++i) // more runs than the readout lists
        curves.append({u"run-%1"_s.arg(i), Qt::darkCyan, line(100, 0, i * 10), {}});
    chart.setCurves(curves);
    const QRectF plot = chart.chart()->plotArea();
    // On run-7's flat line at y = 70, at mid-plot.
    const double fy = (70.0 - 0) / 190.0;
    QPointF on(plot.center().x(), plot.bottom() - fy * plot.height());
    // The axis may be padded: find the pixel of y = 70 by scanning for the hovered run.
    for (int dy = -20; dy <= 20 && chart.hoveredRun() != u"run-7"_s; ++dy) {
        QMouseEvent move(QEvent::MouseMove, on + QPointF(0, dy), chart.mapToGlobal(on),
                         Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(chart.viewport(), &move);
        if (chart.hoveredRun() == u"run-7"_s)
            on += QPointF(0, dy);
    }
    QCOMPARE(chart.hoveredRun(), u"run-7"_s);
    const QString text = chart.readoutText();
    QVERIFY2(text.contains(u"run-7"_s) && text.contains(u"and 8 more"_s), qPrintable(text));
    // Highest first: run-13 is listed above run-7 (the twelve nearest to the cursor are shown).
    QVERIFY(text.indexOf(u"run-13"_s) < text.indexOf(u"run-7"_s));
    QVERIFY(!text.contains(u"run-19"_s));
    QSignalSpy clicked(&chart, &sb::CurveChart::runClicked);
    QTest::mouseClick(chart.viewport(), Qt::LeftButton, {}, on.toPoint());
    QCOMPARE(clicked.size(), 1);
    QCOMPARE(clicked.first().first().toString(), u"run-7"_s);
    QVERIFY(!chart.xRange()); // a click is not a zoom
    // The readout follows what the chart draws while the cursor rests: a run filtered out is no
    // longer named, a zoom reads again at the cursor, a group's x is about its column's.
    QMouseEvent rest(QEvent::MouseMove, on, chart.mapToGlobal(on), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QApplication::sendEvent(chart.viewport(), &rest);
    chart.setCurves(curves.mid(0, 5));
    QVERIFY(!chart.readoutText().contains(u"run-7"_s));
    QVERIFY(chart.readoutText().contains(u"run-4"_s));
    // A rubber band over the left quarter, let go there: read again at once where the cursor
    // is, now a quarter of the way into the zoomed range (about step 6), not at step 25.
    const QPointF from = plot.topLeft() + QPointF(5, 5);
    const QPointF to(plot.left() + plot.width() / 4, plot.bottom() - 5);
    QTest::mousePress(chart.viewport(), Qt::LeftButton, {}, from.toPoint());
    QTest::mouseMove(chart.viewport(), to.toPoint());
    QTest::mouseRelease(chart.viewport(), Qt::LeftButton, {}, to.toPoint());
    QVERIFY(chart.xRange());
    const auto [lo, hi] = *chart.xRange();
    const QRectF zoomed = chart.chart()->plotArea();
    const double there = lo + (to.x() - zoomed.left()) / zoomed.width() * (hi - lo);
    const double said = chart.readoutText().section(u'\n', 0, 0).section(u'=', 1).toDouble();
    QVERIFY2(std::abs(said - there) <= 1, qPrintable(chart.readoutText().section(u'\n', 0, 0)));
    chart.resetZoom();
    QVERIFY(chart.readoutText().contains(u"run-4"_s));
    sb::Curve group{u"group"_s, Qt::red, {{0.4, 1}, {49.6, 2}, {99.4, 3}}, {}};
    group.members = {u"a"_s, u"b"_s};
    chart.setCurves({group});
    QVERIFY2(chart.readoutText().section(u'\n', 0, 0).endsWith(u"≈ 50"_s),
             qPrintable(chart.readoutText()));
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(&chart, &leave);
    QVERIFY(chart.hoveredRun().isEmpty());
    QVERIFY(chart.readoutText().isEmpty());
}

QTEST_MAIN(TestCurveChart)
void TestCurveChart::logXIsEvenInDecades() {
    // y = 1/x over x = 0..1000: on log x step 0 is not drawn; 1, 10, 100 and 1000 sit a third
    // of the plot apart; Ctrl+wheel zooms about the pointer and stays above zero.
    QList<QPointF> points;
    for (int x = 0; x <= 1000; ++x)
        points.append(QPointF(x, 1.0 / (x + 1)));
    sb::CurveChart chart(u"loss"_s);
    chart.resize(600, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.setCurves({{u"a"_s, Qt::red, points, {}}});
    QSignalSpy viewport(&chart, &sb::CurveChart::viewportChanged);
    chart.setLogX(true);
    QVERIFY(chart.logX());
    QVERIFY(!viewport.isEmpty()); // the columns are asked for anew
    QCOMPARE(xAxis(chart).lo, 1.0);
    QCOMPARE(xAxis(chart).hi, 1000.0);
    QStringList labels;
    for (const sb::Tick &tick : chart.ticksOf(Qt::Horizontal))
        labels << tick.label;
    QVERIFY2(labels.contains(u"1"_s) && labels.contains(u"10"_s) && labels.contains(u"100"_s) &&
                 labels.contains(u"1000"_s),
             qPrintable(labels.join(u' ')));
    QCOMPARE(chart.drawnPoints(), 1000);
    const auto scale = chart.xScale();
    QVERIFY(std::abs(scale.toUnit(10) - 1.0 / 3) < 1e-12);
    QVERIFY(std::abs(scale.toUnit(100) - 2.0 / 3) < 1e-12);
    const QRectF plot = chart.chart()->plotArea();
    const QPointF at(plot.left() + plot.width() / 3, plot.center().y()); // x = 10
    QSignalSpy zoomed(&chart, &sb::CurveChart::xZoomed);
    QWheelEvent wheel(at, chart.mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(chart.viewport(), &wheel);
    QCOMPARE(zoomed.size(), 1);
    const auto range = *chart.xRange();
    QVERIFY2(range.first > 1 && range.second < 1000 && range.first < 10 && range.second > 10,
             qPrintable(u"%1..%2"_s.arg(range.first).arg(range.second)));
    // Even in log: the pointer's x (10) keeps its place, a third of the way across.
    QVERIFY(std::abs(chart.xScale().toUnit(10) - 1.0 / 3) < 1e-9);
    // Another chart's zoom, followed: taken without saying it again.
    sb::CurveChart other(u"acc"_s);
    other.setCurves({{u"a"_s, Qt::red, points, {}}});
    QSignalSpy otherZoomed(&other, &sb::CurveChart::xZoomed);
    other.followXZoom(range);
    QCOMPARE(*other.xRange(), range);
    QVERIFY(otherZoomed.isEmpty());
    other.followXZoom(std::nullopt);
    QVERIFY(!other.xRange());
    chart.setLogX(false);
    QCOMPARE(chart.drawnPoints(), 1001);
    QVERIFY(!chart.xRange()); // a range on the other scale means nothing
}

void TestCurveChart::metricsTogetherAndShapesPastThePalette() {
    sb::CurveChart chart(u"train/loss"_s);
    chart.resize(600, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.setMetricChoices([] {
        return QStringList{u"train/loss"_s, u"val/acc"_s, u"val/loss"_s};
    });
    // The chart's menu offers the others, val/loss first (it ends as train/loss does).
    QMenu *together = chart.optionsMenu()->findChild<QMenu *>(u"drawHereToo"_s);
    QVERIFY(together);
    Q_EMIT together->aboutToShow();
    QCOMPARE(together->actions().size(), 2);
    QCOMPARE(together->actions().first()->text(), u"val/loss"_s);
    QSignalSpy options(&chart, &sb::CurveChart::optionsChanged);
    together->actions().first()->setChecked(true);
    QCOMPARE(options.size(), 1);
    QCOMPARE(options.first().first().toString(), u"with"_s);
    QCOMPARE(chart.metrics(), (QStringList{u"train/loss"_s, u"val/loss"_s}));
    QVERIFY(chart.chart()->title().contains(u"val/loss"_s));
    chart.setOtherMetrics(
        {u"train/loss"_s, u"a"_s, u"b"_s, u"c"_s, u"d"_s}); // itself, and too many
    QCOMPARE(chart.metrics().size(), sb::CurveChart::kMostMetrics);
    chart.setOtherMetrics({u"val/loss"_s});
    // A run's two metrics: one colour, two line styles, named apart in the readout; a second
    // run of the same colour wears a shape.
    sb::Curve train{u"a"_s, Qt::red, line(100, 0, 1), {}};
    train.metric = u"train/loss"_s;
    sb::Curve val = train;
    val.metric = u"val/loss"_s;
    val.points = line(100, 0, 2);
    val.style = sb::CurveChart::styleOf(1);
    sb::Curve same{u"b"_s, Qt::red, line(100, 0, 3), {}};
    same.marker = 2;
    chart.setCurves({train, val, same});
    QCOMPARE(val.style, Qt::DashLine);
    QCOMPARE(chart.drawnLines(), 3);
    QStringList rows;
    for (const sb::ReadoutRow &row : sb::CurveChart::readoutAt(chart.curves(), 50, 0.5))
        rows << row.run + u"·"_s + row.metric + u"·"_s + QString::number(row.marker);
    QCOMPARE(rows, (QStringList{u"b··2"_s, u"a·val/loss·0"_s, u"a·train/loss·0"_s}));
    const QPointF middle = chart.chart()->plotArea().center();
    QMouseEvent move(QEvent::MouseMove, middle, chart.viewport()->mapToGlobal(middle), Qt::NoButton,
                     Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(chart.viewport(), &move);
    QVERIFY2(chart.readoutText().contains(u"val/loss"_s) &&
                 chart.readoutText().contains(u"train/loss"_s),
             qPrintable(chart.readoutText()));
    QVERIFY(chart.readoutText().contains(sb::markerGlyph(2)));
}

#include "tst_curvechart.moc"

// QtCharts lays out an axis's labels from its tick interval at once: a range far wider than the
// last interval, or narrower than the spacing of doubles there, would make millions of labels or
// never end. Every range, one after another in any order, draws a handful.
void TestCurveChart::extremeRangesDrawAHandfulOfTicks() {
    sb::CurveChart chart(u"loss"_s);
    chart.resize(600, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const auto curve = [](std::initializer_list<QPointF> points) {
        return QList<sb::Curve>{{u"a"_s, Qt::red, QList<QPointF>(points), {}}};
    };
    const QList<QList<sb::Curve>> ranges{
        curve({{0, 1}, {1, 1.01}}),           // a tiny interval first
        curve({{0, 1}, {1000, 1e8}}),         // then a loss that diverged
        curve({{0, 1e20}, {1, 1e20 + 1e5}}),  // far from zero, narrow for its digits
        curve({{0, -1.7e308}, {1, 1.7e308}}), // the whole double range
        curve({{0, 5e-324}, {1, 1e-320}}),    // subnormals
        curve({{0, 1e15}, {1, 1e15}}),        // flat
        curve({{1e18, 0}, {1e18 + 10, 1}}),   // steps far out, a few apart
        curve({{-1e300, 0}, {1e300, 1}}),     // steps across everything
        curve({{0, 1}, {1, 1.000000000001}}), // a span below the label's digits
        curve({{0, 1}, {1, 2}})};             // and back to an ordinary one
    for (const QList<sb::Curve> &curves : ranges) {
        chart.setCurves(curves);
        QApplication::processEvents();
        const qsizetype items = chart.scene()->items().size();
        QVERIFY(chart.ticksOf(Qt::Vertical).size() >= 2 &&
                chart.ticksOf(Qt::Vertical).size() <= 12);
        QVERIFY(chart.ticksOf(Qt::Horizontal).size() >= 2);
        QVERIFY2(items < 300, qPrintable(u"%1 items for %2..%3"_s.arg(items)
                                             .arg(curves[0].points.first().y())
                                             .arg(curves[0].points.last().y())));
    }
    // Zoomed far into a diverged curve's flat start, then fitted again.
    chart.setCurves(curve({{0, 1}, {1, 1}, {2, 1}, {999, 1e8}}));
    const QRectF plot = chart.chart()->plotArea();
    const QPoint from = plot.bottomLeft().toPoint() + QPoint(2, -3);
    const QPoint to = from + QPoint(8, -6);
    QTest::mousePress(chart.viewport(), Qt::LeftButton, {}, from);
    QTest::mouseMove(chart.viewport(), to);
    QTest::mouseRelease(chart.viewport(), Qt::LeftButton, {}, to);
    QApplication::processEvents();
    QVERIFY(chart.scene()->items().size() < 300);
    chart.resetZoom();
    QApplication::processEvents();
    QVERIFY(chart.scene()->items().size() < 300);
}
