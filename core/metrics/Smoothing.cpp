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

} // namespace sb
