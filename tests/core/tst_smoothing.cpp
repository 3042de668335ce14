#include "metrics/Smoothing.h"

#include <QTest>

#include <algorithm>
#include <cmath>

class TestSmoothing final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void debiasedEma();
    void zeroWeightIsIdentity();
    void constantSeriesUnchanged();
    void nonFinitePassThrough();
    void runningAverageOverTheEmasWindow();
    void gaussianIsCentred();
};

// Values worked out by hand from the formula: last = w*last + (1-w)*v; smoothed = last/(1-w^n).
void TestSmoothing::debiasedEma() {
    const auto s = sb::smoothEma({1.0, 2.0, 3.0}, 0.5);
    QCOMPARE(s.size(), std::size_t(3));
    QVERIFY(std::abs(s[0] - 1.0) < 1e-12);           // 0.5 / 0.5
    QVERIFY(std::abs(s[1] - 1.25 / 0.75) < 1e-12);   // (0.25 + 1) / (1 - 0.25)
    QVERIFY(std::abs(s[2] - 2.125 / 0.875) < 1e-12); // (0.625 + 1.5) / (1 - 0.125)
    const auto t = sb::smoothEma({10.0, 0.0}, 0.6);
    QVERIFY(std::abs(t[0] - 10.0) < 1e-12); // the first point is not pulled to zero
    QVERIFY(std::abs(t[1] - (0.6 * 4.0) / (1 - 0.36)) < 1e-12);
}

void TestSmoothing::zeroWeightIsIdentity() {
    const std::vector<double> v{3, 1, 4, 1, 5};
    QVERIFY(sb::smoothEma(v, 0.0) == v);
}

void TestSmoothing::constantSeriesUnchanged() {
    const std::vector<double> v(100, 0.1);
    QVERIFY(sb::smoothEma(v, 0.99) == v); // no float drift from the debiasing
}

void TestSmoothing::nonFinitePassThrough() {
    const auto s = sb::smoothEma({1.0, NAN, 3.0, INFINITY}, 0.5);
    QVERIFY(std::isnan(s[1]));
    QVERIFY(std::isinf(s[3]));
    // The NaN did not count: the third value is the second point of the average.
    QVERIFY(std::abs(s[2] - (0.25 + 1.5) / 0.75) < 1e-12);
}

void TestSmoothing::runningAverageOverTheEmasWindow() {
    // As many points as an EMA of the weight averages over: (1 + w) / (1 - w).
    QCOMPARE(sb::RunningAverageSmoother::windowFor(0), qsizetype(1));
    QCOMPARE(sb::RunningAverageSmoother::windowFor(0.5), qsizetype(3));
    QCOMPARE(sb::RunningAverageSmoother::windowFor(0.6), qsizetype(4));
    QCOMPARE(sb::RunningAverageSmoother::windowFor(0.99), qsizetype(199));
    auto run = [](double weight, const std::vector<double> &values) {
        sb::Smoother smoother(sb::SmoothingKind::RunningAverage, weight, false);
        std::vector<double> out(values.size());
        std::transform(values.begin(), values.end(), out.begin(),
                       [&smoother](double v) { return smoother.next(v); });
        return out;
    };
    const auto out = run(0.5, {3, 6, 9, 12, qQNaN(), 15});
    QCOMPARE(out[0], 3.0);
    QCOMPARE(out[1], 4.5);
    QCOMPARE(out[2], 6.0);
    QCOMPARE(out[3], 9.0);       // 6, 9, 12
    QVERIFY(std::isnan(out[4])); // passes through, and stays out of the window
    QCOMPARE(out[5], 12.0);      // 9, 12, 15
    QVERIFY(run(0, {1, 5}) == (std::vector<double>{1, 5}));
    // A huge value leaves the window without taking the others' precision with it.
    const auto huge = run(0.5, {1e300, 1, 1, 1, 2, 3});
    QCOMPARE(huge[3], 1.0);
    QCOMPARE(huge[4], 4.0 / 3);
    QCOMPARE(huge[5], 2.0);
    // Millions of points: no error piles up.
    sb::Smoother smoother(sb::SmoothingKind::RunningAverage, 0.9, false);
    double last = 0;
    for (int i = 0; i < 3'000'000; ++i)
        last = smoother.next(0.1 + (i % 7) * 1e-3);
    double expected = 0;
    for (int i = 3'000'000 - 19; i < 3'000'000; ++i)
        expected += 0.1 + (i % 7) * 1e-3;
    QVERIFY(std::abs(last - expected / 19) < 1e-12);
    sb::SmoothingKind kind{};
    QVERIFY(sb::parseSmoothingKind(u"average", &kind) && kind == sb::SmoothingKind::RunningAverage);
    QVERIFY(sb::parseSmoothingKind(u"gaussian", &kind) && kind == sb::SmoothingKind::Gaussian);
    QVERIFY(!sb::parseSmoothingKind(u"boxcar", &kind));
}

namespace {

// Three centred running averages, the plain way: each value's window of 2r + 1 cut at the ends,
// its non-finite values left out, and a non-finite value kept as it is.
std::vector<double> referenceGaussian(std::vector<double> values, int r) {
    for (int pass = 0; pass < 3; ++pass) {
        std::vector<double> out(values.size());
        for (std::size_t c = 0; c < values.size(); ++c) {
            if (!std::isfinite(values[c])) {
                out[c] = values[c];
                continue;
            }
            double sum = 0;
            int count = 0;
            for (long i = long(c) - r; i <= long(c) + r; ++i) {
                if (i >= 0 && i < long(values.size()) && std::isfinite(values[i])) {
                    sum += values[i];
                    ++count;
                }
            }
            out[c] = sum / count;
        }
        values = out;
    }
    return values;
}

} // namespace

void TestSmoothing::gaussianIsCentred() {
    std::vector<double> values;
    for (int i = 0; i < 5000; ++i)
        values.push_back(i % 97 == 3    ? NAN
                         : i % 211 == 7 ? INFINITY
                                        : std::sin(i * 0.01) + (i % 13) * 0.1);
    for (const double weight : {0.3, 0.6, 0.9, 0.99}) {
        const int r = sb::GaussianSmoother::radiusFor(weight);
        const auto smoothed = sb::smoothValues(values, sb::SmoothingKind::Gaussian, weight);
        const auto expected = referenceGaussian(values, r);
        QCOMPARE(smoothed.size(), values.size());
        for (std::size_t i = 0; i < values.size(); ++i)
            QVERIFY2(smoothed[i] == expected[i] || std::abs(smoothed[i] - expected[i]) < 1e-9 ||
                         (std::isnan(smoothed[i]) && std::isnan(expected[i])),
                     qPrintable(QString::number(i)));
    }
    // Centred: a spike spreads the same way both sides, and the peak stays where it was.
    std::vector<double> spike(101, 0.0);
    spike[50] = 1;
    const auto spread = sb::smoothValues(spike, sb::SmoothingKind::Gaussian, 0.9);
    for (int k = 1; k < 50; ++k)
        QCOMPARE(spread[50 - k], spread[50 + k]);
    QCOMPARE(std::max_element(spread.begin(), spread.end()) - spread.begin(), 50);
    // Values near the double range do not overflow to infinity.
    const auto huge =
        sb::smoothValues(std::vector<double>(50, 1.6e308), sb::SmoothingKind::Gaussian, 0.9);
    for (double v : huge)
        QVERIFY(std::isfinite(v) && std::abs(v - 1.6e308) < 1e295);
    QCOMPARE(sb::smoothValues({}, sb::SmoothingKind::Gaussian, 0.9).size(), std::size_t(0));
    QCOMPARE(sb::smoothValues({2.0}, sb::SmoothingKind::Gaussian, 0.9), std::vector<double>{2.0});
}

QTEST_APPLESS_MAIN(TestSmoothing)
#include "tst_smoothing.moc"
