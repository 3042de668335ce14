#include "Downsampler.h"

#include "SeriesScan.h"
#include "Smoothing.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>

namespace sb {

namespace {

using scan::BlockReader;
using scan::Columns;
using scan::firstWhere;
using scan::xOf;

using Indexed = IndexedPoint;

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

Downsampled streamed(const PointSource &source, const SeriesSummary &summary,
                     const SeriesWindow &window, const Columns &columns, qint64 first, qint64 last,
                     bool sorted) {
    Downsampled out;
    out.total = source.size();
    std::vector<Column> bins(columns.width());
    int column = 0;
    double columnEnd = -std::numeric_limits<double>::infinity();
    auto place = [&](qint64 index, double x, double y) {
        if (!columns.contains(x))
            return;
        if (!sorted || x >= columnEnd) {
            column = columns.column(x);
            columnEnd = sorted ? columns.safelyBelowNext(column) : columnEnd;
        }
        bins[column].add({index, x, y});
        ++out.inRange;
    };
    const bool centred = window.smoothing > 0 && window.smoothingKind == SmoothingKind::Gaussian;
    Smoother smoother(window.smoothingKind, window.smoothing, summary.constantValues());
    std::optional<GaussianSmoother> gaussian;
    std::deque<std::pair<qint64, double>> waiting; // points in the Gaussian, by index and x
    if (centred)
        gaussian.emplace(window.smoothing);
    // Smoothing depends on every earlier point, so it starts from the series' beginning.
    const qint64 start = window.smoothing > 0 ? 0 : first;
    scan::forEachPoint(source, start, last, [&](qint64 index, const MetricPoint &p) {
        if (centred) { // a point's value comes out when the points after it went in
            waiting.emplace_back(index, xOf(p, window));
            if (const auto y = gaussian->push(p.value)) {
                place(waiting.front().first, waiting.front().second, *y);
                waiting.pop_front();
            }
        } else if (index < first) {
            smoother.next(p.value); // warming the average up before the window
        } else {
            place(index, xOf(p, window), smoother.next(p.value));
        }
    });
    if (centred) {
        for (const double y : gaussian->flush()) {
            place(waiting.front().first, waiting.front().second, y);
            waiting.pop_front();
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

void appendM4Column(std::vector<IndexedPoint> candidates, Downsampled *out) {
    // In index order, a column keeps the first of equal values, as a scan of the series does.
    std::sort(candidates.begin(), candidates.end(),
              [](const IndexedPoint &a, const IndexedPoint &b) { return a.index < b.index; });
    Column column;
    for (const IndexedPoint &p : candidates)
        column.add(p);
    if (column.used)
        column.emit(out);
}

std::optional<double> logAxisStart(const PointSource &source, const SeriesSummary &summary,
                                   const SeriesWindow &window) {
    const qint64 total = source.size();
    const double originShift = window.axis == XAxis::RelativeTime ? window.origin : 0;
    const XAxis stored = window.axis == XAxis::Step ? XAxis::Step : XAxis::WallTime;
    const double last = summary.maxX(stored) - originShift;
    if (total == 0 || !(last > 0))
        return std::nullopt;
    if (!summary.sortedBy(stored))
        return last * 1e-6;
    BlockReader reader(source);
    const qint64 first =
        firstWhere(summary, reader, window, 0, total, [](double x) { return x > 0; });
    if (first >= total)
        return std::nullopt;
    return xOf(reader.at(first), window);
}

Downsampled downsampleM4(const PointSource &source, const SeriesSummary &summary,
                         const SeriesWindow &window) {
    const qint64 total = source.size();
    if (total == 0)
        return {};
    const double originShift = window.axis == XAxis::RelativeTime ? window.origin : 0;
    const XAxis stored = window.axis == XAxis::Step ? XAxis::Step : XAxis::WallTime;
    double x0 = window.from.value_or(summary.minX(stored) - originShift);
    const double x1 = window.to.value_or(summary.maxX(stored) - originShift);
    if (window.logX && !(x0 > 0)) {
        const auto start = logAxisStart(source, summary, window);
        if (!start || !(*start <= x1))
            return {{}, {}, total, 0}; // nothing above zero in the window
        x0 = *start;
    }
    const Columns columns(x0, x1, window.width, window.logX);

    if (!summary.sortedBy(stored))
        return streamed(source, summary, window, columns, 0, total, false);

    BlockReader reader(source);
    const qint64 first =
        firstWhere(summary, reader, window, 0, total, [&](double x) { return x >= x0; });
    const qint64 last =
        firstWhere(summary, reader, window, first, total, [&](double x) { return x > x1; });
    // Small ranges, ranges of up to a block's points a column (a week of a node's history: 17)
    // and smoothed series are cheaper to stream than to search. A centred smoothing reads as far
    // past the window as it averages over.
    const qint64 streamUpTo = std::max<qint64>(16, columns.width()) * SeriesSummary::kBlockSize;
    if (window.smoothing > 0 || last - first <= streamUpTo) {
        const qint64 reach = window.smoothing > 0 && window.smoothingKind == SmoothingKind::Gaussian
                                 ? GaussianSmoother(window.smoothing).delay()
                                 : 0;
        return streamed(source, summary, window, columns, first, std::min(total, last + reach),
                        true);
    }

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
