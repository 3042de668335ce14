#pragma once

#include "PointSource.h"
#include "SeriesSummary.h"
#include "Smoothing.h"

#include <QString>

#include <optional>
#include <vector>

namespace sb {

// What part of a series a chart shows, and how many pixel columns it has.
struct SeriesWindow {
    XAxis axis = XAxis::Step;
    double origin = 0; // subtracted from wall time on the RelativeTime axis (the run's start)
    std::optional<double> from; // in axis units; unset: the series' first x
    std::optional<double> to;   // unset: the series' last x
    int width = 1000;
    double smoothing = 0;                             // TensorBoard EMA weight in [0, 1); 0 is raw
    SmoothingKind smoothingKind = SmoothingKind::Ema; // or a running average as smooth
    // Another metric of the run as x (with axis Step: its value at each point's step); empty:
    // the axis as it is. Read by the store, which gives the downsampler the points so mapped.
    QString xMetric;
    // Columns even in log10(x), for a log x axis: points at x <= 0 are left out, and an unset
    // `from` is the series' first x above zero.
    bool logX = false;
};

struct Downsampled {
    std::vector<double> x;
    std::vector<double> y;
    qint64 total = 0;   // points in the series
    qint64 inRange = 0; // points inside [from, to]
};

// M4 downsampling: per pixel column, the points with the smallest and largest x and the smallest
// and largest value, in x order. A line drawn through them is pixel-identical to one drawn
// through every point, so no spike is lost. Sorted, unsmoothed series are served from the
// summary's blocks, reading only the blocks at column edges; other cases stream the points once.
// Where a log x axis starts for this series: its first x above zero (a sorted series is searched
// by block), else a millionth of its last x; unset when no x is above zero.
std::optional<double> logAxisStart(const PointSource &source, const SeriesSummary &summary,
                                   const SeriesWindow &window);

Downsampled downsampleM4(const PointSource &source, const SeriesSummary &summary,
                         const SeriesWindow &window);

// A point with its place in its series: what a pixel column's M4 is chosen from.
struct IndexedPoint {
    qint64 index = -1;
    double x = 0;
    double y = 0;
};
// Appends one pixel column's M4 to `out` as downsampleM4 does, from candidates that hold the
// column's first and last (by x, then index) and its smallest and largest finite values (the
// first of equals), in any order and perhaps more than once: a store that finds those four
// itself (the lab's ClickHouse) answers what the embedded store does.
void appendM4Column(std::vector<IndexedPoint> candidates, Downsampled *out);

} // namespace sb
