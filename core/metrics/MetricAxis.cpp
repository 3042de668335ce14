#include "MetricAxis.h"

#include <algorithm>
#include <cmath>

namespace sb {

MetricAxisSource::MetricAxisSource(std::unique_ptr<PointSource> series, std::vector<MetricPoint> x)
    : m_series(std::move(series))
    , m_x(std::move(x)) {
    std::erase_if(m_x, [](const MetricPoint &p) {
        return !std::isfinite(p.step) || !std::isfinite(p.value);
    });
    std::stable_sort(m_x.begin(), m_x.end(),
                     [](const MetricPoint &a, const MetricPoint &b) { return a.step < b.step; });
}

double MetricAxisSource::xAt(double step) const {
    if (m_x.empty() || !(step >= m_x.front().step) || !(step <= m_x.back().step))
        return qQNaN();
    const auto after = std::upper_bound(m_x.begin(), m_x.end(), step,
                                        [](double s, const MetricPoint &p) { return s < p.step; });
    const MetricPoint &below = *(after - 1);
    if (after == m_x.end() || below.step == step)
        return below.value; // on a point (the last one, or a step logged twice: its last value)
    const double t = (step - below.step) / (after->step - below.step);
    return (1 - t) * below.value + t * after->value;
}

void MetricAxisSource::read(qint64 first, qint64 count, MetricPoint *out) const {
    m_series->read(first, count, out);
    for (qint64 i = 0; i < count; ++i)
        out[i].step = xAt(out[i].step);
}

} // namespace sb
