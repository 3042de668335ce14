#include "LabReader.h"

#include "LabSchema.h"

#include "metrics/MetricAxis.h"
#include "metrics/SeriesScan.h"

#include <QDataStream>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtConcurrent/QtConcurrentMap>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// Series named in one statement: each is a branch of a UNION ALL, found by its key.
constexpr std::size_t kSeriesPerStatement = 40;
// Points read whole in one statement: 40 bytes each (key, idx, step, value, wall) within the
// 256 MB an answer may be.
constexpr qint64 kMostRowsPerAnswer = (qint64(256) << 20) / 40 - 1024;
// Characters of SQL in one statement, well within ClickHouse's max_query_size (256 kB, and a
// name's character may be three bytes): a statement ends after the branch that passes it.
constexpr qsizetype kLongestStatement = 60'000;

// InvalidInput: the request's fault (a series not there, too many points), never ClickHouse's.
Error noMetric(const MetricStore::SeriesName &name) {
    return {u"run \"%1\" has no metric \"%2\""_s.arg(name.run, name.metric),
            ErrorCode::InvalidInput};
}

QString cutShort() {
    return u"ClickHouse's answer was cut short"_s;
}

// Whether a point is among the stored ones a rewind hides (SQL, in parentheses): a few
// stretches as comparisons (the primary key skips them), many as one array.
QString hiddenIndex(const std::vector<IndexRange> &hidden) {
    QStringList ranges;
    const bool few = hidden.size() <= 8;
    for (const IndexRange &range : hidden)
        ranges << (few ? u"(idx >= %1 AND idx < %2)"_s : u"(%1, %2)"_s)
                      .arg(range.first)
                      .arg(range.end);
    return few ? u"(%1)"_s.arg(ranges.join(u" OR "_s))
               : u"arrayExists(r -> idx >= r.1 AND idx < r.2, [%1])"_s.arg(ranges.join(u", "_s));
}

// " AND NOT (...)": the stored points a rewind hides left out; empty when none are.
QString shownOnly(const std::vector<IndexRange> &hidden) {
    return hidden.empty() ? QString() : u" AND NOT %1"_s.arg(hiddenIndex(hidden));
}

// The place among the points shown of a stored point that is shown.
qint64 shownIndex(const std::vector<IndexRange> &hidden, qint64 stored) {
    qint64 before = 0;
    for (const IndexRange &range : hidden) {
        if (range.end > stored)
            break;
        before += range.end - range.first;
    }
    return stored - before;
}

// A runs row's rewinds (LabForwarder): the list /runs shows, and what each series hides.
void readRewinds(const QString &text, std::vector<RewindSummary> *rewinds,
                 QHash<QString, std::vector<IndexRange>> *hidden) {
    if (text.isEmpty())
        return;
    const QJsonObject json = QJsonDocument::fromJson(text.toUtf8()).object();
    *rewinds = RunSummary::fromJson(QJsonObject{{u"rewinds"_s, json.value(u"rewinds"_s)}}).rewinds;
    const QJsonObject series = json.value(u"hidden"_s).toObject();
    for (auto it = series.begin(); it != series.end(); ++it) {
        const QJsonArray bounds = it.value().toArray();
        std::vector<IndexRange> ranges;
        for (qsizetype i = 0; i + 1 < bounds.size(); i += 2)
            ranges.push_back({bounds[i].toInteger(), bounds[i + 1].toInteger()});
        if (!ranges.empty())
            hidden->insert(it.key(), mergedRanges(std::move(ranges)));
    }
}

// Points read whole, held by the source a computation reads (and by nothing else once done).
struct LoadedSeries {
    std::vector<MetricPoint> points;
    SeriesSummary summary;
};

class LoadedSource final : public PointSource {
public:
    explicit LoadedSource(std::shared_ptr<const LoadedSeries> series)
        : m_series(std::move(series)) {}
    qint64 size() const override { return qint64(m_series->points.size()); }
    void read(qint64 first, qint64 count, MetricPoint *out) const override {
        std::copy_n(m_series->points.begin() + first, count, out);
    }

private:
    std::shared_ptr<const LoadedSeries> m_series;
};

// A series read from ClickHouse a page at a time, as its reader asks (an export's 8,192 points
// a call are served from a page of many more).
class PagedSource final : public PointSource {
public:
    PagedSource(ClickHouse server, QString where, qint64 size, std::vector<IndexRange> hidden)
        : m_server(std::move(server))
        , m_where(std::move(where))
        , m_size(size)
        , m_hidden(std::move(hidden)) {}
    qint64 size() const override { return m_size; }
    void read(qint64 first, qint64 count, MetricPoint *out) const override {
        constexpr qint64 kPage = 262'144;
        for (qint64 i = 0; i < count; ++i) {
            const qint64 at = first + i;
            if (at < m_pageStart || at >= m_pageStart + qint64(m_page.size()))
                fetch(at, std::min(kPage, m_size - at));
            out[i] = at - m_pageStart < qint64(m_page.size())
                         ? m_page[std::size_t(at - m_pageStart)]
                         : MetricPoint{};
        }
    }
    QString failure() const override { return m_failure; }

private:
    void fetch(qint64 first, qint64 count) const {
        m_pageStart = first;
        m_page.clear();
        if (!m_failure.isEmpty())
            return;
        // Shown points [first, first + count) lie among these stored ones.
        const qint64 from = storedIndex(m_hidden, first);
        const qint64 to = storedIndex(m_hidden, first + count - 1) + 1;
        const auto answer = m_server.query(
            u"SELECT step, value, wall FROM points WHERE %1 AND idx >= %2 AND idx < %3%4 ORDER "
            "BY idx FORMAT RowBinary"_s.arg(m_where, QString::number(from), QString::number(to),
                                            shownOnly(m_hidden)));
        if (!answer) {
            m_failure = answer.error();
            return;
        }
        RowBinaryReader rows(*answer);
        while (!rows.atEnd() && !rows.failed())
            m_page.push_back({rows.float64(), rows.float64(), rows.float64()});
        if (rows.failed() || qint64(m_page.size()) != count)
            m_failure = u"ClickHouse holds %1 of points %2 to %3 of this series: it changed "
                        "while read"_s.arg(m_page.size())
                            .arg(first)
                            .arg(first + count - 1);
    }

    ClickHouse m_server;
    QString m_where;
    qint64 m_size; // shown points
    std::vector<IndexRange> m_hidden;
    mutable std::vector<MetricPoint> m_page;
    mutable qint64 m_pageStart = 0;
    mutable QString m_failure;
};

MetricPoint pointOf(RowBinaryReader &row) {
    MetricPoint p;
    p.step = row.float64();
    p.value = row.float64();
    p.wall = row.float64();
    return p;
}

IndexedPoint indexedOf(RowBinaryReader &row) {
    IndexedPoint p;
    p.index = qint64(row.uint64());
    p.x = row.float64();
    p.y = row.float64();
    return p;
}

} // namespace

LabReader::LabReader(Options options)
    : m_options(std::move(options))
    , m_server([this] {
        ClickHouse::Options server = m_options.server;
        // What one statement may cost ClickHouse; the user's profile may hold it lower.
        server.settings << std::pair(u"max_execution_time"_s,
                                     QString::number(m_options.queryLimitS))
                        << std::pair(u"max_result_bytes"_s, QString::number(qint64(256) << 20));
        return server;
    }())
    , m_project(ClickHouse::quoted(m_options.project)) {
}

Result<QByteArray> LabReader::select(const QString &sql) const {
    auto answer = m_server.query(sql + u" FORMAT RowBinary"_s);
    const QMutexLocker locked(&m_shared->errorLock);
    if (!answer) { // even a refusal of its SQL is no fault of the request's (InvalidInput here)
        m_shared->lastError = answer.error();
        return fail(answer.error(), ErrorCode::Failed);
    }
    m_shared->lastError.clear();
    return answer;
}

Status LabReader::selectAll(const QStringList &selects,
                            const std::function<void(RowBinaryReader &)> &read) const {
    for (qsizetype next = 0; next < selects.size();) {
        QStringList statement;
        qsizetype length = 0;
        while (next < selects.size() && statement.size() < qsizetype(kSeriesPerStatement) &&
               length <= kLongestStatement) {
            statement << selects[next];
            length += selects[next++].size();
        }
        const auto answer = select(statement.join(u" UNION ALL "_s));
        if (!answer)
            return answer.failure();
        RowBinaryReader rows(*answer);
        read(rows);
        if (rows.failed())
            return fail(cutShort());
    }
    return success();
}

QString LabReader::lastError() const {
    const QMutexLocker locked(&m_shared->errorLock);
    return m_shared->lastError;
}

std::shared_ptr<const LabReader> LabReader::forProject(const QString &project) const {
    auto reader = std::make_shared<LabReader>(*this);
    reader->m_options.project = project;
    reader->m_project = ClickHouse::quoted(project);
    return reader;
}

Result<QList<RunSummary>> LabReader::runs(const QString &filter, qsizetype offset, qsizetype limit,
                                          const RunQuery *where, double now) const {
    if (limit == 0)
        return QList<RunSummary>();
    // A run's newest info; a filter looks in its text as the embedded store's does (the info's
    // compact JSON, lower case). Only the runs asked for are grouped (at a million runs,
    // grouping every info costs 14 times a filter's scan, 3 times a page's names): those with
    // a version that holds the text, or those of the page, found by their names alone (GLOBAL:
    // on a cluster, found once and sent to every server).
    QString sql = u"SELECT name, argMax(info, version) AS info, argMax(rewinds, version) FROM "
                  "runs WHERE project = %1"_s.arg(m_project);
    const bool paged = !where && filter.isEmpty() && limit > 0;
    if (!filter.isEmpty()) {
        const QString text = ClickHouse::quoted(filter.toLower());
        sql += u" AND name GLOBAL IN (SELECT name FROM runs WHERE project = %1 AND "
               "position(lowerUTF8(info), %2) > 0) GROUP BY name HAVING position(lowerUTF8(info), "
               "%2) > 0"_s.arg(m_project, text);
    } else if (paged) {
        sql +=
            u" AND name GLOBAL IN (SELECT name FROM runs WHERE project = %1 GROUP BY name ORDER BY "
            "name LIMIT %2, %3) GROUP BY name"_s.arg(m_project, QString::number(offset),
                                                     QString::number(limit));
    } else {
        sql += u" GROUP BY name"_s;
    }
    sql += u" ORDER BY name"_s;
    if (!where && !paged && limit > 0)
        sql += u" LIMIT %1, %2"_s.arg(offset).arg(limit);
    else if (!where && !paged && offset > 0)
        sql += u" LIMIT %1, 18446744073709551615"_s.arg(offset);
    const auto answer = select(sql);
    if (!answer)
        return answer.failure();
    QList<RunSummary> runs;
    QHash<QString, Started> rewound; // runs with rewinds
    RowBinaryReader rows(*answer);
    while (!rows.atEnd() && !rows.failed()) {
        const QString name = rows.string();
        const QByteArray info = rows.string().toUtf8();
        runs.append({RunInfo::fromJson(name, QJsonDocument::fromJson(info).object()), {}, {}});
        RunSummary &run = runs.back();
        Started started;
        readRewinds(rows.string(), &started.rewinds, &started.hidden);
        run.rewinds = started.rewinds;
        if (!started.hidden.isEmpty())
            rewound.insert(name, started);
    }
    if (rows.failed())
        return fail(cutShort());
    if (where) {
        // The metrics it reads, for every run; then the page of those that pass.
        if (const QStringList read = where->metrics(); !read.isEmpty()) {
            if (Status added = addSummaries(&runs, read); !added)
                return added.failure();
            if (Status shownOnes = summarizeShown(&runs, rewound); !shownOnes)
                return shownOnes.failure();
        }
        QList<RunSummary> passed;
        for (RunSummary &run : runs) {
            if (!where->matches(run, now))
                continue;
            if (offset > 0) {
                --offset;
                continue;
            }
            run.metrics.clear();
            passed.append(std::move(run));
            if (limit > 0 && passed.size() >= limit)
                break;
        }
        runs = std::move(passed);
    }
    if (Status added = addSummaries(&runs, {}); !added)
        return added.failure();
    if (Status shownOnes = summarizeShown(&runs, rewound); !shownOnes)
        return shownOnes.failure();
    return runs;
}

Result<QHash<QString, LabReader::Shown>>
LabReader::shown(const QString &run, const QHash<QString, std::vector<IndexRange>> &hidden) const {
    QHash<QString, Shown> out;
    // The series in statements of a bounded length (a run rewound a hundred times hides a
    // hundred stretches of each).
    std::vector<std::pair<QStringList, QString>> statements; // metrics, and what they hide
    for (auto it = hidden.cbegin(); it != hidden.cend(); ++it) {
        if (statements.empty() || statements.back().second.size() > kLongestStatement)
            statements.emplace_back();
        statements.back().first << it.key();
        statements.back().second += u" AND NOT (metric = %1 AND %2)"_s.arg(
            ClickHouse::quoted(it.key()), hiddenIndex(it.value()));
    }
    for (const auto &[metrics, shownPoints] : statements) {
        const auto answer = select(
            u"SELECT metric, count(), argMax((step, value, wall), idx), countIf(isFinite(value)), "
            "minIf(value, isFinite(value)), maxIf(value, isFinite(value)), minIf(step, NOT "
            "isNaN(step)), maxIf(step, NOT isNaN(step)), minIf(wall, NOT isNaN(wall)), "
            "maxIf(wall, NOT isNaN(wall)) FROM points WHERE project = %1 AND run = %2 AND metric "
            "IN (%3)%4 GROUP BY metric"_s.arg(m_project, ClickHouse::quoted(run),
                                              ClickHouse::quotedLists(metrics).join(u", "_s),
                                              shownPoints));
        if (!answer)
            return answer.failure();
        if (Status read = readShown(*answer, &out); !read)
            return read.failure();
    }
    return out;
}

Status LabReader::readShown(const QByteArray &answer, QHash<QString, Shown> *out) {
    RowBinaryReader rows(answer);
    while (!rows.atEnd() && !rows.failed()) {
        const QString metric = rows.string();
        Shown shown;
        shown.summary.count = shown.extent.count = qint64(rows.uint64());
        shown.summary.last = pointOf(rows);
        const quint64 finite = rows.uint64();
        const double low = rows.float64();
        const double high = rows.float64();
        if (finite > 0)
            shown.summary.range = std::pair(low, high);
        shown.extent.minStep = rows.float64();
        shown.extent.maxStep = rows.float64();
        shown.extent.minWall = rows.float64();
        shown.extent.maxWall = rows.float64();
        out->insert(metric, shown);
    }
    if (rows.failed())
        return fail(cutShort());
    return success();
}

Status LabReader::summarizeShown(QList<RunSummary> *runs,
                                 const QHash<QString, Started> &started) const {
    for (RunSummary &run : *runs) {
        const auto hidden = started.value(run.info.name).hidden;
        auto shownOnes = shown(run.info.name, hidden);
        if (!shownOnes)
            return shownOnes.failure();
        for (auto it = hidden.cbegin(); it != hidden.cend(); ++it) {
            // A series whose points are all hidden is not listed, as in the embedded store.
            if (const auto found = shownOnes->constFind(it.key()); found != shownOnes->cend())
                run.metrics.insert(it.key(), found->summary);
            else
                run.metrics.remove(it.key());
        }
    }
    return success();
}

Status LabReader::addSummaries(QList<RunSummary> *runs, const QStringList &metrics) const {
    if (runs->isEmpty())
        return success();
    QHash<QString, RunSummary *> byName;
    for (RunSummary &run : *runs)
        byName.insert(run.info.name, &run);
    // The runs listed are named (a few thousand a statement), so an answer holds only theirs.
    const QStringList lists = ClickHouse::quotedLists(
        metrics.isEmpty() ? QStringList(byName.keyBegin(), byName.keyEnd()) : metrics);
    for (const QString &list : lists) {
        QString sql = u"SELECT run, metric, countMerge(points), argMaxMerge(last), "
                      "countMerge(finite), minMerge(low), maxMerge(high) FROM series WHERE "
                      "project = %1"_s.arg(m_project);
        sql += (metrics.isEmpty() ? u" AND run IN (%1)"_s : u" AND metric IN (%1)"_s).arg(list);
        const auto answer = select(sql + u" GROUP BY run, metric"_s);
        if (!answer)
            return answer.failure();
        RowBinaryReader rows(*answer);
        while (!rows.atEnd() && !rows.failed()) {
            const QString run = rows.string();
            const QString metric = rows.string();
            MetricSummary summary;
            summary.count = qint64(rows.uint64());
            summary.last = pointOf(rows);
            const quint64 finite = rows.uint64();
            const double low = rows.float64();
            const double high = rows.float64();
            if (finite > 0)
                summary.range = std::pair(low, high);
            if (RunSummary *found = byName.value(run); found && summary.count > 0)
                found->metrics.insert(metric, summary);
        }
        if (rows.failed())
            return fail(cutShort());
    }
    return success();
}

Result<QStringList> LabReader::metrics(const QStringList &runs) const {
    QSet<QString> names;
    for (const QString &list :
         runs.isEmpty() ? QStringList{QString()} : ClickHouse::quotedLists(runs)) {
        QString sql = u"SELECT DISTINCT metric FROM series WHERE project = %1"_s.arg(m_project);
        if (!list.isEmpty())
            sql += u" AND run IN (%1)"_s.arg(list);
        const auto answer = select(sql);
        if (!answer)
            return answer.failure();
        RowBinaryReader rows(*answer);
        while (!rows.atEnd() && !rows.failed())
            names.insert(rows.string());
        if (rows.failed())
            return fail(cutShort());
    }
    QStringList sorted(names.cbegin(), names.cend());
    sorted.sort();
    return sorted;
}

Result<std::vector<std::optional<LabReader::Extent>>>
LabReader::extents(const std::vector<MetricStore::SeriesName> &names,
                   const QHash<QString, Started> &started) const {
    std::vector<std::optional<Extent>> out(names.size());
    QHash<std::pair<QString, QString>, std::vector<std::size_t>> wanted; // places in `names`
    QStringList runs;
    for (std::size_t i = 0; i < names.size(); ++i) {
        wanted[{names[i].run, names[i].metric}].push_back(i);
        runs << names[i].run;
    }
    runs.removeDuplicates();
    for (const QString &list : ClickHouse::quotedLists(runs)) {
        const auto answer = select(
            u"SELECT run, metric, countMerge(points), minMerge(low_step), maxMerge(high_step), "
            "minMerge(low_wall), maxMerge(high_wall) FROM series WHERE project = %1 AND run IN "
            "(%2) GROUP BY run, metric"_s.arg(m_project, list));
        if (!answer)
            return answer.failure();
        RowBinaryReader rows(*answer);
        while (!rows.atEnd() && !rows.failed()) {
            QString run = rows.string();
            const std::pair key(std::move(run), rows.string());
            Extent extent;
            extent.count = qint64(rows.uint64());
            extent.minStep = rows.float64();
            extent.maxStep = rows.float64();
            extent.minWall = rows.float64();
            extent.maxWall = rows.float64();
            for (const std::size_t i : wanted.value(key))
                out[i] = extent;
        }
        if (rows.failed())
            return fail(cutShort());
    }
    // Series a rewind hides points of: over the points shown (none shown: a count of 0).
    for (const QString &run : std::as_const(runs)) {
        const auto &hidden = started.value(run).hidden;
        if (hidden.isEmpty())
            continue;
        auto shownOnes = shown(run, hidden);
        if (!shownOnes)
            return shownOnes.failure();
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (names[i].run == run && out[i] && hidden.contains(names[i].metric))
                out[i] = shownOnes->value(names[i].metric).extent;
        }
    }
    return out;
}

Result<QHash<QString, LabReader::Started>> LabReader::starts(const QStringList &runs) const {
    QHash<QString, Started> out;
    for (const QString &list : ClickHouse::quotedLists(runs)) {
        const auto answer = select(
            u"SELECT name, argMax(info, version), max(version), argMax(rewinds, version) "
            "FROM runs WHERE project = %1 AND name IN (%2) GROUP BY name"_s.arg(m_project, list));
        if (!answer)
            return answer.failure();
        RowBinaryReader rows(*answer);
        while (!rows.atEnd() && !rows.failed()) {
            const QString name = rows.string();
            const RunInfo info =
                RunInfo::fromJson(name, QJsonDocument::fromJson(rows.string().toUtf8()).object());
            Started &started = out[name];
            started.start = info.start;
            started.version = rows.uint64();
            readRewinds(rows.string(), &started.rewinds, &started.hidden);
        }
        if (rows.failed())
            return fail(cutShort());
    }
    return out;
}

Result<LabReader::Survey> LabReader::survey(const std::vector<MetricStore::SeriesName> &names,
                                            const QString &xMetric) const {
    Survey out;
    out.read = names;
    QStringList runs;
    for (const auto &name : names) {
        runs << name.run;
        if (!xMetric.isEmpty() && !out.xAt.contains(name.run)) {
            out.xAt.insert(name.run, out.read.size());
            out.read.push_back({name.run, xMetric});
        }
    }
    runs.removeDuplicates();
    auto started = starts(runs);
    if (!started)
        return started.failure();
    out.started = std::move(started).value();
    auto found = extents(out.read, out.started);
    if (!found)
        return found.failure();
    out.extents = std::move(found).value();
    return out;
}

Result<std::vector<Result<Downsampled>>>
LabReader::query(const std::vector<MetricStore::SeriesName> &names,
                 const SeriesWindow &window) const {
    // What each curve depends on, the key of its answer in the cache: its series' extent (a
    // point added changes its count), its x metric's, where its run began, and the window.
    auto surveyed = survey(names, window.xMetric);
    if (!surveyed)
        return surveyed.failure();
    const auto &xAt = surveyed->xAt;
    const auto *origins = &surveyed->started;
    const auto *found = &surveyed->extents;
    std::vector<Result<Downsampled>> answers(names.size(), Downsampled{});
    std::vector<QByteArray> keys(names.size());
    std::vector<std::size_t> missed;
    {
        const QMutexLocker locked(&m_shared->cacheLock);
        for (std::size_t i = 0; i < names.size(); ++i) {
            const auto &extent = (*found)[i];
            if (!extent) {
                answers[i] = noMetric(names[i]);
                continue;
            }
            QDataStream key(&keys[i], QIODevice::WriteOnly);
            const auto put = [&key](const std::optional<Extent> &e) {
                key << bool(e) << (e ? e->count : 0) << (e ? e->minStep : 0) << (e ? e->maxStep : 0)
                    << (e ? e->minWall : 0) << (e ? e->maxWall : 0);
            };
            key << m_options.project << names[i].run << names[i].metric << window.xMetric
                << int(window.axis) << window.from.has_value() << window.from.value_or(0)
                << window.to.has_value() << window.to.value_or(0) << window.width
                << window.smoothing << int(window.smoothingKind) << window.logX;
            // A run shipped anew (deleted, then pushed again under its name) is a new version.
            const Started started = origins->value(names[i].run);
            key << started.start.has_value() << started.start.value_or(0) << started.version;
            put(extent);
            if (!window.xMetric.isEmpty())
                put((*found)[xAt.value(names[i].run)]);
            if (const Downsampled *cached = m_shared->cache.object(keys[i]))
                answers[i] = *cached;
            else
                missed.push_back(i);
        }
    }
    if (missed.empty())
        return answers;
    std::vector<MetricStore::SeriesName> asked;
    std::vector<std::optional<Extent>> askedExtents;
    for (const std::size_t i : missed) {
        asked.push_back(names[i]);
        askedExtents.push_back((*found)[i]);
    }
    std::vector<char> passing(asked.size(), 0);
    auto computed = compute(asked, window, askedExtents, *origins, &passing);
    if (!computed)
        return computed.failure();
    const QMutexLocker locked(&m_shared->cacheLock);
    for (std::size_t j = 0; j < missed.size(); ++j) {
        Result<Downsampled> &answer = computed.value()[j];
        if (answer && !passing[j]) {
            const qint64 bytes = qint64(answer->x.size() + answer->y.size()) * 8 + 256;
            m_shared->cache.insert(keys[missed[j]], new Downsampled(*answer), bytes);
        }
        answers[missed[j]] = std::move(answer);
    }
    return answers;
}

Result<std::vector<Result<Downsampled>>>
LabReader::compute(const std::vector<MetricStore::SeriesName> &names, const SeriesWindow &window,
                   const std::vector<std::optional<Extent>> &extents,
                   const QHash<QString, Started> &origins, std::vector<char> *passing) const {
    // Smoothing needs every point before the window, an x metric each point's mapped step, and
    // a log axis's columns log10, whose last bit may differ between libraries: read whole.
    if (window.smoothing > 0 || !window.xMetric.isEmpty() || window.logX) {
        auto loaded = load(names, window.xMetric);
        if (!loaded)
            return loaded.failure();
        std::vector<Result<Downsampled>> answers(names.size(), Downsampled{});
        std::vector<std::size_t> order(names.size());
        std::iota(order.begin(), order.end(), 0);
        QtConcurrent::blockingMap(order, [&](std::size_t i) {
            const auto &series = (*loaded)[i];
            if (!series) {
                answers[i] = series.failure();
                return;
            }
            SeriesWindow own = window;
            if (!own.xMetric.isEmpty())
                own.axis = XAxis::Step; // the mapped steps
            if (own.axis == XAxis::RelativeTime)
                own.origin = series->origin;
            answers[i] = downsampleM4(*series->points, *series->summary, own);
        });
        return answers;
    }
    return m4(names, window, extents, origins, passing);
}

// A series' window as downsampleM4 makes it, and how SQL names what it reads.
struct LabReader::Frame {
    double x0, x1;
    scan::Columns columns;
    XAxis axis;
    double origin; // subtracted from wall times on a relative axis
    QString key;   // "project = ... AND run = ... AND metric = ..."
    qint64 count;  // points stored
    bool hidden;   // whether a rewind hides some: its blocks then stand for no chart

    // A point's x in SQL: its step, wall time, or time since the run began.
    QString x(QStringView step, QStringView wall) const {
        return axis == XAxis::Step       ? step.toString()
               : axis == XAxis::WallTime ? wall.toString()
                                         : u"(%1 - %2)"_s.arg(wall, ClickHouse::float64(origin));
    }
    // The x of a block's first, last, low, high, min or max point.
    QString blockX(QStringView which) const {
        return axis == XAxis::Step ? u"%1_step"_s.arg(which) : x({}, u"%1_wall"_s.arg(which));
    }
    // The pixel column of an x, named `alias` (downsampleM4's, to the bit).
    QString column(const QString &x, QStringView alias) const {
        const double span = columns.halfSpan();
        if (!(span > 0) || !std::isfinite(span))
            return u"0"_s;
        return u"if((floor((%1 / 2 - %2) / %3 * %4) AS %5) >= 0, least(%5, %4 - 1), 0)"_s.arg(
            x, ClickHouse::float64(columns.half0()), ClickHouse::float64(span),
            QString::number(columns.width()), alias);
    }
    QString inWindow(const QString &x) const {
        return u"%1 >= %2 AND %1 <= %3"_s.arg(x, ClickHouse::float64(x0), ClickHouse::float64(x1));
    }
    // Whether a block's every point lies in the window.
    QString blockWithin() const {
        return u"%1 >= %2 AND %3 <= %4"_s.arg(blockX(u"min"), ClickHouse::float64(x0),
                                              blockX(u"max"), ClickHouse::float64(x1));
    }
};

namespace {
// A Blocks plan wants this many blocks a pixel column at least: a column's edges, where blocks
// stand for points, are then a sixteenth of it at most.
constexpr qint64 kBlocksPerColumn = 16;
} // namespace

Result<std::vector<LabReader::BlockPlan>>
LabReader::planBlocks(const std::vector<MetricStore::SeriesName> &names,
                      const std::vector<std::optional<Frame>> &frames,
                      const SeriesWindow &window) const {
    const qint64 blocksWanted = qint64(window.width) * kBlocksPerColumn * LabSchema::kBlockPoints;
    std::vector<BlockPlan> plans(names.size());
    const auto read = [&](RowBinaryReader &rows) {
        while (!rows.atEnd() && !rows.failed()) {
            const quint64 k = rows.uint64();
            const quint64 blocks = rows.uint64();
            const quint64 rowsOfBlocks = rows.uint64();
            const quint64 unordered = rows.uint64();
            const quint64 sources = rows.uint64();
            const quint64 overlapping = rows.uint64();
            const quint64 firstBlock = rows.uint64();
            const quint64 lastBlock = rows.uint64();
            const quint64 crossing = rows.uint64();
            const quint64 firstCrossing = rows.uint64();
            const quint64 lastCrossing = rows.uint64();
            const quint64 within = rows.uint64(); // points of the blocks within the window
            if (rows.failed() || k >= plans.size())
                break;
            const qint64 whole = frames[k]->count / LabSchema::kBlockPoints;
            const auto from = [](quint64 block) {
                return qint64(block) * LabSchema::kBlockPoints;
            };
            // Blocks missing (points shipped before there were blocks), of two collectors (both
            // ship the name) or out of order within: read point by point, all of it.
            if (qint64(blocks) != whole || unordered > 0 || sources > 1)
                continue;
            // The points after the last whole block, and those of the blocks across the
            // window's ends (two where x keeps its order), one by one.
            if (qint64(within) >= blocksWanted && crossing <= 2) {
                QString bound = u" AND (idx >= %1"_s.arg(from(whole));
                for (const quint64 block : {firstCrossing, lastCrossing})
                    if (crossing > 0)
                        bound +=
                            u" OR (idx >= %1 AND idx < %2)"_s.arg(from(block)).arg(from(block + 1));
                plans[k] = {BlockPlan::Blocks, bound + u')', whole, rowsOfBlocks != blocks};
                continue;
            }
            plans[k].bound = overlapping == 0 ? u" AND idx >= %1"_s.arg(from(whole))
                                              : u" AND ((idx >= %1 AND idx < %2) OR idx >= %3)"_s
                                                    .arg(from(firstBlock))
                                                    .arg(from(lastBlock + 1))
                                                    .arg(from(whole));
        }
    };
    QStringList selects;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto &frame = frames[i];
        if (!frame || frame->hidden || frame->count < std::max<qint64>(m_options.summariesFrom, 1))
            continue;
        // The whole series, too short for blocks: they would say to read it all.
        if (!window.from && !window.to && frame->count < blocksWanted)
            continue;
        const QString overlaps =
            u"%1 >= %2 AND %3 <= %4"_s.arg(frame->blockX(u"max"), ClickHouse::float64(frame->x0),
                                           frame->blockX(u"min"), ClickHouse::float64(frame->x1));
        const QString crossing = u"%1 AND NOT (%2)"_s.arg(overlaps, frame->blockWithin());
        // A block whose first and last are not its smallest and largest x (a NaN among them
        // too: no equality holds) is out of order.
        const QString axis = frame->axis == XAxis::Step ? u"step"_s : u"wall"_s;
        selects
            << u"SELECT toUInt64(%1), uniqExact(block), count(), countIf(NOT (first_%2 = "
               "min_%2 AND last_%2 = max_%2)), uniqExact(source), countIf(%3), minIf(block, "
               "%3), maxIf(block, %3), uniqExactIf(block, %4), minIf(block, %4), maxIf(block, %4), "
               "sumIf(points, %5) FROM blocks WHERE %6 AND block < %7"_s.arg(
                   QString::number(i), axis, overlaps, crossing, frame->blockWithin(),
                   frame->key, // one pass: names hold %N
                   QString::number(frame->count / LabSchema::kBlockPoints));
    }
    if (Status asked = selectAll(selects, read); !asked)
        return asked.failure();
    return plans;
}

Result<std::vector<Result<Downsampled>>>
LabReader::m4(const std::vector<MetricStore::SeriesName> &names, const SeriesWindow &window,
              const std::vector<std::optional<Extent>> &extents,
              const QHash<QString, Started> &origins, std::vector<char> *passing) const {
    std::vector<Result<Downsampled>> answers;
    answers.reserve(names.size());
    std::vector<std::optional<Frame>> frames(names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto &extent = extents[i];
        if (!extent) {
            answers.push_back(noMetric(names[i]));
            continue;
        }
        answers.push_back(Downsampled{{}, {}, extent->count, 0});
        if (extent->count == 0)
            continue;
        // The window as downsampleM4 makes it.
        const bool step = window.axis == XAxis::Step;
        const double origin = window.axis == XAxis::RelativeTime
                                  ? origins.value(names[i].run).start.value_or(extent->minWall)
                                  : 0;
        const double x0 = window.from.value_or((step ? extent->minStep : extent->minWall) - origin);
        const double x1 = window.to.value_or((step ? extent->maxStep : extent->maxWall) - origin);
        const auto &hidden = origins.value(names[i].run).hidden;
        frames[i] = Frame{
            x0,
            x1,
            scan::Columns(x0, x1, window.width),
            window.axis,
            origin,
            u"project = %1 AND run = %2 AND metric = %3"_s.arg(
                m_project, ClickHouse::quoted(names[i].run), ClickHouse::quoted(names[i].metric)),
            extent->count,
            hidden.contains(names[i].metric)};
    }
    // Without blocks to ask (a lab store whose tables the collectors have not brought up to
    // date yet), every point is read.
    auto planned = planBlocks(names, frames, window);
    const std::vector<BlockPlan> plans =
        planned ? std::move(planned).value() : std::vector<BlockPlan>(names.size());
    for (std::size_t i = 0; i < plans.size(); ++i)
        (*passing)[i] = plans[i].doubled;
    // Where x never falls along the series within a column (a step axis, mostly), its first and
    // last by (x, index) are its first and last by index, which numbers find far faster than
    // pairs do; a column where that is not so has its series asked again by pairs.
    const QString byIndex = u"argMin(p, idx), argMax(p, idx)"_s;
    const QString byPairs = u"argMin(p, (x, idx)), argMax(p, (x, idx))"_s;
    // A SELECT of a series' points per column, by its place in `names`, in two halves around
    // how its first and last are found; each row as a block plan's.
    std::vector<std::pair<QString, QString>> branches(names.size());
    std::vector<QString> blockBranches(names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto &frame = frames[i];
        if (!frame)
            continue;
        const BlockPlan &plan = plans[i];
        const QString hiddenOnes =
            shownOnly(origins.value(names[i].run).hidden.value(names[i].metric));
        // The first and last by x, then index (between the two halves); the smallest and
        // largest finite values, the first of equals: the four points downsampleM4 keeps.
        branches[i] = {
            u"SELECT toUInt64(%1) AS k, toFloat64(%2) AS col, count(), "_s.arg(i).arg(
                frame->column(u"x"_s, u"c")),
            u", min(x), max(x), argMinIf(p, (value, idx), fin), argMaxIf(p, (value, "
            "-toInt64(idx)), fin), countIf(fin) FROM (SELECT idx, value, isFinite(value) AS fin, "
            "%1 AS x, (idx, x, value) AS p FROM points WHERE %2 AND %3%4%5) GROUP BY col"_s.arg(
                frame->x(u"step", u"wall"), frame->key, frame->inWindow(u"x"_s), hiddenOnes,
                plan.bound)};
        if (plan.kind != BlockPlan::Blocks)
            continue;
        // The blocks within the window: those within one column add up there; the rest (col
        // -1) are a row each, whose points each go to their own column. A block written twice (its
        // batch sent again) is taken once, at a cost: only while it is not merged yet.
        const QString once = plan.doubled ? u"any"_s : QString();
        const auto point = [&](QStringView which) {
            return u"%1((%2_idx, %3, %2_value)) AS %4"_s.arg(once, which, frame->blockX(which),
                                                             which.left(2));
        };
        blockBranches[i] =
            u"SELECT toUInt64(%1) AS k, toFloat64(if(%2 = %3, %4, -1)) AS col, sum(n), argMin(fi, "
            "(fi.2, fi.1)), argMax(la, (la.2, la.1)), min(x0), max(x1), argMinIf(lo, (lo.3, "
            "lo.1), nf > 0), argMaxIf(hi, (hi.3, -toInt64(hi.1)), nf > 0), sum(nf) FROM (SELECT "
            "block, %13(points) AS n, %13(finite) AS nf, %5, %6, %7, %8, %13(%9) AS x0, %13(%10) "
            "AS x1 FROM blocks WHERE %11 AND block < %12%14) WHERE %15 GROUP BY col, if(col < 0, "
            "block, 0)"_s.arg(
                QString::number(i), frame->column(u"x0"_s, u"c0"), frame->column(u"x1"_s, u"c1"),
                frame->column(u"x0"_s, u"c2"), point(u"first"), point(u"last"), point(u"low"),
                point(u"high"), frame->blockX(u"min"), frame->blockX(u"max"), frame->key,
                QString::number(plan.whole), once, plan.doubled ? u" GROUP BY block"_s : QString(),
                frame->inWindow(u"x0"_s) + u" AND x1 <= "_s + ClickHouse::float64(frame->x1));
    }
    struct Cell {
        double column;
        std::vector<IndexedPoint> candidates;
        qint64 points;
    };
    std::vector<std::vector<Cell>> cells(names.size());
    std::vector<char> unordered(names.size(), 0);
    // Each row is a column of a series (k, its place in `names`).
    const auto read = [&](RowBinaryReader &rows) {
        while (!rows.atEnd() && !rows.failed()) {
            const quint64 k = rows.uint64();
            Cell cell;
            cell.column = rows.float64();
            cell.points = qint64(rows.uint64());
            for (int p = 0; p < 2; ++p)
                cell.candidates.push_back(indexedOf(rows));
            const double lowX = rows.float64();
            const double highX = rows.float64();
            for (int p = 0; p < 2; ++p)
                cell.candidates.push_back(indexedOf(rows));
            if (rows.uint64() == 0) // no finite value: the last two are no points
                cell.candidates.resize(2);
            // A constant column (a window of no width) groups as no GROUP BY does: one row,
            // even of nothing.
            if (k >= cells.size() || cell.points == 0)
                continue;
            if (cell.column < 0) { // a block across columns: each point in its own
                answers[k].value().inRange += cell.points;
                for (const IndexedPoint &p : cell.candidates)
                    if (frames[k]->columns.contains(p.x))
                        cells[k].push_back({double(frames[k]->columns.column(p.x)), {p}, 0});
                continue;
            }
            if (plans[k].kind == BlockPlan::Points &&
                (cell.candidates[0].x != lowX || cell.candidates[1].x != highX))
                unordered[k] = 1;
            cells[k].push_back(std::move(cell));
        }
    };
    // A Blocks plan's few points after its last whole block are asked by pairs at once.
    QStringList selects;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!frames[i])
            continue;
        const auto &[head, tail] = branches[i];
        if (plans[i].kind == BlockPlan::Blocks)
            selects << blockBranches[i] << head + byPairs + tail;
        else
            selects << head + byIndex + tail;
    }
    if (Status done = selectAll(selects, read); !done)
        return done.failure();
    selects.clear();
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (unordered[i]) {
            cells[i].clear();
            selects << branches[i].first + byPairs + branches[i].second;
        }
    }
    if (Status done = selectAll(selects, read); !done)
        return done.failure();
    for (std::size_t i = 0; i < names.size(); ++i) {
        std::sort(cells[i].begin(), cells[i].end(),
                  [](const Cell &a, const Cell &b) { return a.column < b.column; });
        if (!answers[i])
            continue;
        // A column's cells (a Blocks plan's come from blocks, points and blocks across) as one.
        for (auto cell = cells[i].begin(); cell != cells[i].end();) {
            std::vector<IndexedPoint> candidates;
            const double column = cell->column;
            for (; cell != cells[i].end() && cell->column == column; ++cell) {
                answers[i].value().inRange += cell->points;
                candidates.insert(candidates.end(), cell->candidates.begin(),
                                  cell->candidates.end());
            }
            appendM4Column(std::move(candidates), &answers[i].value());
        }
    }
    return answers;
}

Result<std::vector<Result<MetricStore::Opened>>>
LabReader::load(const std::vector<MetricStore::SeriesName> &names, const QString &xMetric) const {
    auto surveyed = survey(names, xMetric);
    if (!surveyed)
        return surveyed.failure();
    const auto &read = surveyed->read;
    const auto &xAt = surveyed->xAt;
    const auto *started = &surveyed->started;
    const auto *found = &surveyed->extents;
    qint64 total = 0;
    for (const auto &extent : *found)
        total += extent ? extent->count : 0;
    if (total > m_options.mostPointsRead)
        return fail(u"these curves hold %1 points, more than a lab collector reads whole for one "
                    "request (%2; smoothing, an x metric, a log x axis and groups read every "
                    "point): ask for fewer runs at a time"_s.arg(total)
                        .arg(m_options.mostPointsRead),
                    ErrorCode::InvalidInput);
    // Each point goes to its place among the shown ones by its index (a branch's rows come in
    // blocks, in no set order); a statement's answer stays within ClickHouse's 256 MB.
    const auto hiddenOf = [&](std::size_t i) {
        return started->value(read[i].run).hidden.value(read[i].metric);
    };
    std::vector<std::shared_ptr<LoadedSeries>> series(read.size());
    std::vector<std::vector<bool>> placed(read.size());
    std::vector<char> mixed(read.size(), 0); // a point with no place of its own
    std::vector<QStringList> statements{{}};
    qint64 inStatement = 0;        // rows
    qsizetype statementLength = 0; // characters
    for (std::size_t i = 0; i < read.size(); ++i) {
        series[i] = std::make_shared<LoadedSeries>();
        const qint64 count = (*found)[i] ? (*found)[i]->count : 0;
        if (count == 0)
            continue;
        series[i]->points.resize(std::size_t(count));
        placed[i].resize(std::size_t(count));
        if (inStatement > 0 && (inStatement + count > kMostRowsPerAnswer ||
                                statements.back().size() >= qsizetype(kSeriesPerStatement) ||
                                statementLength > kLongestStatement)) {
            statements.emplace_back();
            inStatement = 0;
            statementLength = 0;
        }
        inStatement += count;
        statements.back() << u"SELECT toUInt64(%1) AS k, idx, step, value, wall FROM points "
                             "WHERE project = %2 AND run = %3 AND metric = %4%5"_s.arg(
                                 QString::number(i), m_project, ClickHouse::quoted(read[i].run),
                                 ClickHouse::quoted(read[i].metric), shownOnly(hiddenOf(i)));
        statementLength += statements.back().back().size();
    }
    for (const QStringList &statement : statements) {
        if (statement.isEmpty())
            continue;
        const auto answer = select(statement.join(u" UNION ALL "_s));
        if (!answer)
            return answer.failure();
        RowBinaryReader rows(*answer);
        std::vector<IndexRange> hidden;
        quint64 hiddenFor = ~quint64(0);
        while (!rows.atEnd() && !rows.failed()) {
            const quint64 k = rows.uint64();
            if (k != hiddenFor && k < series.size()) {
                hidden = hiddenOf(k);
                hiddenFor = k;
            }
            const auto idx = quint64(shownIndex(hidden, qint64(rows.uint64())));
            const MetricPoint p = pointOf(rows);
            if (k >= series.size())
                continue;
            if (idx >= placed[k].size() || placed[k][idx]) {
                mixed[k] = true;
                continue;
            }
            placed[k][idx] = true;
            series[k]->points[idx] = p;
        }
        if (rows.failed())
            return fail(cutShort());
    }
    // A series whose points do not each have their own place is that series' failure, not the
    // request's (the other curves are drawn).
    const auto problem = [&](std::size_t i) -> std::optional<Error> {
        if (!mixed[i] && std::find(placed[i].begin(), placed[i].end(), false) == placed[i].end())
            return std::nullopt;
        return Error{u"ClickHouse holds points of %1/%2 twice or out of place: two collectors "
                     "shipped runs of this name to the project (rename one), or it changed "
                     "while read"_s.arg(read[i].run, read[i].metric),
                     ErrorCode::Failed};
    };
    std::vector<Result<MetricStore::Opened>> out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!(*found)[i]) {
            out.push_back(noMetric(names[i]));
            continue;
        }
        if (auto broken = problem(i)) {
            out.push_back(*broken);
            continue;
        }
        if (!xMetric.isEmpty()) {
            if (auto broken = problem(xAt.value(names[i].run))) {
                out.push_back(*broken);
                continue;
            }
        }
        std::shared_ptr<LoadedSeries> own = series[i];
        if (!xMetric.isEmpty()) {
            const std::size_t x = xAt.value(names[i].run);
            if (!(*found)[x]) {
                out.push_back(noMetric(read[x]));
                continue;
            }
            const MetricAxisSource mapped(std::make_unique<LoadedSource>(own), series[x]->points);
            auto mappedSeries = std::make_shared<LoadedSeries>();
            mappedSeries->points.resize(own->points.size());
            mapped.read(0, mapped.size(), mappedSeries->points.data());
            own = std::move(mappedSeries);
        }
        own->summary.update(VectorPointSource(&own->points));
        const double origin =
            started->value(names[i].run).start.value_or(own->summary.minX(XAxis::WallTime));
        const SeriesSummary *summary = &own->summary;
        out.push_back(MetricStore::Opened{std::make_unique<LoadedSource>(std::move(own)), summary,
                                          origin, nullptr});
    }
    return out;
}

Result<std::unique_ptr<PointSource>> LabReader::pages(const QString &run,
                                                      const QString &metric) const {
    auto started = starts({run});
    if (!started)
        return started.failure();
    auto found = extents({{run, metric}}, *started);
    if (!found)
        return found.failure();
    if (!found->front())
        return noMetric({run, metric});
    return std::unique_ptr<PointSource>(std::make_unique<PagedSource>(
        m_server,
        u"project = %1 AND run = %2 AND metric = %3"_s.arg(m_project, ClickHouse::quoted(run),
                                                           ClickHouse::quoted(metric)),
        found->front()->count, started->value(run).hidden.value(metric)));
}

} // namespace sb
