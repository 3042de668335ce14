#pragma once

#include "Downsampler.h"

#include <algorithm>
#include <cmath>
#include <limits>

// Reading a series by pixel columns: shared by M4 downsampling and run groups, so both map x to
// columns and search sorted series the same way, and by the lab store's SQL (LabReader), which
// maps x to columns with the same arithmetic.
namespace sb::scan {

// Maps x to a pixel column. Every scan uses this one function, so they all agree exactly.
// Works on halves, so the span of any two finite doubles stays finite; NaN falls in column 0.
// On a log axis the columns are even in log10(x), and x <= 0 lies in none of them.
class Columns {
public:
    Columns(double x0, double x1, int width, bool logX = false)
        : m_x0(x0)
        , m_x1(x1)
        , m_log(logX)
        , m_half0(scaled(x0) / 2)
        , m_halfSpan(scaled(x1) / 2 - scaled(x0) / 2)
        , m_width(std::max(1, width)) {}
    int width() const { return m_width; }
    // column() is floor((x / 2 - half0()) / halfSpan() * width()), clamped to the columns; all
    // in column 0 when halfSpan() is not above zero and finite. On a linear axis.
    double half0() const { return m_half0; }
    double halfSpan() const { return m_halfSpan; }
    bool contains(double x) const { return x >= m_x0 && x <= m_x1 && (!m_log || x > 0); }
    int column(double x) const {
        if (!(m_halfSpan > 0) || !std::isfinite(m_halfSpan))
            return 0;
        const double c = std::floor((scaled(x) / 2 - m_half0) / m_halfSpan * m_width);
        return c >= 0 ? static_cast<int>(std::min(c, m_width - 1.0)) : 0;
    }
    // The middle of column c, in x.
    double centre(int c) const {
        return unscaled(2 * (m_half0 + m_halfSpan * (c + 0.5) / m_width));
    }
    // Every x below this value lies in column c or before it (a hair under the exact edge, so
    // rounding never disagrees with column()); lets a sorted scan skip the division per point.
    double safelyBelowNext(int c) const {
        if (!(m_halfSpan > 0) || !std::isfinite(m_halfSpan) || c >= m_width - 1)
            return std::numeric_limits<double>::infinity();
        const double edge = 2 * (m_half0 + m_halfSpan * (c + 1) / m_width);
        const double slack = 1e-9 * std::max({std::abs(edge), std::abs(2 * m_half0),
                                              std::abs(2 * (m_half0 + m_halfSpan)), 1.0});
        return unscaled(edge - slack);
    }

private:
    double scaled(double x) const { return m_log ? std::log10(x) : x; }
    double unscaled(double t) const { return m_log ? std::pow(10.0, t) : t; }

    double m_x0;
    double m_x1;
    bool m_log;
    double m_half0;
    double m_halfSpan;
    int m_width;
};

inline double xOf(const MetricPoint &p, const SeriesWindow &window) {
    switch (window.axis) {
    case XAxis::Step:
        return p.step;
    case XAxis::RelativeTime:
        return p.wall - window.origin;
    case XAxis::WallTime:
        return p.wall;
    }
    return p.step;
}

// Every point of [first, last) in order, read a chunk at a time: visit(index, point).
template <typename Visit>
void forEachPoint(const PointSource &source, qint64 first, qint64 last, Visit &&visit) {
    constexpr qint64 chunk = 8192;
    std::vector<MetricPoint> buffer(
        static_cast<std::size_t>(std::min(chunk, std::max<qint64>(0, last - first))));
    for (qint64 i = first; i < last; i += chunk) {
        const qint64 n = std::min(chunk, last - i);
        source.read(i, n, buffer.data());
        for (qint64 j = 0; j < n; ++j)
            visit(i + j, buffer[static_cast<std::size_t>(j)]);
    }
}

// Reads single points through a two-block cache: a column's edges fall into the block its
// neighbour just read, and scanning a column's head and tail alternates between two blocks.
class BlockReader {
public:
    explicit BlockReader(const PointSource &source)
        : m_source(source) {
        for (Slot &slot : m_slots)
            slot.points.resize(SeriesSummary::kBlockSize);
    }

    const MetricPoint &at(qint64 index) {
        const qint64 block = index / SeriesSummary::kBlockSize;
        int used = m_slots[0].block == block ? 0 : 1;
        if (m_slots[used].block != block) {
            used = 1 - m_lastUsed; // the least recently used slot
            const qint64 first = block * SeriesSummary::kBlockSize;
            m_source.read(first, std::min(SeriesSummary::kBlockSize, m_source.size() - first),
                          m_slots[used].points.data());
            m_slots[used].block = block;
        }
        m_lastUsed = used;
        return m_slots[used].points[index % SeriesSummary::kBlockSize];
    }

    MetricPoint single(qint64 index) const {
        MetricPoint p;
        m_source.read(index, 1, &p);
        return p;
    }

private:
    struct Slot {
        qint64 block = -1;
        std::vector<MetricPoint> points;
    };
    const PointSource &m_source;
    Slot m_slots[2];
    int m_lastUsed = 0;
};

// First index in [lo, hi) whose x satisfies `reached` (monotone along a sorted series), or hi.
template <typename Pred>
qint64 firstWhere(const SeriesSummary &summary, BlockReader &reader, const SeriesWindow &window,
                  qint64 lo, qint64 hi, Pred reached) {
    const auto &blocks = summary.blocks();
    const qint64 k = SeriesSummary::kBlockSize;
    // Narrow to one block using each block's first x, then search inside it. Scans ask for the
    // next column's edge, a block or two on: galloping from lo finds it in a few probes.
    qint64 blo = lo / k;
    qint64 bhi = (hi + k - 1) / k;
    auto firstX = [&](qint64 b) {
        MetricPoint p{blocks[b].firstStep, 0, blocks[b].firstWall};
        return xOf(p, window);
    };
    for (qint64 step = 1; blo + step < bhi; step *= 2) {
        if (reached(firstX(blo + step))) {
            bhi = blo + step;
            break;
        }
        blo += step;
    }
    while (blo < bhi) {
        const qint64 mid = blo + (bhi - blo) / 2;
        if (reached(firstX(mid)))
            bhi = mid;
        else
            blo = mid + 1;
    }
    qint64 a = std::max(lo, (blo - 1) * k);
    qint64 b = std::min(hi, blo * k);
    while (a < b) {
        const qint64 mid = a + (b - a) / 2;
        if (reached(xOf(reader.at(mid), window)))
            b = mid;
        else
            a = mid + 1;
    }
    return a;
}

} // namespace sb::scan
