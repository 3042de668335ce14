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
// On a cluster (ClickHouse::Options::cluster), each server holds these as `points_local` and
// so on, and the names above are `Distributed` tables over them, sharded by run: every point,
// block and row of a run on one server. Every server of the cluster must be named.
// Nothing is dropped or rewritten: running it again changes nothing. Returns what it did.
Result<QStringList> migrate(const ClickHouse &server);

// migrate() on each server of the cluster (the one alone when none), checking that each is a
// shard of its own.
Result<QStringList> migrateAll(const ClickHouse::Options &server);

// Writes the blocks of series shipped before there were blocks (each whole block of stored
// points that has none), series by series, saying each one filled. Safe while collectors ship:
// a block is written only once all its points are stored, as they write it themselves.
Result<QStringList> fillBlocks(const ClickHouse &server);

// A table's name on each server: itself, or on a cluster its `_local` table.
QString local(const ClickHouse::Options &server, const char *table);
// A connection to each server of the cluster (the one given alone when none).
std::vector<ClickHouse> everyServer(const ClickHouse::Options &server);

} // namespace sb::LabSchema
