#pragma once

#include <QString>

#include <cstdint>
#include <vector>

namespace sb {

// One logged value. Stored on disk exactly as laid out here (24 bytes, little-endian doubles).
struct MetricPoint {
    double step = 0;
    double value = 0;
    double wall = 0; // seconds since the Unix epoch
    bool operator==(const MetricPoint &) const = default;
};
static_assert(sizeof(MetricPoint) == 24);

// A step and a time must be finite and within +-2^53 (so integer steps stay exact and the span
// of any two never overflows); a value may be any double, NaN and infinities included.
inline constexpr double kMaxCoordinate = 9007199254740992.0; // 2^53
inline bool validCoordinate(double x) {
    return x >= -kMaxCoordinate && x <= kMaxCoordinate; // false for NaN
}
// The longest name of a new run, metric or tag, in UTF-16 units: a chart's request names each.
inline constexpr qsizetype kLongestName = 1024;

// Why a point cannot be stored ("step -1e+308 is outside +-2^53"), or an empty string.
QString pointProblem(const MetricPoint &point);

// The points of one metric of one run, as they arrive in a push or a parsed line.
struct SeriesPoints {
    QString metric;
    std::vector<MetricPoint> points;
};

// Which value a chart's x axis shows.
enum class XAxis : std::uint8_t { Step, RelativeTime, WallTime };

QString xAxisName(XAxis axis);
bool parseXAxis(const QString &name, XAxis *axis);

} // namespace sb
