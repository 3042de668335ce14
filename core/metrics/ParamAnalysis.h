#pragma once

#include "CollectorApi.h"

#include <QStringList>

#include <atomic>
#include <optional>
#include <vector>

namespace sb {

// Which hyperparameters matter for a metric, over any set of runs: each parameter's importance
// (a random forest's permutation importance on the runs each tree did not see; W&B also grows a
// random forest, and reads its impurity decrease, which favours a seed's many values) and its
// correlation with the metric, and the runs on the Pareto front of two metrics. No widgets: the
// analysis view computes these off the GUI thread.

// One hyperparameter over the runs of a ParamTable: a number per run (NaN: the run lacks it),
// or for a categorical one the index of its category.
struct ParamColumn {
    QString name;
    bool categorical = false;
    QStringList categories;     // a categorical column's values, as text
    std::vector<double> values; // one per run
    // Not negative, and its positive values spread over two decades or more (a learning rate):
    // read in log10, a zero beneath the smallest.
    bool logScale = false;
};

// The runs that have the metric, their parameters (config keys that differ between them), and
// the metric's statistic in each.
struct ParamTable {
    QStringList runs;
    std::vector<ParamColumn> params;
    std::vector<double> target;
    QString metric;
};

// Keys analysed at most: the first by name of those that vary. A text key with a value for
// nearly every run (an id, a path) is left out: it names runs, it does not set them.
inline constexpr qsizetype kMostAnalysedParams = 200;

ParamTable paramTable(const QList<RunSummary> &runs, const QString &metric,
                      MetricStatistic statistic);

struct ParamEffect {
    QString param;
    // Its share of the forest's error when its values are shuffled (all shares sum to 1; 0 when
    // nothing is explained).
    double importance = 0;
    // Pearson's r with the metric (in log10 for a log-scale parameter); for a categorical one
    // the correlation ratio η, which has no sign. Unset when it is undefined (a constant).
    std::optional<double> correlation;
    bool signedCorrelation = true;
};

struct ForestOptions {
    int trees = 100;
    int maxDepth = 10;
    int minLeaf = 2;
    quint32 seed = 1;           // the same runs give the same answer
    qsizetype mostRuns = 5'000; // more are thinned evenly (by name) to bound the work
    // Checked between trees: set, the work stops and paramEffects() answers nothing.
    const std::atomic_bool *cancelled = nullptr;
};

// Every parameter's effect on the metric, most important first. Empty with fewer than three
// runs or no parameter.
QList<ParamEffect> paramEffects(const ParamTable &table, const ForestOptions &options = {});

// A categorical parameter's values in the order every view shows them: "(none)" first, then
// numbers by value (2 before 10), then words A to Z.
void sortCategories(QStringList *categories);

// The runs no other run beats on both metrics (each to be made smaller or larger, as said):
// their indexes, by x from best to worst. NaN values are left out.
std::vector<qsizetype> paretoFront(const std::vector<double> &x, const std::vector<double> &y,
                                   bool smallerXIsBetter, bool smallerYIsBetter);

} // namespace sb
