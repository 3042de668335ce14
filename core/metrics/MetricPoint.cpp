#include "MetricPoint.h"

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
