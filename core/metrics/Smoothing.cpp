#include "Smoothing.h"

#include <algorithm>
#include <cmath>

namespace sb {

std::vector<double> smoothEma(const std::vector<double> &values, double weight) {
    const bool constant = !values.empty() && std::all_of(values.begin(), values.end(),
                                                         [&](double v) { return v == values[0]; });
    EmaSmoother smoother(weight, constant);
    std::vector<double> smoothed;
    smoothed.reserve(values.size());
    for (double v : values)
        smoothed.push_back(smoother.next(v));
    return smoothed;
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

bool parseSmoothingKind(QStringView name, SmoothingKind *kind) {
    if (name == u"ema")
        *kind = SmoothingKind::Ema;
    else if (name == u"average")
        *kind = SmoothingKind::RunningAverage;
    else
        return false;
    return true;
}

QString smoothingKindName(SmoothingKind kind) {
    return kind == SmoothingKind::Ema ? QStringLiteral("ema") : QStringLiteral("average");
}

} // namespace sb
