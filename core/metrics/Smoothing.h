#pragma once

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
    double next(double value);

private:
    double m_weight;
    bool m_passThrough;
    double m_last = 0;
    double m_debias = 1; // weight^n, updated incrementally
};

std::vector<double> smoothEma(const std::vector<double> &values, double weight);

} // namespace sb
