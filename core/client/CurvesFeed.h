#pragma once

#include "client/CollectorClient.h"
#include "metrics/CollectorApi.h"

#include <QHash>
#include <QObject>
#include <QPointF>
#include <QSet>
#include <QTimer>

#include <functional>

namespace sb {

// One run's curve on a chart: its finite points (smoothed when asked) and the raw ones behind.
struct FetchedCurve {
    QString run;
    QList<QPointF> points;
    QList<QPointF> raw;
    qsizetype nonFinite = 0; // values left out of `points`: NaN or infinite
};

// One group's centre line and band, and its runs that log the metric.
struct FetchedGroup {
    QString name;
    QStringList runs;
    QList<QPointF> center;
    QList<QPointF> lower;
    QList<QPointF> upper;
};

// What one chart draws: its metric in a window, runs one by one, and groups as one curve each.
struct ChartQuery {
    QString metric;
    // What the answer is kept and said under (chartFetched); empty: the metric. A chart of
    // several metrics asks for each under CurvesFeed::otherMetricKey().
    QString key;
    SeriesWindow window;
    QStringList runs;
    bool withRaw = false; // the raw curve behind each smoothed one
    GroupCenter center = GroupCenter::Mean;
    GroupBand band = GroupBand::StdDev;
    std::vector<GroupRequest::Group> groups;
};

// The curves view's data, without widgets: the runs listing polled once a second, and each
// chart's curves fetched and cached by metric. Answers are decoded off the GUI thread (by the
// client) and turned into points there too; values reach the caller's thread by signals.
//
// What is polled: the listing is every run's (the table lists, filters, sorts and counts them
// all), asked one page of kRunsAPage runs at a time, one listing in flight. Curves are asked
// only for the charts the view shows (a page of charts, folded sections left out, see fetch()),
// and of those only the runs whose point count grew since they were fetched: a finished run
// costs nothing, a live one a column-wide answer.
class CurvesFeed final : public QObject {
    Q_OBJECT
public:
    static constexpr int kPollMs = 1000;
    static constexpr qsizetype kRunsAPage = 500;
    // A collector that ignores offset/limit answers the same page forever: the listing stops.
    static constexpr qsizetype kMostPages = 2000;
    // Points of a metric that a run had at the last listing (0 when it logs none): the table's
    // counts, one source for both.
    using PointCounts = std::function<qint64(const QString &run, const QString &metric)>;

    CurvesFeed(CollectorClient *collector, PointCounts pointCount, QObject *parent = nullptr);

    CollectorClient *collector() const { return m_collector; }
    // The keys of a chart's metrics: a chart of several asks for each under its own, and
    // forgetting the chart's key forgets them all. Percent-encoded, so no two names meet.
    static QString chartKey(const QString &chart, const QString &metric = {});
    static QString chartOfKey(const QString &key);
    // The listing now (the poll asks once a second); runsListed when it is in. Asked while one
    // is out, another follows it (what changed meanwhile is listed).
    void refresh();
    // The chart of query.metric (or query.key) draws this: what is not cached at the listed
    // point counts is asked for; chartFetched(key) when it is in, at once when nothing grew.
    void fetch(const ChartQuery &query);
    // The chart went (or folded away): its cache goes, and a late answer is dropped. A request
    // still out is remembered: the chart fetched again waits for it rather than asking twice.
    void forget(const QString &key);
    // What a chart has: a run's curve (null if none), and its groups.
    const FetchedCurve *curve(const QString &key, const QString &run) const;
    QList<FetchedGroup> groups(const QString &key) const;
    // Whether any chart has this run's curve, or this group's.
    bool hasRun(const QString &run) const;
    bool hasGroup(const QString &group) const;
    // The runs of the groups named, as charts drew them.
    QStringList groupMembers(const QStringList &groups) const;
    // Answers turned into points on a worker thread (for tests: never on the caller's).
    qint64 convertedOffThread() const { return m_convertedOffThread; }
    qint64 convertedOnCallerThread() const { return m_convertedOnCallerThread; }

Q_SIGNALS:
    void runsListed(const QList<RunSummary> &runs); // the researcher's runs: no node history
    void chartFetched(const QString &key);
    void collectorError(const QString &message); // empty: the collector answers again

private:
    struct Chart {
        bool forgotten = false; // kept only until its answers are in, which are dropped
        ChartQuery query;
        QString window; // the window and raw choice its curves were fetched for
        struct Cached {
            qint64 count = 0;
            FetchedCurve curve;
        };
        QHash<QString, Cached> runs;
        bool seriesPending = false;
        bool seriesAgain = false; // the query changed while a request was out
        QByteArray groupRequest;  // the /groups request (and members' counts) groups answer
        QList<FetchedGroup> groups;
        bool groupsPending = false;
        bool groupsAgain = false;
    };
    void listFrom(qsizetype offset);
    void listed(); // every page is in
    void fetchSeries(Chart &chart);
    void fetchGroups(Chart &chart);
    // The chart of this metric once an answer for it is in: null (and gone when nothing else
    // is out) if it was forgotten meanwhile.
    Chart *answered(const QString &key);
    // Its cache gone, and gone itself once no request for it is out: the next one.
    QHash<QString, Chart>::iterator forgotten(QHash<QString, Chart>::iterator it);
    // `work` on a worker, then `then(result)` here, counting where the work ran.
    template <typename Work, typename Then> void convertOffThread(Work work, Then then);
    void report(const QString &error);

    CollectorClient *m_collector;
    PointCounts m_pointCount;
    QTimer m_poll;
    bool m_listing = false;    // a slow or hung collector gets one listing at a time
    bool m_listAgain = false;  // refresh() was asked while a listing was out
    QList<RunSummary> m_pages; // this listing's, without a name listed twice
    QSet<QString> m_listedNames;
    qsizetype m_pagesRead = 0;
    QHash<QString, Chart> m_charts;
    qint64 m_convertedOffThread = 0;
    qint64 m_convertedOnCallerThread = 0;
    bool m_collectorDown = false; // an error was reported and no answer came since
};

} // namespace sb
