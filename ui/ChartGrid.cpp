#include "ChartGrid.h"

#include "CurvesView.h" // its translations: these words were its own
#include "Settings.h"
#include "charts/CurveChart.h"
#include "monitor/SystemSeries.h"
#include "util/Paths.h"

#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QSet>
#include <QToolButton>

#include <algorithm>

namespace sb {

using namespace Qt::StringLiterals;

ChartGrid::ChartGrid(const QUrl &collector, QWidget *parent)
    : QScrollArea(parent)
    , m_area(new QWidget)
    , m_grid(new QGridLayout(m_area)) {
    const QString client = sharedFile(u"clients/python"_s);
    m_noCurvesYet =
        CurvesView::tr(
            "<h3>No curves yet</h3>"
            "<p>Log from a training script with the Python client (standard library only):</p>"
            "<pre>import signalbox\nsignalbox.init(config={\"lr\": 0.01})\n"
            "signalbox.log({\"loss\": loss}, step=step)</pre>"
            "<p>and run it with</p><pre>PYTHONPATH=%2 SIGNALBOX_COLLECTOR=%1 python3 train.py</pre>"
            "<p>Runs started from the Jobs tab get both, and their metric lines "
            "(<code>@signalbox {\"step\": 1, \"loss\": 0.5}</code>) are read from their output. "
            "TensorBoard event files: File ▸ Open TensorBoard logdir.</p>")
            .arg(collector.toString().toHtmlEscaped(),
                 (client.isEmpty() ? u"clients/python"_s : client).toHtmlEscaped());
    m_moreCharts = new QPushButton(m_area);
    m_moreCharts->setObjectName(u"moreCharts"_s);
    m_moreCharts->hide();
    connect(m_moreCharts, &QPushButton::clicked, this, [this] {
        m_chartLimit += kChartsAPage;
        Q_EMIT rearrangeWanted();
    });
    m_emptyHint = new QLabel(m_noCurvesYet);
    m_emptyHint->setAlignment(Qt::AlignCenter);
    m_emptyHint->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setWidgetResizable(true);
    setWidget(m_area);
}

void ChartGrid::setShape(int columns, int chartHeight) {
    m_columns = std::clamp(columns, 1, 4);
    m_chartHeight = chartHeight;
    for (int c = 0; c < 4; ++c)
        m_grid->setColumnStretch(c, c < m_columns ? 1 : 0);
    Q_EMIT rearrangeWanted();
}

bool ChartGrid::isSystemMetric(const QString &metric) {
    return metric.startsWith(QString::fromUtf16(SystemMetric::kPrefix));
}

bool ChartGrid::isDrawn(const CurveChart *chart) const {
    if (!chart->isVisibleTo(m_area))
        return false;
    const QRect placed(chart->mapTo(viewport(), QPoint(0, 0)), chart->size());
    // Not laid out yet: drawn once it is, so it is asked for now.
    return placed.isEmpty() || viewport()->rect().intersects(placed);
}

void ChartGrid::arrange(const QStringList &metrics, bool anyRun) {
    QStringList wanted;
    qsizetype more = 0;
    for (const bool pinned : {true, false}) {
        for (const QString &metric : metrics) {
            const CurveChart *existing = m_charts.value(metric);
            if ((existing && existing->pinned()) != pinned)
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
        const QString metric = it.key();
        it.value()->deleteLater();
        it = m_charts.erase(it);
        Q_EMIT chartRemoved(metric);
    }
    m_list = m_charts.values();
    while (m_grid->count() > 0)
        delete m_grid->takeAt(0); // the layout's item, not its widget
    m_emptyHint->setText(anyRun ? CurvesView::tr("<h3>No curves for the runs shown</h3><p>"
                                                 "Check a run in the table, or change the "
                                                 "filter.</p>")
                                : m_noCurvesYet);
    m_emptyHint->setVisible(wanted.isEmpty());
    if (wanted.isEmpty())
        m_grid->addWidget(m_emptyHint, 0, 0, 1, m_columns);
    QList<CurveChart *> placed;
    for (const QString &metric : std::as_const(wanted)) {
        CurveChart *chart = m_charts.value(metric);
        placed << (chart ? chart : makeChart(metric));
    }
    m_list = m_charts.values();
    place(placed, more);
}

CurveChart *ChartGrid::makeChart(const QString &metric) {
    auto *chart = new CurveChart(metric);
    // Its own choices from an earlier session (log y: the view's, which knows the default).
    chart->setFullWidth(
        readSetting(Setting::Chart, chartSettingName(metric, u"fullWidth"_s)).toBool());
    chart->setPinned(readSetting(Setting::Chart, chartSettingName(metric, u"pinned"_s)).toBool());
    chart->setOtherMetrics(storedSetting(Setting::Chart, chartSettingName(metric, u"with"_s))
                               .value_or(QStringList())
                               .toStringList());
    // The option chosen is this chart's own from now on; the others still follow the toolbar.
    connect(chart, &CurveChart::optionsChanged, this, [this, chart](const QString &option) {
        const QString name = chartSettingName(chart->metricName(), option);
        if (option == u"logY"_s)
            writeSetting(Setting::Chart, chart->logY(), name);
        else if (option == u"logX"_s)
            writeSetting(Setting::Chart, chart->logXChosen(), name);
        else if (option == u"fullWidth"_s)
            writeSetting(Setting::Chart, chart->fullWidth(), name);
        else if (option == u"pinned"_s)
            writeSetting(Setting::Chart, chart->pinned(), name);
        else if (option == u"with"_s)
            writeSetting(Setting::Chart, chart->otherMetrics(), name);
        Q_EMIT rearrangeWanted(); // arranged anew: pinned first, full width across
    });
    m_charts.insert(metric, chart);
    Q_EMIT chartAdded(chart);
    return chart;
}

void ChartGrid::place(QList<CurveChart *> placed, qsizetype more) {
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
            header->setText(u"%1/  (%2)"_s.arg(QString(prefix).replace(u'&', u"&&"_s),
                                               QString::number(members))); // && : no shortcut
            m_grid->addWidget(header, row++, 0, 1, m_columns);
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
        chart->setFixedHeight(m_chartHeight);
        const int span = chart->fullWidth() ? m_columns : 1;
        m_grid->addWidget(chart, row, column, 1, span);
        column += span;
        if (column >= m_columns) {
            ++row;
            column = 0;
        }
    }
    m_moreCharts->setVisible(more > 0);
    if (more > 0) {
        m_moreCharts->setText(
            CurvesView::tr("Show %1 more charts (%2 not shown; uncheck metrics in the list "
                           "to choose)")
                .arg(std::min<qsizetype>(more, kChartsAPage))
                .arg(more));
        m_grid->addWidget(m_moreCharts, row + (column > 0 ? 1 : 0), 0, 1, m_columns);
    }
}

QToolButton *ChartGrid::sectionHeader(const QString &prefix) {
    if (QToolButton *existing = m_sections.value(prefix))
        return existing;
    auto *header = new QToolButton;
    header->setObjectName(u"section:"_s + prefix);
    header->setCheckable(true); // checked: open
    header->setChecked(
        !readSetting(Setting::Chart, chartSettingName(prefix, u"folded"_s)).toBool());
    header->setArrowType(header->isChecked() ? Qt::DownArrow : Qt::RightArrow);
    header->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    header->setAutoRaise(true);
    QFont bold = header->font();
    bold.setBold(true);
    header->setFont(bold);
    connect(header, &QToolButton::toggled, this, [this, header, prefix](bool open) {
        header->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        writeSetting(Setting::Chart, !open, chartSettingName(prefix, u"folded"_s));
        Q_EMIT rearrangeWanted();
    });
    m_sections.insert(prefix, header);
    return header;
}

} // namespace sb
