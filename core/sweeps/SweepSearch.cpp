#include "SweepSearch.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// One searchable value: a parameter that is not a group, with its path through the groups.
struct Leaf {
    QStringList path;
    const SweepParameter *parameter;
};

void collectLeaves(const QList<SweepParameter> &parameters, const QStringList &prefix,
                   std::vector<Leaf> &out) {
    for (const SweepParameter &parameter : parameters) {
        const QStringList path = prefix + QStringList{parameter.name};
        if (parameter.kind == SweepParameter::Kind::Nested)
            collectLeaves(parameter.children, path, out);
        else
            out.push_back({path, &parameter});
    }
}

std::vector<Leaf> leavesOf(const SweepSpec &spec) {
    std::vector<Leaf> leaves;
    collectLeaves(spec.parameters, {}, leaves);
    return leaves;
}

void setPath(QJsonObject &object, const QStringList &path, const QJsonValue &value) {
    if (path.size() == 1) {
        object.insert(path.first(), value);
        return;
    }
    QJsonObject child = object.value(path.first()).toObject();
    setPath(child, path.mid(1), value);
    object.insert(path.first(), child);
}

QJsonValue valueAt(const QJsonObject &object, const QStringList &path) {
    QJsonValue value = object;
    for (const QString &key : path)
        value = value.toObject().value(key);
    return value;
}

// A generator for one trial: the sweep's seed and the trial's number, mixed (splitmix64).
std::mt19937_64 generatorFor(quint64 seed, qsizetype number) {
    quint64 z = seed + 0x9E3779B97F4A7C15ULL * (static_cast<quint64>(number) + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return std::mt19937_64(z ^ (z >> 31));
}

// Uniform in [0, 1), and standard normal, spelled out so every platform draws the same.
double unit(std::mt19937_64 &rng) {
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}
double standardNormal(std::mt19937_64 &rng) {
    const double u = 1.0 - unit(rng); // (0, 1]
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * unit(rng));
}

// A multiple of q, without the float noise of the product (0.00592, not 0.005920000000000001).
double quantize(double value, double q) {
    return QString::number(std::round(value / q) * q, 'g', 12).toDouble();
}

bool isLog(const QString &distribution) {
    return distribution.contains("log"_L1);
}

// The parameter's numbers as the search sees them: log-distributed ones by their logarithm.
struct Range {
    double low = 0;
    double high = 1;
};
Range internalRange(const SweepParameter &p) {
    const QString &d = p.distribution;
    if (d.endsWith("normal"_L1))
        return {p.mu - 4 * p.sigma, p.mu + 4 * p.sigma};
    if (d == "int_uniform"_L1)
        return {p.min - 0.5, p.max + 0.5};
    if (d.endsWith("_values"_L1))
        return {std::log(p.min), std::log(p.max)};
    return {p.min, p.max}; // linear, or log_uniform's exponents
}

double toInternal(const SweepParameter &p, double value) {
    return isLog(p.distribution) ? std::log(std::max(value, 1e-300)) : value;
}

QJsonValue fromInternal(const SweepParameter &p, double x) {
    const QString &d = p.distribution;
    if (d == "int_uniform"_L1)
        return std::clamp(std::round(x), p.min, p.max);
    double value = isLog(d) ? std::exp(x) : x;
    if (d.startsWith("q_"_L1))
        value = quantize(value, p.q);
    return value;
}

QJsonValue drawCategorical(const SweepParameter &p, std::mt19937_64 &rng) {
    const double u = unit(rng);
    if (p.probabilities.isEmpty())
        return p.values.at(
            std::min<qsizetype>(static_cast<qsizetype>(u * p.values.size()), p.values.size() - 1));
    double sum = 0;
    for (qsizetype i = 0; i < p.values.size(); ++i) {
        sum += p.probabilities.at(i);
        if (u < sum)
            return p.values.at(i);
    }
    return p.values.last();
}

QJsonValue draw(const SweepParameter &p, std::mt19937_64 &rng) {
    switch (p.kind) {
    case SweepParameter::Kind::Constant:
        return p.value;
    case SweepParameter::Kind::Categorical:
        return drawCategorical(p, rng);
    case SweepParameter::Kind::Nested:
        break;
    case SweepParameter::Kind::Distribution: {
        const QString &d = p.distribution;
        if (d == "inv_log_uniform_values"_L1)
            return 1.0 / std::exp(std::log(1 / p.max) +
                                  unit(rng) * (std::log(1 / p.min) - std::log(1 / p.max)));
        if (d.endsWith("normal"_L1))
            return fromInternal(p, p.mu + p.sigma * standardNormal(rng));
        const Range range = internalRange(p);
        return fromInternal(p, range.low + unit(rng) * (range.high - range.low));
    }
    }
    return {};
}

// The values a grid lists for one parameter.
QJsonArray gridValues(const SweepParameter &p) {
    if (p.kind == SweepParameter::Kind::Constant)
        return {p.value};
    if (p.kind == SweepParameter::Kind::Categorical)
        return p.values;
    QJsonArray values;
    const double step = p.distribution == "q_uniform"_L1 ? p.q : 1.0;
    for (double v = p.min; v <= p.max + step * 1e-9 && values.size() < 1'000'000; v += step)
        values.append(p.distribution == "q_uniform"_L1 ? quantize(v, p.q) : v);
    return values;
}

// ---- TPE -----------------------------------------------------------------------------------

// A trial as TPE sees it: one number per leaf (a category's index for categorical leaves).
using Point = std::vector<double>;

struct Dimension {
    const SweepParameter *parameter = nullptr;
    int categories = 0; // > 0: categorical
    Range range;
    bool constant = false;
};

double normalCdf(double x) {
    return 0.5 * std::erfc(-x / std::numbers::sqrt2);
}

// A Parzen estimator: one product kernel per observed point, plus the prior.
class Parzen {
public:
    Parzen(const std::vector<Dimension> &dims, std::vector<Point> points)
        : m_dims(dims)
        , m_points(std::move(points)) {
        const double n = std::max<double>(1, static_cast<double>(m_points.size()));
        const double shrink = 0.2 * std::pow(n, -1.0 / (static_cast<double>(dims.size()) + 4));
        for (const Dimension &dim : dims)
            m_sigma.push_back(std::max(shrink, 0.01) * (dim.range.high - dim.range.low));
    }

    double logDensity(const Point &x) const {
        const double components = static_cast<double>(m_points.size()) + 1;
        double prior = 0;
        for (std::size_t d = 0; d < m_dims.size(); ++d)
            prior += logPrior(d);
        double best = prior;
        std::vector<double> terms{prior};
        for (const Point &point : m_points) {
            double sum = 0;
            for (std::size_t d = 0; d < m_dims.size(); ++d)
                sum += logKernel(d, point[d], x[d]);
            terms.push_back(sum);
            best = std::max(best, sum);
        }
        double total = 0;
        for (double term : terms)
            total += std::exp(term - best);
        return best + std::log(total) - std::log(components);
    }

    Point sample(std::mt19937_64 &rng) const {
        const auto component =
            static_cast<std::size_t>(unit(rng) * (static_cast<double>(m_points.size()) + 1));
        Point x(m_dims.size());
        for (std::size_t d = 0; d < m_dims.size(); ++d) {
            const Dimension &dim = m_dims[d];
            if (dim.constant)
                continue;
            if (component >= m_points.size()) { // the prior
                x[d] = dim.categories > 0
                           ? std::floor(unit(rng) * dim.categories)
                           : dim.range.low + unit(rng) * (dim.range.high - dim.range.low);
                continue;
            }
            const double center = m_points[component][d];
            if (dim.categories > 0) {
                x[d] = unit(rng) < kKeep ? center : std::floor(unit(rng) * dim.categories);
                continue;
            }
            double value = center;
            for (int attempt = 0; attempt < 32; ++attempt) {
                value = center + m_sigma[d] * standardNormal(rng);
                if (value >= dim.range.low && value <= dim.range.high)
                    break;
            }
            x[d] = std::clamp(value, dim.range.low, dim.range.high);
        }
        return x;
    }

private:
    static constexpr double kKeep = 0.75; // a categorical kernel keeps its category this often

    double logPrior(std::size_t d) const {
        const Dimension &dim = m_dims[d];
        if (dim.constant)
            return 0;
        if (dim.categories > 0)
            return -std::log(dim.categories);
        return -std::log(dim.range.high - dim.range.low);
    }
    double logKernel(std::size_t d, double center, double x) const {
        const Dimension &dim = m_dims[d];
        if (dim.constant)
            return 0;
        if (dim.categories > 0)
            return std::log((x == center ? kKeep : 0.0) + (1 - kKeep) / dim.categories);
        const double sigma = m_sigma[d];
        const double mass = normalCdf((dim.range.high - center) / sigma) -
                            normalCdf((dim.range.low - center) / sigma);
        const double z = (x - center) / sigma;
        return -0.5 * z * z - std::log(sigma * std::sqrt(2 * std::numbers::pi)) -
               std::log(std::max(mass, 1e-12));
    }

    const std::vector<Dimension> &m_dims;
    std::vector<Point> m_points;
    std::vector<double> m_sigma;
};

std::vector<Dimension> dimensionsOf(const std::vector<Leaf> &leaves) {
    std::vector<Dimension> dims;
    for (const Leaf &leaf : leaves) {
        Dimension dim;
        dim.parameter = leaf.parameter;
        if (leaf.parameter->kind == SweepParameter::Kind::Constant)
            dim.constant = true;
        else if (leaf.parameter->kind == SweepParameter::Kind::Categorical)
            dim.categories = static_cast<int>(leaf.parameter->values.size());
        else
            dim.range = internalRange(*leaf.parameter);
        dims.push_back(dim);
    }
    return dims;
}

// An observed trial as a point, or nothing when its parameters are not the sweep's.
std::optional<Point> pointOf(const std::vector<Leaf> &leaves, const std::vector<Dimension> &dims,
                             const QJsonObject &parameters) {
    Point point(leaves.size());
    for (std::size_t d = 0; d < leaves.size(); ++d) {
        const QJsonValue value = valueAt(parameters, leaves[d].path);
        if (dims[d].constant)
            continue;
        if (dims[d].categories > 0) {
            const QJsonArray &values = leaves[d].parameter->values;
            const auto found = std::find(values.begin(), values.end(), value);
            if (found == values.end())
                return std::nullopt;
            point[d] = static_cast<double>(found - values.begin());
        } else if (value.isDouble()) {
            point[d] = std::clamp(toInternal(*leaves[d].parameter, value.toDouble()),
                                  dims[d].range.low, dims[d].range.high);
        } else {
            return std::nullopt;
        }
    }
    return point;
}

} // namespace

qsizetype gridSize(const SweepSpec &spec) {
    if (spec.method != SweepSpec::Method::Grid)
        return 0;
    qsizetype size = 1;
    for (const Leaf &leaf : leavesOf(spec))
        size = std::min<qsizetype>(size * gridValues(*leaf.parameter).size(), 1'000'000'000);
    return size;
}

qsizetype trialLimit(const SweepSpec &spec) {
    const qsizetype grid = gridSize(spec);
    if (grid == 0)
        return spec.runCap;
    return spec.runCap > 0 ? std::min<qsizetype>(spec.runCap, grid) : grid;
}

QJsonObject gridTrial(const SweepSpec &spec, qsizetype number) {
    const std::vector<Leaf> leaves = leavesOf(spec);
    QJsonObject trial;
    for (auto leaf = leaves.rbegin(); leaf != leaves.rend(); ++leaf) {
        const QJsonArray values = gridValues(*leaf->parameter);
        setPath(trial, leaf->path, values.at(number % values.size()));
        number /= values.size();
    }
    return trial;
}

QJsonObject randomTrial(const SweepSpec &spec, quint64 seed, qsizetype number) {
    std::mt19937_64 rng = generatorFor(seed, number);
    QJsonObject trial;
    for (const Leaf &leaf : leavesOf(spec))
        setPath(trial, leaf.path, draw(*leaf.parameter, rng));
    return trial;
}

QJsonObject bayesTrial(const SweepSpec &spec, quint64 seed, qsizetype number,
                       const QList<Observation> &observations) {
    const std::vector<Leaf> leaves = leavesOf(spec);
    const std::vector<Dimension> dims = dimensionsOf(leaves);
    std::vector<std::pair<double, Point>> seen;
    for (const Observation &observation : observations) {
        if (!std::isfinite(observation.value))
            continue;
        if (auto point = pointOf(leaves, dims, observation.parameters))
            seen.emplace_back(spec.maximize ? -observation.value : observation.value, *point);
    }
    if (seen.size() < kBayesStartupTrials)
        return randomTrial(spec, seed, number);
    std::stable_sort(seen.begin(), seen.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    // The best quarter (at least one, at most 25) are "good": Hyperopt's gamma, Optuna's cap.
    const auto good = static_cast<std::size_t>(
        std::clamp(std::ceil(0.25 * static_cast<double>(seen.size())), 1.0, 25.0));
    std::vector<Point> goodPoints;
    std::vector<Point> badPoints;
    for (std::size_t i = 0; i < seen.size(); ++i)
        (i < good ? goodPoints : badPoints).push_back(seen[i].second);
    const Parzen below(dims, std::move(goodPoints));
    const Parzen above(dims, std::move(badPoints));
    std::mt19937_64 rng = generatorFor(seed, number);
    Point best;
    double bestScore = -std::numeric_limits<double>::infinity();
    for (int candidate = 0; candidate < 24; ++candidate) {
        Point x = below.sample(rng);
        const double score = below.logDensity(x) - above.logDensity(x);
        if (score > bestScore) {
            bestScore = score;
            best = std::move(x);
        }
    }
    if (best.empty()) // no candidate scored (degenerate densities): a draw from the priors
        return randomTrial(spec, seed, number);
    QJsonObject trial;
    for (std::size_t d = 0; d < leaves.size(); ++d) {
        const SweepParameter &p = *leaves[d].parameter;
        QJsonValue value;
        if (dims[d].constant)
            value = p.value;
        else if (dims[d].categories > 0)
            value = p.values.at(static_cast<qsizetype>(best[d]));
        else
            value = fromInternal(p, best[d]);
        setPath(trial, leaves[d].path, value);
    }
    return trial;
}

QJsonObject nextTrial(const SweepSpec &spec, quint64 seed, qsizetype number,
                      const QList<Observation> &observations) {
    switch (spec.method) {
    case SweepSpec::Method::Grid:
        return gridTrial(spec, number);
    case SweepSpec::Method::Random:
        return randomTrial(spec, seed, number);
    case SweepSpec::Method::Bayes:
        return bayesTrial(spec, seed, number, observations);
    }
    return {};
}

} // namespace sb
