#include "MetricPoint.h"

#include "util/EnumNames.h"

#include <utility>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr EnumNames<XAxis, 3> kAxisNames{
    {{XAxis::Step, "step"}, {XAxis::RelativeTime, "relative"}, {XAxis::WallTime, "wall"}}};

} // namespace

QString xAxisName(XAxis axis) {
    return nameOf(kAxisNames, axis);
}

QString pointProblem(const MetricPoint &point) {
    for (const auto &[name, x] : {std::pair{"step", point.step}, std::pair{"time", point.wall}}) {
        if (!validCoordinate(x))
            return u"%1 %2 is not a finite number within +-2^53"_s.arg(QLatin1StringView(name))
                .arg(x, 0, 'g', 17);
    }
    return {};
}

bool parseXAxis(const QString &name, XAxis *axis) {
    return parseName(kAxisNames, name, axis);
}

} // namespace sb
