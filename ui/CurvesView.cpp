#include "CurvesView.h"

#include "AnalysisPanel.h"
#include "CurvesControls.h"
#include "CurvesExport.h"
#include "RunLegend.h"
#include "RunsPanel.h"
#include "SavedViews.h"
#include "Settings.h"
#include "Swatches.h"
#include "client/CurvesFeed.h"
#include "client/SamplesFeed.h"
#include "metrics/RunColors.h"
#include "samples/SamplesPanel.h"
#include "util/PlainText.h"

#include <QFontMetrics>
#include <QJsonObject>
#include <QLabel>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace sb {

using namespace Qt::StringLiterals;

CurvesView::CurvesView(CollectorClient *collector, QWidget *parent)
    : QWidget(parent)
    , m_runs(new RunsModel(this))
    , m_feed(new CurvesFeed(
          collector,
          [runs = m_runs](const QString &run, const QString &metric) {
              return runs->pointCount(run, metric);
          },
          this))
    , m_panel(new RunsPanel(m_runs, collector))
    , m_controls(new CurvesControls([this] { return shownRunInfos(); }))
    , m_grid(new ChartGrid(collector->url()))
    , m_samplesFeed(new SamplesFeed(collector, this))
    , m_samples(new SamplesPanel(m_samplesFeed))
    , m_analysis(new AnalysisPanel(m_runs))
    , m_tabs(new QTabWidget)
    , m_export(new CurvesExport(collector, this))
    , m_views(new SavedViews(
          collector->url().toString(),
          [this] {
              return QJsonObject{{u"runs"_s, m_panel->viewState()},
                                 {u"charts"_s, m_controls->viewState()}};
          },
          [this](const QJsonObject &view) {
              m_controls->applyViewState(view.value(u"charts"_s).toObject());
              m_panel->applyViewState(view.value(u"runs"_s).toObject());
          },
          this))
    , m_legend(makeLegend()) {
    m_controls->layout()->addWidget(m_views->button());
    auto *right = new QWidget;
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_controls);
    rightLayout->addWidget(m_legend);
    m_tabs->setObjectName(u"curvesTabs"_s);
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_grid, tr("Curves"));
    m_tabs->addTab(m_samples, tr("Samples"));
    m_tabs->setTabVisible(1, false); // until a shown run has samples
    m_tabs->addTab(m_analysis, tr("Analysis"));
    rightLayout->addWidget(m_tabs);
    auto *splitter = new QSplitter;
    splitter->setObjectName(u"curvesSplitter"_s);
    splitter->addWidget(m_panel);
    splitter->addWidget(right);
    splitter->setStretchFactor(1, 3);
    splitter->setSizes({380, 900});
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    for (QTimer *timer : {&m_legendUpdate, &m_chartSet, &m_redraw})
        timer->setSingleShot(true);
    m_redraw.setInterval(40);
    connectParts();
    m_grid->setShape(m_controls->columns(), m_controls->chartHeight());
    rebuildCharts(); // shows the hint until the first metric arrives
    refresh();
}

RunLegend *CurvesView::makeLegend() {
    auto *legend = new RunLegend;
    connect(legend, &RunLegend::groupToggled, this,
            [this](const QString &group) { setGroupExpanded(group, !m_expanded.contains(group)); });
    return legend;
}

void CurvesView::connectParts() {
    connect(m_feed, &CurvesFeed::runsListed, this, &CurvesView::showRuns);
    connect(m_feed, &CurvesFeed::chartFetched, this,
            [this](const QString &key) { showFetched(CurvesFeed::chartOfKey(key)); });
    connect(m_feed, &CurvesFeed::collectorError, this, &CurvesView::collectorError);

    connect(m_panel, &RunsPanel::jobRequested, this, &CurvesView::jobRequested);
    connect(m_panel, &RunsPanel::problem, this, &CurvesView::collectorError);
    connect(m_panel, &RunsPanel::annotated, this, &CurvesView::refresh);
    connect(m_panel, &RunsPanel::metricsChanged, this, &CurvesView::rebuildCharts);
    connect(m_panel, &RunsPanel::groupToggled, this, [this](const QString &run) {
        const QString group = grouping().groupOf(m_runs->info(run));
        if (!group.isEmpty())
            setGroupExpanded(group, !m_expanded.contains(group));
    });
    // The charts draw what the table shows: checked runs that pass the filter; a chart whose
    // metric none of them logs goes.
    connect(m_panel, &RunsPanel::shownRunsChanged, this, [this] { m_chartSet.start(); });
    connect(m_runs, &RunsModel::checkedRunsChanged, this, [this] {
        refetchAll();
        m_chartSet.start();
    });

    connect(m_controls, &CurvesControls::windowChanged, this, &CurvesView::refetchAll);
    connect(m_controls, &CurvesControls::xAxisChanged, this, [this] {
        for (CurveChart *chart : m_grid->charts()) {
            setXAxisOf(chart);
            chart->resetZoom();
        }
        refetchAll();
    });
    connect(m_controls, &CurvesControls::logYToggled, this, [this](bool on) {
        removeChartOption(u"logY"_s); // every chart, whatever each had chosen
        for (CurveChart *chart : m_grid->charts())
            chart->setLogY(on);
    });
    connect(m_controls, &CurvesControls::logXToggled, this, [this](bool on) {
        removeChartOption(u"logX"_s);
        for (CurveChart *chart : m_grid->charts())
            chart->setLogX(on);
    });
    connect(m_controls, &CurvesControls::layoutChanged, this,
            [this] { m_grid->setShape(m_controls->columns(), m_controls->chartHeight()); });
    connect(m_controls, &CurvesControls::resetZoom, this, [this] {
        for (CurveChart *chart : m_grid->charts())
            chart->resetZoom();
    });
    connect(m_controls, &CurvesControls::legendToggled, this, &CurvesView::updateLegend);
    connect(m_controls, &CurvesControls::groupingChanged, this, [this] {
        m_expanded.clear();
        m_chartSet.start(); // groups come and go, and every chart is asked again
    });
    connect(m_controls, &CurvesControls::logdirsRequested, this, &CurvesView::logdirsRequested);
    connect(m_controls, &CurvesControls::problem, this, &CurvesView::collectorError);
    connect(m_controls, &CurvesControls::exportPictureRequested, this, [this] { exportPicture(); });
    connect(m_controls, &CurvesControls::exportPointsRequested, this, [this] { exportPoints(); });

    connect(m_grid, &ChartGrid::chartAdded, this, &CurvesView::setUpChart);
    connect(m_grid, &ChartGrid::chartRemoved, this, [this](const QString &metric) {
        m_dirty.remove(metric);
        m_feed->forget(CurvesFeed::chartKey(metric));
    });
    connect(m_grid, &ChartGrid::rearrangeWanted, this, &CurvesView::rebuildCharts);
    connect(m_export, &CurvesExport::exported, this, &CurvesView::exported);
    connect(m_export, &CurvesExport::failed, this, &CurvesView::collectorError);
    connect(m_views, &SavedViews::problem, this, &CurvesView::collectorError);

    // A run's colour, as the user wants it: every chart and the legend follow.
    connect(&RunColors::shared(), &RunColors::changed, this, [this] {
        for (CurveChart *chart : m_grid->charts())
            showFetched(chart->metricName());
        updateLegend();
    });
    connect(&m_legendUpdate, &QTimer::timeout, this, &CurvesView::updateLegend);
    connect(m_tabs, &QTabWidget::currentChanged, this, &CurvesView::activateSamples);
    connect(m_samples, &SamplesPanel::samplesChanged, this, [this] {
        m_tabs->setTabVisible(1, m_samples->hasSamples() || m_tabs->currentIndex() == 1);
    });
    connect(m_samples, &SamplesPanel::problem, this, &CurvesView::collectorError);
    // The analysis reads the shown runs, and chooses runs in the table (a brush, a click).
    connect(m_analysis, &AnalysisPanel::runsChosen, m_panel, &RunsPanel::selectRuns);
    connect(m_panel, &RunsPanel::selectionChanged, this,
            [this] { m_analysis->setSelected(m_panel->selectedRuns()); });
    connect(&m_chartSet, &QTimer::timeout, this, [this] {
        m_samples->setRuns(m_panel->shownRuns());
        m_analysis->setRuns(m_panel->shownRuns());
        rebuildCharts();
        refetchAll();
        m_legendUpdate.start();
    });
    // Charts scrolled into view are asked for; those scrolled out keep what they drew.
    connect(m_grid->verticalScrollBar(), &QScrollBar::valueChanged, this, &CurvesView::refetchAll);
    connect(&m_redraw, &QTimer::timeout, this, [this] {
        if (!isVisible() || window()->isMinimized())
            return; // the charts stay to ask for: asked when the view shows again
        for (auto it = m_dirty.begin(); it != m_dirty.end();) {
            CurveChart *chart = m_grid->chart(*it);
            if (chart && chart->isVisibleTo(m_grid->area()) && !m_grid->isDrawn(chart)) {
                ++it; // scrolled out of view: asked when it scrolls in
                continue;
            }
            if (chart && m_grid->isDrawn(chart))
                requestChart(chart);
            else // a folded section: fetched afresh when it opens
                m_feed->forget(CurvesFeed::chartKey(*it));
            it = m_dirty.erase(it);
        }
    });
}

void CurvesView::showEvent(QShowEvent *event) {
    QWidget::showEvent(event);
    m_shown = true;
    refetchAll(); // what changed while hidden
    activateSamples();
}

void CurvesView::hideEvent(QHideEvent *event) {
    QWidget::hideEvent(event); // another tab in front, or the window minimised
    m_shown = false;
    activateSamples();
}

void CurvesView::activateSamples() {
    // The tags are listed even while the charts are in front, so the tab shows when it has
    // something; items and images only while it is in front.
    m_samplesFeed->setActive(m_shown);
    m_samples->setActive(m_shown && m_tabs->currentIndex() == 1);
    m_analysis->setActive(m_shown && m_tabs->currentWidget() == m_analysis);
}

void CurvesView::showAnalysisTab() {
    m_tabs->setCurrentWidget(m_analysis);
}

void CurvesView::showSamplesTab() {
    m_tabs->setTabVisible(1, true);
    m_tabs->setCurrentIndex(1);
}

const QList<CurveChart *> &CurvesView::charts() const {
    return m_grid->charts();
}

void CurvesView::refresh() {
    m_feed->refresh();
}

void CurvesView::showRuns(const QList<RunSummary> &runs) {
    m_runs->setRuns(runs);
    m_analysis->setRuns(m_panel->shownRuns()); // values move as runs go on
    const QStringList metrics = m_runs->metricNames();
    if (m_panel->addMetrics(metrics))
        rebuildCharts();
    m_controls->addXMetrics(metrics);
    refetchAll();
}

void CurvesView::offerLogdirs() {
    m_controls->offerLogdirs();
}

void CurvesView::showCurvesOf(const QStringList &runs) {
    m_runs->check(runs);
    m_panel->filterToPrefixOf(runs);
    refresh();
}

void CurvesView::setGrouping(const RunGrouping &grouping) {
    m_controls->setGrouping(grouping);
}

const RunGrouping &CurvesView::grouping() const {
    return m_controls->grouping();
}

void CurvesView::setGroupExpanded(const QString &group, bool expanded) {
    if (expanded)
        m_expanded.insert(group);
    else
        m_expanded.remove(group);
    m_chartSet.start();
}

void CurvesView::setSmoothing(double weight) {
    m_controls->setSmoothing(weight);
}

QList<RunInfo> CurvesView::shownRunInfos() const {
    QList<RunInfo> infos;
    for (const QString &run : m_panel->shownRuns())
        infos << m_runs->info(run);
    return infos;
}

GroupedRuns CurvesView::drawnGroups() const {
    GroupedRuns grouped = groupRuns(shownRunInfos(), grouping());
    // A group of one, or one the user unfolded, is drawn as its runs.
    grouped.groups.removeIf([&](const RunGroup &group) {
        if (group.runs.size() > 1 && !m_expanded.contains(group.name))
            return false;
        grouped.alone << group.runs;
        return true;
    });
    return grouped;
}

void CurvesView::selectRuns(const QStringList &runs) {
    // A group's curve names the group: its runs are selected.
    m_panel->selectRuns(runs + m_feed->groupMembers(runs));
}

void CurvesView::rebuildCharts() {
    const QStringList shown = m_panel->shownRuns();
    QStringList metrics;
    for (const QString &metric : m_panel->checkedMetrics()) {
        if (std::any_of(shown.cbegin(), shown.cend(), [this, &metric](const QString &run) {
                return m_runs->pointCount(run, metric) > 0;
            }))
            metrics << metric;
    }
    m_grid->arrange(metrics, m_runs->rowCount() > 0);
    m_redraw.start();
}

void CurvesView::setUpChart(CurveChart *chart) {
    setXAxisOf(chart);
    // Log y as its own choice from an earlier session, else as the toolbar says.
    chart->setLogY(storedSetting(Setting::Chart, chartSettingName(chart->metricName(), u"logY"_s))
                       .value_or(m_controls->logY())
                       .toBool());
    chart->setMetricChoices([this] { return m_panel->checkedMetrics(); });
    // Another metric drawn here, or one taken away: asked for anew, what went forgotten.
    connect(chart, &CurveChart::optionsChanged, this, [this, chart](const QString &option) {
        if (option != u"with"_s)
            return; // log x asks again through its viewport; the rest are drawn from what is held
        m_feed->forget(CurvesFeed::chartKey(chart->metricName()));
        m_dirty.insert(chart->metricName());
        m_redraw.start();
    });
    connect(chart, &CurveChart::runClicked, this,
            [this](const QString &run) { selectRuns({run}); });
    connect(chart, &CurveChart::exportRequested, this, [this, chart] { exportChart(chart); });
    chart->setLogX(storedSetting(Setting::Chart, chartSettingName(chart->metricName(), u"logX"_s))
                       .value_or(m_controls->logX())
                       .toBool());
    // Zoomed here: the charts on the same kind of x axis show the same range.
    connect(chart, &CurveChart::xZoomed, this, [this, chart] {
        if (!m_controls->syncZoom())
            return;
        for (CurveChart *other : m_grid->charts()) {
            if (other != chart && other->wallClock() == chart->wallClock())
                other->followXZoom(chart->xRange());
        }
    });
    if (m_controls->syncZoom()) { // a chart that comes takes the zoom the others show
        for (const CurveChart *other : m_grid->charts()) {
            if (other != chart && other->wallClock() == chart->wallClock() && other->xRange()) {
                chart->followXZoom(other->xRange());
                break;
            }
        }
    }
    connect(chart, &CurveChart::viewportChanged, this, [this, chart] {
        m_dirty.insert(chart->metricName());
        m_redraw.start();
    });
    m_dirty.insert(chart->metricName());
}

void CurvesView::setXAxisOf(CurveChart *chart) const {
    // A run's system charts follow the curves on relative time, and are on clock time otherwise.
    const bool relative =
        m_controls->xMetric().isEmpty() && m_controls->xAxis() == XAxis::RelativeTime;
    if (ChartGrid::isSystemMetric(chart->metricName()) && !relative) {
        chart->setXTitle(tr("Wall time"));
        chart->setXUnits(TickUnits::Clock);
        return;
    }
    chart->setXTitle(m_controls->xAxisTitle());
    const XAxis axis = m_controls->xMetric().isEmpty() ? m_controls->xAxis() : XAxis::Step;
    chart->setXUnits(axis == XAxis::WallTime       ? TickUnits::Clock
                     : axis == XAxis::RelativeTime ? TickUnits::Duration
                                                   : TickUnits::Number);
}

SeriesWindow CurvesView::windowFor(CurveChart *chart) const {
    SeriesWindow window;
    window.xMetric = m_controls->xMetric();
    window.axis = window.xMetric.isEmpty() ? m_controls->xAxis() : XAxis::Step;
    if (ChartGrid::isSystemMetric(chart->metricName()) && window.axis != XAxis::RelativeTime) {
        window.axis = XAxis::WallTime; // system series are kept by time, not by step
        window.xMetric.clear();
    }
    window.width = chart->plotWidth();
    window.logX = chart->logX();
    window.smoothing = m_controls->smoothing();
    window.smoothingKind = m_controls->smoothingKind();
    if (const auto range = chart->xRange()) {
        // A margin either side, so lines run to the plot's edges when zoomed (in log, on log x).
        if (const AxisScale zoomed{range->first, range->second, window.logX}; zoomed.valid()) {
            window.from = zoomed.fromUnit(-0.02);
            window.to = zoomed.fromUnit(1.02);
        }
    }
    return window;
}

void CurvesView::refetchAll() {
    for (CurveChart *chart : m_grid->charts())
        m_dirty.insert(chart->metricName());
    m_redraw.start();
}

void CurvesView::requestChart(CurveChart *chart) {
    const GroupedRuns drawn = drawnGroups();
    ChartQuery query;
    query.window = windowFor(chart);
    query.runs = drawn.alone;
    // Raw curves behind the smoothed ones help with a few runs; with many they are a muddy band
    // that costs most of the redraw, so they are left out.
    query.withRaw = drawn.alone.size() <= kMaxRunsWithRawCurves;
    query.center = grouping().center;
    query.band = grouping().band;
    for (const RunGroup &group : drawn.groups)
        query.groups.push_back({group.name, group.runs});
    for (const QString &metric : chart->metrics()) { // each metric of the chart on its own key
        query.metric = metric;
        query.key = CurvesFeed::chartKey(chart->metricName(),
                                         metric == chart->metricName() ? QString() : metric);
        m_feed->fetch(query);
    }
}

void CurvesView::showFetched(const QString &metric) {
    CurveChart *chart = m_grid->chart(metric);
    if (!chart)
        return;
    const GroupedRuns drawn = drawnGroups();
    const QHash<QString, int> markers = markersOf(drawn);
    QList<Curve> curves;
    // Runs that log the metric but not the metric on the x axis: no place to draw them, said.
    const QString xMetric = m_controls->xMetric();
    QStringList withoutX;
    for (const QString &run : drawn.alone) {
        if (!xMetric.isEmpty() && m_runs->pointCount(run, metric) > 0 &&
            m_runs->pointCount(run, xMetric) == 0)
            withoutX << run;
    }
    const QStringList metrics = chart->metrics();
    for (qsizetype i = 0; i < metrics.size(); ++i) {
        const QString key = CurvesFeed::chartKey(metric, i == 0 ? QString() : metrics[i]);
        const QString named = metrics.size() > 1 ? metrics[i] : QString();
        const Qt::PenStyle style = CurveChart::styleOf(i);
        for (const QString &run : drawn.alone) {
            if (const FetchedCurve *fetched = m_feed->curve(key, run))
                curves.append({run,
                               runColor(run),
                               fetched->points,
                               fetched->raw,
                               {},
                               {},
                               {},
                               fetched->nonFinite,
                               named,
                               style,
                               markers.value(run)});
        }
        // Groups drawn still (the grouping may have changed since they were fetched).
        for (const FetchedGroup &group : m_feed->groups(key)) {
            if (std::none_of(drawn.groups.cbegin(), drawn.groups.cend(),
                             [&group](const RunGroup &g) { return g.name == group.name; }))
                continue;
            const bool band = grouping().band != GroupBand::None;
            curves.append({group.name,
                           runColor(group.runs.first()), // a group wears its first run's
                           group.center,
                           {},
                           band ? group.lower : QList<QPointF>(),
                           band ? group.upper : QList<QPointF>(),
                           group.runs,
                           0,
                           named,
                           style,
                           markers.value(group.name)});
        }
    }
    QString aside;
    if (!withoutX.isEmpty()) {
        const QFontMetrics font(chart->font());
        QStringList names;
        for (const QString &run : withoutX.mid(0, 3))
            names << font.elidedText(run, Qt::ElideMiddle, 160);
        if (withoutX.size() > 3)
            names << tr("%n more", nullptr, int(withoutX.size() - 3));
        aside = tr("Not drawn: %1 (no %2, the x axis)", nullptr, int(withoutX.size()))
                    .arg(names.join(u", "_s), font.elidedText(xMetric, Qt::ElideMiddle, 160));
    }
    chart->setCurves(curves, aside);
    m_legendUpdate.start();
}

QHash<QString, int> CurvesView::markersOf(const GroupedRuns &drawn) {
    // In the legend's order: a colour's first wearer plain, the next ones each a shape.
    QHash<QString, int> markers;
    QHash<QRgb, int> worn;
    const auto wear = [&](const QString &name, const QString &colorOf) {
        markers.insert(name, worn[runColor(colorOf).rgb()]++ % kMarkerShapes);
    };
    for (const RunGroup &group : drawn.groups)
        wear(group.name, group.runs.first());
    for (const QString &run : drawn.alone)
        wear(run, run);
    return markers;
}

void CurvesView::updateLegend() {
    constexpr int kMostNamed = 500; // beyond, the table says the rest
    QList<RunLegend::Entry> entries;
    qsizetype drawn = 0;
    const GroupedRuns grouped = drawnGroups();
    const QHash<QString, int> markers = markersOf(grouped);
    // Groups first, each unfolding itself; then unfolded groups, which fold back; then runs.
    for (const RunGroup &group : grouped.groups) {
        if (m_feed->hasGroup(group.name) && ++drawn <= kMostNamed)
            entries.append({tr("%1 (%2 runs)").arg(group.name, QString::number(group.runs.size())),
                            runColor(group.runs.first()), markers.value(group.name), group.name});
    }
    for (const QString &group : std::as_const(m_expanded)) {
        if (grouping().by != RunGrouping::By::Nothing)
            entries.append({tr("%1: as one").arg(group), {}, 0, group});
    }
    for (const QString &run : grouped.alone) {
        if (m_feed->hasRun(run) && ++drawn <= kMostNamed)
            entries.append({run, runColor(run), markers.value(run), {}});
    }
    m_legend->setEntries(entries, std::max<qsizetype>(0, drawn - kMostNamed));
    m_legend->setVisible(m_controls->legendShown() && !entries.isEmpty());
}

void CurvesView::exportPicture(const QString &path) {
    m_export->picture(m_grid->area(), m_legend, path);
}

void CurvesView::exportChart(CurveChart *chart, const QString &path, QSize size) {
    m_export->chart(chart, path, size);
}

void CurvesView::exportPoints(const QString &path) {
    QStringList metrics;
    for (const CurveChart *chart : m_grid->charts())
        metrics << chart->metricName();
    m_export->points(path, m_panel->shownRuns(), metrics);
}

} // namespace sb
