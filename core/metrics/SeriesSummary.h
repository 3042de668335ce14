#pragma once

#include "PointSource.h"

#include <QByteArray>

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

namespace sb {

// Per-block aggregates of a series (blocks of kBlockSize points), so that a query over millions
// of points reads only the blocks at pixel-column edges. About 0.19 bytes per point.
class SeriesSummary final {
public:
    static constexpr qint64 kBlockSize = 256;

    struct Block {
        double firstStep;
        double firstWall;
        double minValue; // over finite values; +inf when none
        double maxValue;
        double sum;          // of finite values: a group's column means add whole blocks
        std::uint16_t minAt; // offset within the block
        std::uint16_t maxAt;
        std::uint16_t finite; // how many values are finite
    };

    // Brings the summary up to date with `source`, reading only the points it has not seen.
    void update(const PointSource &source);
    // Adds points just appended to the series (they follow the ones already summarized).
    void append(const MetricPoint *points, qint64 count);

    qint64 count() const { return m_count; }
    const std::vector<Block> &blocks() const { return m_blocks; }
    // Whether x never decreases along the series, which allows binary search by x.
    bool sortedBy(XAxis axis) const { return axis == XAxis::Step ? m_stepSorted : m_wallSorted; }
    double minX(XAxis axis) const { return axis == XAxis::Step ? m_minStep : m_minWall; }
    double maxX(XAxis axis) const { return axis == XAxis::Step ? m_maxStep : m_maxWall; }
    const MetricPoint &last() const { return m_last; }
    // The smallest and largest finite values; unset while there is none.
    std::optional<std::pair<double, double>> valueRange() const {
        return m_minValue <= m_maxValue ? std::optional(std::pair(m_minValue, m_maxValue))
                                        : std::nullopt;
    }
    // Whether every value is the same finite number (smoothing leaves such a series alone).
    bool constantValues() const;
    std::size_t memoryBytes() const { return m_blocks.capacity() * sizeof(Block); }

    // The summary as bytes with its blocks from `fromBlock` on (the reader has those before):
    // what the store keeps on disk so that a restart need not read a series again.
    QByteArray saved(std::size_t fromBlock) const;
    // Takes bytes of saved(): their blocks replace this summary's from their first on. False,
    // leaving the summary unchanged, when they do not follow on or do not add up.
    bool restore(QByteArrayView bytes);

private:
    void add(const MetricPoint &point);

    std::vector<Block> m_blocks;
    qint64 m_count = 0;
    MetricPoint m_last;
    bool m_stepSorted = true;
    bool m_wallSorted = true;
    qint64 m_nonFinite = 0;
    double m_minStep = std::numeric_limits<double>::infinity();
    double m_maxStep = -std::numeric_limits<double>::infinity();
    double m_minWall = std::numeric_limits<double>::infinity();
    double m_maxWall = -std::numeric_limits<double>::infinity();
    double m_minValue = std::numeric_limits<double>::infinity();
    double m_maxValue = -std::numeric_limits<double>::infinity();
};

} // namespace sb
