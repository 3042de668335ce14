#include "SeriesSummary.h"

#include <algorithm>
#include <cmath>

namespace sb {

void SeriesSummary::update(const PointSource &source) {
    constexpr qint64 chunk = 16 * kBlockSize;
    std::vector<MetricPoint> buffer(chunk);
    const qint64 total = source.size();
    while (m_count < total) {
        const qint64 n = std::min(chunk, total - m_count);
        source.read(m_count, n, buffer.data());
        for (qint64 i = 0; i < n; ++i)
            add(buffer[i]);
    }
}

void SeriesSummary::append(const MetricPoint *points, qint64 count) {
    for (qint64 i = 0; i < count; ++i)
        add(points[i]);
}

void SeriesSummary::add(const MetricPoint &point) {
    const qint64 offset = m_count % kBlockSize;
    if (offset == 0) {
        m_blocks.push_back({point.step, point.wall, std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(), 0, 0, 0, 0});
    }
    Block &block = m_blocks.back();
    if (std::isfinite(point.value)) {
        block.sum += point.value;
        ++block.finite;
        m_minValue = std::min(m_minValue, point.value);
        m_maxValue = std::max(m_maxValue, point.value);
        if (point.value < block.minValue) {
            block.minValue = point.value;
            block.minAt = static_cast<std::uint16_t>(offset);
        }
        if (point.value > block.maxValue) {
            block.maxValue = point.value;
            block.maxAt = static_cast<std::uint16_t>(offset);
        }
    }
    if (!std::isfinite(point.value))
        ++m_nonFinite;
    if (m_count > 0) {
        m_stepSorted = m_stepSorted && point.step >= m_last.step;
        m_wallSorted = m_wallSorted && point.wall >= m_last.wall;
    }
    m_minStep = std::min(m_minStep, point.step);
    m_maxStep = std::max(m_maxStep, point.step);
    m_minWall = std::min(m_minWall, point.wall);
    m_maxWall = std::max(m_maxWall, point.wall);
    m_last = point;
    ++m_count;
}

bool SeriesSummary::constantValues() const {
    if (m_nonFinite > 0 || m_blocks.empty())
        return false;
    const double value = m_blocks.front().minValue;
    return std::all_of(m_blocks.begin(), m_blocks.end(),
                       [&](const Block &b) { return b.minValue == value && b.maxValue == value; });
}

} // namespace sb
