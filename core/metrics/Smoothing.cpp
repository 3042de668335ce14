#include "Smoothing.h"

#include "util/EnumNames.h"

#include <algorithm>
#include <cmath>

namespace sb {

std::vector<double> smoothEma(const std::vector<double> &values, double weight) {
    const bool constant = !values.empty() && std::all_of(values.begin(), values.end(),
                                                         [&](double v) { return v == values[0]; });
    return smoothValues(values, SmoothingKind::Ema, weight, constant);
}

qsizetype RunningAverageSmoother::windowFor(double weight) {
    if (!(weight > 0))
        return 1;
    const double w = std::min(weight, 0.9999);
    return std::max<qsizetype>(1, std::llround((1 + w) / (1 - w)));
}

RunningAverageSmoother::RunningAverageSmoother(double weight)
    : m_window(static_cast<std::size_t>(windowFor(weight))) {
}

double RunningAverageSmoother::next(double value) {
    if (!std::isfinite(value) || m_window.size() == 1)
        return value;
    const auto size = static_cast<qsizetype>(m_window.size());
    double removed = 0;
    if (m_filled == size)
        removed = m_window[static_cast<std::size_t>(m_next)];
    else
        ++m_filled;
    m_window[static_cast<std::size_t>(m_next)] = value;
    m_sum += value - removed;
    m_next = (m_next + 1) % size;
    // Afresh from the window each time it turned over, and when a value far larger than what is
    // left has just gone (1e300 then ones: subtracting it would leave nothing of the ones).
    if (m_next == 0 || std::abs(removed) > 1e8 * std::abs(m_sum)) {
        m_sum = 0;
        for (qsizetype i = 0; i < m_filled; ++i)
            m_sum += m_window[static_cast<std::size_t>(i)];
    }
    return m_sum / static_cast<double>(m_filled);
}

int GaussianSmoother::radiusFor(double weight) {
    return static_cast<int>(std::max<qsizetype>(1, RunningAverageSmoother::windowFor(weight) / 2));
}

GaussianSmoother::GaussianSmoother(double weight)
    : m_radius(radiusFor(weight))
    , m_boxes{Box(m_radius), Box(m_radius), Box(m_radius)} {
}

std::optional<double> GaussianSmoother::push(double value) {
    std::optional<double> out = value;
    for (Box &box : m_boxes) {
        out = box.push(*out);
        if (!out)
            return std::nullopt;
    }
    return out;
}

std::vector<double> GaussianSmoother::flush() {
    std::vector<double> out;
    // Each box's owed values go through the boxes after it, then those boxes are drained too.
    for (int b = 0; b < 3; ++b) {
        while (m_boxes[b].owes()) {
            std::optional<double> value = m_boxes[b].drain();
            for (int next = b + 1; next < 3 && value; ++next)
                value = m_boxes[next].push(*value);
            if (value)
                out.push_back(*value);
        }
    }
    return out;
}

std::optional<double> GaussianSmoother::Box::push(double value) {
    m_values.push_back(value);
    ++m_pushed;
    if (std::isfinite(value)) { // the window of the next centre grows to the right
        m_sum += value;
        ++m_count;
    }
    if (m_pushed - 1 - m_next < m_radius)
        return std::nullopt; // the next centre still waits for its right side
    return drain();
}

std::optional<double> GaussianSmoother::Box::drain() {
    const qint64 centre = m_next++;
    const double value = m_values[static_cast<std::size_t>(centre - m_first)];
    double out = value;
    if (std::isfinite(value)) {
        // Afresh from the window each time it turned over (no error piles up), and when the
        // running sum overflowed (values near the double range): then as a mean of parts.
        if (centre % (2 * m_radius + 1) == 0 || !std::isfinite(m_sum))
            resum(centre);
        out = std::isfinite(m_sum) ? m_sum / static_cast<double>(m_count) : meanOfParts(centre);
    }
    // The next centre's window starts one later: the value leaving it, and what no later centre
    // reaches back to.
    if (const qint64 leaving = centre - m_radius; leaving >= m_first) {
        const double gone = m_values[static_cast<std::size_t>(leaving - m_first)];
        if (std::isfinite(gone)) {
            m_sum -= gone;
            --m_count;
        }
        m_values.pop_front();
        ++m_first;
    }
    return out;
}

void GaussianSmoother::Box::resum(qint64 centre) {
    m_sum = 0;
    m_count = 0;
    for (qint64 i = std::max(m_first, centre - m_radius); i < m_first + qint64(m_values.size());
         ++i) {
        if (const double v = m_values[static_cast<std::size_t>(i - m_first)]; std::isfinite(v)) {
            m_sum += v;
            ++m_count;
        }
    }
}

double GaussianSmoother::Box::meanOfParts(qint64 centre) const {
    double mean = 0;
    qint64 seen = 0;
    for (qint64 i = std::max(m_first, centre - m_radius); i < m_first + qint64(m_values.size());
         ++i) {
        if (const double v = m_values[static_cast<std::size_t>(i - m_first)]; std::isfinite(v))
            mean += (v / 2 - mean / 2) / static_cast<double>(++seen) * 2; // halves: no overflow
    }
    return mean;
}

std::vector<double> smoothValues(const std::vector<double> &values, SmoothingKind kind,
                                 double weight, bool constantSeries) {
    if (!(weight > 0))
        return values;
    std::vector<double> out;
    out.reserve(values.size());
    if (kind != SmoothingKind::Gaussian) {
        Smoother smoother(kind, weight, constantSeries);
        for (double v : values)
            out.push_back(smoother.next(v));
        return out;
    }
    GaussianSmoother gaussian(weight);
    for (double v : values) {
        if (const auto smoothed = gaussian.push(v))
            out.push_back(*smoothed);
    }
    for (double v : gaussian.flush())
        out.push_back(v);
    return out;
}

namespace {

constexpr EnumNames<SmoothingKind, 3> kKindNames{{{SmoothingKind::Ema, "ema"},
                                                  {SmoothingKind::RunningAverage, "average"},
                                                  {SmoothingKind::Gaussian, "gaussian"}}};

} // namespace

bool parseSmoothingKind(QStringView name, SmoothingKind *kind) {
    return parseName(kKindNames, name, kind);
}

QString smoothingKindName(SmoothingKind kind) {
    return nameOf(kKindNames, kind);
}

} // namespace sb
