#pragma once

#include "RunGroups.h"
#include "RunInfo.h"

#include <QList>
#include <QStringList>

namespace sb {

// How the curves view puts runs in groups: by the values of config keys (seeds of one
// configuration), by a regular expression on the run's name, or by the sweep that made the run.
struct RunGrouping {
    enum class By { Nothing, Keys, Pattern, Sweep };
    By by = By::Nothing;
    QStringList keys; // flattened config keys ("optimizer.lr")
    QString pattern;  // its first capture group names the group (the whole match without one)
    GroupCenter center = GroupCenter::Mean;
    GroupBand band = GroupBand::StdDev;

    // The group a run belongs in, as people read it ("lr=0.01, wd=0"); empty: it stands alone
    // (no grouping, a name the pattern does not match, a run of no sweep).
    QString groupOf(const RunInfo &run) const;
    // What the grouping is, in a few words, for a button ("lr, wd", "/-seed/", "sweep").
    QString describe() const;
};

struct RunGroup {
    QString name;
    QStringList runs;
};
// The runs in groups, in the order their first members come, and the runs that stand alone.
struct GroupedRuns {
    QList<RunGroup> groups;
    QStringList alone;
};
GroupedRuns groupRuns(const QList<RunInfo> &runs, const RunGrouping &grouping);

} // namespace sb
