#include "metrics/Smoothing.h"

#include <QTest>

#include <cmath>

class TestSmoothing final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void debiasedEma();
    void zeroWeightIsIdentity();
    void constantSeriesUnchanged();
    void nonFinitePassThrough();
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

QTEST_APPLESS_MAIN(TestSmoothing)
#include "tst_smoothing.moc"
