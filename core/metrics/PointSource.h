#pragma once

#include "MetricPoint.h"

#include <QString>
#include <QtGlobal>

#include <vector>

namespace sb {

// Random access to a series' points, wherever they live (a store file, a vector in a test).
class PointSource {
public:
    virtual ~PointSource() = default;
    virtual qint64 size() const = 0;
    // Copies points [first, first + count) to `out`; the range is within size().
    virtual void read(qint64 first, qint64 count, MetricPoint *out) const = 0;
    // Why a read failed (its points were then zeros, never to be used); empty while none did.
    virtual QString failure() const { return {}; }
};

class VectorPointSource final : public PointSource {
public:
    explicit VectorPointSource(const std::vector<MetricPoint> *points)
        : m_points(points) {}
    qint64 size() const override { return static_cast<qint64>(m_points->size()); }
    void read(qint64 first, qint64 count, MetricPoint *out) const override {
        std::copy_n(m_points->begin() + first, count, out);
    }

private:
    const std::vector<MetricPoint> *m_points;
};

} // namespace sb
