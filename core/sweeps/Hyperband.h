#pragma once

#include "SweepSpec.h"

#include <QList>
#include <QString>

namespace sb {

// A trial's metric so far, in the order it was logged.
struct TrialCurve {
    QString trial;
    bool running = false;
    QList<double> values;
};

// The thresholds at each band: a trial must be within the best 1/eta of every trial's value at
// that band (lower is better once the goal is applied); infinite where no trial got there.
QList<double> hyperbandThresholds(const Hyperband &hyperband, bool maximize,
                                  const QList<TrialCurve> &curves);
// The running trials to stop now: those whose value at the last band they passed is worse than
// that band's threshold (Li et al., "Hyperband", as W&B's sweeps apply it).
QStringList hyperbandStops(const Hyperband &hyperband, bool maximize,
                           const QList<TrialCurve> &curves);

} // namespace sb
