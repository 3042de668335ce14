#pragma once

#include <QString>

#include <cmath>
#include <deque>
#include <optional>
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

// W&B's Gaussian smoothing, centred (each point is averaged with as many points after it as
// before), as three centred running averages in a row: a kernel within 3 % of a Gaussian, at a
// constant cost per point whatever the width. A value comes out 3r points after it went in
// (push), the last ones at flush(). Non-finite values pass through and stay out of the averages;
// at the ends of a series, the averages are of the points there are.
class GaussianSmoother final {
public:
    explicit GaussianSmoother(double weight);
    // The half-width r of each running average for a smoothing weight: a standard deviation of
    // about r points, as wide as the running average of the same weight.
    static int radiusFor(double weight);
    int delay() const { return 3 * m_radius; }
    // Takes a value; gives the smoothed value of the one `delay()` values earlier, if any.
    std::optional<double> push(double value);
    // The smoothed values still owed, in order, once the series has ended.
    std::vector<double> flush();

private:
    // One centred running average of 2r + 1 values.
    class Box {
    public:
        explicit Box(int radius)
            : m_radius(radius) {}
        std::optional<double> push(double value);
        std::optional<double> drain(); // the next owed value, the window's right side shorter
        bool owes() const { return m_next < m_pushed; }

    private:
        void resum(qint64 centre);
        double meanOfParts(qint64 centre) const;
        int m_radius;
        std::deque<double> m_values; // from the next centre's window start on
        qint64 m_first = 0;          // the index of m_values.front()
        qint64 m_next = 0;           // the next centre to give out
        qint64 m_pushed = 0;
        double m_sum = 0; // of the finite values in the next centre's window
        qint64 m_count = 0;
    };
    int m_radius;
    Box m_boxes[3];
};

enum class SmoothingKind { Ema, RunningAverage, Gaussian };
// "ema", "average", "gaussian"; false for a name it does not know.
bool parseSmoothingKind(QStringView name, SmoothingKind *kind);
QString smoothingKindName(SmoothingKind kind);

// The causal smoother a query asks for (EMA or running average; Gaussian is centred: see
// GaussianSmoother and smoothValues).
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
// A whole series smoothed by any kind (a group's columns).
std::vector<double> smoothValues(const std::vector<double> &values, SmoothingKind kind,
                                 double weight, bool constantSeries = false);

} // namespace sb
