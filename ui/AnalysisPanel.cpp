#include "AnalysisPanel.h"

#include "CurvesView.h" // its translations: these words were its own
#include "Swatches.h"
#include "charts/ParallelCoordinates.h"
#include "charts/RunScatter.h"
#include "metrics/ConfigDiff.h"
#include "metrics/RunsModel.h"
#include "util/OffThread.h"
#include "util/PlainText.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QProgressBar>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr auto kConfig = u"config."; // an axis that is a config key, not a metric

QStringList itemsOf(const QComboBox *box) {
    QStringList items;
    for (int i = 0; i < box->count(); ++i)
        items << box->itemText(i);
    return items;
}

} // namespace

AnalysisPanel::~AnalysisPanel() {
    m_cancel->store(true); // a forest still growing stops, so quitting does not wait for it
}

AnalysisPanel::AnalysisPanel(RunsModel *runs, QWidget *parent)
    : QWidget(parent)
    , m_runs(runs)
    , m_metric(new QComboBox)
    , m_statistic(new QComboBox)
    , m_summary(new QLabel)
    , m_importance(new QTableWidget(0, 3))
    , m_coordinates(new ParallelCoordinates)
    , m_scatterX(new QComboBox)
    , m_scatterY(new QComboBox)
    , m_pareto(new QCheckBox(CurvesView::tr("Pareto front")))
    , m_scatter(new RunScatter) {
    m_metric->setObjectName(u"analysisMetric"_s);
    m_metric->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_metric->setMaximumWidth(320);
    m_statistic->setObjectName(u"analysisStatistic"_s);
    m_statistic->addItem(CurvesView::tr("best"), static_cast<int>(MetricStatistic::Best));
    m_statistic->addItem(CurvesView::tr("last"), static_cast<int>(MetricStatistic::Last));
    m_statistic->addItem(CurvesView::tr("min"), static_cast<int>(MetricStatistic::Min));
    m_statistic->addItem(CurvesView::tr("max"), static_cast<int>(MetricStatistic::Max));
    m_summary->setTextFormat(Qt::PlainText);
    m_importance->setObjectName(u"importance"_s);
    m_importance->setHorizontalHeaderLabels(
        {CurvesView::tr("Parameter"), CurvesView::tr("Importance"), CurvesView::tr("Correlation")});
    m_importance->verticalHeader()->hide();
    m_importance->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_importance->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_importance->setWordWrap(false);
    m_importance->setTextElideMode(Qt::ElideMiddle);
    m_importance->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_importance->setToolTip(CurvesView::tr(
        "Importance: how much worse a random forest of 100 trees predicts the metric of runs "
        "it did not see once the parameter's values are shuffled (permutation importance), as "
        "a share of all the parameters'.\n"
        "Correlation: Pearson's r with the metric (in log10 for a parameter spread over decades); "
        "η for a categorical one. Click a row to plot it against the metric."));
    m_scatterX->setObjectName(u"scatterX"_s);
    m_scatterY->setObjectName(u"scatterY"_s);
    m_pareto->setObjectName(u"pareto"_s);
    m_pareto->setToolTip(CurvesView::tr("The runs no other run beats on both metrics (each "
                                        "smaller for losses and errors, larger otherwise)"));

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(CurvesView::tr("Metric")));
    top->addWidget(m_metric);
    top->addWidget(m_statistic);
    top->addWidget(m_summary, 1);
    auto *scatterRow = new QHBoxLayout;
    scatterRow->addWidget(new QLabel(CurvesView::tr("x")));
    scatterRow->addWidget(m_scatterX, 1);
    scatterRow->addWidget(new QLabel(CurvesView::tr("y")));
    scatterRow->addWidget(m_scatterY, 1);
    scatterRow->addWidget(m_pareto);
    auto *scatterBox = new QWidget;
    auto *scatterLayout = new QVBoxLayout(scatterBox);
    scatterLayout->setContentsMargins(0, 0, 0, 0);
    scatterLayout->addLayout(scatterRow);
    scatterLayout->addWidget(m_scatter, 1);
    auto *upper = new QSplitter;
    upper->addWidget(m_importance);
    upper->addWidget(scatterBox);
    upper->setSizes({320, 480});
    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(upper);
    split->addWidget(m_coordinates);
    split->setSizes({320, 300});
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);

    m_again.setSingleShot(true);
    m_again.setInterval(300); // a burst of changes (the listing, a filter typed) computes once
    connect(&m_again, &QTimer::timeout, this, &AnalysisPanel::compute);
    connect(m_metric, &QComboBox::currentIndexChanged, this, &AnalysisPanel::recompute);
    connect(m_metric, &QComboBox::activated, this, [this] { m_metricChosen = true; });
    connect(m_statistic, &QComboBox::currentIndexChanged, this, &AnalysisPanel::recompute);
    for (QComboBox *axis : {m_scatterX, m_scatterY}) {
        connect(axis, &QComboBox::currentIndexChanged, this, &AnalysisPanel::updateScatter);
        connect(axis, &QComboBox::activated, this, [this] { m_scatterChosen = true; });
    }
    connect(m_pareto, &QCheckBox::toggled, this, &AnalysisPanel::updateScatter);
    connect(m_coordinates, &ParallelCoordinates::brushChanged, this,
            [this](const QStringList &brushed) {
                Q_EMIT runsChosen(m_coordinates->brushing() ? brushed : QStringList());
            });
    connect(m_scatter, &RunScatter::runClicked, this,
            [this](const QString &clicked) { Q_EMIT runsChosen({clicked}); });
    // A parameter's row: it against the metric (a category's runs in a band each).
    connect(m_importance, &QTableWidget::cellClicked, this, [this](int row) {
        if (row >= 0 && row < m_effects.size())
            setScatter(kConfig + m_effects[row].param, analysedMetric());
    });
}

void AnalysisPanel::setRuns(const QStringList &runs) {
    m_shown = runs;
    // The listing comes every second: the choices are made again only while they are seen.
    m_choicesStale = true;
    if (m_active)
        refreshChoices();
    recompute();
}

void AnalysisPanel::refreshChoices() {
    if (!std::exchange(m_choicesStale, false))
        return;
    // The shown runs' metrics and config keys to choose from, the user's choices kept where they
    // still exist.
    QHash<QString, int> loggedBy; // how many shown runs log each metric
    for (const QString &run : std::as_const(m_shown)) {
        if (const RunSummary *summary = m_runs->summaryOf(run)) {
            for (auto it = summary->metrics.cbegin(); it != summary->metrics.cend(); ++it)
                if (!it.key().startsWith(u"system/"_s))
                    ++loggedBy[it.key()];
        }
    }
    QStringList metrics = loggedBy.keys();
    metrics.sort();
    // The one the user asked for; else, of those the most shown runs log, a validation loss,
    // else any loss, else the first.
    qsizetype pick = m_metricChosen ? metrics.indexOf(analysedMetric()) : -1;
    m_metricChosen = pick >= 0;
    int most = 0;
    for (const QString &metric : std::as_const(metrics))
        most = std::max(most, loggedBy.value(metric));
    for (const QString &wanted : {u"val"_s, u"loss"_s}) {
        for (qsizetype i = 0; pick < 0 && i < metrics.size(); ++i)
            if (loggedBy.value(metrics[i]) == most &&
                metrics[i].contains(wanted, Qt::CaseInsensitive) &&
                metrics[i].contains(u"loss"_s, Qt::CaseInsensitive))
                pick = i;
    }
    for (qsizetype i = 0; pick < 0 && i < metrics.size(); ++i)
        if (loggedBy.value(metrics[i]) == most)
            pick = i;
    pick = std::max<qsizetype>(0, pick);
    if (metrics != itemsOf(m_metric) || m_metric->currentIndex() != pick) {
        const QSignalBlocker quiet(m_metric);
        if (metrics != itemsOf(m_metric)) {
            m_metric->clear();
            m_metric->addItems(metrics);
        }
        m_metric->setCurrentIndex(static_cast<int>(pick));
    }
    const QStringList axes = axisChoices();
    bool rebuilt = false;
    for (QComboBox *axis : {m_scatterX, m_scatterY}) {
        if (itemsOf(axis) == axes)
            continue; // the same choices: an open list stays as it is
        rebuilt = true;
        const QString was = axis->currentText();
        const QSignalBlocker quiet(axis);
        axis->clear();
        axis->addItems(axes);
        const auto at = static_cast<int>(axes.indexOf(was));
        axis->setCurrentIndex(std::max(0, at));
        // A chosen axis that is gone: the automatic choice again, not the first item twice.
        if (at < 0 && !was.isEmpty())
            m_scatterChosen = false;
    }
    if (rebuilt)
        updateScatter(); // the plot as the lists now say (the analysis may not run again)
}

QStringList AnalysisPanel::axisChoices() const {
    // Config keys as the analysis reads them: nested objects split into their keys.
    QSet<QString> keys;
    for (const QString &run : std::as_const(m_shown)) {
        if (const RunSummary *summary = m_runs->summaryOf(run)) {
            const QJsonObject flat = flattenConfig(summary->info.config);
            for (auto it = flat.begin(); it != flat.end(); ++it)
                keys.insert(it.key());
        }
    }
    QStringList sorted(keys.cbegin(), keys.cend());
    sorted.sort();
    QStringList axes = itemsOf(m_metric);
    for (const QString &key : std::as_const(sorted))
        axes << kConfig + key;
    return axes;
}

void AnalysisPanel::setSelected(const QStringList &runs) {
    m_selected = runs;
    m_coordinates->setHighlighted(runs);
    m_scatter->setHighlighted(runs);
}

void AnalysisPanel::setActive(bool active) {
    m_active = active;
    if (active)
        refreshChoices();
    if (active && m_stale)
        recompute();
}

void AnalysisPanel::setAnalysedMetric(const QString &metric) {
    refreshChoices();
    m_metricChosen = true;
    m_metric->setCurrentIndex(m_metric->findText(metric));
}

QString AnalysisPanel::analysedMetric() const {
    return m_metric->currentText();
}

void AnalysisPanel::setScatter(const QString &x, const QString &y) {
    refreshChoices();
    m_scatterChosen = true;
    showScatter(x, y);
}

void AnalysisPanel::showScatter(const QString &x, const QString &y) {
    const QSignalBlocker quiet(m_scatterX);
    m_scatterX->setCurrentIndex(m_scatterX->findText(x));
    m_scatterY->setCurrentIndex(m_scatterY->findText(y));
    updateScatter();
}

void AnalysisPanel::setParetoShown(bool shown) {
    m_pareto->setChecked(shown);
}

void AnalysisPanel::recompute() {
    m_stale = true;
    if (m_active && !m_computing)
        m_again.start();
}

void AnalysisPanel::compute() {
    if (!m_active || m_computing || m_metric->currentText().isEmpty())
        return;
    QList<RunSummary> runs;
    for (const QString &run : std::as_const(m_shown))
        if (const RunSummary *summary = m_runs->summaryOf(run))
            runs << *summary;
    const QString metric = m_metric->currentText();
    const auto statistic = static_cast<MetricStatistic>(m_statistic->currentData().toInt());
    // What the answer depends on: the runs and the metric, and their values and configs. The
    // listing comes every second: the same inputs are not computed again, and values that move
    // (live runs) are computed again every kValuesEveryMs at most.
    QByteArray which = metric.toUtf8() + '|' + QByteArray::number(static_cast<int>(statistic));
    QByteArray values;
    for (const RunSummary &run : std::as_const(runs)) {
        which += '|' + run.info.name.toUtf8();
        const auto summary = run.metrics.constFind(metric);
        values += QByteArray::number(summary == run.metrics.cend()
                                         ? qQNaN()
                                         : summary->value(statistic, metric).value_or(qQNaN()),
                                     'g', 17) +
                  QByteArray::number(qHash(QJsonDocument(run.info.config).toJson())) + ',';
    }
    m_stale = false;
    if (which == m_computedRuns && values == m_computedValues)
        return;
    if (which == m_computedRuns && m_sinceComputed.isValid() &&
        m_sinceComputed.elapsed() < kValuesEveryMs) {
        m_stale = true;
        m_again.start(static_cast<int>(kValuesEveryMs - m_sinceComputed.elapsed()));
        return;
    }
    m_computedRuns = which;
    m_computedValues = values;
    m_sinceComputed.start();
    m_computing = true;
    m_cancel->store(false);
    runOffThread(
        this,
        [runs = std::move(runs), metric, statistic, cancel = m_cancel] {
            ParamTable table = paramTable(runs, metric, statistic);
            ForestOptions options;
            options.cancelled = cancel.get();
            QList<ParamEffect> effects = paramEffects(table, options);
            return std::pair(std::move(table), std::move(effects));
        },
        [this](std::pair<ParamTable, QList<ParamEffect>> result) {
            m_computing = false;
            const auto analysed = result.first.runs.size();
            const auto params = result.first.params.size();
            m_summary->setText(
                CurvesView::tr("%1 with %2, %3")
                    .arg(analysed == 1 ? CurvesView::tr("1 run")
                                       : CurvesView::tr("%1 runs").arg(QString::number(analysed)),
                         result.first.metric,
                         params == 1 ? CurvesView::tr("1 parameter that varies")
                                     : CurvesView::tr("%1 parameters that vary")
                                           .arg(QString::number(params))));
            m_effects = std::move(result.second);
            // The coordinates draw the keys that matter most (the first ones, with too few runs
            // to rank them), and the metric: two hundred axes would be a few pixels apart.
            ParamTable drawn = result.first;
            QSet<QString> top;
            for (const ParamEffect &effect : m_effects.mid(0, kMostAxes))
                top.insert(effect.param);
            for (std::size_t p = 0;
                 m_effects.isEmpty() && p < drawn.params.size() && top.size() < kMostAxes; ++p)
                top.insert(drawn.params[p].name);
            drawn.params.erase(std::remove_if(drawn.params.begin(), drawn.params.end(),
                                              [&top](const ParamColumn &param) {
                                                  return !top.contains(param.name);
                                              }),
                               drawn.params.end());
            m_coordinates->setTable(drawn, lowerIsBetter(drawn.metric));
            m_coordinates->setHighlighted(m_selected);
            m_numeric.clear();
            for (const ParamColumn &param : result.first.params)
                if (!param.categorical)
                    m_numeric.insert(param.name);
            showEffects();
            // Until the user picks the scatter's axes: the most important number (else the most
            // important parameter) against the metric.
            const auto numeric = std::find_if(
                m_effects.cbegin(), m_effects.cend(),
                [this](const ParamEffect &effect) { return m_numeric.contains(effect.param); });
            QString across = numeric != m_effects.cend()   ? kConfig + numeric->param
                             : !m_effects.isEmpty()        ? kConfig + m_effects.front().param
                             : result.first.params.empty() ? QString()
                                                           : kConfig + result.first.params[0].name;
            if (!m_scatterChosen)
                showScatter(across.isEmpty() ? m_scatterX->currentText() : across,
                            result.first.metric);
            else
                updateScatter();
            Q_EMIT computed();
            if (m_stale)
                recompute(); // what changed meanwhile
        });
}

void AnalysisPanel::showEffects() {
    m_importance->setRowCount(static_cast<int>(m_effects.size()));
    for (int row = 0; row < m_effects.size(); ++row) {
        const ParamEffect &effect = m_effects[row];
        auto *name = new QTableWidgetItem(isolated(effect.param));
        name->setToolTip(richTextOf(effect.param));
        m_importance->setItem(row, 0, name);
        auto *bar = new QProgressBar;
        bar->setRange(0, 1000);
        bar->setValue(static_cast<int>(std::lround(effect.importance * 1000)));
        bar->setFormat(QString::number(effect.importance * 100, 'f', 1) + u'%');
        bar->setTextVisible(true);
        m_importance->setCellWidget(row, 1, bar);
        QString correlation = u"—"_s;
        if (effect.correlation)
            correlation = effect.signedCorrelation
                              ? (*effect.correlation >= 0 ? u"+"_s : u"−"_s) +
                                    QString::number(std::abs(*effect.correlation), 'f', 2)
                              : u"η "_s + QString::number(*effect.correlation, 'f', 2);
        auto *item = new QTableWidgetItem(correlation);
        if (effect.correlation && effect.signedCorrelation)
            item->setForeground(*effect.correlation >= 0 ? QColor(0xd9, 0x5f, 0x02)
                                                         : QColor(0x1f, 0x5f, 0xa8));
        m_importance->setItem(row, 2, item);
    }
}

AnalysisPanel::AxisValues AnalysisPanel::axisValues(const QString &axis) const {
    AxisValues out;
    out.axis.title = axis;
    const auto statistic = static_cast<MetricStatistic>(m_statistic->currentData().toInt());
    QHash<QString, QJsonValue> config; // of each run, where the axis is a config key
    bool words = false;
    for (const QString &run : std::as_const(m_shown)) {
        const RunSummary *summary = m_runs->summaryOf(run);
        if (!summary)
            continue;
        if (const auto it = summary->metrics.constFind(axis); it != summary->metrics.cend()) {
            if (const auto value = it->value(statistic, axis))
                out.byRun.insert(run, *value);
        } else if (axis.startsWith(kConfig)) {
            const QJsonValue value = flattenConfig(summary->info.config).value(axis.mid(7));
            words = words || value.isString();
            if (value.isString() || value.isDouble() || value.isBool())
                config.insert(run, value);
        }
    }
    const auto textOf = [](const QJsonValue &value) {
        return value.isString() ? value.toString()
               : value.isBool() ? (value.toBool() ? u"true"_s : u"false"_s)
                                : QString::number(value.toDouble(), 'g', 6);
    };
    if (words) {
        QSet<QString> names;
        for (const QJsonValue &value : std::as_const(config))
            names.insert(textOf(value));
        out.axis.categories = QStringList(names.cbegin(), names.cend());
        sortCategories(&out.axis.categories);
    }
    QHash<QString, qsizetype> indexOf; // of each category, for many runs with many categories
    for (qsizetype i = 0; i < out.axis.categories.size(); ++i)
        indexOf.insert(out.axis.categories[i], i);
    for (auto it = config.cbegin(); it != config.cend(); ++it) {
        if (words)
            out.byRun.insert(it.key(), double(indexOf.value(textOf(*it))));
        else
            out.byRun.insert(it.key(), it->isBool() ? (it->toBool() ? 1.0 : 0.0) : it->toDouble());
    }
    // A number spread over decades (a learning rate, a loss) on a log axis; zeros among them (a
    // weight decay of 0) in a band beneath.
    double low = INFINITY, high = -INFINITY;
    bool negative = false;
    for (const double value : std::as_const(out.byRun)) {
        negative = negative || value < 0;
        if (std::isfinite(value) && value > 0) {
            low = std::min(low, value);
            high = std::max(high, value);
        }
    }
    out.axis.log = !words && !negative && low > 0 && high / low >= 100;
    return out;
}

void AnalysisPanel::updateScatter() {
    const QString x = m_scatterX->currentText();
    const QString y = m_scatterY->currentText();
    const AxisValues across = axisValues(x);
    const AxisValues up = axisValues(y);
    QList<RunScatter::Point> points;
    for (const QString &run : std::as_const(m_shown)) {
        const auto vx = across.byRun.constFind(run);
        const auto vy = up.byRun.constFind(run);
        if (vx != across.byRun.cend() && vy != up.byRun.cend())
            points.append({run, *vx, *vy, runColor(run)});
    }
    m_scatter->setPoints(points, across.axis, up.axis);
    // The front of two metrics: each smaller for losses and errors, larger otherwise.
    const bool metrics = m_runs->metricNames().contains(x) && m_runs->metricNames().contains(y);
    m_pareto->setEnabled(metrics);
    QStringList front;
    if (metrics && m_pareto->isChecked()) {
        std::vector<double> xs, ys;
        for (const RunScatter::Point &point : std::as_const(points)) {
            xs.push_back(point.x);
            ys.push_back(point.y);
        }
        for (const qsizetype i : paretoFront(xs, ys, lowerIsBetter(x), lowerIsBetter(y)))
            front << points[i].run;
    }
    m_scatter->setFront(front);
    m_scatter->setHighlighted(m_selected);
}

} // namespace sb
