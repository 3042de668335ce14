#include "CurvesView.h"

#include "Remembered.h"
#include "util/Paths.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QGridLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>
#include <memory>

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

QByteArray csvField(const QString &text) {
    QByteArray field = text.toUtf8();
    if (field.contains(',') || field.contains('"') || field.contains('\n'))
        field = '"' + field.replace("\"", "\"\"") + '"';
    return field;
}

} // namespace

QColor CurvesView::colorFor(const QString &run) {
    // Tableau 10: distinguishable. A run keeps its colour; the hash picks the one it prefers, so
    // a run tends to get the same colour in every session, and a taken colour goes to the next.
    static const QList<QColor> palette{
        QColor(0x4e79a7), QColor(0xf28e2b), QColor(0xe15759), QColor(0x76b7b2), QColor(0x59a14f),
        QColor(0xedc948), QColor(0xb07aa1), QColor(0xff9da7), QColor(0x9c755f), QColor(0xbab0ac)};
    static QHash<QString, int> assigned;
    static QList<int> uses(palette.size(), 0);
    if (const auto it = assigned.constFind(run); it != assigned.constEnd())
        return palette[*it];
    const int preferred = static_cast<int>(qHash(run, 0x5b) % palette.size());
    int chosen = preferred;
    for (int k = 0; k < palette.size(); ++k) {
        const int candidate = (preferred + k) % palette.size();
        if (uses[candidate] < uses[chosen])
            chosen = candidate;
    }
    ++uses[chosen];
    assigned.insert(run, chosen);
    return palette[chosen];
}

CurvesView::CurvesView(CollectorClient *collector, QWidget *parent)
    : QWidget(parent)
    , m_collector(collector)
    , m_runs(new RunsModel(this))
    , m_filtered(new QSortFilterProxyModel(this)) {
    m_filtered->setSourceModel(m_runs);
    m_filtered->setFilterKeyColumn(-1);
    m_filtered->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filtered->setSortRole(RunsModel::SortRole);

    m_filter = new QLineEdit;
    m_filter->setObjectName(u"filter"_s);
    m_filter->setPlaceholderText(tr("Filter runs (name, status, hyperparameters)"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_filtered,
            &QSortFilterProxyModel::setFilterFixedString);

    m_runsTable = new QTableView;
    m_runsTable->setModel(m_filtered);
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

    m_metrics = new QListWidget;
    m_metrics->setMaximumHeight(160);
    connect(m_metrics, &QListWidget::itemChanged, this, &CurvesView::rebuildCharts);

    auto *left = new QWidget;
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_filter);
    leftLayout->addWidget(m_runsTable, 3);
    leftLayout->addWidget(new QLabel(tr("Metrics")));
    leftLayout->addWidget(m_metrics, 1);

    m_smoothing = new QSlider(Qt::Horizontal);
    m_smoothing->setRange(0, 99);
    m_smoothing->setValue(60);
    m_smoothing->setMaximumWidth(180);
    m_smoothingLabel = new QLabel;
    m_xAxis = new QComboBox;
    m_xAxis->addItem(tr("Step"), static_cast<int>(XAxis::Step));
    m_xAxis->addItem(tr("Relative time (s)"), static_cast<int>(XAxis::RelativeTime));
    m_xAxis->addItem(tr("Wall time"), static_cast<int>(XAxis::WallTime));
    m_logY = new QCheckBox(tr("Log y"));
    m_smoothing->setObjectName(u"smoothing"_s);
    m_xAxis->setObjectName(u"xAxis"_s);
    m_logY->setObjectName(u"logY"_s);
    for (QWidget *choice : std::initializer_list<QWidget *>{m_smoothing, m_xAxis, m_logY})
        remember(choice);
    m_openLogdir = new QPushButton(tr("Open TensorBoard logdir…"));
    m_openLogdir->setObjectName(u"openLogdir"_s);
    m_openLogdir->setToolTip(
        tr("Follow the event files of a logdir on this computer or on a node"));
    m_openLogdir->hide();
    auto *reset = new QPushButton(tr("Reset zoom"));
    auto *png = new QPushButton(tr("Export PNG…"));
    auto *csv = new QPushButton(tr("Export CSV…"));
    reset->setToolTip(tr("Fit every chart to its data (or right-click a chart)"));

    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Smoothing")));
    controls->addWidget(m_smoothing);
    controls->addWidget(m_smoothingLabel);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("X axis")));
    controls->addWidget(m_xAxis);
    controls->addWidget(m_logY);
    controls->addStretch();
    controls->addWidget(m_openLogdir);
    controls->addWidget(reset);
    controls->addWidget(png);
    controls->addWidget(csv);

    m_chartArea = new QWidget;
    m_grid = new QGridLayout(m_chartArea);
    const QString client = sharedFile(u"clients/python"_s);
    m_emptyHint = new QLabel(
        tr("<h3>No curves yet</h3>"
           "<p>Log from a training script with the Python client (standard library only):</p>"
           "<pre>import signalbox\nsignalbox.init(config={\"lr\": 0.01})\n"
           "signalbox.log({\"loss\": loss}, step=step)</pre>"
           "<p>and run it with</p><pre>PYTHONPATH=%2 SIGNALBOX_COLLECTOR=%1 python3 train.py</pre>"
           "<p>Runs started from the Jobs tab get both, and their metric lines "
           "(<code>@signalbox {\"step\": 1, \"loss\": 0.5}</code>) are read from their output. "
           "TensorBoard event files: File ▸ Open TensorBoard logdir.</p>")
            .arg(collector->url().toString().toHtmlEscaped(),
                 (client.isEmpty() ? u"clients/python"_s : client).toHtmlEscaped()));
    m_emptyHint->setAlignment(Qt::AlignCenter);
    m_emptyHint->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_grid->setColumnStretch(0, 1);
    m_grid->setColumnStretch(1, 1);
    auto *scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setWidget(m_chartArea);

    auto *right = new QWidget;
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addLayout(controls);
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
    connect(m_xAxis, &QComboBox::currentIndexChanged, this, [this, refetchAll] {
        const bool wallClock = m_xAxis->currentData().toInt() == static_cast<int>(XAxis::WallTime);
        for (CurveChart *chart : std::as_const(m_charts)) {
            chart->setXTitle(m_xAxis->currentText());
            chart->setTimeAxis(wallClock);
            chart->resetZoom();
        }
        refetchAll();
    });
    connect(m_logY, &QCheckBox::toggled, this, [this](bool on) {
        for (CurveChart *chart : std::as_const(m_charts))
            chart->setLogY(on);
    });
    connect(reset, &QPushButton::clicked, this, [this] {
        for (CurveChart *chart : std::as_const(m_charts))
            chart->resetZoom();
    });
    connect(png, &QPushButton::clicked, this, &CurvesView::exportPng);
    connect(m_openLogdir, &QPushButton::clicked, this, &CurvesView::logdirsRequested);
    connect(csv, &QPushButton::clicked, this, &CurvesView::exportCsv);
    connect(m_runs, &RunsModel::checkedRunsChanged, this, refetchAll);

    m_redraw.setSingleShot(true);
    m_redraw.setInterval(40);
    connect(&m_redraw, &QTimer::timeout, this, [this] {
        const QSet<CurveChart *> dirty = std::exchange(m_dirty, {});
        for (CurveChart *chart : dirty)
            requestChart(chart);
    });
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
        m_runs->setRuns(*runs);
        // New metrics join the picker checked; the ones the user unchecked stay unchecked.
        QSignalBlocker block(m_metrics);
        bool changed = false;
        for (const QString &metric : m_runs->metricNames()) {
            if (m_metrics->findItems(metric, Qt::MatchExactly).isEmpty()) {
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
        for (CurveChart *chart : std::as_const(m_charts))
            m_dirty.insert(chart);
        m_redraw.start();
    });
}

void CurvesView::rebuildCharts() {
    QStringList wanted;
    for (int i = 0; i < m_metrics->count(); ++i) {
        if (m_metrics->item(i)->checkState() == Qt::Checked)
            wanted << m_metrics->item(i)->text();
    }
    for (auto it = m_charts.begin(); it != m_charts.end();) {
        if (wanted.contains(it.key())) {
            ++it;
            continue;
        }
        m_dirty.remove(it.value());
        m_pending.remove(it.value());
        m_cache.remove(it.value());
        it.value()->deleteLater();
        it = m_charts.erase(it);
    }
    while (m_grid->count() > 0)
        m_grid->takeAt(0);
    m_emptyHint->setVisible(wanted.isEmpty());
    if (wanted.isEmpty())
        m_grid->addWidget(m_emptyHint, 0, 0, 1, 2);
    int position = 0;
    for (const QString &metric : std::as_const(wanted)) {
        CurveChart *chart = m_charts.value(metric);
        if (!chart) {
            chart = new CurveChart(metric);
            chart->setXTitle(m_xAxis->currentText());
            chart->setTimeAxis(m_xAxis->currentData().toInt() == static_cast<int>(XAxis::WallTime));
            chart->setLogY(m_logY->isChecked());
            connect(chart, &CurveChart::viewportChanged, this, [this, chart] {
                m_dirty.insert(chart);
                m_redraw.start();
            });
            m_charts.insert(metric, chart);
            m_dirty.insert(chart);
        }
        m_grid->addWidget(chart, position / 2, position % 2);
        ++position;
    }
    m_redraw.start();
}

SeriesWindow CurvesView::windowFor(CurveChart *chart) const {
    SeriesWindow window;
    window.axis = static_cast<XAxis>(m_xAxis->currentData().toInt());
    window.width = chart->plotWidth();
    window.smoothing = m_smoothing->value() / 100.0;
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
    const SeriesWindow window = windowFor(chart);
    const QStringList checked = m_runs->checkedRuns();
    // Raw curves behind the smoothed ones help with a few runs; with many they are a muddy band
    // that costs most of the redraw, so they are left out.
    const bool withRaw = checked.size() <= kMaxRunsWithRawCurves;
    const QString key = u"%1|%2|%3|%4|%5|%6"_s.arg(xAxisName(window.axis))
                            .arg(window.from.value_or(qQNaN()))
                            .arg(window.to.value_or(qQNaN()))
                            .arg(window.width)
                            .arg(window.smoothing)
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

void CurvesView::applySeries(CurveChart *chart, const SeriesReplies &reply,
                             const QHash<QString, qint64> &counts) {
    ChartCache &cache = m_cache[chart];
    for (const SeriesReply &series : reply.series) {
        if (!series.error.isEmpty())
            continue; // this run does not log this metric
        cache.runs.insert(series.run,
                          {counts.value(series.run),
                           {series.run, colorFor(series.run), pointsFrom(series.x, series.y),
                            pointsFrom(series.rawX, series.rawY)}});
    }
    showCached(chart);
}

void CurvesView::showCached(CurveChart *chart) {
    const ChartCache &cache = m_cache[chart];
    QList<Curve> curves;
    for (const QString &run : m_runs->checkedRuns()) {
        const auto it = cache.runs.constFind(run);
        if (it != cache.runs.constEnd())
            curves.append(it->curve);
    }
    chart->setCurves(curves);
}

void CurvesView::exportPng() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export charts"), u"curves.png"_s,
                                                      tr("PNG images (*.png)"));
    if (!path.isEmpty() && !m_chartArea->grab().save(path))
        Q_EMIT collectorError(tr("Could not write %1").arg(path));
}

void CurvesView::exportCsv() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export raw points"),
                                                      u"curves.csv"_s, tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    // Every point of every checked run and shown metric, fetched one after another.
    struct Export {
        QByteArray csv = "run,metric,step,value,wall_time\n";
        QList<std::pair<QString, QString>> todo;
        QString path;
    };
    auto job = std::make_shared<Export>();
    job->path = path;
    for (const QString &run : m_runs->checkedRuns()) {
        for (const QString &metric : m_charts.keys())
            job->todo.append({run, metric});
    }
    auto next = std::make_shared<std::function<void()>>();
    *next = [this, job, next] {
        if (job->todo.isEmpty()) {
            QSaveFile file(job->path);
            if (!file.open(QIODevice::WriteOnly) || file.write(job->csv) != job->csv.size() ||
                !file.commit())
                Q_EMIT collectorError(tr("Could not write %1").arg(job->path));
            *next = nullptr; // breaks the self-reference
            return;
        }
        const std::pair<QString, QString> item = job->todo.takeFirst();
        const QString run = item.first;
        const QString metric = item.second;
        m_collector->exportCsv(
            run, metric, this, [job, next, run, metric](const Result<QByteArray> &csv) {
                if (csv) {
                    const QByteArray prefix = csvField(run) + ',' + csvField(metric) + ',';
                    const QList<QByteArray> lines = csv->split('\n');
                    for (qsizetype i = 1; i < lines.size(); ++i) {
                        if (!lines[i].isEmpty())
                            job->csv += prefix + lines[i] + '\n';
                    }
                }
                (*next)();
            });
    };
    (*next)();
}

} // namespace sb
