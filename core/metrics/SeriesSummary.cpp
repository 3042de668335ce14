#include "SeriesSummary.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace sb {

void SeriesSummary::update(const PointSource &source) {
    constexpr qint64 chunk = 16 * kBlockSize;
    std::vector<MetricPoint> buffer(chunk);
    const qint64 total = source.size();
    while (m_count < total) {
        const qint64 n = std::min(chunk, total - m_count);
        source.read(m_count, n, buffer.data());
        if (!source.failure().isEmpty())
            return; // what failed is never taken for points, nor are the chunks after it
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

namespace {

// What saved() writes before the blocks (native byte order: the file is this machine's cache).
struct SavedState {
    std::uint64_t fromBlock;
    std::uint64_t blocks; // how many follow
    qint64 count;
    qint64 nonFinite;
    MetricPoint last;
    double minStep, maxStep, minWall, maxWall, minValue, maxValue;
    std::uint64_t sorted; // bit 0: by step, bit 1: by wall time
};

} // namespace

QByteArray SeriesSummary::saved(std::size_t fromBlock) const {
    fromBlock = std::min(fromBlock, m_blocks.size());
    const SavedState state{fromBlock,  m_blocks.size() - fromBlock,
                           m_count,    m_nonFinite,
                           m_last,     m_minStep,
                           m_maxStep,  m_minWall,
                           m_maxWall,  m_minValue,
                           m_maxValue, (m_stepSorted ? 1u : 0u) | (m_wallSorted ? 2u : 0u)};
    QByteArray bytes(sizeof state + state.blocks * sizeof(Block), Qt::Uninitialized);
    std::memcpy(bytes.data(), &state, sizeof state);
    if (state.blocks > 0)
        std::memcpy(bytes.data() + sizeof state, m_blocks.data() + fromBlock,
                    state.blocks * sizeof(Block));
    return bytes;
}

bool SeriesSummary::restore(QByteArrayView bytes) {
    SavedState state{};
    if (bytes.size() < qsizetype(sizeof state))
        return false;
    std::memcpy(&state, bytes.data(), sizeof state);
    const std::uint64_t blocks = (std::size_t(bytes.size()) - sizeof state) / sizeof(Block);
    const std::uint64_t total = state.fromBlock + blocks;
    // The blocks must follow on, and be exactly as many as the count needs.
    if (state.fromBlock > m_blocks.size() || state.blocks != blocks ||
        std::size_t(bytes.size()) != sizeof state + blocks * sizeof(Block) || state.count < 0 ||
        std::uint64_t(state.count) > total * kBlockSize ||
        std::uint64_t(state.count) + kBlockSize <= total * kBlockSize || state.nonFinite < 0 ||
        state.nonFinite > state.count)
        return false;
    for (std::uint64_t i = 0; i < blocks; ++i) {
        Block block;
        std::memcpy(&block, bytes.data() + sizeof state + i * sizeof(Block), sizeof block);
        const qint64 inBlock =
            std::min<qint64>(kBlockSize, state.count - qint64(state.fromBlock + i) * kBlockSize);
        if (block.minAt >= inBlock || block.maxAt >= inBlock || block.finite > inBlock)
            return false; // never an offset past the series' points
    }
    m_blocks.resize(state.fromBlock + blocks);
    if (blocks > 0)
        std::memcpy(m_blocks.data() + state.fromBlock, bytes.data() + sizeof state,
                    blocks * sizeof(Block));
    m_count = state.count;
    m_nonFinite = state.nonFinite;
    m_last = state.last;
    m_minStep = state.minStep;
    m_maxStep = state.maxStep;
    m_minWall = state.minWall;
    m_maxWall = state.maxWall;
    m_minValue = state.minValue;
    m_maxValue = state.maxValue;
    m_stepSorted = (state.sorted & 1u) != 0;
    m_wallSorted = (state.sorted & 2u) != 0;
    return true;
}

bool SeriesSummary::constantValues() const {
    if (m_nonFinite > 0 || m_blocks.empty())
        return false;
    const double value = m_blocks.front().minValue;
    return std::all_of(m_blocks.begin(), m_blocks.end(),
                       [&](const Block &b) { return b.minValue == value && b.maxValue == value; });
}

} // namespace sb
