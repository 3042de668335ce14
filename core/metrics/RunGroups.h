#pragma once

#include "Downsampler.h"

#include <QString>

#include <vector>

namespace sb {

// Runs drawn as one curve: the centre line of their values and a band around it, per pixel
// column (how W&B and TensorBoard users read seeds of one configuration).
enum class GroupCenter { Mean, Median };
enum class GroupBand { None, StdDev, StdErr, MinMax };
// "mean", "median"; "none", "std", "stderr", "minmax". False for a name it does not know.
bool parseGroupCenter(QStringView name, GroupCenter *center);
bool parseGroupBand(QStringView name, GroupBand *band);
QString groupCenterName(GroupCenter center);
QString groupBandName(GroupBand band);

// The columns a group is computed on: `width` columns evenly over [x0, x1], or evenly in
// log10(x) (then x0 > 0).
struct ColumnGrid {
    double x0 = 0;
    double x1 = 1;
    int width = 1000;
    bool logX = false;
};

// One run's values on the grid: per column, the mean of the run's finite values there; a column
// without points between two that have some is interpolated linearly (centre to centre); columns
// before the run's first point or after its last are NaN, so a run that ended early does not
// pull a group past its end. With smoothing, the run's column values are smoothed (the window's
// kind and weight, one column as one point). window.axis and window.origin choose x; its from, to
// and width are not read (the grid says them). Sorted series read only the blocks at column edges.
std::vector<double> resampleOnGrid(const PointSource &source, const SeriesSummary &summary,
                                   const SeriesWindow &window, const ColumnGrid &grid);

// A group's curve: the columns where at least one member has a value, at their centres.
struct GroupCurve {
    std::vector<double> x;
    std::vector<double> center;
    std::vector<double> lower; // the band; equal to center with GroupBand::None
    std::vector<double> upper;
    std::vector<int> members; // how many runs have a value in the column
};

// Combines the members' resampled values, column by column. std and stderr use the sample
// deviation (n - 1), which is 0 for a single run.
GroupCurve combineRuns(const std::vector<std::vector<double>> &members, const ColumnGrid &grid,
                       GroupCenter center, GroupBand band);

} // namespace sb
