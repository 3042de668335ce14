#pragma once

#include <QList>
#include <QString>

namespace sb {

// What an axis's values are, for where its ticks go and how they read.
enum class TickUnits {
    Number,   // 1, 2 or 5 times a power of ten
    Log,      // decades; with 2 and 5 between them, or every digit, when few decades show
    Clock,    // seconds since the epoch: round clock times (10:30, 10:30:15, Nov 26)
    Duration, // seconds: round spans, said in units (30s, 5m, 1h 30m, 2d)
};

// A tick: where it is (in the axis's own units: log10 of the value on a log axis) and its label.
struct Tick {
    double at = 0;
    QString label;
    bool operator==(const Tick &) const = default;
};

// Ticks over [lo, hi] (values, not log10 on a log axis), about `most` of them (a round step
// may give one more) and at least two where the range allows, every label distinct. Finite lo < hi;
// any such range gives a handful, however wide or narrow (a span below its values' digits says each
// tick in full).
QList<Tick> ticksFor(TickUnits units, double lo, double hi, int most);

// A duration in seconds down to the unit the ticks' spacing needs: "45s", "5m", "1h 30m",
// "2h 0m 30s", "1.5s"; with no spacing given, to the second (and its parts).
QString durationLabel(double seconds, double step = 0);

} // namespace sb
