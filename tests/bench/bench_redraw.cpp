// Curves view redraw: 50 runs of 1M points each, downsampled by the store to the chart's pixel
// width (M4), then handed to the chart and painted; and frames while the mouse moves over 200
// runs. Prints figures; asserts nothing.
#include "BenchUtil.h"
#include "CurvesView.h"
#include "Swatches.h"
#include "charts/CurveChart.h"
#include "metrics/store/MetricStore.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QPainter>
#include <QPixmap>
#include <QRandomGenerator>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

using namespace Qt::StringLiterals;

// 200 shown runs, the mouse moving across the plot: each frame is the readout and emphasis
// worked out for the cursor, then the chart painted. The curves are what M4 gives at the
// chart's width (four points per column), without raw curves as the view draws that many.
void hoverFrames(sb::CurveChart &chart) {
    const int runs = 200;
    const int width = chart.plotWidth();
    QRandomGenerator rng(2);
    QList<sb::Curve> curves;
    for (int r = 0; r < runs; ++r) {
        QList<QPointF> points;
        double value = 2.0 + r * 0.002;
        for (int c = 0; c < width * 4; ++c) {
            value = 0.3 + (value - 0.3) * 0.999 + (rng.generateDouble() - 0.5) * 0.02;
            points.append(QPointF(c * 250.0, value));
        }
        const QString run = u"run-%1"_s.arg(r);
        curves.append({run, sb::runColor(run), points, {}, {}, {}, {}});
    }
    chart.setCurves(curves);
    QPixmap target(chart.size());
    const QRectF plot = chart.chart()->plotArea();
    std::vector<double> frames;
    for (int i = 0; i < 200; ++i) {
        const QPointF at(plot.left() + plot.width() * (i + 0.5) / 200,
                         plot.top() + plot.height() * (0.3 + 0.4 * (i % 17) / 17.0));
        QElapsedTimer timer;
        timer.start();
        QMouseEvent move(QEvent::MouseMove, chart.mapFromScene(at), chart.mapToGlobal(at.toPoint()),
                         Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(chart.viewport(), &move);
        QPainter painter(&target);
        chart.render(&painter);
        painter.end();
        frames.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    }
    std::sort(frames.begin(), frames.end());
    const double median = frames[frames.size() / 2];
    const double p95 = frames[frames.size() * 95 / 100];
    std::printf("hover: %d runs shown (%d points each), mouse moving over a %d px wide plot, 200 "
                "frames (readout + emphasis + paint):\n",
                runs, width * 4, width);
    std::printf("  median %.1f ms, 95th percentile %.1f ms (target <= 16 ms: ratio %.2f)\n", median,
                p95, p95 / 16.0);
}

int main(int argc, char *argv[]) {
    QApplication app(argc, argv);
    const double scale = bench::scale();
    const int runs = 50;
    const qint64 perRun = static_cast<qint64>(1'000'000 * scale);
    QTemporaryDir dir;
    auto store = std::move(sb::MetricStore::open(dir.path())).value();
    QRandomGenerator rng(1);
    for (int r = 0; r < runs; ++r) {
        sb::SeriesPoints points{u"loss"_s, {}};
        points.points.resize(perRun);
        double value = 2.0;
        for (qint64 i = 0; i < perRun; ++i) {
            value = 0.3 + (value - 0.3) * 0.99999 + (rng.generateDouble() - 0.5) * 0.02;
            points.points[i] = {double(i), value + r * 0.01, 1.7e9 + i};
        }
        (void)store->append(u"run-%1"_s.arg(r), {points});
    }

    sb::CurveChart chart(u"loss"_s);
    chart.resize(1300, 700);
    chart.show();
    QApplication::processEvents();
    const int width = chart.plotWidth();

    struct Case {
        int runs;
        double smoothing;
        bool raw;
        const char *what;
    };
    // What the curves view draws: raw curves behind smoothed ones only up to
    // CurvesView::kMaxRunsWithRawCurves runs; the third case shows what they would cost for all.
    const Case cases[] = {
        {runs, 0.0, false, "no smoothing"},
        {runs, 0.6, false, "smoothing 0.6 (the view's default for 50 runs)"},
        {runs, 0.6, true, "smoothing 0.6 with every raw curve behind"},
        {sb::CurvesView::kMaxRunsWithRawCurves, 0.6, true, "smoothing 0.6 with raw curves"}};
    for (const Case &c : cases) {
        QList<sb::Curve> curves;
        auto fetch = [&] {
            curves.clear();
            sb::SeriesWindow window;
            window.width = width;
            window.smoothing = c.smoothing;
            sb::SeriesWindow raw = window;
            raw.smoothing = 0;
            for (int r = 0; r < c.runs; ++r) {
                const QString run = u"run-%1"_s.arg(r);
                auto toPoints = [](const sb::Downsampled &d) {
                    QList<QPointF> p;
                    p.reserve(static_cast<qsizetype>(d.x.size()));
                    for (std::size_t i = 0; i < d.x.size(); ++i)
                        p.append(QPointF(d.x[i], d.y[i]));
                    return p;
                };
                const auto shown = store->query(run, u"loss"_s, window);
                curves.append(
                    {run, sb::runColor(run), toPoints(*shown),
                     c.raw ? toPoints(*store->query(run, u"loss"_s, raw)) : QList<QPointF>()});
            }
        };
        fetch(); // builds the summaries
        const double queryMs = bench::medianMs(3, fetch);
        qsizetype drawn = 0;
        for (const auto &curve : curves)
            drawn += curve.points.size() + curve.rawPoints.size();
        QPixmap target(chart.size());
        const double redrawMs = bench::medianMs(11, [&] {
            chart.setCurves(curves);
            QPainter painter(&target);
            chart.render(&painter);
        });
        std::printf("redraw: %d runs x %.1f M points, %s, chart %d px wide: %lld points\n", c.runs,
                    perRun / 1e6, c.what, width, static_cast<long long>(drawn));
        std::printf(
            "  setCurves + paint: %.1f ms (target <= 33 ms: ratio %.2f); the store's queries for "
            "them: %.1f ms\n",
            redrawMs, redrawMs / 33.0, queryMs);
    }
    hoverFrames(chart);
    return 0;
}
