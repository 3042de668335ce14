#include "metrics/RunGrouping.h"
#include "metrics/RunGroups.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <random>

using namespace Qt::StringLiterals;

using sb::ColumnGrid;
using sb::GroupBand;
using sb::GroupCenter;
using sb::MetricPoint;
using sb::SeriesWindow;

namespace {

struct Run {
    std::vector<MetricPoint> points;
    sb::SeriesSummary summary;
    explicit Run(std::vector<MetricPoint> p)
        : points(std::move(p)) {
        summary.append(points.data(), static_cast<qint64>(points.size()));
    }
    std::vector<double> resampled(const ColumnGrid &grid, const SeriesWindow &window = {}) const {
        const sb::VectorPointSource source(&points);
        return sb::resampleOnGrid(source, summary, window, grid);
    }
};

// The plain way over every point: each column's mean of finite values, gaps between columns with
// values filled on the straight line, nothing before the first or after the last.
std::vector<double> referenceResample(const std::vector<MetricPoint> &points,
                                      const ColumnGrid &grid) {
    std::vector<double> sum(grid.width, 0);
    std::vector<int> count(grid.width, 0);
    for (const MetricPoint &p : points) {
        if (p.step < grid.x0 || p.step > grid.x1 || !std::isfinite(p.value))
            continue;
        int c = grid.x1 > grid.x0 ? static_cast<int>(std::floor((p.step - grid.x0) /
                                                                (grid.x1 - grid.x0) * grid.width))
                                  : 0;
        c = std::clamp(c, 0, grid.width - 1);
        sum[c] += p.value;
        ++count[c];
    }
    std::vector<double> out(grid.width, NAN);
    int previous = -1;
    for (int c = 0; c < grid.width; ++c) {
        if (count[c] == 0)
            continue;
        out[c] = sum[c] / count[c];
        for (int g = previous + 1; previous >= 0 && g < c; ++g)
            out[g] = out[previous] + (out[c] - out[previous]) * (g - previous) / (c - previous);
        previous = c;
    }
    return out;
}

struct Reference {
    double center = NAN, lower = NAN, upper = NAN;
    int members = 0;
};
Reference referenceCombine(std::vector<double> values, GroupCenter center, GroupBand band) {
    Reference r;
    r.members = static_cast<int>(values.size());
    double mean = 0;
    for (double v : values)
        mean += v / values.size();
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    const double median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    r.center = center == GroupCenter::Mean ? mean : median;
    double var = 0;
    for (double v : values)
        var += (v - mean) * (v - mean);
    double sd = n > 1 ? std::sqrt(var / (n - 1)) : 0;
    if (band == GroupBand::StdErr)
        sd /= std::sqrt(double(n));
    r.lower = band == GroupBand::MinMax ? values.front() : r.center - sd;
    r.upper = band == GroupBand::MinMax ? values.back() : r.center + sd;
    if (band == GroupBand::None)
        r.lower = r.upper = r.center;
    return r;
}

bool near(double a, double b) {
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b);
    return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

// A noisy decaying curve over steps start, start + stride, ...; every 97th value is NaN.
std::vector<MetricPoint> curve(double start, double stride, qint64 count, double scale,
                               quint32 seed) {
    QRandomGenerator random(seed);
    std::vector<MetricPoint> points;
    for (qint64 i = 0; i < count; ++i) {
        const double step = start + stride * static_cast<double>(i);
        const double value =
            i % 97 == 5 ? NAN : scale * std::exp(-step / 40000.0) + 0.1 * random.generateDouble();
        points.push_back({step, value, 1000 + step});
    }
    return points;
}

} // namespace

class TestRunGroups final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void columnMeansMatchReference_data();
    void columnMeansMatchReference();
    void unsortedSeriesMatchReference();
    void spikesAndSignChangesKeepExactMeans();
    void sparseRunsAreInterpolatedNotExtended();
    void logGridIsEvenInDecades();
    void combineMatchesReference_data();
    void combineMatchesReference();
    void singleRunGroupHasNoSpread();
    void hugeValuesStayFinite();
    void smoothingAppliesPerColumn();
    void namesRoundTrip();
    void runsIntoGroups();
};

void TestRunGroups::columnMeansMatchReference_data() {
    QTest::addColumn<double>("start");
    QTest::addColumn<double>("stride");
    QTest::addColumn<qint64>("count");
    QTest::addColumn<int>("width");
    // Dense runs take the summary's blocks; short ones are streamed; strides never align.
    QTest::newRow("dense") << 0.0 << 1.0 << qint64(200000) << 700;
    QTest::newRow("dense, offset") << 3.3 << 0.77 << qint64(150000) << 513;
    QTest::newRow("short") << 7.0 << 13.1 << qint64(900) << 700;
    QTest::newRow("one column") << 0.0 << 1.0 << qint64(50000) << 1;
}

void TestRunGroups::columnMeansMatchReference() {
    QFETCH(double, start);
    QFETCH(double, stride);
    QFETCH(qint64, count);
    QFETCH(int, width);
    const Run run(curve(start, stride, count, 2.0, 7));
    const ColumnGrid grid{0, 200000, width};
    const std::vector<double> fast = run.resampled(grid);
    const std::vector<double> reference = referenceResample(run.points, grid);
    QCOMPARE(fast.size(), reference.size());
    for (std::size_t c = 0; c < fast.size(); ++c)
        QVERIFY2(near(fast[c], reference[c]),
                 qPrintable(u"column %1: %2 vs %3"_s.arg(c).arg(fast[c]).arg(reference[c])));
}

// A column edge that cuts a block may be read on its shorter side, the rest taken as the block's
// sum less it: never where that would lose precision (a spike of 1e12 beside values near 1, or
// values of both signs), nor where both edges fall in one block.
void TestRunGroups::spikesAndSignChangesKeepExactMeans() {
    std::vector<MetricPoint> points;
    for (qint64 i = 0; i < 120000; ++i) {
        double value = 1 + 1e-3 * double(i % 7);
        if (i % 1000 == 300)
            value = 1e12; // a spike
        if (i / 5000 % 2 == 1)
            value -= 1.5; // stretches of values on both sides of zero
        points.push_back({double(i), value, 1000 + double(i)});
    }
    const Run run(std::move(points));
    for (const int width : {37, 301, 469, 1200, 5000}) {
        const ColumnGrid grid{0, 119999, width};
        const std::vector<double> fast = run.resampled(grid);
        const std::vector<double> reference = referenceResample(run.points, grid);
        for (std::size_t c = 0; c < fast.size(); ++c)
            QVERIFY2(near(fast[c], reference[c]),
                     qPrintable(u"width %1, column %2: %3 vs %4"_s.arg(width)
                                    .arg(c)
                                    .arg(fast[c], 0, 'g', 17)
                                    .arg(reference[c], 0, 'g', 17)));
    }
}

void TestRunGroups::unsortedSeriesMatchReference() {
    std::vector<MetricPoint> points = curve(0, 3.0, 20000, 1.0, 3);
    std::mt19937 shuffle(5);
    std::shuffle(points.begin(), points.end(), shuffle);
    const Run run(points);
    QVERIFY(!run.summary.sortedBy(sb::XAxis::Step));
    const ColumnGrid grid{1000, 50000, 300}; // points outside the grid are left out
    const std::vector<double> fast = run.resampled(grid);
    const std::vector<double> reference = referenceResample(points, grid);
    for (std::size_t c = 0; c < fast.size(); ++c)
        QVERIFY(near(fast[c], reference[c]));
}

void TestRunGroups::sparseRunsAreInterpolatedNotExtended() {
    // Evaluated every 100 steps up to 1000, on 100 columns over 0..2000: one point every fifth
    // column, the columns between on the line, and nothing after step 1000.
    std::vector<MetricPoint> points;
    for (int step = 0; step <= 1000; step += 100)
        points.push_back({double(step), double(step) / 100, 0});
    const Run run(points);
    const std::vector<double> values = run.resampled({0, 2000, 100});
    QCOMPARE(values[0], 0.0);
    QCOMPARE(values[5], 1.0);
    QCOMPARE(values[2], 0.4);
    QCOMPARE(values[50], 10.0);
    QVERIFY(std::isnan(values[51]));
    QVERIFY(std::isnan(values[99]));
}

void TestRunGroups::logGridIsEvenInDecades() {
    // y = log10(step) over steps 0..1e5 on 50 columns over 1..1e5: ten a decade, each column's
    // mean near its centre's log, step 0 in none of them; the centres spaced evenly in log.
    std::vector<MetricPoint> points;
    for (int step = 0; step <= 100000; ++step)
        points.push_back({double(step), step > 0 ? std::log10(step) : -1000.0, 0});
    const Run run(points);
    const ColumnGrid grid{1, 1e5, 50, true};
    const std::vector<double> values = run.resampled(grid);
    QCOMPARE(values.size(), std::size_t(50));
    QCOMPARE(values[0], 0.0);     // step 1 alone: the first column is [1, 10^0.1)
    for (int c = 10; c < 50; ++c) // a decade in, columns hold many steps: the mean is near
        QVERIFY2(std::abs(values[c] - (c + 0.5) / 10) < 0.01, qPrintable(QString::number(c)));
    const sb::GroupCurve curve =
        sb::combineRuns({values}, grid, GroupCenter::Mean, GroupBand::None);
    QCOMPARE(curve.x.size(), std::size_t(50));
    QVERIFY(std::abs(curve.x[0] - std::pow(10.0, 0.05)) < 1e-9);
    QVERIFY(std::abs(curve.x[49] - std::pow(10.0, 4.95)) < 1e-6);
}

void TestRunGroups::combineMatchesReference_data() {
    QTest::addColumn<int>("center");
    QTest::addColumn<int>("band");
    for (int center : {int(GroupCenter::Mean), int(GroupCenter::Median)}) {
        for (int band : {int(GroupBand::None), int(GroupBand::StdDev), int(GroupBand::StdErr),
                         int(GroupBand::MinMax)}) {
            const QByteArray name = (sb::groupCenterName(GroupCenter(center)) + u' ' +
                                     sb::groupBandName(GroupBand(band)))
                                        .toUtf8();
            QTest::newRow(name.constData()) << center << band;
        }
    }
}

void TestRunGroups::combineMatchesReference() {
    QFETCH(int, center);
    QFETCH(int, band);
    // Four seeds with steps that never line up, two of them ending early, and NaNs.
    const std::vector<Run> runs{
        Run(curve(0, 1.0, 120000, 2.0, 1)), Run(curve(0.5, 1.3, 60000, 2.2, 2)),
        Run(curve(2, 7.0, 5000, 1.8, 3)), Run(curve(1, 0.9, 100000, 2.1, 4))};
    const ColumnGrid grid{0, 120000, 600};
    std::vector<std::vector<double>> members;
    std::vector<std::vector<double>> references;
    for (const Run &run : runs) {
        members.push_back(run.resampled(grid));
        references.push_back(referenceResample(run.points, grid));
    }
    const sb::GroupCurve curve =
        sb::combineRuns(members, grid, GroupCenter(center), GroupBand(band));
    std::size_t i = 0;
    int fewer = 0;
    for (int c = 0; c < grid.width; ++c) {
        std::vector<double> values;
        for (const auto &reference : references) {
            const double v = reference[c];
            if (std::isfinite(v))
                values.push_back(v);
        }
        if (values.empty())
            continue;
        const Reference r = referenceCombine(values, GroupCenter(center), GroupBand(band));
        QVERIFY(i < curve.x.size());
        QVERIFY(near(curve.x[i], (c + 0.5) * 200));
        QCOMPARE(curve.members[i], r.members);
        QVERIFY2(near(curve.center[i], r.center), qPrintable(QString::number(c)));
        QVERIFY(near(curve.lower[i], r.lower));
        QVERIFY(near(curve.upper[i], r.upper));
        fewer += r.members < 4;
        ++i;
    }
    QCOMPARE(i, curve.x.size());
    QVERIFY(fewer > 100); // the runs that ended early left the group
}

void TestRunGroups::singleRunGroupHasNoSpread() {
    const Run run(curve(0, 1, 10000, 1, 9));
    const ColumnGrid grid{0, 10000, 50};
    const sb::GroupCurve curve =
        sb::combineRuns({run.resampled(grid)}, grid, GroupCenter::Median, GroupBand::StdDev);
    QCOMPARE(curve.x.size(), std::size_t(50));
    for (std::size_t i = 0; i < curve.x.size(); ++i) {
        QCOMPARE(curve.lower[i], curve.center[i]);
        QCOMPARE(curve.upper[i], curve.center[i]);
    }
    QVERIFY(sb::combineRuns({}, grid, GroupCenter::Mean, GroupBand::StdDev).x.empty());
}

void TestRunGroups::hugeValuesStayFinite() {
    // Sums of values near the double range overflow: the means must not.
    std::vector<MetricPoint> points;
    for (int i = 0; i < 20000; ++i)
        points.push_back({double(i), i % 2 ? 1.7e308 : 1.5e308, 0});
    const Run run(points);
    const ColumnGrid grid{0, 20000, 10};
    const std::vector<double> values = run.resampled(grid);
    for (double v : values)
        QVERIFY(near(v, 1.6e308));
    const sb::GroupCurve curve =
        sb::combineRuns({values, values}, grid, GroupCenter::Mean, GroupBand::MinMax);
    for (double v : curve.center)
        QVERIFY(near(v, 1.6e308));
}

void TestRunGroups::smoothingAppliesPerColumn() {
    const Run run(curve(0, 1, 30000, 1, 11));
    const ColumnGrid grid{0, 30000, 100};
    SeriesWindow smoothed;
    smoothed.smoothing = 0.8;
    std::vector<double> expected = run.resampled(grid);
    sb::EmaSmoother ema(0.8);
    for (double &v : expected)
        v = ema.next(v);
    const std::vector<double> values = run.resampled(grid, smoothed);
    // Every column has points: an empty or all-NaN result would pass the loop below unseen.
    QCOMPARE(values.size(), std::size_t(grid.width));
    QCOMPARE(expected.size(), values.size());
    QVERIFY(std::all_of(values.cbegin(), values.cend(), [](double v) { return std::isfinite(v); }));
    for (std::size_t c = 0; c < values.size(); ++c)
        QVERIFY(near(values[c], expected[c]));
}

void TestRunGroups::namesRoundTrip() {
    for (GroupCenter c : {GroupCenter::Mean, GroupCenter::Median}) {
        GroupCenter parsed{};
        QVERIFY(sb::parseGroupCenter(sb::groupCenterName(c), &parsed));
        QCOMPARE(parsed, c);
    }
    for (GroupBand b : {GroupBand::None, GroupBand::StdDev, GroupBand::StdErr, GroupBand::MinMax}) {
        GroupBand parsed{};
        QVERIFY(sb::parseGroupBand(sb::groupBandName(b), &parsed));
        QCOMPARE(parsed, b);
    }
    GroupBand band{};
    QVERIFY(!sb::parseGroupBand(u"quartiles", &band));
}

void TestRunGroups::runsIntoGroups() {
    auto run = [](const QString &name, const char *config, const QString &sweep = {}) {
        sb::RunInfo info;
        info.name = name;
        info.config = QJsonDocument::fromJson(config).object();
        info.sweep = sweep;
        return info;
    };
    const QList<sb::RunInfo> runs{
        run(u"a-seed1"_s, R"({"lr": 0.1, "opt": {"name": "adam"}, "seed": 1})", u"sw1"_s),
        run(u"a-seed2"_s, R"({"lr": 0.1, "opt": {"name": "adam"}, "seed": 2})", u"sw1"_s),
        run(u"b-seed1"_s, R"({"lr": 0.3, "opt": {"name": "adam"}, "seed": 1})", u"sw2"_s),
        run(u"plain"_s, R"({"seed": 1})")};
    sb::RunGrouping grouping;
    QCOMPARE(sb::groupRuns(runs, grouping).alone.size(), 4); // no grouping: all alone
    // Several keys at once, nested ones by their flattened name; a key a run lacks reads "–".
    grouping.by = sb::RunGrouping::By::Keys;
    grouping.keys = QStringList{u"lr"_s, u"opt.name"_s};
    sb::GroupedRuns grouped = sb::groupRuns(runs, grouping);
    QCOMPARE(grouped.groups.size(), 3);
    QCOMPARE(grouped.groups[0].name, u"lr=0.1, opt.name=adam"_s);
    QCOMPARE(grouped.groups[0].runs, (QStringList{u"a-seed1"_s, u"a-seed2"_s}));
    QCOMPARE(grouped.groups[2].name, u"lr=–, opt.name=–"_s);
    // A pattern: its first capture names the group; a name it does not match stands alone.
    grouping.by = sb::RunGrouping::By::Pattern;
    grouping.pattern = u"^(.*)-seed\\d+$"_s;
    grouped = sb::groupRuns(runs, grouping);
    QCOMPARE(grouped.groups.size(), 2);
    QCOMPARE(grouped.groups[1].name, u"b"_s);
    QCOMPARE(grouped.alone, QStringList{u"plain"_s});
    grouping.pattern = u"seed1"_s; // no capture: the whole match
    QCOMPARE(sb::groupRuns(runs, grouping).groups.value(0).runs.size(), 2);
    grouping.pattern = u"(unclosed"_s; // does not parse: nothing is grouped
    QCOMPARE(sb::groupRuns(runs, grouping).alone.size(), 4);
    // By sweep: a run of no sweep stands alone.
    grouping.by = sb::RunGrouping::By::Sweep;
    grouped = sb::groupRuns(runs, grouping);
    QCOMPARE(grouped.groups.size(), 2);
    QCOMPARE(grouped.groups[0].runs.size(), 2);
    QCOMPARE(grouped.alone, QStringList{u"plain"_s});
}

QTEST_APPLESS_MAIN(TestRunGroups)
#include "tst_rungroups.moc"
