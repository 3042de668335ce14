#include "Downsampler.h"

#include "Smoothing.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace sb {

namespace {

struct Indexed {
    qint64 index = -1;
    double x = 0;
    double y = 0;
};

// Maps x to a pixel column. Both code paths below use this one function, so they agree exactly.
// Works on halves, so the span of any two finite doubles stays finite; NaN falls in column 0.
class Columns {
public:
    Columns(double x0, double x1, int width)
        : m_x0(x0)
        , m_x1(x1)
        , m_half0(x0 / 2)
        , m_halfSpan(x1 / 2 - x0 / 2)
        , m_width(std::max(1, width)) {}
    int width() const { return m_width; }
    bool contains(double x) const { return x >= m_x0 && x <= m_x1; }
    int column(double x) const {
        if (!(m_halfSpan > 0) || !std::isfinite(m_halfSpan))
            return 0;
        const double c = std::floor((x / 2 - m_half0) / m_halfSpan * m_width);
        return c >= 0 ? static_cast<int>(std::min(c, m_width - 1.0)) : 0;
    }
    // Every x below this value lies in column c or before it (a hair under the exact edge, so
    // rounding never disagrees with column()); lets a sorted scan skip the division per point.
    double safelyBelowNext(int c) const {
        if (!(m_halfSpan > 0) || !std::isfinite(m_halfSpan) || c >= m_width - 1)
            return std::numeric_limits<double>::infinity();
        const double edge = 2 * (m_half0 + m_halfSpan * (c + 1) / m_width);
        return edge - 1e-9 * std::max({std::abs(edge), std::abs(m_x0), std::abs(m_x1), 1.0});
    }

private:
    double m_x0;
    double m_x1;
    double m_half0;
    double m_halfSpan;
    int m_width;
};

// First, last (by x, then index), minimum and maximum (finite values) of one pixel column.
struct Column {
    Indexed first, last, min, max;
    bool used = false;

    void add(const Indexed &p) {
        if (!used) {
            first = last = p;
            min = max = Indexed{};
            used = true;
        } else {
            if (p.x < first.x || (p.x == first.x && p.index < first.index))
                first = p;
            if (p.x > last.x || (p.x == last.x && p.index > last.index))
                last = p;
        }
        if (std::isfinite(p.y)) {
            if (min.index < 0 || p.y < min.y)
                min = p;
            if (max.index < 0 || p.y > max.y)
                max = p;
        }
    }

    void emit(Downsampled *out) const {
        std::array<Indexed, 4> points{first, min, max, last};
        std::sort(points.begin(), points.end(), [](const Indexed &a, const Indexed &b) {
            return a.x < b.x || (a.x == b.x && a.index < b.index);
        });
        qint64 previous = -1;
        for (const Indexed &p : points) {
            if (p.index < 0 || p.index == previous)
                continue;
            previous = p.index;
            out->x.push_back(p.x);
            out->y.push_back(p.y);
        }
    }
};

double xOf(const MetricPoint &p, const SeriesWindow &window) {
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
    // Narrow to one block using each block's first x, then search inside it.
    qint64 blo = lo / k;
    qint64 bhi = (hi + k - 1) / k;
    auto firstX = [&](qint64 b) {
        MetricPoint p{blocks[b].firstStep, 0, blocks[b].firstWall};
        return xOf(p, window);
    };
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

Downsampled streamed(const PointSource &source, const SeriesSummary &summary,
                     const SeriesWindow &window, const Columns &columns, qint64 first, qint64 last,
                     bool sorted) {
    Downsampled out;
    out.total = source.size();
    std::vector<Column> bins(columns.width());
    Smoother smoother(window.smoothingKind, window.smoothing, summary.constantValues());
    // Smoothing depends on every earlier point, so it starts from the series' beginning.
    const qint64 start = window.smoothing > 0 ? 0 : first;
    constexpr qint64 chunk = 8192;
    std::vector<MetricPoint> buffer(chunk);
    int column = 0;
    double columnEnd = -std::numeric_limits<double>::infinity();
    for (qint64 i = start; i < last; i += chunk) {
        const qint64 n = std::min(chunk, last - i);
        source.read(i, n, buffer.data());
        qint64 j = 0;
        for (; j < n && i + j < first; ++j)
            smoother.next(buffer[j].value); // warming the average up before the window
        for (; j < n; ++j) {
            const MetricPoint &p = buffer[j];
            const double y = smoother.next(p.value);
            const double x = xOf(p, window);
            if (!columns.contains(x))
                continue;
            if (!sorted || x >= columnEnd) {
                column = columns.column(x);
                columnEnd = sorted ? columns.safelyBelowNext(column) : columnEnd;
            }
            bins[column].add({i + j, x, y});
            ++out.inRange;
        }
    }
    for (const Column &c : bins) {
        if (c.used)
            c.emit(&out);
    }
    return out;
}

void minMaxOfRange(const SeriesSummary &summary, BlockReader &reader, qint64 a, qint64 e,
                   const SeriesWindow &window, Column *column) {
    const qint64 k = SeriesSummary::kBlockSize;
    auto scan = [&](qint64 from, qint64 to) {
        for (qint64 i = from; i < to; ++i) {
            const MetricPoint &p = reader.at(i);
            column->add({i, xOf(p, window), p.value});
        }
    };
    const qint64 headEnd = std::min(e, (a / k + 1) * k);
    scan(a, headEnd);
    if (headEnd == e)
        return;
    const qint64 tailStart = std::max(headEnd, ((e - 1) / k) * k);
    // Whole blocks in between: their aggregates say where the extremes are.
    qint64 minIndex = -1;
    qint64 maxIndex = -1;
    double minValue = 0;
    double maxValue = 0;
    for (qint64 b = headEnd / k; b < tailStart / k; ++b) {
        const auto &block = summary.blocks()[b];
        if (std::isfinite(block.minValue) && (minIndex < 0 || block.minValue < minValue)) {
            minValue = block.minValue;
            minIndex = b * k + block.minAt;
        }
        if (std::isfinite(block.maxValue) && (maxIndex < 0 || block.maxValue > maxValue)) {
            maxValue = block.maxValue;
            maxIndex = b * k + block.maxAt;
        }
    }
    for (qint64 index : {minIndex, maxIndex}) {
        if (index >= 0) {
            const MetricPoint p = reader.single(index);
            column->add({index, xOf(p, window), p.value});
        }
    }
    scan(tailStart, e);
}

} // namespace

Downsampled downsampleM4(const PointSource &source, const SeriesSummary &summary,
                         const SeriesWindow &window) {
    const qint64 total = source.size();
    if (total == 0)
        return {};
    const double originShift = window.axis == XAxis::RelativeTime ? window.origin : 0;
    const XAxis stored = window.axis == XAxis::Step ? XAxis::Step : XAxis::WallTime;
    const double x0 = window.from.value_or(summary.minX(stored) - originShift);
    const double x1 = window.to.value_or(summary.maxX(stored) - originShift);
    const Columns columns(x0, x1, window.width);

    if (!summary.sortedBy(stored))
        return streamed(source, summary, window, columns, 0, total, false);

    BlockReader reader(source);
    const qint64 first =
        firstWhere(summary, reader, window, 0, total, [&](double x) { return x >= x0; });
    const qint64 last =
        firstWhere(summary, reader, window, first, total, [&](double x) { return x > x1; });
    // Small ranges and smoothed series are cheaper to stream than to search.
    if (window.smoothing > 0 || last - first <= 16 * SeriesSummary::kBlockSize)
        return streamed(source, summary, window, columns, first, last, true);

    Downsampled out;
    out.total = total;
    out.inRange = last - first;
    qint64 a = first;
    while (a < last) {
        const int c = columns.column(xOf(reader.at(a), window));
        const qint64 e = firstWhere(summary, reader, window, a, last,
                                    [&](double x) { return columns.column(x) > c; });
        Column column;
        minMaxOfRange(summary, reader, a, e, window, &column);
        column.emit(&out);
        a = e;
    }
    return out;
}

} // namespace sb
