#include "RunGroups.h"

#include "SeriesScan.h"
#include "util/EnumNames.h"

#include <algorithm>
#include <cmath>

namespace sb {

using scan::BlockReader;
using scan::Columns;
using scan::firstWhere;
using scan::xOf;

namespace {

constexpr EnumNames<GroupCenter, 2> kCenterNames{
    {{GroupCenter::Mean, "mean"}, {GroupCenter::Median, "median"}}};
constexpr EnumNames<GroupBand, 4> kBandNames{{{GroupBand::None, "none"},
                                              {GroupBand::StdDev, "std"},
                                              {GroupBand::StdErr, "stderr"},
                                              {GroupBand::MinMax, "minmax"}}};

} // namespace

bool parseGroupCenter(QStringView name, GroupCenter *center) {
    return parseName(kCenterNames, name, center);
}

bool parseGroupBand(QStringView name, GroupBand *band) {
    return parseName(kBandNames, name, band);
}

QString groupCenterName(GroupCenter center) {
    return nameOf(kCenterNames, center);
}

QString groupBandName(GroupBand band) {
    return nameOf(kBandNames, band);
}

namespace {

// The mean of finite values that may be as large as the double range: a plain sum first, and on
// overflow a running mean of halves, whose steps stay finite.
class MeanOf {
public:
    void add(double v) {
        m_sum += v;
        ++m_count;
    }
    void addSum(double sum, qint64 count) {
        m_sum += sum;
        m_count += count;
    }
    qint64 count() const { return m_count; }
    bool overflowed() const { return !std::isfinite(m_sum); }
    double mean() const { return m_count > 0 ? m_sum / static_cast<double>(m_count) : qQNaN(); }

private:
    double m_sum = 0;
    qint64 m_count = 0;
};

double safeMean(const double *values, std::size_t n) {
    MeanOf plain;
    for (std::size_t i = 0; i < n; ++i)
        plain.add(values[i]);
    if (!plain.overflowed())
        return plain.mean();
    double half = 0;
    for (std::size_t i = 0; i < n; ++i)
        half += (values[i] / 2 - half) / static_cast<double>(i + 1);
    return 2 * half;
}

// The sums of the finite values of a sorted series' ranges, column by column: whole blocks from
// the summary; a block that a column edge cuts is read on the shorter side of the cut only, the
// other side being the block's sum less that, and both columns at the edge share the reading.
class RangeSums {
public:
    RangeSums(const SeriesSummary &summary, BlockReader &reader, qint64 total)
        : m_blocks(summary.blocks())
        , m_reader(reader)
        , m_total(total) {}

    // Adds points [a, e) to `mean`.
    void add(qint64 a, qint64 e, MeanOf *mean) {
        const qint64 k = SeriesSummary::kBlockSize;
        if (a >= e)
            return;
        if (a / k == (e - 1) / k && a % k != 0 && e != blockEnd(a / k)) {
            add(scan(a, e), mean); // inside one block, cut at both ends
            return;
        }
        qint64 b = a / k;
        if (a % k != 0) { // the head: what follows the cut at a
            add(subtractable(b) ? rest(before(a), b) : scan(a, blockEnd(b)), mean);
            ++b;
        }
        for (; b < e / k; ++b)
            add(whole(b), mean);
        if (e % k != 0 && b * k < e) // the tail: what precedes the cut at e
            add(before(e), mean);
    }

private:
    struct Part {
        double sum = 0;
        qint64 finite = 0;
    };
    static void add(const Part &part, MeanOf *mean) { mean->addSum(part.sum, part.finite); }
    qint64 blockEnd(qint64 b) const {
        return std::min((b + 1) * SeriesSummary::kBlockSize, m_total);
    }
    Part whole(qint64 b) const {
        const auto &block = m_blocks[std::size_t(b)];
        return {block.sum, block.finite};
    }
    Part rest(const Part &part, qint64 b) const {
        const Part all = whole(b);
        return {all.sum - part.sum, all.finite - part.finite};
    }
    // Points of one block through one pointer, in a loop the compiler keeps tight.
    Part scan(qint64 from, qint64 to) {
        Part part;
        if (from >= to)
            return part;
        const MetricPoint *points = &m_reader.at(from);
        for (qint64 i = 0; i < to - from; ++i) {
            const double v = points[i].value;
            const bool ok = std::isfinite(v);
            part.sum += ok ? v : 0;
            part.finite += ok;
        }
        return part;
    }
    // The block's sum less a part is exact enough where its finite values share a sign and lie
    // within a factor of 1e6 (the error then stays under about 1e-7 of the rest's sum); a block
    // that spans zero or holds a spike is read directly.
    bool subtractable(qint64 b) const {
        const auto &block = m_blocks[std::size_t(b)];
        if (block.finite == 0)
            return true;
        const double low = std::min(std::abs(block.minValue), std::abs(block.maxValue));
        const double high = std::max(std::abs(block.minValue), std::abs(block.maxValue));
        return std::isfinite(block.sum) && (block.minValue > 0 || block.maxValue < 0) &&
               high <= low * 1e6;
    }
    // The points of cut's block before it; each cut is asked twice in a row (the tail of one
    // column, then the head of the next), and read once.
    Part before(qint64 cut) {
        if (cut == m_cut)
            return m_before;
        const qint64 b = cut / SeriesSummary::kBlockSize;
        const qint64 start = b * SeriesSummary::kBlockSize;
        const qint64 end = blockEnd(b);
        m_before = cut - start <= end - cut || !subtractable(b) ? scan(start, cut)
                                                                : rest(scan(cut, end), b);
        m_cut = cut;
        return m_before;
    }

    const std::vector<SeriesSummary::Block> &m_blocks;
    BlockReader &m_reader;
    qint64 m_total;
    qint64 m_cut = -1;
    Part m_before;
};

} // namespace

std::vector<double> resampleOnGrid(const PointSource &source, const SeriesSummary &summary,
                                   const SeriesWindow &window, const ColumnGrid &grid) {
    const Columns columns(grid.x0, grid.x1, grid.width, grid.logX);
    const auto width = static_cast<std::size_t>(columns.width());
    std::vector<MeanOf> bins(width);
    const qint64 total = source.size();
    const XAxis stored = window.axis == XAxis::Step ? XAxis::Step : XAxis::WallTime;

    // Every point of [first, last), one by one.
    // The finite points of [first, last) inside the grid, by column.
    auto stream = [&](qint64 first, qint64 last, auto &&add) {
        scan::forEachPoint(source, first, last, [&](qint64, const MetricPoint &p) {
            const double x = xOf(p, window);
            if (columns.contains(x) && std::isfinite(p.value))
                add(static_cast<std::size_t>(columns.column(x)), p.value);
        });
    };
    auto addToBin = [&](std::size_t c, double v) {
        bins[c].add(v);
    };

    qint64 first = 0;
    qint64 last = total;
    if (total > 0 && summary.sortedBy(stored)) {
        BlockReader reader(source);
        const double x0 = grid.x0;
        const double x1 = grid.x1;
        first = firstWhere(summary, reader, window, 0, total, [&](double x) { return x >= x0; });
        last = firstWhere(summary, reader, window, first, total, [&](double x) { return x > x1; });
        if (last - first <= 16 * SeriesSummary::kBlockSize) {
            stream(first, last, addToBin);
        } else {
            RangeSums sums(summary, reader, total);
            for (qint64 a = first; a < last;) {
                const int c = columns.column(xOf(reader.at(a), window));
                const qint64 e = firstWhere(summary, reader, window, a, last,
                                            [&](double x) { return columns.column(x) > c; });
                sums.add(a, e, &bins[static_cast<std::size_t>(c)]);
                a = e;
            }
        }
    } else {
        stream(first, last, addToBin);
    }

    std::vector<double> values(width, qQNaN());
    bool overflowed = false;
    for (std::size_t c = 0; c < width; ++c) {
        values[c] = bins[c].mean();
        overflowed = overflowed || bins[c].overflowed();
    }
    if (overflowed) {
        // Values near the double range: the columns' means again, as running means of halves.
        std::vector<double> halves(width, 0);
        std::vector<qint64> seen(width, 0);
        stream(first, last, [&](std::size_t c, double v) {
            halves[c] += (v / 2 - halves[c]) / static_cast<double>(++seen[c]);
        });
        for (std::size_t c = 0; c < width; ++c) {
            if (bins[c].overflowed())
                values[c] = 2 * halves[c];
        }
    }

    // Columns without points, between two that have some, on the line between them.
    std::size_t previous = width;
    for (std::size_t c = 0; c < width; ++c) {
        if (bins[c].count() == 0)
            continue;
        if (previous < width && c > previous + 1) {
            for (std::size_t g = previous + 1; g < c; ++g) {
                const double t =
                    static_cast<double>(g - previous) / static_cast<double>(c - previous);
                values[g] = (1 - t) * values[previous] + t * values[c];
            }
        }
        previous = c;
    }

    // NaN outside the run passes through untouched.
    return smoothValues(values, window.smoothingKind, window.smoothing, summary.constantValues());
}

GroupCurve combineRuns(const std::vector<std::vector<double>> &members, const ColumnGrid &grid,
                       GroupCenter center, GroupBand band) {
    const Columns columns(grid.x0, grid.x1, grid.width, grid.logX);
    GroupCurve curve;
    std::vector<double> column;
    column.reserve(members.size());
    for (int c = 0; c < columns.width(); ++c) {
        column.clear();
        for (const auto &member : members) {
            if (const auto i = static_cast<std::size_t>(c);
                i < member.size() && std::isfinite(member[i]))
                column.push_back(member[i]);
        }
        if (column.empty())
            continue;
        const std::size_t n = column.size();
        const double mean = safeMean(column.data(), n);
        double middle = mean;
        if (center == GroupCenter::Median) {
            const auto mid = column.begin() + static_cast<std::ptrdiff_t>(n / 2);
            std::nth_element(column.begin(), mid, column.end());
            middle = *mid;
            if (n % 2 == 0)
                middle = middle / 2 + *std::max_element(column.begin(), mid) / 2;
        }
        double lower = middle;
        double upper = middle;
        if (band == GroupBand::MinMax) {
            const auto [lo, hi] = std::minmax_element(column.begin(), column.end());
            lower = *lo;
            upper = *hi;
        } else if (band != GroupBand::None) {
            double squares = 0;
            for (double v : column)
                squares += (v - mean) * (v - mean);
            double spread = n > 1 ? std::sqrt(squares / static_cast<double>(n - 1)) : 0;
            if (band == GroupBand::StdErr)
                spread /= std::sqrt(static_cast<double>(n));
            lower = middle - spread;
            upper = middle + spread;
        }
        curve.x.push_back(columns.centre(c));
        curve.center.push_back(middle);
        curve.lower.push_back(lower);
        curve.upper.push_back(upper);
        curve.members.push_back(static_cast<int>(n));
    }
    return curve;
}

} // namespace sb
