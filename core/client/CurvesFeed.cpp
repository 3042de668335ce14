#include "CurvesFeed.h"

#include "monitor/SystemSeries.h"
#include "util/OffThread.h"

#include <QJsonDocument>
#include <QThread>
#include <QUrl>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

QList<QPointF> pointsFrom(const std::vector<double> &xs, const std::vector<double> &ys) {
    QList<QPointF> points;
    points.reserve(static_cast<qsizetype>(xs.size()));
    for (std::size_t i = 0; i < xs.size() && i < ys.size(); ++i) {
        if (std::isfinite(ys[i])) // a NaN or an infinity, which no line can show
            points.append(QPointF(xs[i], ys[i]));
    }
    return points;
}

QList<FetchedCurve> curvesFrom(const SeriesReplies &reply) {
    QList<FetchedCurve> curves;
    for (const SeriesReply &series : reply.series) {
        if (series.error.isEmpty()) // else this run does not log this metric
            curves.append({series.run, pointsFrom(series.x, series.y),
                           pointsFrom(series.rawX, series.rawY),
                           std::count_if(series.y.cbegin(), series.y.cend(),
                                         [](double y) { return !std::isfinite(y); })});
    }
    return curves;
}

QList<FetchedGroup> groupsFrom(const GroupReplies &reply) {
    QList<FetchedGroup> groups;
    for (const GroupReply &group : reply.groups) {
        if (!group.runs.isEmpty())
            groups.append({group.name, group.runs, pointsFrom(group.curve.x, group.curve.center),
                           pointsFrom(group.curve.x, group.curve.lower),
                           pointsFrom(group.curve.x, group.curve.upper)});
    }
    return groups;
}

// Curves fetched for one window are kept until the window (or the raw choice) changes.
QString windowKey(const SeriesWindow &window, bool withRaw) {
    return u"%1|%2|%3|%4|%5|%6|%7"_s
        .arg(xAxisName(window.axis) + u"/"_s + window.xMetric + (window.logX ? u"/log"_s : u""_s))
        .arg(window.from.value_or(qQNaN()))
        .arg(window.to.value_or(qQNaN()))
        .arg(window.width)
        .arg(window.smoothing)
        .arg(smoothingKindName(window.smoothingKind))
        .arg(withRaw);
}

constexpr QChar kOtherMetric = u'\x1f'; // between a chart and a metric in a key

QString encoded(const QString &name) {
    return QString::fromLatin1(QUrl::toPercentEncoding(name));
}

} // namespace

QString CurvesFeed::chartKey(const QString &chart, const QString &metric) {
    return metric.isEmpty() ? encoded(chart) : encoded(chart) + kOtherMetric + encoded(metric);
}

QString CurvesFeed::chartOfKey(const QString &key) {
    return QUrl::fromPercentEncoding(key.section(kOtherMetric, 0, 0).toLatin1());
}

CurvesFeed::CurvesFeed(CollectorClient *collector, PointCounts pointCount, QObject *parent)
    : QObject(parent)
    , m_collector(collector)
    , m_pointCount(std::move(pointCount)) {
    // New points show a poll after the client flushes them (every 0.25 s), plus the time the
    // listing and the charts' answers take.
    m_poll.setInterval(kPollMs);
    connect(&m_poll, &QTimer::timeout, this, &CurvesFeed::refresh);
    m_poll.start();
}

void CurvesFeed::refresh() {
    if (m_listing) {
        m_listAgain = true; // e.g. tags just saved: listed once this listing is in
        return;
    }
    m_listing = true;
    m_pages.clear();
    m_listedNames.clear();
    m_pagesRead = 0;
    listFrom(0);
}

void CurvesFeed::listFrom(qsizetype offset) {
    m_collector->runs(
        {{}, {}, offset, kRunsAPage}, this, [this, offset](Result<QList<RunSummary>> page) {
            report(page.error());
            if (!page) {
                m_listing = false;
                if (std::exchange(m_listAgain, false))
                    refresh();
                return;
            }
            const qsizetype full = page->size();
            const qsizetype namesBefore = m_listedNames.size();
            // A run that came while the pages were read may be listed twice.
            for (RunSummary &run : std::move(page).value()) {
                if (m_listedNames.contains(run.info.name))
                    continue;
                m_listedNames.insert(run.info.name);
                m_pages.append(std::move(run));
            }
            // A page longer than asked, or one that adds nobody: the collector ignores the
            // paging, and asking on would never end.
            const bool more = full == kRunsAPage && m_listedNames.size() > namesBefore &&
                              ++m_pagesRead < kMostPages;
            if (more)
                return listFrom(offset + kRunsAPage);
            listed();
        });
}

void CurvesFeed::listed() {
    m_listing = false;
    QList<RunSummary> runs = std::exchange(m_pages, {});
    // Nodes' GPU history is the dashboard's, not a researcher's run.
    runs.removeIf([](const RunSummary &run) { return isNodeHistoryRun(run.info.name); });
    Q_EMIT runsListed(runs);
    if (std::exchange(m_listAgain, false))
        refresh();
}

void CurvesFeed::fetch(const ChartQuery &query) {
    Chart &chart = m_charts[query.key.isEmpty() ? query.metric : query.key];
    chart.forgotten = false;
    chart.query = query;
    fetchGroups(chart);
    // fetchGroups() emits nothing, so `chart` still stands.
    fetchSeries(chart);
}

void CurvesFeed::forget(const QString &key) {
    // A chart's other metrics go with it.
    const QString others = key + kOtherMetric;
    for (auto it = m_charts.begin(); it != m_charts.end();) {
        if (it.key() == key || it.key().startsWith(others))
            it = forgotten(it);
        else
            ++it;
    }
}

QHash<QString, CurvesFeed::Chart>::iterator
CurvesFeed::forgotten(QHash<QString, Chart>::iterator it) {
    if (!it->seriesPending && !it->groupsPending)
        return m_charts.erase(it);
    // Its cache goes; the window and requests out stay, so fetching it again asks nothing twice.
    it->forgotten = true;
    it->runs.clear();
    it->groups.clear();
    it->groupRequest.clear();
    it->seriesAgain = false;
    it->groupsAgain = false;
    return ++it;
}

CurvesFeed::Chart *CurvesFeed::answered(const QString &key) {
    const auto it = m_charts.find(key);
    if (it == m_charts.end())
        return nullptr;
    if (!it->forgotten)
        return &*it;
    if (!it->seriesPending && !it->groupsPending)
        m_charts.erase(it);
    return nullptr;
}

template <typename Work, typename Then> void CurvesFeed::convertOffThread(Work work, Then then) {
    runOffThread(
        this,
        [work = std::move(work), caller = QThread::currentThread()]() mutable {
            return std::pair(work(), QThread::currentThread() != caller);
        },
        [this, then = std::move(then)](auto converted) mutable {
            ++(converted.second ? m_convertedOffThread : m_convertedOnCallerThread);
            then(std::move(converted.first));
        });
}

void CurvesFeed::fetchSeries(Chart &chart) {
    if (chart.seriesPending) {
        chart.seriesAgain = true; // once more when the answer arrives
        return;
    }
    const ChartQuery &query = chart.query;
    const QString key = windowKey(query.window, query.withRaw);
    if (chart.window != key) {
        chart.window = key;
        chart.runs.clear();
    }
    QStringList stale;
    QHash<QString, qint64> counts;
    for (const QString &run : query.runs) {
        const qint64 count = m_pointCount(run, query.metric);
        const auto cached = chart.runs.constFind(run);
        if (count > 0 && (cached == chart.runs.constEnd() || cached->count != count)) {
            stale << run;
            counts.insert(run, count);
        }
    }
    const QString chartKey = query.key.isEmpty() ? query.metric : query.key;
    if (stale.isEmpty()) {
        Q_EMIT chartFetched(chartKey);
        return;
    }
    chart.seriesPending = true;
    auto arrived = [this, chartKey, key, counts](QList<FetchedCurve> curves) {
        if (const auto it = m_charts.find(chartKey); it != m_charts.end())
            it->seriesPending = false;
        Chart *asked = answered(chartKey);
        if (!asked)
            return;
        if (asked->window == key) {
            for (FetchedCurve &curve : curves) {
                const QString run = curve.run; // the key, before the curve moves out
                asked->runs.insert(run, {counts.value(run), std::move(curve)});
            }
            Q_EMIT chartFetched(chartKey); // its slots may forget charts or fetch others
        }
        if (Chart *again = answered(chartKey); again && std::exchange(again->seriesAgain, false))
            fetchSeries(*again);
    };
    m_collector->series(
        stale, query.metric, query.window, query.withRaw, this,
        [this, arrived](Result<SeriesReplies> reply) mutable {
            report(reply.error());
            if (!reply)
                return arrived({});
            convertOffThread([replies = std::move(reply).value()] { return curvesFrom(replies); },
                             std::move(arrived));
        });
}

void CurvesFeed::fetchGroups(Chart &chart) {
    const ChartQuery &query = chart.query;
    GroupRequest request;
    request.metric = query.metric;
    request.window = query.window;
    request.center = query.center;
    request.band = query.band;
    QByteArray counts; // a member that grew makes the request another one
    for (const GroupRequest::Group &group : query.groups) {
        GroupRequest::Group &asked = request.groups.emplace_back();
        asked.name = group.name;
        for (const QString &run : group.runs) {
            if (const qint64 count = m_pointCount(run, query.metric); count > 0) {
                asked.runs << run;
                counts += QByteArray::number(count) + ',';
            }
        }
        if (asked.runs.isEmpty())
            request.groups.pop_back();
    }
    if (request.groups.empty()) {
        chart.groupRequest.clear();
        chart.groups.clear();
        return;
    }
    const QByteArray key = QJsonDocument(request.toJson()).toJson(QJsonDocument::Compact) + counts;
    if (chart.groupRequest == key)
        return;
    if (chart.groupsPending) {
        chart.groupsAgain = true; // once more when the answer arrives
        return;
    }
    chart.groupsPending = true;
    const QString chartKey = query.key.isEmpty() ? query.metric : query.key;
    auto arrived = [this, chartKey, key](std::optional<QList<FetchedGroup>> groups) {
        if (const auto it = m_charts.find(chartKey); it != m_charts.end())
            it->groupsPending = false;
        Chart *asked = answered(chartKey);
        if (!asked)
            return;
        if (groups) {
            asked->groupRequest = key;
            asked->groups = std::move(*groups);
            Q_EMIT chartFetched(chartKey); // its slots may forget charts or fetch others
        }
        if (Chart *again = answered(chartKey); again && std::exchange(again->groupsAgain, false))
            fetchGroups(*again);
    };
    m_collector->groups(request, this, [this, arrived](Result<GroupReplies> reply) mutable {
        report(reply.error());
        if (!reply)
            return arrived(std::nullopt);
        convertOffThread(
            [replies = std::move(reply).value()] { return std::optional(groupsFrom(replies)); },
            std::move(arrived));
    });
}

const FetchedCurve *CurvesFeed::curve(const QString &key, const QString &run) const {
    const auto chart = m_charts.constFind(key);
    if (chart == m_charts.constEnd())
        return nullptr;
    const auto it = chart->runs.constFind(run);
    return it == chart->runs.constEnd() ? nullptr : &it->curve;
}

QList<FetchedGroup> CurvesFeed::groups(const QString &key) const {
    return m_charts.value(key).groups;
}

bool CurvesFeed::hasRun(const QString &run) const {
    return std::any_of(m_charts.cbegin(), m_charts.cend(),
                       [&run](const Chart &chart) { return chart.runs.contains(run); });
}

bool CurvesFeed::hasGroup(const QString &group) const {
    return std::any_of(m_charts.cbegin(), m_charts.cend(), [&group](const Chart &chart) {
        return std::any_of(chart.groups.cbegin(), chart.groups.cend(),
                           [&group](const FetchedGroup &g) { return g.name == group; });
    });
}

QStringList CurvesFeed::groupMembers(const QStringList &groups) const {
    QStringList members;
    for (const Chart &chart : m_charts) {
        for (const FetchedGroup &group : chart.groups) {
            if (groups.contains(group.name))
                members << group.runs;
        }
    }
    return members;
}

void CurvesFeed::report(const QString &error) {
    if (!error.isEmpty() || std::exchange(m_collectorDown, false))
        Q_EMIT collectorError(error); // an empty message clears the banner
    m_collectorDown = !error.isEmpty();
}

} // namespace sb
