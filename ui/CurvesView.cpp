#include "CurvesView.h"

#include "monitor/SystemSeries.h"

#include "Remembered.h"
#include "Swatches.h"
#include "Theme.h"
#include "metrics/ConfigDiff.h"
#include "metrics/RunColors.h"
#include "util/Paths.h"

#include "util/PlainText.h"

#include <QAction>
#include <QActionGroup>
#include <QCheckBox>
#include <QColorDialog>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QScrollArea>
#include <QSettings>
#include <QSignalBlocker>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

#include <cmath>
#include <memory>
#include <optional>

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

// One exported point from a line of the collector's CSV ("step,value,wall_time"), as a line of
// the long CSV or of JSON Lines (a value that is not finite is null there).
QByteArray exportLine(const QByteArray &csvLine, const QString &run, const QString &metric,
                      bool jsonLines);

QByteArray csvField(const QString &text) {
    QByteArray field = text.toUtf8();
    if (field.contains(',') || field.contains('"') || field.contains('\n'))
        field = '"' + field.replace("\"", "\"\"") + '"';
    return field;
}

QByteArray exportLine(const QByteArray &csvLine, const QString &run, const QString &metric,
                      bool jsonLines) {
    const QList<QByteArray> fields = csvLine.split(',');
    if (fields.size() < 2)
        return {}; // the last, empty line
    if (!jsonLines)
        return csvField(run) + ',' + csvField(metric) + ',' + csvLine + '\n';
    auto number = [](const QByteArray &field) {
        bool ok = false;
        const double value = field.toDouble(&ok);
        return ok && std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
    };
    QJsonObject point{{u"run"_s, run},
                      {u"metric"_s, metric},
                      {u"step"_s, number(fields[0])},
                      {u"value"_s, number(fields[1])}};
    if (fields.size() > 2 && !fields[2].isEmpty())
        point.insert(u"wall_time"_s, number(fields[2]));
    return QJsonDocument(point).toJson(QJsonDocument::Compact) + '\n';
}

// The runs of one status (every run without one), counted honestly; the status column coloured
// where a run ended badly (failed, crashed) or fell silent (lost).
class StatusFilter final : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setStatus(const std::optional<QString> &status) {
        m_status = status;
        invalidateFilter();
    }
    QVariant data(const QModelIndex &index, int role) const override {
        if (role == Qt::ForegroundRole && index.column() == RunsModel::kStatusColumn) {
            const QString status = index.data(RunsModel::StatusRole).toString();
            if (status == u"failed"_s || status == u"crashed"_s)
                return problemColor(QGuiApplication::palette());
            if (status == u"lost"_s)
                return warningColor(QGuiApplication::palette());
        }
        return QSortFilterProxyModel::data(index, role);
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override {
        return !m_status ||
               sourceModel()->index(row, 0, parent).data(RunsModel::StatusRole).toString() ==
                   *m_status;
    }

private:
    std::optional<QString> m_status;
};

} // namespace

CurvesView::CurvesView(CollectorClient *collector, QWidget *parent)
    : QWidget(parent)
    , m_collector(collector)
    , m_runs(new RunsModel(this))
    , m_filtered(new QSortFilterProxyModel(this)) {
    auto *byStatus = new StatusFilter(this);
    byStatus->setSourceModel(m_runs);
    m_filtered->setSourceModel(byStatus);
    m_filtered->setFilterKeyColumn(-1);
    m_filtered->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filtered->setSortRole(RunsModel::SortRole);

    m_filter = new QLineEdit;
    m_filter->setObjectName(u"filter"_s);
    m_filter->setPlaceholderText(tr("Filter runs (name, status, hyperparameters)"));
    m_filter->setClearButtonEnabled(true);
    // Plain text, or a regular expression as TensorBoard's filter (the ".*" toggle).
    m_regex = new QToolButton;
    m_regex->setObjectName(u"regex"_s);
    m_regex->setText(u".*"_s);
    m_regex->setCheckable(true);
    m_regex->setToolTip(tr("Filter with a regular expression"));
    connect(m_filter, &QLineEdit::textChanged, this, &CurvesView::applyFilter);
    connect(m_regex, &QToolButton::toggled, this, &CurvesView::applyFilter);

    m_runsTable = new QTableView;
    m_runsTable->setModel(m_filtered);
    m_runsTable->setItemDelegateForColumn(
        0, new RunSwatchDelegate(m_runsTable, [](const QModelIndex &index) {
            return index.data(RunsModel::RunNameRole).toString();
        }));
    m_runsTable->setSortingEnabled(true);
    m_runsTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_runsTable->verticalHeader()->hide();
    m_runsTable->horizontalHeader()->setStretchLastSection(true);
    m_runsTable->setAlternatingRowColors(true);
    connect(m_runs, &QAbstractItemModel::modelReset, m_runsTable,
            [this] { m_runsTable->resizeColumnsToContents(); });
    // From a run to the job that made it and its output: a double-click, or the context menu.
    m_runsTable->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto *showJob = new QAction(tr("Show its job and output"), m_runsTable);
    m_runsTable->addAction(showJob);
    connect(showJob, &QAction::triggered, this, [this] {
        const QModelIndex current = m_runsTable->currentIndex();
        if (current.isValid())
            Q_EMIT jobRequested(current.data(RunsModel::RunNameRole).toString());
    });
    connect(m_runsTable, &QTableView::doubleClicked, showJob, &QAction::trigger);
    // The hyperparameters in which the selected runs differ, side by side.
    m_runsTable->setSelectionMode(QAbstractItemView::ExtendedSelection);
    auto *compare = new QAction(tr("Compare their configs…"), m_runsTable);
    compare->setObjectName(u"compareConfigs"_s);
    m_runsTable->addAction(compare);
    connect(compare, &QAction::triggered, this, &CurvesView::compareConfigs);
    // A grouped run's group, drawn as its runs one by one, or folded back into one curve.
    auto *unfold = new QAction(tr("Show its group's runs one by one, or as one"), m_runsTable);
    unfold->setObjectName(u"toggleGroup"_s);
    m_runsTable->addAction(unfold);
    connect(unfold, &QAction::triggered, this, [this] {
        const QString group = m_grouping.groupOf(
            m_runs->info(m_runsTable->currentIndex().data(RunsModel::RunNameRole).toString()));
        if (!group.isEmpty())
            setGroupExpanded(group, !m_expanded.contains(group));
    });
    // The researcher's own tags and note on a run, kept by the collector and found by the filter.
    auto *annotate = new QAction(tr("Tags and note…"), m_runsTable);
    annotate->setObjectName(u"annotate"_s);
    m_runsTable->addAction(annotate);
    connect(annotate, &QAction::triggered, this, [this] {
        const QString run = m_runsTable->currentIndex().data(RunsModel::RunNameRole).toString();
        if (!run.isEmpty())
            annotateRun(run);
    });
    // A run's colour, as the user wants it: every view and every later session follow.
    auto *recolor = new QAction(tr("Change its colour…"), m_runsTable);
    m_runsTable->addAction(recolor);
    connect(recolor, &QAction::triggered, this, [this] {
        const QString run = m_runsTable->currentIndex().data(RunsModel::RunNameRole).toString();
        if (run.isEmpty())
            return;
        const QColor chosen =
            QColorDialog::getColor(runColor(run), this, tr("Colour of %1").arg(run));
        if (chosen.isValid())
            (void)RunColors::shared().setColor(run, chosen.name());
    });
    connect(&RunColors::shared(), &RunColors::changed, this, [this](const QString &run) {
        for (auto chart = m_groupCache.begin(); chart != m_groupCache.end(); ++chart) {
            for (Curve &curve : chart->curves) {
                if (curve.members.value(0) == run) // a group wears its first run's colour
                    curve.color = runColor(run);
            }
        }
        for (auto chart = m_cache.begin(); chart != m_cache.end(); ++chart) {
            if (const auto it = chart->runs.find(run); it != chart->runs.end())
                it->curve.color = runColor(run);
        }
        for (CurveChart *chart : std::as_const(m_charts))
            showCached(chart);
    });

    m_metrics = new QListWidget;
    m_metrics->setMaximumHeight(160);
    connect(m_metrics, &QListWidget::itemChanged, this, &CurvesView::rebuildCharts);

    auto *left = new QWidget;
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    // Which value of each metric the table shows: the last, or the run's smallest, largest, best.
    auto *statistic = new QComboBox;
    statistic->setObjectName(u"statistic"_s);
    statistic->addItem(tr("Last"), static_cast<int>(RunsModel::Statistic::Last));
    statistic->addItem(tr("Min"), static_cast<int>(RunsModel::Statistic::Min));
    statistic->addItem(tr("Max"), static_cast<int>(RunsModel::Statistic::Max));
    statistic->addItem(tr("Best"), static_cast<int>(RunsModel::Statistic::Best));
    statistic->setToolTip(tr("The value of each metric in the table: its last, smallest or "
                             "largest, or its best (smallest for losses, errors and times, "
                             "largest otherwise)"));
    statistic->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(statistic, &QComboBox::currentIndexChanged, this, [this, statistic] {
        m_runs->setStatistic(static_cast<RunsModel::Statistic>(statistic->currentData().toInt()));
    });
    remember(statistic);
    m_runs->setStatistic(static_cast<RunsModel::Statistic>(statistic->currentData().toInt()));
    auto *filterRow = new QHBoxLayout;
    filterRow->addWidget(m_filter, 1);
    filterRow->addWidget(m_regex);
    filterRow->addWidget(statistic);
    // Each status with how many runs have it, lost and crashed runs among them.
    auto *status = new QComboBox;
    status->setObjectName(u"statusFilter"_s);
    auto countStatuses = [this, status] {
        const QVariant chosen = status->currentData();
        const QMap<QString, int> counts = m_runs->statusCounts();
        int all = 0;
        for (const int count : counts)
            all += count;
        const QSignalBlocker quiet(status);
        status->clear();
        status->addItem(tr("All statuses (%1)").arg(all));
        for (auto it = counts.begin(); it != counts.end(); ++it) {
            if (!it.key().isEmpty())
                status->addItem(
                    u"%1 (%2)"_s.arg(runStatusText(it.key()), QString::number(it.value())),
                    it.key());
        }
        status->setCurrentIndex(std::max(0, status->findData(chosen)));
    };
    connect(m_runs, &QAbstractItemModel::modelReset, status, countStatuses);
    connect(m_runs, &QAbstractItemModel::rowsInserted, status, countStatuses);
    connect(m_runs, &QAbstractItemModel::rowsRemoved, status, countStatuses);
    connect(m_runs, &QAbstractItemModel::dataChanged, status, countStatuses);
    connect(status, &QComboBox::currentIndexChanged, byStatus, [status, byStatus] {
        const QVariant chosen = status->currentData();
        byStatus->setStatus(chosen.isValid() ? std::optional<QString>(chosen.toString())
                                             : std::nullopt);
    });
    countStatuses();
    leftLayout->addLayout(filterRow);
    // A row of its own: the filter row's width is the window's least.
    auto *statusRow = new QHBoxLayout;
    statusRow->addWidget(status);
    statusRow->addStretch();
    leftLayout->addLayout(statusRow);
    leftLayout->addWidget(m_runsTable, 3);
    leftLayout->addWidget(new QLabel(tr("Metrics")));
    leftLayout->addWidget(m_metrics, 1);

    m_smoothing = new QSlider(Qt::Horizontal);
    m_smoothing->setRange(0, 99);
    m_smoothing->setValue(60);
    m_smoothing->setMaximumWidth(180);
    m_smoothing->setMinimumWidth(60); // never squeezed away by a narrow window
    m_smoothingLabel = new QLabel;
    m_smoothingKind = new QComboBox;
    m_smoothingKind->setObjectName(u"smoothingKind"_s);
    m_smoothingKind->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_smoothingKind->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    m_smoothingKind->addItem(tr("EMA"), static_cast<int>(SmoothingKind::Ema));
    m_smoothingKind->addItem(tr("Running average"),
                             static_cast<int>(SmoothingKind::RunningAverage));
    m_smoothingKind->addItem(tr("Gaussian"), static_cast<int>(SmoothingKind::Gaussian));
    m_smoothingKind->setToolTip(tr("TensorBoard's exponential moving average; a running average "
                                   "over as many points as it weighs; or a centred Gaussian "
                                   "over as many, which does not lag behind the curve"));
    m_xAxis = new QComboBox;
    m_xAxis->addItem(tr("Step"), static_cast<int>(XAxis::Step));
    m_xAxis->addItem(tr("Relative time (s)"), static_cast<int>(XAxis::RelativeTime));
    m_xAxis->addItem(tr("Wall time"), static_cast<int>(XAxis::WallTime));
    m_logY = new QCheckBox(tr("Log y"));
    m_smoothing->setObjectName(u"smoothing"_s);
    m_xAxis->setObjectName(u"xAxis"_s);
    m_logY->setObjectName(u"logY"_s);
    m_showLegend = new QCheckBox(tr("Legend"));
    m_showLegend->setObjectName(u"showLegend"_s);
    m_showLegend->setChecked(true);
    m_showLegend->setToolTip(tr("Which colour is which run, above the charts"));
    for (QWidget *choice : std::initializer_list<QWidget *>{m_smoothing, m_smoothingKind, m_xAxis,
                                                            m_logY, m_showLegend})
        remember(choice);
    // Runs drawn as groups: seeds of one configuration as their mean and spread.
    m_groupButton = new QToolButton;
    m_groupButton->setObjectName(u"group"_s);
    m_groupButton->setPopupMode(QToolButton::InstantPopup);
    m_groupButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_groupButton->setToolTip(tr("Draw runs as groups: the mean or median of each group's runs, "
                                 "with a band for their spread"));
    auto *groupMenu = new QMenu(m_groupButton);
    auto *groupBy = new QActionGroup(groupMenu);
    const std::pair<RunGrouping::By, QString> ways[] = {
        {RunGrouping::By::Nothing, tr("No groups")},
        {RunGrouping::By::Keys, tr("By config keys…")},
        {RunGrouping::By::Pattern, tr("By name pattern…")},
        {RunGrouping::By::Sweep, tr("By sweep")}};
    for (const auto &[by, text] : ways) {
        QAction *action = groupMenu->addAction(text, this, [this, by = by] { chooseGrouping(by); });
        action->setCheckable(true);
        action->setData(static_cast<int>(by));
        action->setObjectName(u"groupBy%1"_s.arg(static_cast<int>(by)));
        groupBy->addAction(action);
    }
    groupMenu->addSection(tr("Line"));
    auto *centers = new QActionGroup(groupMenu);
    for (const auto &[center, text] :
         {std::pair{GroupCenter::Mean, tr("Mean")}, std::pair{GroupCenter::Median, tr("Median")}}) {
        QAction *action = groupMenu->addAction(text, this, [this, center = center] {
            RunGrouping grouping = m_grouping;
            grouping.center = center;
            setGrouping(grouping);
        });
        action->setCheckable(true);
        action->setData(static_cast<int>(center));
        action->setObjectName(u"center:"_s + groupCenterName(center));
        centers->addAction(action);
    }
    groupMenu->addSection(tr("Band"));
    auto *bands = new QActionGroup(groupMenu);
    for (const auto &[band, text] : {std::pair{GroupBand::StdDev, tr("± standard deviation")},
                                     std::pair{GroupBand::StdErr, tr("± standard error")},
                                     std::pair{GroupBand::MinMax, tr("Minimum to maximum")},
                                     std::pair{GroupBand::None, tr("No band")}}) {
        QAction *action = groupMenu->addAction(text, this, [this, band = band] {
            RunGrouping grouping = m_grouping;
            grouping.band = band;
            setGrouping(grouping);
        });
        action->setCheckable(true);
        action->setData(static_cast<int>(band));
        action->setObjectName(u"band:"_s + groupBandName(band));
        bands->addAction(action);
    }
    m_groupButton->setMenu(groupMenu);
    m_openLogdir = new QPushButton(tr("Open TensorBoard logdir…"));
    m_openLogdir->setObjectName(u"openLogdir"_s);
    m_openLogdir->setToolTip(
        tr("Follow the event files of a logdir on this computer or on a node"));
    m_openLogdir->hide();
    auto *reset = new QPushButton(tr("Reset zoom"));
    // One button for the ways out, so the toolbar fits a small screen.
    auto *exportButton = new QToolButton;
    exportButton->setObjectName(u"export"_s);
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    exportButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto *exportMenu = new QMenu(exportButton);
    exportMenu->addAction(tr("Charts as PNG…"), this, &CurvesView::exportPng);
    exportMenu->addAction(tr("Raw points, CSV or JSON Lines…"), this, [this] { exportPoints(); });
    exportButton->setMenu(exportMenu);
    reset->setToolTip(tr("Fit every chart to its data (or right-click a chart)"));

    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Smoothing")));
    controls->addWidget(m_smoothing);
    controls->addWidget(m_smoothingLabel);
    controls->addWidget(m_smoothingKind);
    controls->addSpacing(6);
    controls->addWidget(new QLabel(tr("X axis")));
    controls->addWidget(m_xAxis);
    controls->addWidget(m_logY);
    controls->addWidget(m_showLegend);
    controls->addWidget(m_groupButton);
    controls->addStretch();
    controls->addWidget(m_openLogdir);
    controls->addWidget(reset);
    controls->addWidget(exportButton);

    m_chartArea = new QWidget;
    m_grid = new QGridLayout(m_chartArea);
    const QString client = sharedFile(u"clients/python"_s);
    m_noCurvesYet =
        tr("<h3>No curves yet</h3>"
           "<p>Log from a training script with the Python client (standard library only):</p>"
           "<pre>import signalbox\nsignalbox.init(config={\"lr\": 0.01})\n"
           "signalbox.log({\"loss\": loss}, step=step)</pre>"
           "<p>and run it with</p><pre>PYTHONPATH=%2 SIGNALBOX_COLLECTOR=%1 python3 train.py</pre>"
           "<p>Runs started from the Jobs tab get both, and their metric lines "
           "(<code>@signalbox {\"step\": 1, \"loss\": 0.5}</code>) are read from their output. "
           "TensorBoard event files: File ▸ Open TensorBoard logdir.</p>")
            .arg(collector->url().toString().toHtmlEscaped(),
                 (client.isEmpty() ? u"clients/python"_s : client).toHtmlEscaped());
    m_moreCharts = new QPushButton(m_chartArea);
    m_moreCharts->setObjectName(u"moreCharts"_s);
    m_moreCharts->hide();
    connect(m_moreCharts, &QPushButton::clicked, this, [this] {
        m_chartLimit += kChartsAPage;
        rebuildCharts();
    });
    m_emptyHint = new QLabel(m_noCurvesYet);
    m_emptyHint->setAlignment(Qt::AlignCenter);
    m_emptyHint->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_grid->setColumnStretch(0, 1);
    m_grid->setColumnStretch(1, 1);
    auto *scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setWidget(m_chartArea);

    // One legend for every chart: the runs drawn, each in its colour, in the table's order.
    m_legend = new QLabel;
    m_legend->setObjectName(u"legend"_s);
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
    // A group's name is a link: it unfolds the group into its runs, and folds it back.
    connect(m_legend, &QLabel::linkActivated, this, [this](const QString &link) {
        const QString group = QUrl::fromPercentEncoding(link.mid(6).toUtf8()); // "group:NAME"
        setGroupExpanded(group, !m_expanded.contains(group));
    });
    connect(m_showLegend, &QCheckBox::toggled, this, &CurvesView::updateLegend);
    connect(&RunColors::shared(), &RunColors::changed, this, &CurvesView::updateLegend);

    auto *right = new QWidget;
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addLayout(controls);
    rightLayout->addWidget(m_legend);
    rightLayout->addWidget(scroll);

    auto *splitter = new QSplitter;
    splitter->setObjectName(u"curvesSplitter"_s);
    splitter->addWidget(left);
    splitter->addWidget(right);
    splitter->setStretchFactor(1, 3);
    splitter->setSizes({380, 900});
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    auto refetchAll = [this] {
        for (CurveChart *chart : std::as_const(m_charts))
            m_dirty.insert(chart);
        m_redraw.start();
    };
    connect(m_smoothing, &QSlider::valueChanged, this, [this, refetchAll](int value) {
        m_smoothingLabel->setText(QString::number(value / 100.0, 'f', 2));
        refetchAll();
    });
    m_smoothingLabel->setText(QString::number(m_smoothing->value() / 100.0, 'f', 2));
    connect(m_smoothingKind, &QComboBox::currentIndexChanged, this, refetchAll);
    connect(m_xAxis, &QComboBox::currentIndexChanged, this, [this, refetchAll] {
        // Another metric as x (below the separator) is remembered by name, as metrics come later.
        QSettings().setValue(u"curves/xMetric"_s, xMetric());
        for (CurveChart *chart : std::as_const(m_charts)) {
            setXAxisOf(chart);
            chart->resetZoom();
        }
        refetchAll();
    });
    connect(m_logY, &QCheckBox::toggled, this, [this](bool on) {
        QSettings settings; // every chart, whatever each had chosen
        for (CurveChart *chart : std::as_const(m_charts)) {
            chart->setLogY(on);
            settings.remove(chartKey(chart->metricName(), u"logY"_s));
        }
    });
    connect(reset, &QPushButton::clicked, this, [this] {
        for (CurveChart *chart : std::as_const(m_charts))
            chart->resetZoom();
    });
    connect(m_openLogdir, &QPushButton::clicked, this, &CurvesView::logdirsRequested);
    connect(m_runs, &RunsModel::checkedRunsChanged, this, refetchAll);
    // The charts draw what the table shows: checked runs that pass the filter; a chart whose
    // metric none of them logs goes.
    for (const auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_filtered, signal, this, [this] { m_chartSet.start(); });
    connect(m_filtered, &QAbstractItemModel::modelReset, this, [this] { m_chartSet.start(); });
    connect(m_runs, &RunsModel::checkedRunsChanged, this, [this] { m_chartSet.start(); });
    m_legendUpdate.setSingleShot(true); // once for all the charts that changed together
    m_legendUpdate.setInterval(0);
    connect(&m_legendUpdate, &QTimer::timeout, this, &CurvesView::updateLegend);
    m_chartSet.setSingleShot(true);
    m_chartSet.setInterval(0);
    connect(&m_chartSet, &QTimer::timeout, this, [this, refetchAll] {
        rebuildCharts();
        refetchAll();
        m_legendUpdate.start();
    });

    m_redraw.setSingleShot(true);
    m_redraw.setInterval(40);
    connect(&m_redraw, &QTimer::timeout, this, [this] {
        const QSet<CurveChart *> dirty = std::exchange(m_dirty, {});
        for (CurveChart *chart : dirty) {
            if (chart->isVisibleTo(m_chartArea))
                requestChart(chart);
            else
                m_cache.remove(chart); // a folded section: fetched afresh when it opens
        }
    });
    {
        const QSettings settings;
        RunGrouping grouping;
        grouping.by =
            static_cast<RunGrouping::By>(std::clamp(settings.value(u"curves/groupBy"_s).toInt(), 0,
                                                    static_cast<int>(RunGrouping::By::Sweep)));
        grouping.keys = settings.value(u"curves/groupKeys"_s).toStringList();
        grouping.pattern = settings.value(u"curves/groupPattern"_s).toString();
        (void)parseGroupCenter(settings.value(u"curves/groupCenter"_s).toString(),
                               &grouping.center);
        (void)parseGroupBand(settings.value(u"curves/groupBand"_s).toString(), &grouping.band);
        m_grouping = grouping;
        updateGroupButton();
    }
    rebuildCharts();         // shows the hint until the first metric arrives
    m_poll.setInterval(500); // with the client flushing every 0.25 s, points show within a second
    connect(&m_poll, &QTimer::timeout, this, &CurvesView::refresh);
    m_poll.start();
    refresh();
}

void CurvesView::offerLogdirs() {
    m_openLogdir->show();
}

void CurvesView::showOnly(const QStringList &runs) {
    m_runs->checkOnly(runs);
    // The table lists them alone too: their common prefix (a sweep's id) as the filter.
    QString prefix = runs.value(0);
    for (const QString &run : runs) {
        while (!run.startsWith(prefix))
            prefix.chop(1);
    }
    m_filter->setText(prefix);
    refresh();
}

void CurvesView::setGrouping(const RunGrouping &grouping) {
    m_grouping = grouping;
    m_expanded.clear();
    QSettings settings;
    settings.setValue(u"curves/groupBy"_s, static_cast<int>(grouping.by));
    settings.setValue(u"curves/groupKeys"_s, grouping.keys);
    settings.setValue(u"curves/groupPattern"_s, grouping.pattern);
    settings.setValue(u"curves/groupCenter"_s, groupCenterName(grouping.center));
    settings.setValue(u"curves/groupBand"_s, groupBandName(grouping.band));
    updateGroupButton();
    m_chartSet.start(); // groups come and go, and every chart is asked again
}

void CurvesView::setGroupExpanded(const QString &group, bool expanded) {
    if (expanded)
        m_expanded.insert(group);
    else
        m_expanded.remove(group);
    m_chartSet.start();
}

void CurvesView::chooseGrouping(RunGrouping::By by) {
    RunGrouping grouping = m_grouping;
    grouping.by = by;
    if (by == RunGrouping::By::Keys) {
        // The hyperparameters the runs have, to tick; the ones chosen before come ticked.
        QDialog dialog(this);
        dialog.setWindowTitle(tr("Group by config keys"));
        auto *keys = new QListWidget;
        keys->setObjectName(u"groupKeys"_s);
        QMap<QString, QSet<QString>> values; // each key's values among the shown runs
        for (const QString &run : shownRuns()) {
            const QJsonObject config = flattenConfig(m_runs->info(run).config);
            for (auto it = config.begin(); it != config.end(); ++it)
                values[it.key()].insert(configValueText(it.value()));
        }
        for (auto it = values.cbegin(); it != values.cend(); ++it) {
            const QString &key = it.key();
            auto *item = new QListWidgetItem(
                it->size() == 1 ? tr("%1  (1 value)").arg(key)
                                : tr("%1  (%2 values)").arg(key, QString::number(it->size())),
                keys);
            item->setData(Qt::UserRole, key);
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            item->setCheckState(m_grouping.keys.contains(key) ? Qt::Checked : Qt::Unchecked);
        }
        auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
        connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
        connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
        auto *layout = new QVBoxLayout(&dialog);
        layout->addWidget(new QLabel(tr("Runs with the same values of the ticked keys are one "
                                        "group (leave the seed unticked):")));
        layout->addWidget(keys);
        layout->addWidget(buttons);
        if (dialog.exec() != QDialog::Accepted)
            return updateGroupButton();
        grouping.keys.clear();
        for (int i = 0; i < keys->count(); ++i) {
            if (keys->item(i)->checkState() == Qt::Checked)
                grouping.keys << keys->item(i)->data(Qt::UserRole).toString();
        }
        if (grouping.keys.isEmpty())
            grouping.by = RunGrouping::By::Nothing;
    } else if (by == RunGrouping::By::Pattern) {
        bool ok = false;
        const QString pattern = QInputDialog::getText(
            this, tr("Group by name pattern"),
            tr("A regular expression on run names; its first group in parentheses names the "
               "group (the whole match without one):"),
            QLineEdit::Normal,
            m_grouping.pattern.isEmpty() ? u"(.*)[-_]seed\\d+"_s : m_grouping.pattern, &ok);
        if (!ok)
            return updateGroupButton();
        if (const QRegularExpression check(pattern); !check.isValid()) {
            Q_EMIT collectorError(tr("Not a regular expression: %1").arg(check.errorString()));
            return updateGroupButton();
        }
        grouping.pattern = pattern;
    }
    setGrouping(grouping);
}

void CurvesView::updateGroupButton() {
    const QString what = m_grouping.describe();
    m_groupButton->setText(
        what.isEmpty()
            ? tr("Group")
            : tr("Grouped: %1")
                  .arg(QFontMetrics(m_groupButton->font()).elidedText(what, Qt::ElideMiddle, 100)));
    for (QAction *action : m_groupButton->menu()->actions()) {
        const QString name = action->objectName();
        if (name.startsWith(u"groupBy"_s))
            action->setChecked(action->data().toInt() == static_cast<int>(m_grouping.by));
        else if (name.startsWith(u"center:"_s))
            action->setChecked(action->data().toInt() == static_cast<int>(m_grouping.center));
        else if (name.startsWith(u"band:"_s))
            action->setChecked(action->data().toInt() == static_cast<int>(m_grouping.band));
    }
}

GroupedRuns CurvesView::drawnGroups() const {
    QList<RunInfo> infos;
    for (const QString &run : shownRuns())
        infos << m_runs->info(run);
    GroupedRuns grouped = groupRuns(infos, m_grouping);
    // A group of one, or one the user unfolded, is drawn as its runs.
    grouped.groups.removeIf([&](const RunGroup &group) {
        if (group.runs.size() > 1 && !m_expanded.contains(group.name))
            return false;
        grouped.alone << group.runs;
        return true;
    });
    return grouped;
}

void CurvesView::setSmoothing(double weight) {
    m_smoothing->setValue(static_cast<int>(std::lround(weight * 100)));
}

void CurvesView::reportCollector(const QString &error) {
    if (!error.isEmpty() || std::exchange(m_collectorDown, false))
        Q_EMIT collectorError(error); // an empty message clears the banner
    m_collectorDown = !error.isEmpty();
}

void CurvesView::refresh() {
    if (std::exchange(m_runsInFlight, true))
        return; // a slow or hung collector gets one question at a time
    m_collector->runs({}, this, [this](const Result<QList<RunSummary>> &runs) {
        m_runsInFlight = false;
        reportCollector(runs.error());
        if (!runs)
            return;
        // Nodes' GPU history is the dashboard's, not a run of the researcher's.
        QList<RunSummary> researchers = *runs;
        researchers.removeIf([](const RunSummary &r) { return isNodeHistoryRun(r.info.name); });
        m_runs->setRuns(researchers);
        // New metrics join the picker checked; the ones the user unchecked stay unchecked.
        QSignalBlocker block(m_metrics);
        bool changed = false;
        for (const QString &metric : m_runs->metricNames()) {
            if (!std::exchange(m_listedMetrics[metric], true)) { // a lookup: 20,000 metrics
                auto *item = new QListWidgetItem(metric, m_metrics);
                item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
                item->setCheckState(Qt::Checked);
                changed = true;
            }
        }
        if (changed) {
            m_metrics->sortItems();
            rebuildCharts();
        }
        // Every metric can be another's x (tokens seen, epoch): listed after the time axes.
        const QString rememberedX = QSettings().value(u"curves/xMetric"_s).toString();
        for (const QString &metric : m_runs->metricNames()) {
            if (std::exchange(m_xMetrics[metric], true))
                continue;
            if (m_xAxis->count() == 3)
                m_xAxis->insertSeparator(3);
            m_xAxis->addItem(metric, metric);
            if (metric == rememberedX)
                m_xAxis->setCurrentIndex(m_xAxis->count() - 1);
        }
        for (CurveChart *chart : std::as_const(m_charts))
            m_dirty.insert(chart);
        m_redraw.start();
    });
}

QString CurvesView::chartKey(const QString &metric, const QString &option) {
    // A metric's name may hold '/' (train/loss): encoded, so that it stays one key.
    return u"charts/%1/%2"_s.arg(QString::fromLatin1(QUrl::toPercentEncoding(metric)), option);
}

QStringList CurvesView::shownRuns() const {
    QStringList runs;
    for (int row = 0; row < m_filtered->rowCount(); ++row) {
        const QModelIndex index = m_filtered->index(row, 0);
        if (index.data(Qt::CheckStateRole).toInt() == Qt::Checked)
            runs << index.data(RunsModel::RunNameRole).toString();
    }
    return runs;
}

void CurvesView::annotateRun(const QString &run) {
    const RunInfo info = m_runs->info(run);
    auto *dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setObjectName(u"annotateRun"_s);
    dialog->setWindowTitle(tr("Tags and note of %1").arg(run));
    auto *tags = new QLineEdit(info.tags.value_or(QStringList()).join(u", "_s));
    tags->setObjectName(u"tags"_s);
    tags->setPlaceholderText(tr("baseline, ablation, paper"));
    auto *note = new QPlainTextEdit(info.note.value_or(QString()));
    note->setObjectName(u"note"_s);
    note->setPlaceholderText(tr("What this run tried, and what came of it"));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel);
    auto *form = new QFormLayout(dialog);
    form->addRow(tr("Tags (comma-separated)"), tags);
    form->addRow(tr("Note"), note);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, dialog, [this, dialog, run, tags, note] {
        QStringList list;
        for (const QString &tag : tags->text().split(u',')) {
            if (const QString text = tag.trimmed(); !text.isEmpty() && !list.contains(text))
                list << text;
        }
        const QJsonObject words{{u"tags"_s, QJsonArray::fromStringList(list)},
                                {u"note"_s, note->toPlainText()}};
        m_collector->push(
            QJsonDocument(QJsonObject{{u"run"_s, run}, {u"info"_s, words}}).toJson(), this,
            [this](const Result<qint64> &stored) {
                if (stored)
                    refresh(); // the table shows them, the filter finds them
                else
                    Q_EMIT collectorError(
                        tr("The tags and note were not saved: %1").arg(stored.error()));
            });
        dialog->accept();
    });
    dialog->resize(480, 300);
    dialog->show();
}

void CurvesView::compareConfigs() {
    QList<RunInfo> runs;
    for (const QModelIndex &row : m_runsTable->selectionModel()->selectedRows())
        runs << m_runs->info(row.data(RunsModel::RunNameRole).toString());
    if (runs.size() < 2) {
        Q_EMIT collectorError(tr("Select two runs or more in the table to compare their configs"));
        return;
    }
    const ConfigDiff diff = diffConfigs(runs);
    auto *dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setObjectName(u"configDiff"_s);
    dialog->setWindowTitle(tr("How %1 runs differ").arg(diff.runs.size()));
    auto *table =
        new QTableWidget(static_cast<int>(diff.keys.size()), static_cast<int>(diff.runs.size()));
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setVerticalHeaderLabels(diff.keys);
    for (int column = 0; column < diff.runs.size(); ++column) {
        const QString &run = diff.runs[column];
        auto *header = new QTableWidgetItem(run);
        if (const auto color = RunColors::shared().existing(run))
            header->setIcon(swatchIcon(QColor(*color), SwatchShape::Square));
        table->setHorizontalHeaderItem(column, header);
        for (int row = 0; row < diff.keys.size(); ++row) {
            const QString value = diff.values.value(diff.keys[row]).value(column);
            auto *item = new QTableWidgetItem(value.isEmpty() ? tr("(none)") : value);
            if (value.isEmpty())
                item->setForeground(palette().color(QPalette::PlaceholderText));
            table->setItem(row, column, item);
        }
    }
    table->resizeColumnsToContents();
    auto *same = new QLabel(
        diff.keys.isEmpty()  ? tr("Their configs are the same (%1 keys).").arg(diff.sameKeys)
        : diff.sameKeys == 1 ? tr("1 more key is the same in all of them.")
                             : tr("%1 more keys are the same in all of them.").arg(diff.sameKeys));
    auto *layout = new QVBoxLayout(dialog);
    layout->addWidget(table);
    layout->addWidget(same);
    dialog->resize(760, 420);
    dialog->show();
}

void CurvesView::selectRuns(const QStringList &runs) {
    // A group's curve names the group: its runs are selected.
    QStringList wanted = runs;
    for (const GroupCache &cache : std::as_const(m_groupCache)) {
        for (const Curve &curve : cache.curves) {
            if (runs.contains(curve.run))
                wanted << curve.members;
        }
    }
    QItemSelection selection;
    for (int row = 0; row < m_filtered->rowCount(); ++row) {
        const QModelIndex index = m_filtered->index(row, 0);
        if (wanted.contains(index.data(RunsModel::RunNameRole).toString())) {
            selection.select(index, index);
            if (selection.size() == 1)
                m_runsTable->scrollTo(index);
        }
    }
    m_runsTable->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect |
                                                         QItemSelectionModel::Rows);
}

void CurvesView::applyFilter() {
    const QString text = m_filter->text();
    if (!m_regex->isChecked()) {
        m_filtered->setFilterFixedString(text);
        m_filter->setToolTip({});
        m_filter->setStyleSheet({});
        return;
    }
    const QRegularExpression pattern(text, QRegularExpression::CaseInsensitiveOption);
    // A pattern that does not parse matches nothing, and says why where the cursor is.
    m_filter->setToolTip(pattern.isValid() ? QString() : pattern.errorString());
    m_filter->setStyleSheet(
        pattern.isValid() ? QString()
                          : u"QLineEdit { color: %1; }"_s.arg(problemColor(palette()).name()));
    m_filtered->setFilterRegularExpression(pattern);
}

void CurvesView::rebuildCharts() {
    const QStringList shown = shownRuns();
    // Charts are widgets, each costly to make and lay out: a run with 20,000 metrics shows a
    // page of them, pinned ones first, and a button for the next page.
    QStringList wanted;
    qsizetype more = 0;
    for (int pinned = 1; pinned >= 0; --pinned) {
        for (int i = 0; i < m_metrics->count(); ++i) {
            const QString metric = m_metrics->item(i)->text();
            const CurveChart *existing = m_charts.value(metric);
            if ((existing && existing->pinned()) != (pinned == 1) ||
                m_metrics->item(i)->checkState() != Qt::Checked ||
                std::none_of(shown.begin(), shown.end(), [this, &metric](const QString &run) {
                    return m_runs->pointCount(run, metric) > 0;
                }))
                continue;
            if (wanted.size() < m_chartLimit)
                wanted << metric;
            else
                ++more;
        }
    }
    const QSet<QString> wantedSet(wanted.cbegin(), wanted.cend());
    for (auto it = m_charts.begin(); it != m_charts.end();) {
        if (wantedSet.contains(it.key())) {
            ++it;
            continue;
        }
        m_dirty.remove(it.value());
        m_pending.remove(it.value());
        m_cache.remove(it.value());
        m_groupsPending.remove(it.value());
        m_groupCache.remove(it.value());
        it.value()->deleteLater();
        it = m_charts.erase(it);
    }
    while (m_grid->count() > 0)
        delete m_grid->takeAt(0); // the layout's item, not its widget
    m_emptyHint->setText(m_runs->rowCount() == 0 ? m_noCurvesYet
                                                 : tr("<h3>No curves for the runs shown</h3><p>"
                                                      "Check a run in the table, or change the "
                                                      "filter.</p>"));
    m_emptyHint->setVisible(wanted.isEmpty());
    if (wanted.isEmpty())
        m_grid->addWidget(m_emptyHint, 0, 0, 1, 2);
    QList<CurveChart *> placed;
    for (const QString &metric : std::as_const(wanted)) {
        CurveChart *chart = m_charts.value(metric);
        if (!chart) {
            chart = new CurveChart(metric);
            setXAxisOf(chart);
            // Its own choices from an earlier session; log y as the toolbar says unless chosen.
            const QSettings settings;
            chart->setLogY(
                settings.value(chartKey(metric, u"logY"_s), m_logY->isChecked()).toBool());
            chart->setFullWidth(settings.value(chartKey(metric, u"fullWidth"_s)).toBool());
            chart->setPinned(settings.value(chartKey(metric, u"pinned"_s)).toBool());
            connect(chart, &CurveChart::optionsChanged, this, [this, chart] {
                QSettings remembered;
                const QString name = chart->metricName();
                remembered.setValue(chartKey(name, u"logY"_s), chart->logY());
                remembered.setValue(chartKey(name, u"fullWidth"_s), chart->fullWidth());
                remembered.setValue(chartKey(name, u"pinned"_s), chart->pinned());
                rebuildCharts(); // arranged anew: pinned first, full width across
            });
            connect(chart, &CurveChart::runClicked, this, &CurvesView::selectRun);
            connect(chart, &CurveChart::exportRequested, this,
                    [this, chart] { exportChart(chart); });
            connect(chart, &CurveChart::viewportChanged, this, [this, chart] {
                m_dirty.insert(chart);
                m_redraw.start();
            });
            m_charts.insert(metric, chart);
            m_dirty.insert(chart);
        }
        placed << chart;
    }
    // Pinned charts first, then a section per prefix ("train/", "val/") that folds away when
    // there is more than one; a full-width chart takes a row of its own.
    auto prefixOf = [](const CurveChart *chart) {
        const QString metric = chart->metricName();
        const qsizetype slash = metric.indexOf(u'/');
        return chart->pinned() ? QString() : slash > 0 ? metric.left(slash) : QString();
    };
    // The run's system charts (W&B's "system" panel) come after its own metrics.
    auto order = [&](const CurveChart *c) {
        return std::pair(!c->pinned() && isSystemMetric(c->metricName()), prefixOf(c));
    };
    std::stable_sort(placed.begin(), placed.end(), [&](const CurveChart *a, const CurveChart *b) {
        return a->pinned() != b->pinned() ? a->pinned() : order(a) < order(b);
    });
    QSet<QString> prefixes;
    for (const CurveChart *chart : std::as_const(placed))
        prefixes.insert(prefixOf(chart));
    const bool sections = prefixes.size() > 1;
    for (auto it = m_sections.begin(); it != m_sections.end();) { // sections that went
        if (prefixes.contains(it.key()) && sections) {
            ++it;
            continue;
        }
        it.value()->deleteLater();
        it = m_sections.erase(it);
    }
    int row = 0;
    int column = 0;
    QString section = u"\n"_s; // no prefix is this
    for (CurveChart *chart : std::as_const(placed)) {
        const QString prefix = prefixOf(chart);
        if (sections && prefix != section && !prefix.isEmpty()) {
            section = prefix;
            row += column > 0 ? 1 : 0;
            column = 0;
            QToolButton *header = sectionHeader(prefix);
            const auto members = std::count_if(placed.cbegin(), placed.cend(),
                                               [&](auto *c) { return prefixOf(c) == prefix; });
            header->setText(u"%1/  (%2)"_s.arg(QString(prefix).replace(u'&', u"&&"_s))
                                .arg(members)); // && : a name's & is no shortcut
            m_grid->addWidget(header, row++, 0, 1, 2);
        }
        const bool folded =
            sections && !prefix.isEmpty() && m_sections[prefix]->isChecked() == false;
        chart->setVisible(!folded);
        if (folded)
            continue; // not drawn, not fetched
        if (chart->fullWidth() && column > 0) {
            ++row;
            column = 0;
        }
        m_grid->addWidget(chart, row, column, 1, chart->fullWidth() ? 2 : 1);
        column += chart->fullWidth() ? 2 : 1;
        if (column >= 2) {
            ++row;
            column = 0;
        }
    }
    m_moreCharts->setVisible(more > 0);
    if (more > 0) {
        m_moreCharts->setText(tr("Show %1 more charts (%2 not shown; uncheck metrics in the list "
                                 "to choose)")
                                  .arg(std::min<qsizetype>(more, kChartsAPage))
                                  .arg(more));
        m_grid->addWidget(m_moreCharts, row + (column > 0 ? 1 : 0), 0, 1, 2);
    }
    m_redraw.start();
}

QToolButton *CurvesView::sectionHeader(const QString &prefix) {
    if (QToolButton *existing = m_sections.value(prefix))
        return existing;
    auto *header = new QToolButton;
    header->setObjectName(u"section:"_s + prefix);
    header->setCheckable(true); // checked: open
    header->setChecked(!QSettings().value(chartKey(prefix, u"folded"_s)).toBool());
    header->setArrowType(header->isChecked() ? Qt::DownArrow : Qt::RightArrow);
    header->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    header->setAutoRaise(true);
    QFont bold = header->font();
    bold.setBold(true);
    header->setFont(bold);
    connect(header, &QToolButton::toggled, this, [this, header, prefix](bool open) {
        header->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        QSettings().setValue(chartKey(prefix, u"folded"_s), !open);
        rebuildCharts();
    });
    m_sections.insert(prefix, header);
    return header;
}

QString CurvesView::xMetric() const {
    const QVariant chosen = m_xAxis->currentData();
    return chosen.typeId() == QMetaType::QString ? chosen.toString() : QString();
}

bool CurvesView::isSystemMetric(const QString &metric) {
    return metric.startsWith(QString::fromUtf16(SystemMetric::kPrefix));
}

void CurvesView::setXAxisOf(CurveChart *chart) const {
    // A run's system charts follow the curves on relative time, and are on clock time otherwise.
    const auto axis = static_cast<XAxis>(m_xAxis->currentData().toInt());
    const bool relative = xMetric().isEmpty() && axis == XAxis::RelativeTime;
    if (isSystemMetric(chart->metricName()) && !relative) {
        chart->setXTitle(tr("Wall time"));
        chart->setTimeAxis(true);
        return;
    }
    chart->setXTitle(m_xAxis->currentText());
    chart->setTimeAxis(xMetric().isEmpty() && axis == XAxis::WallTime);
}

SeriesWindow CurvesView::windowFor(CurveChart *chart) const {
    SeriesWindow window;
    window.xMetric = xMetric();
    window.axis =
        window.xMetric.isEmpty() ? static_cast<XAxis>(m_xAxis->currentData().toInt()) : XAxis::Step;
    if (isSystemMetric(chart->metricName()) && window.axis != XAxis::RelativeTime) {
        window.axis = XAxis::WallTime; // system series are kept by time, not by step
        window.xMetric.clear();
    }
    window.width = chart->plotWidth();
    window.smoothing = m_smoothing->value() / 100.0;
    window.smoothingKind = static_cast<SmoothingKind>(m_smoothingKind->currentData().toInt());
    if (const auto range = chart->xRange()) {
        // A margin either side, so lines run to the plot's edges when zoomed.
        const double margin = (range->second - range->first) * 0.02;
        window.from = range->first - margin;
        window.to = range->second + margin;
    }
    return window;
}

void CurvesView::requestChart(CurveChart *chart) {
    if (m_pending.value(chart) > 0) {
        m_pending[chart] = 2; // one more when the current answer arrives
        return;
    }
    requestGroups(chart);
    const SeriesWindow window = windowFor(chart);
    const QStringList checked = drawnGroups().alone;
    // Raw curves behind the smoothed ones help with a few runs; with many they are a muddy band
    // that costs most of the redraw, so they are left out.
    const bool withRaw = checked.size() <= kMaxRunsWithRawCurves;
    const QString key =
        u"%1|%2|%3|%4|%5|%6|%7"_s.arg(xAxisName(window.axis) + u"/"_s + window.xMetric)
            .arg(window.from.value_or(qQNaN()))
            .arg(window.to.value_or(qQNaN()))
            .arg(window.width)
            .arg(window.smoothing)
            .arg(smoothingKindName(window.smoothingKind))
            .arg(withRaw);
    ChartCache &cache = m_cache[chart];
    if (cache.window != key) {
        cache.window = key;
        cache.runs.clear();
    }
    QStringList stale;
    QHash<QString, qint64> counts;
    for (const QString &run : checked) {
        const qint64 count = m_runs->pointCount(run, chart->metricName());
        const auto cached = cache.runs.constFind(run);
        if (count > 0 && (cached == cache.runs.constEnd() || cached->count != count)) {
            stale << run;
            counts.insert(run, count);
        }
    }
    if (stale.isEmpty()) {
        showCached(chart);
        return;
    }
    m_pending[chart] = 1;
    m_collector->series(stale, chart->metricName(), window, withRaw, chart,
                        [this, chart, key, counts](const Result<SeriesReplies> &reply) {
                            const bool again = m_pending.take(chart) == 2;
                            reportCollector(reply.error());
                            if (reply && m_cache.value(chart).window == key)
                                applySeries(chart, *reply, counts);
                            if (again)
                                requestChart(chart);
                        });
}

void CurvesView::requestGroups(CurveChart *chart) {
    GroupRequest request;
    request.metric = chart->metricName();
    request.window = windowFor(chart);
    request.center = m_grouping.center;
    request.band = m_grouping.band;
    QByteArray counts; // a member that grew makes the request another one
    for (const RunGroup &group : drawnGroups().groups) {
        GroupRequest::Group &asked = request.groups.emplace_back();
        asked.name = group.name;
        for (const QString &run : group.runs) {
            if (const qint64 count = m_runs->pointCount(run, request.metric); count > 0) {
                asked.runs << run;
                counts += QByteArray::number(count) + ',';
            }
        }
        if (asked.runs.isEmpty())
            request.groups.pop_back();
    }
    GroupCache &cache = m_groupCache[chart];
    if (request.groups.empty()) {
        cache = {};
        return;
    }
    const QByteArray key = QJsonDocument(request.toJson()).toJson(QJsonDocument::Compact) + counts;
    if (cache.request == key)
        return;
    if (m_groupsPending.value(chart) > 0) {
        m_groupsPending[chart] = 2; // once more when the answer arrives
        return;
    }
    m_groupsPending[chart] = 1;
    m_collector->groups(request, chart, [this, chart, key](const Result<GroupReplies> &reply) {
        const bool again = m_groupsPending.take(chart) == 2;
        reportCollector(reply.error());
        if (reply) {
            GroupCache &fetched = m_groupCache[chart];
            fetched.request = key;
            fetched.curves.clear();
            for (const GroupReply &group : reply->groups) {
                if (group.runs.isEmpty())
                    continue;
                Curve curve{group.name,
                            runColor(group.runs.first()), // a group wears its first run's colour
                            pointsFrom(group.curve.x, group.curve.center),
                            {},
                            pointsFrom(group.curve.x, group.curve.lower),
                            pointsFrom(group.curve.x, group.curve.upper),
                            group.runs};
                if (m_grouping.band == GroupBand::None)
                    curve.lower = curve.upper = {};
                fetched.curves.append(curve);
            }
            showCached(chart);
        }
        if (again)
            requestChart(chart);
    });
}

void CurvesView::applySeries(CurveChart *chart, const SeriesReplies &reply,
                             const QHash<QString, qint64> &counts) {
    ChartCache &cache = m_cache[chart];
    for (const SeriesReply &series : reply.series) {
        if (!series.error.isEmpty())
            continue; // this run does not log this metric
        cache.runs.insert(series.run,
                          {counts.value(series.run),
                           {series.run, runColor(series.run), pointsFrom(series.x, series.y),
                            pointsFrom(series.rawX, series.rawY)}});
    }
    showCached(chart);
}

void CurvesView::showCached(CurveChart *chart) {
    const ChartCache &cache = m_cache[chart];
    const GroupedRuns drawn = drawnGroups();
    QList<Curve> curves;
    for (const QString &run : drawn.alone) {
        const auto it = cache.runs.constFind(run);
        if (it != cache.runs.constEnd())
            curves.append(it->curve);
    }
    // Groups drawn still (the grouping may have changed since they were fetched).
    for (const Curve &group : m_groupCache.value(chart).curves) {
        if (std::any_of(drawn.groups.cbegin(), drawn.groups.cend(),
                        [&group](const RunGroup &g) { return g.name == group.run; }))
            curves.append(group);
    }
    chart->setCurves(curves);
    m_legendUpdate.start();
}

void CurvesView::updateLegend() {
    constexpr int kMostNamed = 40; // beyond, the table says the rest
    QStringList entries;
    int drawn = 0;
    const GroupedRuns grouped = drawnGroups();
    // Groups first, each a link that unfolds it; then unfolded groups, a link that folds them.
    auto link = [](const QString &group, const QString &text) {
        return u"<a href=\"group:%1\">%2</a>"_s.arg(
            QString::fromLatin1(QUrl::toPercentEncoding(group)), text);
    };
    for (const RunGroup &group : grouped.groups) {
        const bool onAChart =
            std::any_of(m_groupCache.cbegin(), m_groupCache.cend(), [&group](const GroupCache &c) {
                return std::any_of(
                    c.curves.cbegin(), c.curves.cend(),
                    [&group](const Curve &curve) { return curve.run == group.name; });
            });
        if (onAChart && ++drawn <= kMostNamed)
            entries << u"<span style=\"color:%1\">■</span>&nbsp;%2"_s.arg(
                runColor(group.runs.first()).name(),
                link(group.name, tr("%1 (%2 runs)")
                                     .arg(htmlOf(group.name), QString::number(group.runs.size()))));
    }
    for (const QString &group : std::as_const(m_expanded)) {
        if (m_grouping.by != RunGrouping::By::Nothing)
            entries << link(group, tr("%1: as one").arg(htmlOf(group)));
    }
    for (const QString &run : grouped.alone) {
        const bool onAChart = std::any_of(m_cache.cbegin(), m_cache.cend(),
                                          [&run](const auto &c) { return c.runs.contains(run); });
        if (!onAChart)
            continue;
        if (++drawn <= kMostNamed)
            entries << u"<span style=\"color:%1\">■</span>&nbsp;%2"_s.arg(runColor(run).name(),
                                                                          htmlOf(run));
    }
    if (drawn > kMostNamed)
        entries << tr("and %1 more").arg(drawn - kMostNamed);
    const QString text = entries.join(u"&nbsp;&nbsp; "_s);
    if (text != m_legend->text())
        m_legend->setText(text);
    m_legend->setVisible(m_showLegend->isChecked() && !entries.isEmpty());
}

void CurvesView::exportChart(CurveChart *chart, const QString &chosen, QSize chosenSize) {
    QSettings settings;
    QSize size = chosenSize.isValid()
                     ? chosenSize
                     : settings.value(u"curves/exportSize"_s, QSize(1200, 750)).toSize();
    QString path = chosen;
    if (path.isEmpty()) {
        // The size first (remembered: a paper's figures are alike), then where.
        QDialog dialog(this);
        dialog.setWindowTitle(tr("Export %1").arg(chart->metricName()));
        auto *width = new QSpinBox;
        auto *height = new QSpinBox;
        for (QSpinBox *box : {width, height}) {
            box->setRange(50, 20000);
            box->setSuffix(tr(" px"));
        }
        width->setValue(size.width());
        height->setValue(size.height());
        auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel);
        connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
        connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
        auto *form = new QFormLayout(&dialog);
        form->addRow(tr("Width"), width);
        form->addRow(tr("Height"), height);
        form->addRow(new QLabel(tr("SVG keeps the curves as lines; PNG is drawn at twice the "
                                   "size for sharp print.")));
        form->addRow(buttons);
        if (dialog.exec() != QDialog::Accepted)
            return;
        size = QSize(width->value(), height->value());
        settings.setValue(u"curves/exportSize"_s, size);
        QString name = chart->metricName();
        name.replace(u'/', u'-');
        path = QFileDialog::getSaveFileName(
            this, tr("Export %1").arg(chart->metricName()), name + u".svg"_s,
            tr("SVG, vector (*.svg)") + u";;"_s + tr("PNG image (*.png)"));
        if (path.isEmpty())
            return;
    }
    if (const Status written = chart->exportImage(path, size); !written)
        Q_EMIT collectorError(written.error());
    else
        Q_EMIT exported(path);
}

void CurvesView::exportPng() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export charts"), u"curves.png"_s,
                                                      tr("PNG images (*.png)"));
    if (!path.isEmpty() && !m_chartArea->grab().save(path))
        Q_EMIT collectorError(tr("Could not write %1").arg(path));
}

void CurvesView::exportPoints(const QString &chosen) {
    QString format;
    const QString path =
        !chosen.isEmpty()
            ? chosen
            : QFileDialog::getSaveFileName(this, tr("Export raw points"), u"curves.csv"_s,
                                           tr("CSV, one point a line (*.csv)") + u";;"_s +
                                               tr("JSON Lines (*.jsonl)"),
                                           &format);
    if (path.isEmpty())
        return;
    const bool jsonLines = path.endsWith(u".jsonl"_s) || format.contains(u"jsonl"_s);
    // Every point of every shown run and metric, fetched one pair after another and written as
    // it comes: the file never waits in memory whole.
    struct Export {
        QSaveFile file;
        QList<std::pair<QString, QString>> todo;
        bool failed = false;
    };
    auto job = std::make_shared<Export>();
    job->file.setFileName(path);
    if (!job->file.open(QIODevice::WriteOnly)) {
        Q_EMIT collectorError(tr("Could not write %1").arg(path));
        return;
    }
    if (!jsonLines)
        job->file.write("run,metric,step,value,wall_time\n");
    for (const QString &run : shownRuns()) {
        for (const QString &metric : m_charts.keys())
            job->todo.append({run, metric});
    }
    auto next = std::make_shared<std::function<void()>>();
    *next = [this, job, next, path, jsonLines] {
        if (job->todo.isEmpty()) {
            if (job->failed || !job->file.commit())
                Q_EMIT collectorError(tr("Could not write %1").arg(path));
            else
                Q_EMIT exported(path);
            *next = nullptr; // breaks the self-reference
            return;
        }
        const auto [run, metric] = job->todo.takeFirst();
        m_collector->exportCsv(
            run, metric, this,
            [job, next, run = run, metric = metric, jsonLines](const Result<QByteArray> &csv) {
                if (csv) {
                    QByteArray lines;
                    const QList<QByteArray> rows = csv->split('\n');
                    for (qsizetype i = 1; i < rows.size(); ++i) // after the header
                        lines += exportLine(rows[i], run, metric, jsonLines);
                    job->failed |= job->file.write(lines) != lines.size();
                }
                (*next)();
            });
    };
    (*next)();
}

} // namespace sb
