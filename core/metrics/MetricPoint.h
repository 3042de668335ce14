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
};
static_assert(sizeof(MetricPoint) == 24);

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
