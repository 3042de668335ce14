#include "Hyperband.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sb {

namespace {

QList<double> oriented(const QList<double> &values, bool maximize) {
    QList<double> out;
    for (double value : values)
        if (std::isfinite(value))
            out << (maximize ? -value : value);
    return out;
}

} // namespace

QList<double> hyperbandThresholds(const Hyperband &hyperband, bool maximize,
                                  const QList<TrialCurve> &curves) {
    QList<double> thresholds;
    for (int band : hyperband.bands) {
        QList<double> atBand;
        for (const TrialCurve &curve : curves) {
            const QList<double> values = oriented(curve.values, maximize);
            if (values.size() > band)
                atBand << values.at(band);
        }
        if (atBand.isEmpty()) {
            thresholds << std::numeric_limits<double>::infinity();
            continue;
        }
        std::sort(atBand.begin(), atBand.end());
        const auto keep =
            static_cast<qsizetype>(static_cast<double>(atBand.size()) / hyperband.eta);
        thresholds << atBand.at(std::min(keep, atBand.size() - 1));
    }
    return thresholds;
}

QStringList hyperbandStops(const Hyperband &hyperband, bool maximize,
                           const QList<TrialCurve> &curves) {
    const QList<double> thresholds = hyperbandThresholds(hyperband, maximize, curves);
    QStringList stops;
    for (const TrialCurve &curve : curves) {
        if (!curve.running)
            continue;
        const QList<double> values = oriented(curve.values, maximize);
        qsizetype passed = -1; // the last band this trial has reached
        for (qsizetype i = 0; i < hyperband.bands.size() && hyperband.bands.at(i) < values.size();
             ++i)
            passed = i;
        if (passed >= 0 && values.at(hyperband.bands.at(passed)) > thresholds.at(passed))
            stops << curve.trial;
    }
    return stops;
}

} // namespace sb
