#include "AxisTicks.h"

#include <QDateTime>
#include <QTimeZone>

#include <algorithm>
#include <cmath>
#include <limits>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// A number as a tick says it: plain where that is short, else in powers of ten (1.5e6, 2e-5),
// with as many digits as the ticks' spacing needs to tell them apart.
QString numberLabel(double v, double spacing) {
    if (!std::isfinite(v) || !std::isfinite(spacing) || !(spacing > 0))
        return QString::number(v, 'g', 17);
    if (v == 0 || std::abs(v) < spacing * 1e-9)
        return u"0"_s;
    const double magnitude = std::abs(v);
    // Significant digits: from the value's leading digit down to the spacing's.
    const int digits = std::clamp(
        static_cast<int>(std::floor(std::log10(magnitude)) - std::floor(std::log10(spacing))) + 1,
        1, 17);
    if (magnitude >= 1e5 || magnitude < 1e-3) {
        QString text = QString::number(v, 'e', std::max(0, digits - 1));
        // 1.50e+06 -> 1.5e6: no plus, no leading zeros, no trailing ones in the mantissa.
        const qsizetype e = text.indexOf(u'e');
        QString mantissa = text.left(e);
        if (mantissa.contains(u'.')) {
            while (mantissa.endsWith(u'0'))
                mantissa.chop(1);
            if (mantissa.endsWith(u'.'))
                mantissa.chop(1);
        }
        const int exponent = text.mid(e + 1).toInt();
        return mantissa + u'e' + QString::number(exponent);
    }
    const int decimals =
        std::clamp(-static_cast<int>(std::floor(std::log10(spacing) + 1e-9)), 0, 17);
    QString text = QString::number(v, 'f', decimals);
    if (text.contains(u'.')) { // 1.0 -> 1, 0.50 -> 0.5
        while (text.endsWith(u'0'))
            text.chop(1);
        if (text.endsWith(u'.'))
            text.chop(1);
    }
    return text;
}

// The 1-2-5 step at least `raw` (the span over the ticks wanted).
double niceStep(double raw) {
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
        if (m * magnitude >= raw)
            return m * magnitude;
    }
    return 10 * magnitude;
}

QList<Tick> numberTicks(double lo, double hi, int most, bool log10Positions) {
    const double widest = std::max(std::abs(lo), std::abs(hi));
    const auto at = [log10Positions](double v) {
        return log10Positions ? std::log10(v) : v;
    };
    // A range that falls between round steps (0.0019..0.0038 at two ticks) takes finer ones.
    for (int wanted = most; wanted <= most * 4; wanted *= 2) {
        // In halves, so that a span near 1e308 stays finite.
        const double step = niceStep((hi / 2 - lo / 2) / wanted * 2);
        if (!std::isfinite(step) || !(step > widest * 1e-15))
            break;
        // Counted, not walked up to hi: near the ends of the double range, k * step may pass
        // any bound without ever exceeding it. A tick a rounding error outside an end (-3 × 0.2
        // against -0.6) is at that end.
        QList<Tick> ticks;
        const double slack = step * 1e-9;
        const double first = std::ceil(lo / step - 1e-9);
        for (int k = 0; k <= most + 1; ++k) {
            double v = (first + k) * step;
            if (!(v <= hi + slack))
                break;
            v = std::clamp(v, lo, hi);
            if (!log10Positions || v > 0)
                ticks.append({at(v), numberLabel(v, step)});
        }
        if (ticks.size() >= 2)
            return ticks;
    }
    // A span below its values' digits: the ends and the middle, with the digits that tell
    // them apart.
    const double values[] = {lo, lo / 2 + hi / 2, hi};
    for (int digits = 3; digits <= 17; ++digits) {
        QList<Tick> ticks;
        for (const double v : values)
            ticks.append({at(v), QString::number(v, 'g', digits)});
        if (ticks[0].label != ticks[1].label && ticks[1].label != ticks[2].label)
            return ticks;
    }
    return {{at(lo), QString::number(lo, 'g', 17)}, {at(hi), QString::number(hi, 'g', 17)}};
}

QList<Tick> logTicks(double lo, double hi, int most) {
    const double l0 = std::log10(lo);
    const double l1 = std::log10(hi);
    if (l1 - l0 < 0.6) // less than a factor of four: even steps read better than decades
        return numberTicks(lo, hi, most, true);
    QList<Tick> ticks;
    const auto label = [](double v) {
        return v >= 1e5 || v < 1e-3 ? numberLabel(v, v) : QString::number(v, 'g', 6);
    };
    // Every decade, or every other, ...; with few decades, 2 and 5 (or every digit) between.
    const double decades = l1 - l0;
    const int every = std::max(1, static_cast<int>(std::ceil(decades / std::max(1, most))));
    QList<double> multiples{1};
    if (decades * 3 <= most)
        multiples = {1, 2, 5};
    if (decades * 9 <= most)
        multiples = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    for (double d = std::floor(l0); d <= std::ceil(l1); ++d) {
        if (static_cast<long long>(d) % every != 0)
            continue;
        for (const double m : multiples) {
            const double v = m * std::pow(10.0, d);
            const double at = std::log10(v);
            if (std::isfinite(v) && at >= l0 - 1e-12 && at <= l1 + 1e-12)
                ticks.append({at, label(v)});
        }
    }
    if (ticks.size() < 2)
        return numberTicks(lo, hi, most, true);
    return ticks;
}

// Round spans of time, from a millisecond to a year.
constexpr double kTimeSteps[] = {
    0.001, 0.002, 0.005, 0.01,  0.02,  0.05,   0.1,    0.2,     0.5,     1,       2,
    5,     10,    15,    30,    60,    120,    300,    600,     900,     1800,    3600,
    7200,  10800, 21600, 43200, 86400, 172800, 604800, 1209600, 2592000, 7776000, 31536000};

double timeStep(double span, int most) {
    for (const double step : kTimeSteps) {
        if (span / step <= most)
            return step;
    }
    return niceStep(span / 31536000 / most) * 31536000; // centuries of a bad clock: years
}

QList<Tick> durationTicks(double lo, double hi, int most) {
    const double step = timeStep(hi - lo, most);
    if (!(step > std::max(std::abs(lo), std::abs(hi)) * 1e-15))
        return numberTicks(lo, hi, most, false);
    QList<Tick> ticks;
    const double first = std::ceil(lo / step - 1e-9);
    for (int k = 0; k <= most + 1 && (first + k) * step <= hi; ++k)
        ticks.append({(first + k) * step, durationLabel((first + k) * step, step)});
    if (ticks.size() < 2)
        return numberTicks(lo, hi, most, false);
    return ticks;
}

// Whole days, months or years on the calendar (a day is not always 86,400 s: summer time).
QList<Tick> calendarTicks(double lo, double hi, double step, int most) {
    const auto seconds = [](const QDate &date) {
        return static_cast<double>(date.startOfDay().toMSecsSinceEpoch()) / 1000;
    };
    QDate date = QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(lo * 1000)).date();
    int days = 0, months = 0, years = 0;
    QString format;
    if (step >= 365 * 86400) {
        years = std::max(1, static_cast<int>(std::lround(step / (365 * 86400.0))));
        date = QDate(date.year() - date.year() % years, 1, 1);
        format = u"yyyy"_s;
    } else if (step >= 28 * 86400) {
        months = std::max(1, static_cast<int>(std::lround(step / (30 * 86400.0))));
        date = QDate(date.year(), 1, 1).addMonths((date.month() - 1) / months * months);
        format = u"MMM yyyy"_s;
    } else {
        days = std::max(1, static_cast<int>(std::lround(step / 86400)));
        format = u"MMM d"_s;
    }
    QList<Tick> ticks;
    for (int k = 0; k < 4 * (most + 2) && ticks.size() <= most + 1 && date.isValid(); ++k) {
        const double t = seconds(date);
        if (t > hi)
            break;
        if (t >= lo)
            ticks.append({t, date.toString(format)});
        date = years ? date.addYears(years) : months ? date.addMonths(months) : date.addDays(days);
    }
    return ticks;
}

QList<Tick> clockTicks(double lo, double hi, int most) {
    constexpr double kLimit = 8.64e12; // seconds: what QDateTime counts, about 273,000 years
    if (!(lo > -kLimit && hi < kLimit))
        return numberTicks(lo, hi, most, false);
    const double step = timeStep(hi - lo, most);
    QList<Tick> ticks;
    if (step >= 86400) {
        ticks = calendarTicks(lo, hi, step, most);
    } else {
        // Counted from local midnight of the first day, so hours fall on round times.
        const QDateTime first = QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(lo * 1000));
        const double midnight =
            static_cast<double>(first.date().startOfDay().toMSecsSinceEpoch()) / 1000;
        const QString format = step < 1    ? u"hh:mm:ss.zzz"_s
                               : step < 60 ? u"hh:mm:ss"_s
                                           : u"hh:mm"_s;
        QDate previousDay = first.date();
        const double firstStep = std::ceil((lo - midnight) / step - 1e-9);
        for (int k = 0; k <= most + 1; ++k) {
            const double t = midnight + (firstStep + k) * step;
            if (t > hi)
                break;
            const QDateTime when =
                QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(std::llround(t * 1000)));
            // The first tick of a new day says its date as well.
            const bool newDay = when.date() != previousDay;
            previousDay = when.date();
            ticks.append({t, when.toString(newDay ? u"MMM d "_s + format : format)});
        }
    }
    if (ticks.size() < 2)
        return numberTicks(lo, hi, most, false);
    return ticks;
}

} // namespace

QString durationLabel(double seconds, double step) {
    if (seconds == 0)
        return u"0"_s;
    const QString sign = seconds < 0 ? u"−"_s : QString();
    double left = std::abs(seconds);
    static const std::pair<double, QString> units[] = {
        {86400, u"d"_s}, {3600, u"h"_s}, {60, u"m"_s}, {1, u"s"_s}};
    // The finest unit the ticks' spacing needs (with no spacing, seconds); below a second, the
    // seconds say their parts.
    double finest = 1;
    for (const auto &[size, name] : units) {
        if (step >= size) {
            finest = size;
            break;
        }
    }
    const int decimals =
        step > 0 && step < 1
            ? std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 1, 9)
        : step <= 0 && left != std::floor(left) ? 3
                                                : 0;
    QStringList parts;
    for (const auto &[size, name] : units) {
        if (size < finest)
            break;
        if (parts.isEmpty() && left < size && size > finest)
            continue; // no leading zeros: 5m, not 0d 0h 5m
        if (size == finest) {
            QString value = QString::number(size == 1 ? left : std::round(left / size), 'f',
                                            size == 1 ? decimals : 0);
            if (value.contains(u'.')) { // 1.50 -> 1.5
                while (value.endsWith(u'0'))
                    value.chop(1);
                if (value.endsWith(u'.'))
                    value.chop(1);
            }
            parts << value + name;
            break;
        }
        const double whole = std::floor(left / size + 1e-9);
        parts << QString::number(whole, 'f', 0) + name;
        left = std::max(0.0, left - whole * size);
    }
    // 2h 0m 0s reads as 2h; 2h 0m 30s stays.
    while (parts.size() > 1 && parts.last().startsWith(u'0') &&
           QStringView(parts.last()).chopped(1) == u"0")
        parts.removeLast();
    return sign + parts.join(u' ');
}

QList<Tick> ticksFor(TickUnits units, double lo, double hi, int most) {
    most = std::clamp(most, 2, 12);
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo))
        return {};
    QList<Tick> ticks;
    switch (units) {
    case TickUnits::Number:
        ticks = numberTicks(lo, hi, most, false);
        break;
    case TickUnits::Log:
        ticks = lo > 0 ? logTicks(lo, hi, most) : QList<Tick>();
        break;
    case TickUnits::Clock:
        ticks = clockTicks(lo, hi, most);
        break;
    case TickUnits::Duration:
        ticks = durationTicks(lo, hi, most);
        break;
    }
    // Distinct labels (an axis of categories keys them by label), in order.
    QList<Tick> distinct;
    for (const Tick &tick : std::as_const(ticks)) {
        if (std::none_of(distinct.cbegin(), distinct.cend(),
                         [&tick](const Tick &t) { return t.label == tick.label; }))
            distinct << tick;
    }
    return distinct;
}

} // namespace sb
