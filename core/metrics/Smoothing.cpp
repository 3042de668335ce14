#include "Smoothing.h"

#include <algorithm>
#include <cmath>

namespace sb {

double EmaSmoother::next(double value) {
    if (m_passThrough || !std::isfinite(value))
        return value;
    m_last = m_last * m_weight + (1 - m_weight) * value;
    m_debias *= m_weight;
    const double debiasWeight = m_weight == 1 ? 1 : 1 - m_debias;
    return m_last / debiasWeight;
}

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

} // namespace sb
