#include "charts/AxisTicks.h"

#include <QDateTime>
#include <QTest>

#include <cmath>

using namespace Qt::StringLiterals;
using sb::TickUnits;

namespace {

QStringList labels(TickUnits units, double lo, double hi, int most) {
    QStringList out;
    for (const sb::Tick &tick : sb::ticksFor(units, lo, hi, most))
        out << tick.label;
    return out;
}

} // namespace

// Where an axis's ticks fall and what they say: round numbers, decades, clock times and
// durations, never more than asked, never two alike, for any finite range.
class TestAxisTicks final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundNumbers() {
        QCOMPARE(labels(TickUnits::Number, 0, 1, 6),
                 (QStringList{u"0"_s, u"0.2"_s, u"0.4"_s, u"0.6"_s, u"0.8"_s, u"1"_s}));
        // Zero says 0, never -5.55e-17; the steps' digits, no more.
        QCOMPARE(
            labels(TickUnits::Number, -0.6, 0.65, 8),
            (QStringList{u"-0.6"_s, u"-0.4"_s, u"-0.2"_s, u"0"_s, u"0.2"_s, u"0.4"_s, u"0.6"_s}));
        QCOMPARE(labels(TickUnits::Number, 0, 3e6, 4),
                 (QStringList{u"0"_s, u"1e6"_s, u"2e6"_s, u"3e6"_s}));
        QCOMPARE(labels(TickUnits::Number, 0, 3000, 4),
                 (QStringList{u"0"_s, u"1000"_s, u"2000"_s, u"3000"_s}));
        // Between round steps at two ticks: finer ones, never the values in seventeen digits.
        QCOMPARE(labels(TickUnits::Number, 0.0021, 0.0039, 2),
                 (QStringList{u"0.0025"_s, u"0.003"_s, u"0.0035"_s}));
        QCOMPARE(labels(TickUnits::Number, 1.5e-5, 4.5e-5, 4),
                 (QStringList{u"2e-5"_s, u"3e-5"_s, u"4e-5"_s}));
    }

    void decades() {
        QCOMPARE(labels(TickUnits::Log, 1, 1000, 5),
                 (QStringList{u"1"_s, u"10"_s, u"100"_s, u"1000"_s}));
        // Less than two decades: 2 and 5 between; less than one: every digit.
        QCOMPARE(labels(TickUnits::Log, 0.07, 1.2, 8),
                 (QStringList{u"0.1"_s, u"0.2"_s, u"0.5"_s, u"1"_s}));
        QCOMPARE(labels(TickUnits::Log, 0.15, 0.95, 9).size(), 8); // 0.2 .. 0.9
        // Within a factor of four: even steps, where a decade would show nothing.
        QCOMPARE(labels(TickUnits::Log, 0.52, 0.58, 4),
                 (QStringList{u"0.52"_s, u"0.54"_s, u"0.56"_s, u"0.58"_s}));
        // Many decades: every few, never more than asked.
        const QStringList many = labels(TickUnits::Log, 1e-3, 1e9, 4);
        QVERIFY2(many.size() <= 5 && many.size() >= 2, qPrintable(many.join(u' ')));
        for (const sb::Tick &tick : sb::ticksFor(TickUnits::Log, 1, 1000, 5))
            QCOMPARE(tick.at, std::round(tick.at));                 // at log10 of the value
        QVERIFY(sb::ticksFor(TickUnits::Log, -1, 10, 5).isEmpty()); // nothing a log axis shows
    }

    void clockTimes() {
        qputenv("TZ", "UTC");
        // An hour from 22:13:20: on the minute, every ten.
        const QList<sb::Tick> hour = sb::ticksFor(TickUnits::Clock, 1.7e9, 1.7e9 + 3600, 6);
        QVERIFY(hour.size() >= 3 && hour.size() <= 7);
        for (const sb::Tick &tick : hour)
            QVERIFY2(std::fmod(tick.at, 600) == 0 && tick.label.size() == 5,
                     qPrintable(tick.label));
        // Thirty seconds: every five, with seconds.
        const QStringList seconds = labels(TickUnits::Clock, 1.7e9 + 1, 1.7e9 + 31, 6);
        QCOMPARE(seconds.first(),
                 QDateTime::fromSecsSinceEpoch(qint64(1.7e9 + 5)).toString(u"hh:mm:ss"_s));
        // Past midnight, the first tick of the new day says its date.
        const double midnight = QDateTime(QDate(2026, 11, 26), QTime(0, 0)).toSecsSinceEpoch();
        const QStringList night = labels(TickUnits::Clock, midnight - 7200, midnight + 7200, 5);
        QVERIFY2(night.contains(u"Nov 26 00:00"_s), qPrintable(night.join(u" | "_s)));
        // Under a second: milliseconds, never the epoch's seconds in seventeen digits.
        const QStringList instant = labels(TickUnits::Clock, 1.7e9 + 0.0004, 1.7e9 + 0.0031, 4);
        QVERIFY2(instant.size() >= 2 && instant.first().endsWith(u".001"_s),
                 qPrintable(instant.join(u" | "_s)));
        // Years: the year, never a day and month that repeat.
        const double year = 365.25 * 86400;
        const QStringList years = labels(TickUnits::Clock, 1.7e9, 1.7e9 + 5 * year, 6);
        QVERIFY2(years.size() >= 3 && years.first().size() == 4, qPrintable(years.join(u' ')));
        // A week: days.
        QCOMPARE(labels(TickUnits::Clock, midnight, midnight + 6 * 86400, 7).first(), u"Nov 26"_s);
    }

    void durations() {
        QCOMPARE(labels(TickUnits::Duration, 0, 7200, 5),
                 (QStringList{u"0"_s, u"30m"_s, u"1h"_s, u"1h 30m"_s, u"2h"_s}));
        QCOMPARE(labels(TickUnits::Duration, 0, 100, 6),
                 (QStringList{u"0"_s, u"30s"_s, u"1m"_s, u"1m 30s"_s}));
        // Down to the unit the spacing needs, zeros between kept, trailing ones left off.
        QCOMPARE(sb::durationLabel(2 * 86400 + 3 * 3600 + 59), u"2d 3h 0m 59s"_s);
        QCOMPARE(sb::durationLabel(2 * 86400 + 3 * 3600, 3600), u"2d 3h"_s);
        QCOMPARE(sb::durationLabel(7230, 5), u"2h 0m 30s"_s);
        QCOMPARE(sb::durationLabel(88200, 600), u"1d 0h 30m"_s);
        QCOMPARE(sb::durationLabel(60.5, 0.5), u"1m 0.5s"_s);
        QCOMPARE(sb::durationLabel(7200, 1800), u"2h"_s);
        // A minute's zoom an hour in: every tick its own label.
        const QStringList zoomed = labels(TickUnits::Duration, 3600, 3660, 6);
        QCOMPARE(zoomed.first(), u"1h"_s);
        QCOMPARE(zoomed.size(), 7);
        QCOMPARE(zoomed[1], u"1h 0m 10s"_s);
        QCOMPARE(sb::durationLabel(0.25), u"0.25s"_s);
        QCOMPARE(labels(TickUnits::Duration, 0.9, 2.1, 4),
                 (QStringList{u"1s"_s, u"1.5s"_s, u"2s"_s}));
    }

    void anyRangeGivesAHandful() {
        const std::pair<double, double> ranges[] = {{-1.7e308, 1.7e308}, {1, 1 + 1e-12},
                                                    {5e-324, 1e-320},    {1e18, 1e18 + 1280},
                                                    {-1e300, 1e300},     {1e20, 1e20 + 1e5}};
        for (const TickUnits units :
             {TickUnits::Number, TickUnits::Log, TickUnits::Clock, TickUnits::Duration}) {
            for (const auto &[lo, hi] : ranges) {
                const QList<sb::Tick> ticks = sb::ticksFor(units, lo, hi, 6);
                if (units == TickUnits::Log && lo <= 0)
                    continue;
                QVERIFY2(ticks.size() >= 2 && ticks.size() <= 8,
                         qPrintable(u"%1 ticks over %2..%3"_s.arg(ticks.size()).arg(lo).arg(hi)));
                QSet<QString> distinct;
                for (const sb::Tick &tick : ticks)
                    distinct << tick.label;
                QCOMPARE(distinct.size(), ticks.size());
            }
        }
        QVERIFY(sb::ticksFor(TickUnits::Number, 1, 1, 5).isEmpty());
        QVERIFY(sb::ticksFor(TickUnits::Number, 0, qInf(), 5).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestAxisTicks)
#include "tst_axisticks.moc"
