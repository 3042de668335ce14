#include "metrics/Downsampler.h"
#include "metrics/Smoothing.h"

#include <QRandomGenerator>
#include <QTest>

#include <algorithm>
#include <cmath>

using sb::MetricPoint;
using sb::SeriesWindow;
using sb::XAxis;

namespace {

// M4 written the plain way, over every point, as the reference the fast paths must match.
sb::Downsampled referenceM4(const std::vector<MetricPoint> &points, const SeriesWindow &w,
                            const std::vector<double> &values) {
    auto xOf = [&](const MetricPoint &p) {
        return w.axis == XAxis::Step       ? p.step
               : w.axis == XAxis::WallTime ? p.wall
                                           : p.wall - w.origin;
    };
    double x0 = INFINITY, x1 = -INFINITY, firstPositive = INFINITY;
    for (const auto &p : points) {
        x0 = std::min(x0, xOf(p));
        x1 = std::max(x1, xOf(p));
        if (xOf(p) > 0)
            firstPositive = std::min(firstPositive, xOf(p));
    }
    x0 = w.from.value_or(x0);
    x1 = w.to.value_or(x1);
    if (w.logX && !(x0 > 0))
        x0 = firstPositive; // a log axis starts at the first x above zero
    // Columns even in x, or in log10(x) (on halves, as the store's: edges agree to the bit).
    auto columnOf = [&](double x) {
        if (!w.logX)
            return x1 > x0 ? static_cast<int>(std::floor((x - x0) / (x1 - x0) * w.width)) : 0;
        const double l0 = std::log10(x0) / 2, span = std::log10(x1) / 2 - l0;
        return span > 0 ? static_cast<int>(std::floor((std::log10(x) / 2 - l0) / span * w.width))
                        : 0;
    };
    struct Pick {
        long index = -1;
        double x = 0, y = 0;
    };
    struct Col {
        Pick first, last, min, max;
    };
    std::vector<Col> cols(w.width);
    sb::Downsampled out;
    out.total = static_cast<qint64>(points.size());
    for (long i = 0; i < static_cast<long>(points.size()); ++i) {
        const double x = xOf(points[i]);
        const double y = values[i];
        if (x < x0 || x > x1 || (w.logX && x <= 0))
            continue;
        ++out.inRange;
        const int c = std::clamp(columnOf(x), 0, w.width - 1);
        Col &col = cols[c];
        if (col.first.index < 0 || x < col.first.x)
            col.first = {i, x, y};
        if (col.last.index < 0 || x >= col.last.x)
            col.last = {i, x, y};
        if (std::isfinite(y) && (col.min.index < 0 || y < col.min.y))
            col.min = {i, x, y};
        if (std::isfinite(y) && (col.max.index < 0 || y > col.max.y))
            col.max = {i, x, y};
    }
    for (const Col &col : cols) {
        std::vector<Pick> picks{col.first, col.min, col.max, col.last};
        std::sort(picks.begin(), picks.end(), [](const Pick &a, const Pick &b) {
            return a.x < b.x || (a.x == b.x && a.index < b.index);
        });
        long previous = -1;
        for (const Pick &p : picks) {
            if (p.index < 0 || p.index == previous)
                continue;
            previous = p.index;
            out.x.push_back(p.x);
            out.y.push_back(p.y);
        }
    }
    return out;
}

std::vector<double> valuesOf(const std::vector<MetricPoint> &points) {
    std::vector<double> v;
    for (const auto &p : points)
        v.push_back(p.value);
    return v;
}

std::vector<MetricPoint> noisySeries(int n, quint32 seed) {
    QRandomGenerator rng(seed);
    std::vector<MetricPoint> points;
    double value = 1.0;
    for (int i = 0; i < n; ++i) {
        value = value * 0.9999 + (rng.generateDouble() - 0.5) * 0.05;
        const double spike = rng.bounded(5000) == 0 ? 10.0 : 0.0;
        points.push_back({static_cast<double>(i), value + spike, 1.7e9 + i * 0.01});
    }
    return points;
}

sb::Downsampled run(const std::vector<MetricPoint> &points, const SeriesWindow &window) {
    sb::VectorPointSource source(&points);
    sb::SeriesSummary summary;
    summary.update(source);
    return sb::downsampleM4(source, summary, window);
}

} // namespace

class TestDownsampler final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchesReference_data();
    void matchesReference();
    void logXKeepsTheFirstDecades();
    void keepsEverySpike();
    void unsortedSeries();
    void smoothingAppliesToAllPriorPoints();
    void gaussianReadsPastTheWindow();
    void emptyAndTiny();
    void nonFiniteValues();
    void summaryFollowsAppends();
    void extremeCoordinatesNeverCrash();
};

void TestDownsampler::matchesReference_data() {
    QTest::addColumn<int>("points");
    QTest::addColumn<int>("width");
    QTest::addColumn<double>("from");
    QTest::addColumn<double>("to");
    QTest::addColumn<int>("axis");
    QTest::addColumn<bool>("logX");
    const int step = int(XAxis::Step);
    QTest::newRow("full range, 1000 px") << 200000 << 1000 << qQNaN() << qQNaN() << step << false;
    QTest::newRow("full range, 1 px") << 50000 << 1 << qQNaN() << qQNaN() << step << false;
    QTest::newRow("zoomed") << 200000 << 777 << 12345.5 << 150000.25 << step << false;
    QTest::newRow("zoom past the end") << 100000 << 500 << 90000.0 << 2e6 << step << false;
    QTest::newRow("more pixels than points") << 5000 << 8000 << qQNaN() << qQNaN() << step << false;
    QTest::newRow("wall time") << 100000 << 640 << qQNaN() << qQNaN() << int(XAxis::WallTime)
                               << false;
    QTest::newRow("relative time, zoomed")
        << 100000 << 640 << 10.0 << 700.0 << int(XAxis::RelativeTime) << false;
    // Log x: columns even in log10(x), from the first x above zero.
    QTest::newRow("log x, steps from 0") << 200000 << 300 << qQNaN() << qQNaN() << step << true;
    QTest::newRow("log x, zoomed to 10..1e5") << 200000 << 400 << 10.0 << 1e5 << step << true;
    QTest::newRow("log x, from zero") << 50000 << 200 << 0.0 << qQNaN() << step << true;
    QTest::newRow("log x, more pixels than points")
        << 3000 << 2000 << qQNaN() << qQNaN() << step << true;
}

void TestDownsampler::matchesReference() {
    QFETCH(int, points);
    QFETCH(int, width);
    QFETCH(double, from);
    QFETCH(double, to);
    QFETCH(int, axis);
    QFETCH(bool, logX);
    const auto series = noisySeries(points, 42);
    SeriesWindow window;
    window.axis = static_cast<XAxis>(axis);
    window.width = width;
    window.origin = window.axis == XAxis::RelativeTime ? 1.7e9 : 0;
    window.logX = logX;
    if (!qIsNaN(from))
        window.from = from;
    if (!qIsNaN(to))
        window.to = to;
    const auto fast = run(series, window);
    const auto expected = referenceM4(series, window, valuesOf(series));
    QCOMPARE(fast.inRange, expected.inRange);
    QCOMPARE(fast.x.size(), expected.x.size());
    QVERIFY(fast.x == expected.x);
    QVERIFY(fast.y == expected.y);
    QVERIFY(fast.x.size() <= std::size_t(4 * width));
    QVERIFY(!logX || std::all_of(fast.x.cbegin(), fast.x.cend(), [](double x) { return x > 0; }));
}

void TestDownsampler::logXKeepsTheFirstDecades() {
    // Steps 0..200,000 on 300 columns: even in log10, steps 1 to 9 each get columns of their
    // own; even in x, they share the first column with 660 others.
    const auto series = noisySeries(200000, 7);
    SeriesWindow window;
    window.width = 300;
    window.logX = true;
    const auto log = run(series, window);
    for (double step = 1; step < 10; ++step)
        QVERIFY2(std::find(log.x.cbegin(), log.x.cend(), step) != log.x.cend(),
                 qPrintable(QString::number(step)));
    window.logX = false;
    const auto even = run(series, window);
    QVERIFY(std::count_if(even.x.cbegin(), even.x.cend(), [](double x) { return x < 10; }) < 4);
}

void TestDownsampler::keepsEverySpike() {
    std::vector<MetricPoint> series(1'000'000);
    for (int i = 0; i < 1'000'000; ++i)
        series[i] = {double(i), 0.0, 0.0};
    for (int spike : {1, 333'333, 777'777, 999'998})
        series[spike].value = spike % 2 ? 100.0 : -100.0;
    SeriesWindow window;
    window.width = 300;
    const auto out = run(series, window);
    for (int spike : {1, 333'333, 777'777, 999'998}) {
        const auto it = std::find(out.x.begin(), out.x.end(), double(spike));
        QVERIFY2(it != out.x.end(), qPrintable(QString::number(spike)));
        QCOMPARE(out.y[it - out.x.begin()], series[spike].value);
    }
}

void TestDownsampler::unsortedSeries() {
    // A resumed run logs steps 0..999 and then 500..1499 again.
    std::vector<MetricPoint> series;
    for (int i = 0; i < 1000; ++i)
        series.push_back({double(i), std::sin(i * 0.01), double(i)});
    for (int i = 500; i < 1500; ++i)
        series.push_back({double(i), std::cos(i * 0.01), double(i + 1000)});
    SeriesWindow window;
    window.width = 97;
    const auto out = run(series, window);
    const auto expected = referenceM4(series, window, valuesOf(series));
    QVERIFY(out.x == expected.x);
    QVERIFY(out.y == expected.y);
    QVERIFY(std::is_sorted(out.x.begin(), out.x.end()));
    // On a log axis, unsorted: from a millionth of the last x, nothing at or below zero.
    window.logX = true;
    const auto log = run(series, window);
    QVERIFY(!log.x.empty());
    QVERIFY(std::all_of(log.x.cbegin(), log.x.cend(), [](double x) { return x > 0; }));
    QCOMPARE(log.inRange, qint64(series.size()) - 1); // step 0 is not on it
}

void TestDownsampler::smoothingAppliesToAllPriorPoints() {
    const auto series = noisySeries(60000, 7);
    SeriesWindow window;
    window.width = 400;
    window.smoothing = 0.9;
    window.from = 30000; // zoomed: smoothing still starts from the first point
    const auto out = run(series, window);
    const auto expected = referenceM4(series, window, sb::smoothEma(valuesOf(series), 0.9));
    QCOMPARE(out.x.size(), expected.x.size());
    for (std::size_t i = 0; i < out.y.size(); ++i)
        QVERIFY(std::abs(out.y[i] - expected.y[i]) < 1e-9);
}

void TestDownsampler::gaussianReadsPastTheWindow() {
    const auto series = noisySeries(60000, 9);
    SeriesWindow window;
    window.width = 200;
    window.smoothing = 0.95;
    window.smoothingKind = sb::SmoothingKind::Gaussian;
    window.from = 30000; // zoomed: the points either side of the window count
    window.to = 31000;
    const auto out = run(series, window);
    const auto expected = referenceM4(
        series, window, sb::smoothValues(valuesOf(series), sb::SmoothingKind::Gaussian, 0.95));
    QCOMPARE(out.x, expected.x);
    for (std::size_t i = 0; i < out.y.size(); ++i)
        QVERIFY(std::abs(out.y[i] - expected.y[i]) < 1e-9);
    // The whole series: its last points are smoothed with what there is after them.
    window.from.reset();
    window.to.reset();
    const auto whole = run(series, window);
    const auto wholeExpected = referenceM4(
        series, window, sb::smoothValues(valuesOf(series), sb::SmoothingKind::Gaussian, 0.95));
    QCOMPARE(whole.x, wholeExpected.x);
    for (std::size_t i = 0; i < whole.y.size(); ++i)
        QVERIFY(std::abs(whole.y[i] - wholeExpected.y[i]) < 1e-9);
}

void TestDownsampler::emptyAndTiny() {
    const std::vector<MetricPoint> none;
    QCOMPARE(run(none, {}).x.size(), std::size_t(0));
    const std::vector<MetricPoint> one{{5, 1.5, 0}};
    const auto out = run(one, {});
    QCOMPARE(out.x, std::vector<double>{5});
    QCOMPARE(out.y, std::vector<double>{1.5});
}

void TestDownsampler::nonFiniteValues() {
    std::vector<MetricPoint> series;
    for (int i = 0; i < 20000; ++i)
        series.push_back({double(i), i % 7 == 0 ? NAN : double(i % 13), 0});
    SeriesWindow window;
    window.width = 100;
    const auto out = run(series, window);
    const auto expected = referenceM4(series, window, valuesOf(series));
    QCOMPARE(out.x.size(), expected.x.size());
    for (std::size_t i = 0; i < out.x.size(); ++i) {
        QCOMPARE(out.x[i], expected.x[i]);
        QVERIFY(out.y[i] == expected.y[i] || (std::isnan(out.y[i]) && std::isnan(expected.y[i])));
    }
}

void TestDownsampler::extremeCoordinatesNeverCrash() {
    // Stored data may hold anything (an older store, a damaged file): no x breaks the columns.
    const double specials[] = {INFINITY, -INFINITY, NAN, 1e308, -1e308, 5e-324, 0, 1};
    std::vector<MetricPoint> series;
    for (int i = 0; i < 8 * 8 * 40; ++i)
        series.push_back({specials[i % 8], specials[(i / 8) % 8], specials[(i / 64) % 8]});
    std::vector<MetricPoint> sorted{{-1e308, 1, 0}, {1, 2, 0}, {1e308, 3, 0}};
    for (const auto *points : {&series, &sorted}) {
        for (XAxis axis : {XAxis::Step, XAxis::WallTime, XAxis::RelativeTime}) {
            for (const auto &[from, to] :
                 {std::pair<std::optional<double>, std::optional<double>>{},
                  {-1e308, 1e308},
                  {5, -5},
                  {0, 0}}) {
                SeriesWindow window;
                window.axis = axis;
                window.from = from;
                window.to = to;
                window.width = 7;
                const auto out = run(*points, window);
                QVERIFY(out.x.size() <= 4 * 7);
                window.smoothing = 0.5;
                QVERIFY(run(*points, window).x.size() <= 4 * 7);
            }
        }
    }
    // The full finite range of doubles still spreads over the columns.
    SeriesWindow window;
    window.width = 3;
    QCOMPARE(run(sorted, window).x, (std::vector<double>{-1e308, 1, 1e308}));
}

void TestDownsampler::summaryFollowsAppends() {
    auto series = noisySeries(10000, 3);
    sb::VectorPointSource source(&series);
    sb::SeriesSummary summary;
    summary.update(source);
    const auto more = noisySeries(20000, 4);
    for (int i = 10000; i < 20000; ++i) {
        series.push_back(more[i]);
        summary.append(&series.back(), 1);
    }
    sb::SeriesSummary fresh;
    fresh.update(source);
    QCOMPARE(summary.count(), fresh.count());
    QCOMPARE(summary.blocks().size(), fresh.blocks().size());
    for (std::size_t b = 0; b < fresh.blocks().size(); ++b) {
        QCOMPARE(summary.blocks()[b].minValue, fresh.blocks()[b].minValue);
        QCOMPARE(summary.blocks()[b].maxAt, fresh.blocks()[b].maxAt);
    }
    QVERIFY(summary.sortedBy(XAxis::Step));
}

QTEST_APPLESS_MAIN(TestDownsampler)
#include "tst_downsampler.moc"
