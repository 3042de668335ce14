#include "MetricPoint.h"

#include <utility>

namespace sb {

using namespace Qt::StringLiterals;

QString xAxisName(XAxis axis) {
    switch (axis) {
    case XAxis::Step:
        return u"step"_s;
    case XAxis::RelativeTime:
        return u"relative"_s;
    case XAxis::WallTime:
        return u"wall"_s;
    }
    return {};
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
    for (XAxis candidate : {XAxis::Step, XAxis::RelativeTime, XAxis::WallTime}) {
        if (name == xAxisName(candidate)) {
            *axis = candidate;
            return true;
        }
    }
    return false;
}

} // namespace sb
