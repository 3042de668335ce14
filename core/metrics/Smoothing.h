#pragma once

#include <QString>

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

// A trailing running average (W&B's "running average") over as many points as an EMA of the same
// weight averages over: N = (1 + w) / (1 - w), so one slider means about as smooth in both.
// Non-finite values pass through and stay out of the window. The sum is recomputed each time the
// window has turned over, so no error piles up across millions of points or after a huge value.
class RunningAverageSmoother final {
public:
    explicit RunningAverageSmoother(double weight);
    static qsizetype windowFor(double weight);
    double next(double value);

private:
    std::vector<double> m_window; // a ring
    qsizetype m_next = 0;
    qsizetype m_filled = 0;
    double m_sum = 0;
};

enum class SmoothingKind { Ema, RunningAverage };
// "ema", "average"; false for a name it does not know.
bool parseSmoothingKind(QStringView name, SmoothingKind *kind);
QString smoothingKindName(SmoothingKind kind);

// The smoother a query asks for.
class Smoother final {
public:
    Smoother(SmoothingKind kind, double weight, bool constantSeries)
        : m_kind(kind)
        , m_ema(weight, constantSeries)
        , m_average(kind == SmoothingKind::RunningAverage && weight > 0 ? weight : 0) {}
    double next(double value) {
        return m_kind == SmoothingKind::Ema ? m_ema.next(value) : m_average.next(value);
    }

private:
    SmoothingKind m_kind;
    EmaSmoother m_ema;
    RunningAverageSmoother m_average;
};

std::vector<double> smoothEma(const std::vector<double> &values, double weight);

} // namespace sb
