#pragma once

#include "MetricPoint.h"
#include "Resume.h"
#include "util/Result.h"

#include <QByteArrayView>
#include <QHash>
#include <QJsonObject>
#include <QStringList>

#include <optional>
#include <utility>
#include <vector>

namespace sb {

// The values a script logged at one step. `step` and `wall` are filled in by the ingesting side
// when the record leaves them out.
struct MetricRecord {
    QString run;
    QString batch; // the sender's batch id, on lines a client printed instead of pushing
    std::optional<double> step;
    std::optional<double> wall;
    std::vector<std::pair<QString, double>> values;
    std::optional<Resume> resume; // a run restarted from a checkpoint: see Resume
};

// Metric lines: a line of job output of the form
//   @signalbox {"step": 12, "loss": 0.25, "acc": 0.91}
// Keys `step`, `time` (seconds since the epoch), `run`, `batch` (a client's id for a batch it
// printed rather than pushed: lines of a batch stored before are skipped) and `resume` (the run
// restarted from a checkpoint, as in a push: {"mode": "rewind", "step": N}) are reserved; nested
// objects are flattened with '/' ("train": {"loss": 1} is train/loss); non-finite values are the
// strings "NaN", "Infinity" and "-Infinity". Every other line is ordinary output and left alone.
namespace MetricLines {

inline constexpr QByteArrayView prefix = "@signalbox ";

// std::nullopt for ordinary output; an error for a line that has the prefix but is malformed.
std::optional<Result<MetricRecord>> parseLogLine(QByteArrayView line);
// One JSON object: a JSONL line, or the payload of a metric line.
Result<MetricRecord> parseJsonObject(QByteArrayView json);
Result<MetricRecord> fromJsonObject(const QJsonObject &object);
// The line a script prints for `record`, with the prefix and no newline.
QByteArray format(const MetricRecord &record);

} // namespace MetricLines

// Reads metrics from CSV text: a header row naming the columns (`step`, `time`/`wall_time`, and one
// column per metric), then one row per step. Quoted fields (RFC 4180) are understood.
class CsvMetricReader final {
public:
    // The first call reads the header; later calls read rows. Empty cells are missing values.
    Result<std::optional<MetricRecord>> readLine(QByteArrayView line);
    bool hasHeader() const { return !m_columns.isEmpty(); }

private:
    QStringList m_columns;
    int m_stepColumn = -1;
    int m_wallColumn = -1;
};

// A metric value from JSON: a number, a boolean, or "NaN"/"Infinity"/"-Infinity".
std::optional<double> metricValue(const QJsonValue &value);
// The other way: a number, or one of those strings for a non-finite value.
QJsonValue metricJson(double value);
// Splits one CSV row into fields.
QStringList splitCsvRow(QByteArrayView line);
// Where each metric's points lie in a vector of series, so that a record of n metrics costs n
// lookups (a linear search per value made one record of 40,000 metrics take seconds).
struct SeriesIndex {
    QHash<QString, std::size_t> at;
    std::size_t indexed = 0; // series before this one are in `at`
};
// Groups a record's values by metric, filling `step` and `wall` from the record. `index` is kept
// for `series` across calls (series added to it by others are indexed on the next call); without
// one, each call indexes `series` afresh.
void appendRecord(const MetricRecord &record, double step, double wall,
                  std::vector<SeriesPoints> *series, SeriesIndex *index = nullptr);

} // namespace sb
