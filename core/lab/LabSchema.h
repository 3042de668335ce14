#pragma once

#include "ClickHouse.h"

namespace sb::LabSchema {

// The oldest ClickHouse the lab store runs on (Debian's); column codecs from 19.11 on.
constexpr ClickHouse::Version kMinimum{18, 16};
constexpr ClickHouse::Version kCodecs{19, 11};
// Points a row of `blocks` summarizes.
constexpr qint64 kBlockPoints = 256;

// The tables, in the server's database (created where missing):
//   points  every point: (project, run, metric, idx) in order, idx its place in its series;
//   series  per series, kept by a materialized view: count, next idx, last point, finite values'
//           count and range, and the range of steps and of wall times;
//   blocks  per kBlockPoints points of a series, written by the shipping collector once they
//           are all shipped: first and last points, the smallest and largest finite values
//           (the first of equals), and the range of steps and of wall times; a chart of a very
//           long series reads these instead of its points (LabReader);
//   runs    each run's info as JSON, the latest version kept.
// Nothing is dropped or rewritten: running it again changes nothing. Returns what it did.
Result<QStringList> migrate(const ClickHouse &server);

} // namespace sb::LabSchema
