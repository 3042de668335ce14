#pragma once

#include "charts/CurveChart.h"
#include "metrics/CollectorClient.h"
#include "metrics/RunGrouping.h"
#include "metrics/RunsModel.h"

#include <QHash>
#include <QTimer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QGridLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSlider;
class QSortFilterProxyModel;
class QTableView;
class QToolButton;

namespace sb {

// Learning curves: the runs table, a metric picker, and one chart per metric with the checked
// runs overlaid. Polls the collector once a second; each chart asks for exactly its pixel width.
class CurvesView final : public QWidget {
    Q_OBJECT
public:
    explicit CurvesView(CollectorClient *collector, QWidget *parent = nullptr);

    static constexpr int kMaxRunsWithRawCurves = 10;
    static constexpr qsizetype kChartsAPage = 60; // charts made at once; a button shows more

    RunsModel *runsModel() const { return m_runs; }
    QList<CurveChart *> charts() const { return m_charts.values(); }
    void refresh();
    // Every point of the shown runs and charted metrics, streamed to a CSV or JSON Lines file (by
    // its name's ending); with no path, asks where. exported() says when it is written.
    void exportPoints(const QString &path = {});
    // One chart as an SVG or PNG file of `size` pixels; with no path, asks for both.
    void exportChart(CurveChart *chart, const QString &path = {}, QSize size = {});
    void setSmoothing(double weight);
    // Charts these runs alone (others are unchecked), and lists them first.
    void showOnly(const QStringList &runs);
    // Runs drawn as groups (a centre line and band each); By::Nothing draws every run alone.
    void setGrouping(const RunGrouping &grouping);
    const RunGrouping &grouping() const { return m_grouping; }
    // A group drawn as its runs, one by one, or folded back into one curve.
    void setGroupExpanded(const QString &group, bool expanded);
    void offerLogdirs(); // shows "Open TensorBoard logdir…", which emits logdirsRequested

Q_SIGNALS:
    void collectorError(const QString &message); // empty: the collector answers again
    void logdirsRequested();                     // "TensorBoard logdirs…" was clicked
    void jobRequested(const QString &run);       // the job that made a run, and its output
    void exported(const QString &path);          // exportPoints() wrote its file

private:
    // Where a chart's own options are remembered (QSettings).
    static QString chartKey(const QString &metric, const QString &option);
    // The runs the charts draw: checked, and passing the filter.
    QStringList shownRuns() const;
    // The shown runs in groups: the groups drawn as one curve (two runs or more, not expanded),
    // and the runs drawn on their own.
    GroupedRuns drawnGroups() const;
    void chooseGrouping(RunGrouping::By by);
    void updateGroupButton();
    void requestGroups(CurveChart *chart);
    // Selects these runs' rows (a click on a group's curve selects its runs).
    void selectRuns(const QStringList &runs);
    void applyFilter();
    // A dialog for the run's tags and note; saved in the collector.
    void annotateRun(const QString &run);
    // The selected runs' configs, only the keys that differ, side by side.
    void compareConfigs();
    // A run's row in the table, selected and in sight (a click on its curve).
    void selectRun(const QString &run) { selectRuns({run}); }
    void rebuildCharts();
    // The header of a section of charts (a metric prefix), made once; checked: open.
    QToolButton *sectionHeader(const QString &prefix);
    void reportCollector(const QString &error);
    void requestChart(CurveChart *chart);
    void applySeries(CurveChart *chart, const SeriesReplies &reply,
                     const QHash<QString, qint64> &counts);
    void showCached(CurveChart *chart);
    void updateLegend();
    void exportPng();
    static bool isSystemMetric(const QString &metric); // "system/…": kept by time
    void setXAxisOf(CurveChart *chart) const;
    SeriesWindow windowFor(CurveChart *chart) const;
    // The metric chosen as x, if one is (else a time axis or the step).
    QString xMetric() const;

    CollectorClient *m_collector;
    RunsModel *m_runs;
    QSortFilterProxyModel *m_filtered;
    QTableView *m_runsTable;
    QLineEdit *m_filter;
    QListWidget *m_metrics;
    QSlider *m_smoothing;
    QLabel *m_smoothingLabel;
    QComboBox *m_smoothingKind;
    QPushButton *m_openLogdir;
    QComboBox *m_xAxis;
    QCheckBox *m_logY;
    QCheckBox *m_showLegend;
    QToolButton *m_groupButton;
    RunGrouping m_grouping;
    QSet<QString> m_expanded; // groups drawn as their runs
    QLabel *m_legend;
    QTimer m_legendUpdate;
    QWidget *m_chartArea;
    QGridLayout *m_grid;
    QLabel *m_emptyHint;
    QString m_noCurvesYet; // the hint while no run has logged anything
    QToolButton *m_regex;  // the filter is a regular expression
    QTimer m_chartSet;     // the shown runs changed: charts come and go, once per event loop
    QHash<QString, CurveChart *> m_charts;
    qsizetype m_chartLimit = kChartsAPage;
    QPushButton *m_moreCharts;
    QHash<QString, bool> m_listedMetrics;     // in the metric picker
    QHash<QString, bool> m_xMetrics;          // offered as the x axis
    QHash<QString, QToolButton *> m_sections; // by prefix, while there is more than one
    QHash<CurveChart *, int> m_pending;       // 1: a request is out; 2: and another is wanted
    // What each chart shows, per run, with the point count it was fetched at: a refresh asks the
    // collector only for runs that grew, so finished runs cost nothing while live ones update.
    struct CachedCurve {
        qint64 count = 0;
        Curve curve;
    };
    struct ChartCache {
        QString window; // the SeriesWindow the curves were fetched for
        QHash<QString, CachedCurve> runs;
    };
    QHash<CurveChart *, ChartCache> m_cache;
    // The groups each chart draws, and the request (with its members' point counts) they answer:
    // asked again only when a member grew or the request changed.
    struct GroupCache {
        QByteArray request;
        QList<Curve> curves;
    };
    QHash<CurveChart *, GroupCache> m_groupCache;
    QHash<CurveChart *, int> m_groupsPending; // as m_pending, for /groups
    QTimer m_poll;
    QTimer m_redraw; // batches viewport changes into one request per chart
    QSet<CurveChart *> m_dirty;
    bool m_collectorDown = false; // the banner shows a collector error
    bool m_runsInFlight = false;
};

} // namespace sb
