#pragma once

#include "ChartGrid.h"
#include "charts/CurveChart.h"
#include "client/CollectorClient.h"
#include "metrics/RunGrouping.h"
#include "metrics/RunsModel.h"

#include <QSet>
#include <QTimer>
#include <QWidget>

class QLabel;
class QTabWidget;

namespace sb {

class AnalysisPanel;
class CurvesControls;
class CurvesExport;
class CurvesFeed;
class RunLegend;
class SavedViews;
class RunsPanel;
class SamplesFeed;
class SamplesPanel;

// Learning curves: the runs table, a metric picker, and one chart per metric with the checked
// runs overlaid. A shell over its parts: the runs panel (left), the toolbar, the legend and the
// chart grid (right), and export; what the charts show comes from a CurvesFeed, which polls the
// collector once a second and decodes its answers off the GUI thread.
class CurvesView final : public QWidget {
    Q_OBJECT
public:
    explicit CurvesView(CollectorClient *collector, QWidget *parent = nullptr);

    static constexpr int kMaxRunsWithRawCurves = 10;
    static constexpr qsizetype kChartsAPage = ChartGrid::kChartsAPage; // a button shows more

    RunsModel *runsModel() const { return m_runs; }
    const QList<CurveChart *> &charts() const;
    // The images, histograms, text and audio of the shown runs, on the "Samples" tab beside the
    // charts (shown once a shown run has some).
    SamplesPanel *samplesPanel() const { return m_samples; }
    void showSamplesTab();
    // Hyperparameter analysis of the shown runs, on the "Analysis" tab.
    AnalysisPanel *analysis() const { return m_analysis; }
    void showAnalysisTab();
    void refresh();
    // Every point of the shown runs and charted metrics, streamed to a CSV or JSON Lines file (by
    // its name's ending); with no path, asks where. exported() says when it is written.
    void exportPoints(const QString &path = {});
    // The charts as they look, under the whole legend, as one PNG; with no path, asks where.
    void exportPicture(const QString &path = {});
    // One chart as an SVG or PNG file of `size` pixels; with no path, asks for both.
    void exportChart(CurveChart *chart, const QString &path = {}, QSize size = {});
    void setSmoothing(double weight);
    // Charts these runs: checks them (others keep their checks: clearing the filter brings
    // them back) and filters the table to them (their common prefix).
    void showCurvesOf(const QStringList &runs);
    // Runs drawn as groups (a centre line and band each); By::Nothing draws every run alone.
    void setGrouping(const RunGrouping &grouping);
    const RunGrouping &grouping() const;
    // A group drawn as its runs, one by one, or folded back into one curve.
    void setGroupExpanded(const QString &group, bool expanded);
    void offerLogdirs(); // shows "Open TensorBoard logdir…", which emits logdirsRequested
    // The views saved for this collector: the table's filter and columns, the charts' drawing.
    SavedViews *savedViews() const { return m_views; }

Q_SIGNALS:
    void collectorError(const QString &message); // empty: the collector answers again
    void logdirsRequested();                     // "TensorBoard logdirs…" was clicked
    void jobRequested(const QString &run);       // the job that made a run, and its output
    void exported(const QString &path);          // exportPoints() wrote its file

protected:
    // Charts are fetched only while the view shows: the runs listing goes on (other views use
    // the table), the charts' requests wait.
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    RunLegend *makeLegend();
    void connectParts();
    // The listing is in: the table, the metric picker and the x axis follow; charts ask again.
    void showRuns(const QList<RunSummary> &runs);
    // The runs the table shows (checked, passing the filter), as the listing has them.
    QList<RunInfo> shownRunInfos() const;
    // The shown runs in groups: the groups drawn as one curve (two runs or more, not expanded),
    // and the runs drawn on their own.
    GroupedRuns drawnGroups() const;
    // Selects these runs' rows (a click on a group's curve selects its runs).
    void selectRuns(const QStringList &runs);
    // Charts for the checked metrics that a shown run logs.
    void rebuildCharts();
    void setUpChart(CurveChart *chart);
    void setXAxisOf(CurveChart *chart) const;
    SeriesWindow windowFor(CurveChart *chart) const;
    // Every chart asked again (batched by the redraw timer).
    void refetchAll();
    void requestChart(CurveChart *chart);
    // A chart drawn from what the feed holds for it.
    void showFetched(const QString &metric);
    void updateLegend();
    // The shape each drawn run or group wears beside its colour (0: none), when more of them
    // are drawn than the palette has colours.
    static QHash<QString, int> markersOf(const GroupedRuns &drawn);
    // The samples feed polls while its tab is in front and the view shows.
    void activateSamples();

    RunsModel *m_runs;
    CurvesFeed *m_feed;
    RunsPanel *m_panel;
    CurvesControls *m_controls;
    ChartGrid *m_grid;
    SamplesFeed *m_samplesFeed;
    SamplesPanel *m_samples;
    AnalysisPanel *m_analysis;
    QTabWidget *m_tabs; // the charts, and the samples
    CurvesExport *m_export;
    SavedViews *m_views;
    RunLegend *m_legend;
    QSet<QString> m_expanded; // groups drawn as their runs
    QTimer m_legendUpdate;    // once for all the charts that changed together
    QTimer m_chartSet;        // the shown runs changed: charts come and go, once per event loop
    QTimer m_redraw;          // batches viewport changes into one request per chart
    QSet<QString> m_dirty;    // charts (by metric) to ask again
    bool m_shown = false;     // shown, not behind another tab nor minimised
};

} // namespace sb
