#pragma once

// Where a sweep's trials come from: every combination of a grid, draws from the parameters'
// distributions, or a Tree-structured Parzen Estimator (TPE) fed with finished trials' metrics.
// Every trial is a pure function of the sweep, the seed, its number and (for bayes) what was
// observed before it, so a resumed sweep draws what it would have drawn.
#include "SweepSpec.h"

#include <QJsonObject>

#include <optional>
#include <random>

namespace sb {

// What a finished trial taught: its parameters and its metric (lower is better once oriented).
struct Observation {
    QJsonObject parameters;
    double value = 0;
};

// The number of trials a grid holds (its combinations), or 0 for other methods.
qsizetype gridSize(const SweepSpec &spec);
// How many trials a sweep runs: its grid's combinations, capped by run_cap; otherwise run_cap,
// where 0 means it goes on until stopped.
qsizetype trialLimit(const SweepSpec &spec);
// Trial `number` of a grid, in order (the last parameter varies fastest).
QJsonObject gridTrial(const SweepSpec &spec, qsizetype number);
// A draw from every parameter's distribution; the same seed and number give the same trial.
QJsonObject randomTrial(const SweepSpec &spec, quint64 seed, qsizetype number);
// The next trial of a bayes sweep: random until enough trials have finished, then the candidate
// with the best ratio of the good trials' density to the others' (multivariate TPE).
// `observations` hold the metric as the sweep's goal has it (maximize is negated inside).
QJsonObject bayesTrial(const SweepSpec &spec, quint64 seed, qsizetype number,
                       const QList<Observation> &observations);
// The trial `number` for the sweep's method.
QJsonObject nextTrial(const SweepSpec &spec, quint64 seed, qsizetype number,
                      const QList<Observation> &observations);

// How many trials bayes draws at random before its model takes over.
inline constexpr int kBayesStartupTrials = 10;

} // namespace sb
