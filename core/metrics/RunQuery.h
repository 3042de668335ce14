#pragma once

#include "CollectorApi.h"
#include "RunInfo.h"
#include "util/Result.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace sb {

// A question about runs' fields, as researchers write it in the filter box, in /runs?where= and
// in `signalbox-cli runs --where`:
//     config.lr < 1e-3 and best(val/loss) < 0.5 and tags has "baseline"
// Comparisons (=, !=, <, <=, >, >=, ~ and !~ for a regular expression, has, in (...)) of a field
// with a value, joined by and, or, not and parentheses. Fields: name, status, host, sweep, note,
// tags, start, end, last_seen, duration, archived; config.KEY (nested keys with dots), code.KEY,
// environment.KEY, forked_from.KEY; a metric's name for its last value, or last(M), min(M),
// max(M), best(M), count(M), step(M); `quoted` names hold any character. Values: numbers (nan,
// inf), "strings", bare words, true, false, null, durations (90s, 5m, 2h, 7d, 1w), dates
// (2026-11-20, 2026-11-20T13:00, local time), now, and "7d ago". The README's "Finding runs"
// says each operator's meaning on missing fields, texts and lists.
class RunQuery {
    Q_DECLARE_TR_FUNCTIONS(sb::RunQuery)

public:
    // What a query reads of one run.
    class Run {
    public:
        virtual ~Run() = default;
        virtual const RunInfo &info() const = 0;
        // The metric's summary; unset when the run does not log it.
        virtual std::optional<MetricSummary> metric(const QString &name) const = 0;
        // The value at a dotted key of one of the run's JSON objects (`object`: &RunInfo::config,
        // code, environment or forkedFrom), as lookUp() finds it: a store that keeps such values
        // in columns answers without reading each run's object.
        virtual QJsonValue valueAt(QJsonObject RunInfo::*object, const QString &key) const {
            return lookUp(info().*object, key);
        }
    };
    using ObjectKey = std::pair<QJsonObject RunInfo::*, QString>;

    // A key of a JSON object: the whole dotted key first ("optimizer.lr" as one key), then the
    // path ({"model.enc": {"layers": 4}} holds model.enc.layers).
    static QJsonValue lookUp(const QJsonObject &object, const QString &key);

    static constexpr qsizetype kLongestQuery = 4096;
    static constexpr int kDeepestNesting = 64;

    // The query, or what is wrong with it, the column (from 1) named in the message.
    static Result<RunQuery> parse(const QString &text);
    // Whether `text` reads as a query rather than words to look for: it has an operator or a
    // parenthesis, or a keyword between words (and, or, not, has, in).
    static bool looksLikeQuery(const QString &text);

    // Whether the run passes; `now` (seconds since the epoch) for "ago", now and a running run's
    // duration.
    bool matches(const Run &run, double now) const;
    bool matches(const RunSummary &run, double now) const;
    // The metrics it reads, and of those the ones whose value range it needs (min, max, best):
    // a store summarizes them before asking.
    QStringList metrics() const;
    QStringList rangedMetrics() const;
    // The keys of the runs' JSON objects it reads, each once.
    std::vector<ObjectKey> objectKeys() const;

    // What the filter box completes: fields, functions and keywords.
    static QStringList vocabulary();

    struct Node; // the parsed tree (RunQuery.cpp)

private:
    std::shared_ptr<const Node> m_root;
};

} // namespace sb
