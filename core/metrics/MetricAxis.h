#pragma once

#include "PointSource.h"

#include <memory>
#include <vector>

namespace sb {

// A series read against another metric of the same run as its x (tokens seen, epoch): each
// point's step becomes that metric's value at the same step, on the straight line between the
// two points of it that surround the step; NaN before its first point and after its last, so a
// curve is never drawn where its x is not known. Wall time is kept.
class MetricAxisSource final : public PointSource {
public:
    // `x`: every point of the x metric, in any order.
    MetricAxisSource(std::unique_ptr<PointSource> series, std::vector<MetricPoint> x);
    qint64 size() const override { return m_series->size(); }
    void read(qint64 first, qint64 count, MetricPoint *out) const override;
    QString failure() const override { return m_series->failure(); }
    // The x metric's value at `step`.
    double xAt(double step) const;

private:
    std::unique_ptr<PointSource> m_series;
    std::vector<MetricPoint> m_x; // finite steps and values, by step
};

} // namespace sb
