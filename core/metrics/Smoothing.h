#pragma once

#include <cmath>
#include <vector>

namespace sb {

// TensorBoard's scalar smoothing: an exponential moving average debiased like Adam's moments,
// so the first points are not pulled towards zero. Non-finite values pass through unchanged and
// do not disturb the average; a constant series is returned as it is.
class EmaSmoother final {
public:
    explicit EmaSmoother(double weight, bool constantSeries = false)
        : m_weight(weight)
        , m_passThrough(constantSeries || weight <= 0) {}
    double next(double value) { // inline: called once per point of a smoothed query
        if (m_passThrough || !std::isfinite(value))
            return value;
        m_last = m_last * m_weight + (1 - m_weight) * value;
        if (m_debias == 0)
            return m_last; // the bias has decayed below double precision: no division needed
        m_debias *= m_weight;
        const double debiasWeight = m_weight == 1 ? 1 : 1 - m_debias;
        if (debiasWeight == 1)
            m_debias = 0;
        return m_last / debiasWeight;
    }

private:
    double m_weight;
    bool m_passThrough;
    double m_last = 0;
    double m_debias = 1; // weight^n, updated incrementally
};

std::vector<double> smoothEma(const std::vector<double> &values, double weight);

} // namespace sb
