#pragma once

#include "RunInfo.h"

#include <QHash>
#include <QStringList>

namespace sb {

// The hyperparameters that differ between runs, side by side: what a researcher asks first when
// two curves part ways. Nested config groups are flattened ("optimizer.lr"); a key that a run
// lacks differs (shown empty for it). What the runs ran is compared too, where recorded:
// code.commit, code.branch, code.dirty, environment.python, .platform, .host and .argv.
struct ConfigDiff {
    QStringList runs;
    QStringList keys;                   // the differing ones, sorted
    QHash<QString, QStringList> values; // key -> its value in each run, as text
    qsizetype sameKeys = 0;             // keys every run has with one value
};
ConfigDiff diffConfigs(const QList<RunInfo> &runs);

// A config's nested objects as one level: {"optimizer": {"lr": 1}} is {"optimizer.lr": 1}.
QJsonObject flattenConfig(const QJsonObject &config);
// A config value as a person reads it: 0.001, true, "adam" without quotes, [1, 2].
QString configValueText(const QJsonValue &value);

} // namespace sb
