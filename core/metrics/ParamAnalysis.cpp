#include "ParamAnalysis.h"

#include "ConfigDiff.h"

#include <QJsonObject>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// A regression forest over the table's parameters, for their importance: how much worse each
// tree predicts the runs it did not see (out of bag) once a parameter's values are shuffled
// among them (Breiman's permutation importance). Unlike the impurity a parameter's splits
// remove, this does not favour a parameter with many values (a seed) that explains nothing. A
// categorical parameter splits its categories by their mean metric in the node, the best split
// there is for a regression.
class Forest {
public:
    // `categories`: each column's number of categories; 0 for a numeric one.
    Forest(const std::vector<std::vector<double>> &columns, const std::vector<int> &categories,
           const std::vector<double> &target, const ForestOptions &options)
        : m_columns(columns)
        , m_categories(categories)
        , m_target(target)
        , m_options(options)
        , m_random(options.seed) {}

    std::vector<double> importance(const std::vector<int> &rows) {
        std::vector<double> importance(m_columns.size(), 0.0);
        const auto n = static_cast<int>(rows.size());
        std::uniform_int_distribution<int> pick(0, n - 1);
        std::vector<char> inBag(m_target.size());
        for (int tree = 0; tree < m_options.trees; ++tree) {
            if (m_options.cancelled && m_options.cancelled->load())
                return {};
            // A bootstrap sample: n rows drawn with replacement; the rest are out of bag.
            std::fill(inBag.begin(), inBag.end(), 0);
            std::vector<int> sample(rows.size());
            for (int &row : sample) {
                row = rows[static_cast<std::size_t>(pick(m_random))];
                inBag[static_cast<std::size_t>(row)] = 1;
            }
            std::vector<int> outOfBag;
            for (const int row : rows)
                if (!inBag[static_cast<std::size_t>(row)])
                    outOfBag.push_back(row);
            m_nodes.clear();
            grow(sample, 0);
            if (outOfBag.size() < 2)
                continue;
            const double base = error(outOfBag, m_columns.size(), {});
            std::vector<double> shuffled;
            for (std::size_t feature = 0; feature < m_columns.size(); ++feature) {
                shuffled.clear();
                for (const int row : outOfBag)
                    shuffled.push_back(m_columns[feature][static_cast<std::size_t>(row)]);
                std::shuffle(shuffled.begin(), shuffled.end(), m_random);
                importance[feature] += error(outOfBag, feature, shuffled) - base;
            }
        }
        for (double &v : importance)
            v = std::isfinite(v) ? std::max(0.0, v) : 0.0; // worse than chance: none
        return importance;
    }

private:
    struct Node {
        int feature = -1; // a leaf: -1
        double threshold = 0;
        int left = -1;
        int right = -1;
        double value = 0;               // a leaf's prediction: its rows' mean metric
        std::vector<double> byCategory; // a categorical split's key of each category
    };

    double keyOf(const Node &node, double value) const {
        if (node.byCategory.empty())
            return value;
        const auto c = static_cast<std::size_t>(value);
        return c < node.byCategory.size() ? node.byCategory[c] : 0;
    }

    // The mean squared error over these rows, with one feature's values replaced by `shuffled`
    // (in the rows' order); no feature is replaced when `feature` is past the last.
    double error(const std::vector<int> &rows, std::size_t feature,
                 const std::vector<double> &shuffled) const {
        double sum = 0;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto row = static_cast<std::size_t>(rows[i]);
            int at = 0;
            while (m_nodes[static_cast<std::size_t>(at)].feature >= 0) {
                const Node &node = m_nodes[static_cast<std::size_t>(at)];
                const auto f = static_cast<std::size_t>(node.feature);
                const double value = f == feature ? shuffled[i] : m_columns[f][row];
                at = keyOf(node, value) <= node.threshold ? node.left : node.right;
            }
            const double miss = m_nodes[static_cast<std::size_t>(at)].value - m_target[row];
            sum += miss * miss;
        }
        return sum / static_cast<double>(rows.size());
    }

    // A categorical parameter's key of each category in this node: its rows' mean metric; a
    // category none of them has (a run out of bag may) goes with the node's mean.
    std::vector<double> categoryKeys(std::size_t feature, const std::vector<int> &rows,
                                     double mean) const {
        const std::vector<double> &column = m_columns[feature];
        const auto categories = static_cast<std::size_t>(m_categories[feature]);
        std::vector<double> sum(categories, 0.0);
        std::vector<int> count(categories, 0);
        for (const int row : rows) {
            const auto c = static_cast<std::size_t>(column[static_cast<std::size_t>(row)]);
            sum[c] += m_target[static_cast<std::size_t>(row)];
            ++count[c];
        }
        for (std::size_t c = 0; c < categories; ++c)
            sum[c] = count[c] > 0 ? sum[c] / count[c] : mean;
        return sum;
    }

    // Grows the node for these rows (and its children): its index.
    int grow(std::vector<int> &rows, int depth) {
        const auto n = static_cast<int>(rows.size());
        const auto index = static_cast<int>(m_nodes.size());
        m_nodes.emplace_back();
        double sum = 0, squares = 0;
        for (const int row : rows) {
            const double y = m_target[static_cast<std::size_t>(row)];
            sum += y;
            squares += y * y;
        }
        m_nodes.back().value = n > 0 ? sum / n : 0;
        const double parent = squares - sum * sum / std::max(1, n);
        if (n < 2 * m_options.minLeaf || depth >= m_options.maxDepth ||
            !(parent > 1e-12 * std::max(1.0, squares)))
            return index; // a leaf: too few rows, deep enough, or all alike
        // A third of the parameters, at random, at each node.
        std::vector<std::size_t> features(m_columns.size());
        std::iota(features.begin(), features.end(), std::size_t{0});
        const std::size_t tried = std::max<std::size_t>(1, features.size() / 3);
        for (std::size_t i = 0; i < tried; ++i) {
            std::uniform_int_distribution<std::size_t> pick(i, features.size() - 1);
            std::swap(features[i], features[pick(m_random)]);
        }
        double bestGain = 0;
        Node best;
        std::vector<std::pair<double, double>> sorted(rows.size()); // key, metric
        for (std::size_t i = 0; i < tried; ++i) {
            Node candidate;
            candidate.feature = static_cast<int>(features[i]);
            if (m_categories[features[i]] > 0)
                candidate.byCategory = categoryKeys(features[i], rows, sum / n);
            const std::vector<double> &column = m_columns[features[i]];
            for (std::size_t r = 0; r < rows.size(); ++r) {
                const auto row = static_cast<std::size_t>(rows[r]);
                sorted[r] = {keyOf(candidate, column[row]), m_target[row]};
            }
            std::sort(sorted.begin(), sorted.end());
            double leftSum = 0, leftSquares = 0;
            for (std::size_t k = 0; k + 1 < sorted.size(); ++k) {
                const double y = sorted[k].second;
                leftSum += y;
                leftSquares += y * y;
                const int left = static_cast<int>(k) + 1;
                const double here = sorted[k].first;
                const double next = sorted[k + 1].first;
                if (left < m_options.minLeaf || n - left < m_options.minLeaf || !(here < next))
                    continue;
                const double rightSum = sum - leftSum;
                const double gain = parent - (leftSquares - leftSum * leftSum / left) -
                                    (squares - leftSquares - rightSum * rightSum / (n - left));
                if (gain > bestGain) {
                    bestGain = gain;
                    candidate.threshold = here / 2 + next / 2;
                    best = candidate;
                }
            }
        }
        if (best.feature < 0)
            return index;
        std::vector<int> left, right;
        const auto f = static_cast<std::size_t>(best.feature);
        for (const int row : rows)
            (keyOf(best, m_columns[f][static_cast<std::size_t>(row)]) <= best.threshold ? left
                                                                                        : right)
                .push_back(row);
        rows.clear();
        rows.shrink_to_fit(); // the children hold the rows now
        best.value = m_nodes[static_cast<std::size_t>(index)].value;
        best.left = grow(left, depth + 1);
        best.right = grow(right, depth + 1);
        m_nodes[static_cast<std::size_t>(index)] = std::move(best);
        return index;
    }

    const std::vector<std::vector<double>> &m_columns;
    const std::vector<int> &m_categories;
    const std::vector<double> &m_target;
    ForestOptions m_options;
    std::mt19937 m_random;
    std::vector<Node> m_nodes; // the tree being grown and read
};

std::optional<double> pearson(const std::vector<double> &x, const std::vector<double> &y) {
    double n = 0, sx = 0, sy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (std::isfinite(x[i])) {
            ++n;
            sx += x[i];
            sy += y[i];
        }
    }
    if (n < 3)
        return std::nullopt;
    const double mx = sx / n, my = sy / n;
    double xy = 0, xx = 0, yy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (!std::isfinite(x[i]))
            continue;
        xy += (x[i] - mx) * (y[i] - my);
        xx += (x[i] - mx) * (x[i] - mx);
        yy += (y[i] - my) * (y[i] - my);
    }
    if (!(xx > 0) || !(yy > 0))
        return std::nullopt;
    return std::clamp(xy / std::sqrt(xx * yy), -1.0, 1.0);
}

// A column spread over decades in log10; a zero a decade beneath its smallest value, so that the
// order stays (a weight decay of 0 is the least, not missing).
std::vector<double> inLogTen(std::vector<double> values) {
    double lowest = std::numeric_limits<double>::infinity();
    for (const double v : values)
        if (v > 0)
            lowest = std::min(lowest, v);
    for (double &v : values)
        v = !std::isfinite(v) ? v : v > 0 ? std::log10(v) : std::log10(lowest) - 1;
    return values;
}

// How much of the metric's variance the categories' means explain, as a correlation: η, with
// the bias of many small categories taken out (ε² = (SSB − (k−1)·MSW) / SST), so that a key
// with a value per run does not read as explaining everything.
std::optional<double> correlationRatio(const std::vector<double> &category,
                                       const std::vector<double> &y, qsizetype categories) {
    std::vector<double> sum(static_cast<std::size_t>(categories), 0.0);
    std::vector<int> count(static_cast<std::size_t>(categories), 0);
    double total = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        sum[static_cast<std::size_t>(category[i])] += y[i];
        ++count[static_cast<std::size_t>(category[i])];
        total += y[i];
    }
    const auto n = static_cast<double>(y.size());
    const double mean = total / n;
    double between = 0, all = 0;
    qsizetype groups = 0;
    for (std::size_t c = 0; c < sum.size(); ++c) {
        if (count[c] > 0) {
            between += count[c] * std::pow(sum[c] / count[c] - mean, 2);
            ++groups;
        }
    }
    for (const double v : y)
        all += (v - mean) * (v - mean);
    if (!(all > 0) || n - static_cast<double>(groups) < 1)
        return std::nullopt;
    const double within = (all - between) / (n - static_cast<double>(groups));
    const double epsilon = (between - static_cast<double>(groups - 1) * within) / all;
    return std::sqrt(std::clamp(epsilon, 0.0, 1.0));
}

} // namespace

namespace {

// A config value as a number: a number, or text that reads as one ("1e-4", as a command line
// gave it); blank text is no value at all, so one run's slip does not make a number a category.
std::optional<double> numberIn(const QJsonValue &value) {
    if (value.isDouble())
        return value.toDouble();
    bool ok = false;
    const double number = value.isString() ? value.toString().trimmed().toDouble(&ok) : 0;
    return ok ? std::optional(number) : std::nullopt;
}
bool blank(const QJsonValue &value) {
    return value.isUndefined() || value.isNull() ||
           (value.isString() && value.toString().trimmed().isEmpty());
}

} // namespace

ParamTable paramTable(const QList<RunSummary> &runs, const QString &metric,
                      MetricStatistic statistic) {
    ParamTable table;
    table.metric = metric;
    QList<QJsonObject> configs;
    // By name: the same runs give the same table, whatever order the caller lists them in.
    QList<const RunSummary *> byName;
    for (const RunSummary &run : runs)
        byName << &run;
    std::sort(byName.begin(), byName.end(),
              [](const RunSummary *a, const RunSummary *b) { return a->info.name < b->info.name; });
    for (const RunSummary *summary : std::as_const(byName)) {
        const RunSummary &run = *summary;
        const auto it = run.metrics.constFind(metric);
        if (it == run.metrics.cend())
            continue;
        const std::optional<double> value = it->value(statistic, metric);
        if (!value || !std::isfinite(*value))
            continue;
        table.runs << run.info.name;
        table.target.push_back(*value);
        configs << flattenConfig(run.info.config);
    }
    // Every key some run has, that takes two values or more (a run without it counts as one).
    QSet<QString> seen;
    QStringList keys;
    for (const QJsonObject &config : std::as_const(configs)) {
        for (auto it = config.begin(); it != config.end(); ++it) {
            if (!seen.contains(it.key())) {
                seen.insert(it.key());
                keys << it.key();
            }
        }
    }
    keys.sort();
    for (const QString &key : std::as_const(keys)) {
        if (static_cast<qsizetype>(table.params.size()) >= kMostAnalysedParams)
            break;
        ParamColumn column;
        column.name = key;
        bool numbers = true;
        QSet<QString> distinct;
        for (const QJsonObject &config : std::as_const(configs)) {
            const QJsonValue v = config.value(key);
            numbers = numbers && (blank(v) || numberIn(v));
            distinct.insert(v.isUndefined() ? u"\x01(none)"_s : configValueText(v));
        }
        // The same everywhere, it explains nothing; a text for nearly every run (an id, a
        // path) is a name, not a setting.
        if (distinct.size() < 2 ||
            (!numbers && distinct.size() > std::max<qsizetype>(20, configs.size() / 2)))
            continue;
        column.categorical = !numbers;
        if (column.categorical) { // categories in a stable order: sorted, "(none)" first
            for (const QString &text : std::as_const(distinct))
                column.categories << (text == u"\x01(none)"_s ? u"(none)"_s : text);
            sortCategories(&column.categories);
        }
        double low = std::numeric_limits<double>::infinity(), high = -low;
        for (const QJsonObject &config : std::as_const(configs)) {
            const QJsonValue v = config.value(key);
            if (column.categorical) {
                const QString text = v.isUndefined() ? u"(none)"_s : configValueText(v);
                column.values.push_back(static_cast<double>(column.categories.indexOf(text)));
            } else {
                const double x = numberIn(v).value_or(qQNaN());
                column.values.push_back(std::isfinite(x) ? x : qQNaN());
                if (std::isfinite(x)) {
                    low = std::min(low, x);
                    high = std::max(high, x);
                }
            }
        }
        // Zeros among the decades (a weight decay of 0) keep the log: they sit beneath the rest.
        double lowest = std::numeric_limits<double>::infinity();
        for (const double v : column.values)
            if (v > 0)
                lowest = std::min(lowest, v);
        column.logScale =
            !column.categorical && low >= 0 && std::isfinite(lowest) && high / lowest >= 100;
        table.params.push_back(std::move(column));
    }
    return table;
}

namespace {

// Values near the ends of the double range (a loss of 1e308, an lr of 1e-320) would overflow or
// underflow their sums and squares: scaled by a power of two, exactly, so that the largest is
// near 1. Importance and correlations do not change with the scale.
std::vector<double> tamed(std::vector<double> values) {
    double largest = 0;
    for (const double v : values)
        if (std::isfinite(v))
            largest = std::max(largest, std::abs(v));
    if (largest > 1e100 || (largest > 0 && largest < 1e-100)) {
        int exponent = 0;
        (void)std::frexp(largest, &exponent);
        for (double &v : values)
            v = std::ldexp(v, -exponent);
    }
    return values;
}

} // namespace

QList<ParamEffect> paramEffects(const ParamTable &table, const ForestOptions &options) {
    QList<ParamEffect> effects;
    const auto runs = static_cast<qsizetype>(table.target.size());
    if (runs < 3 || table.params.empty())
        return effects;
    // Each parameter as the forest reads it: log10 where it is spread over decades, a missing
    // number as the column's median, a category as its index.
    std::vector<std::vector<double>> columns;
    std::vector<int> categories;
    for (const ParamColumn &param : table.params) {
        std::vector<double> column = param.values;
        if (param.logScale)
            column = inLogTen(std::move(column));
        if (!param.categorical) {
            column = tamed(std::move(column));
            std::vector<double> present;
            for (const double v : column)
                if (std::isfinite(v))
                    present.push_back(v);
            std::sort(present.begin(), present.end());
            const double median = present.empty() ? 0 : present[present.size() / 2];
            for (double &v : column)
                v = std::isfinite(v) ? v : median;
        }
        columns.push_back(std::move(column));
        categories.push_back(param.categorical ? static_cast<int>(param.categories.size()) : 0);
    }
    // At most options.mostRuns rows, evenly spread over the table.
    std::vector<int> rows;
    const qsizetype kept = std::min(runs, std::max<qsizetype>(3, options.mostRuns));
    for (qsizetype i = 0; i < kept; ++i)
        rows.push_back(static_cast<int>(i * runs / kept));
    // The metric about its mean: squares of a metric near 1e9 would lose its variance's digits.
    const std::vector<double> target = tamed(table.target);
    const double mean =
        std::accumulate(target.cbegin(), target.cend(), 0.0) / static_cast<double>(runs);
    std::vector<double> centred = target;
    for (double &v : centred)
        v -= mean;
    // Fewer trees where there are many runs and keys: the work stays within seconds.
    ForestOptions bounded = options;
    const double cells = static_cast<double>(rows.size()) * static_cast<double>(columns.size());
    bounded.trees = std::clamp(static_cast<int>(2e7 / std::max(1.0, cells)), 20, options.trees);
    Forest forest(columns, categories, centred, bounded);
    const std::vector<double> importance = forest.importance(rows);
    if (importance.empty())
        return {}; // cancelled
    const double total = std::accumulate(importance.cbegin(), importance.cend(), 0.0);
    for (std::size_t p = 0; p < table.params.size(); ++p) {
        const ParamColumn &param = table.params[p];
        ParamEffect effect;
        effect.param = param.name;
        effect.importance = total > 0 ? importance[p] / total : 0;
        if (param.categorical) {
            effect.correlation = correlationRatio(columns[p], target, param.categories.size());
            effect.signedCorrelation = false;
        } else {
            std::vector<double> raw = param.values; // missing ones left out, not imputed
            if (param.logScale)
                raw = inLogTen(std::move(raw));
            effect.correlation = pearson(tamed(std::move(raw)), target);
        }
        effects << effect;
    }
    std::stable_sort(
        effects.begin(), effects.end(),
        [](const ParamEffect &a, const ParamEffect &b) { return a.importance > b.importance; });
    return effects;
}

void sortCategories(QStringList *categories) {
    struct Keyed {
        bool none;
        std::optional<double> number;
        QString text;
    };
    std::vector<Keyed> keyed;
    for (const QString &text : std::as_const(*categories)) {
        bool number = false;
        const double value = text.toDouble(&number);
        keyed.push_back({text == u"(none)"_s,
                         number && !std::isnan(value) ? std::optional(value) : std::nullopt, text});
    }
    std::sort(keyed.begin(), keyed.end(), [](const Keyed &a, const Keyed &b) {
        if (a.none != b.none)
            return a.none;
        if (a.number.has_value() != b.number.has_value())
            return a.number.has_value();
        if (a.number && *a.number != *b.number)
            return *a.number < *b.number;
        const int order = a.text.compare(b.text, Qt::CaseInsensitive);
        return order != 0 ? order < 0 : a.text < b.text;
    });
    categories->clear();
    for (const Keyed &k : keyed)
        *categories << k.text;
}

std::vector<qsizetype> paretoFront(const std::vector<double> &x, const std::vector<double> &y,
                                   bool smallerXIsBetter, bool smallerYIsBetter) {
    std::vector<qsizetype> order;
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i)
        if (std::isfinite(x[i]) && std::isfinite(y[i]))
            order.push_back(static_cast<qsizetype>(i));
    // Best x first (ties: best y first); a run joins the front if its y beats every y before.
    const auto better = [](bool smaller, double a, double b) {
        return smaller ? a < b : a > b;
    };
    std::sort(order.begin(), order.end(), [&](qsizetype a, qsizetype b) {
        const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
        if (x[ua] != x[ub])
            return better(smallerXIsBetter, x[ua], x[ub]);
        return better(smallerYIsBetter, y[ua], y[ub]);
    });
    std::vector<qsizetype> front;
    for (const qsizetype i : order) {
        const double v = y[static_cast<std::size_t>(i)];
        if (front.empty() || better(smallerYIsBetter, v, y[static_cast<std::size_t>(front.back())]))
            front.push_back(i);
    }
    return front;
}

} // namespace sb
