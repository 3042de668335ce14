#include "CurvesControls.h"

#include "CurvesView.h" // its translations: these words were its own
#include "FlowLayout.h"
#include "MenuButton.h"
#include "Remembered.h"
#include "Settings.h"
#include "metrics/ConfigDiff.h"

#include <QActionGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

RunGrouping rememberedGrouping() {
    RunGrouping grouping;
    grouping.by = static_cast<RunGrouping::By>(std::clamp(
        readSetting(Setting::CurvesGroupBy).toInt(), 0, static_cast<int>(RunGrouping::By::Sweep)));
    grouping.keys = readSetting(Setting::CurvesGroupKeys).toStringList();
    grouping.pattern = readSetting(Setting::CurvesGroupPattern).toString();
    (void)parseGroupCenter(readSetting(Setting::CurvesGroupCenter).toString(), &grouping.center);
    (void)parseGroupBand(readSetting(Setting::CurvesGroupBand).toString(), &grouping.band);
    return grouping;
}

} // namespace

CurvesControls::CurvesControls(std::function<QList<RunInfo>()> shownRuns, QWidget *parent)
    : QWidget(parent)
    , m_shownRuns(std::move(shownRuns))
    , m_smoothing(new QSlider(Qt::Horizontal))
    , m_smoothingLabel(new QLabel)
    , m_smoothingKind(new QComboBox)
    , m_xAxis(new QComboBox)
    , m_logY(new QCheckBox(CurvesView::tr("Log y")))
    , m_logX(new QCheckBox(CurvesView::tr("Log x")))
    , m_showLegend(new QCheckBox(CurvesView::tr("Legend")))
    , m_openLogdir(new QPushButton(CurvesView::tr("Open TensorBoard logdir…")))
    , m_grouping(rememberedGrouping()) {
    m_smoothing->setObjectName(u"smoothing"_s);
    m_smoothing->setRange(0, 99);
    m_smoothing->setValue(60);
    m_smoothing->setMaximumWidth(180);
    m_smoothing->setMinimumWidth(60); // never squeezed away by a narrow window
    m_smoothingKind->setObjectName(u"smoothingKind"_s);
    m_smoothingKind->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_smoothingKind->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    m_smoothingKind->addItem(CurvesView::tr("EMA"), static_cast<int>(SmoothingKind::Ema));
    m_smoothingKind->addItem(CurvesView::tr("Running average"),
                             static_cast<int>(SmoothingKind::RunningAverage));
    m_smoothingKind->addItem(CurvesView::tr("Gaussian"), static_cast<int>(SmoothingKind::Gaussian));
    m_smoothingKind->setToolTip(
        CurvesView::tr("TensorBoard's exponential moving average; a running average "
                       "over as many points as it weighs; or a centred Gaussian "
                       "over as many, which does not lag behind the curve"));
    m_xAxis->setObjectName(u"xAxis"_s);
    m_xAxis->addItem(CurvesView::tr("Step"), static_cast<int>(XAxis::Step));
    m_xAxis->addItem(CurvesView::tr("Relative time (s)"), static_cast<int>(XAxis::RelativeTime));
    m_xAxis->addItem(CurvesView::tr("Wall time"), static_cast<int>(XAxis::WallTime));
    m_logY->setObjectName(u"logY"_s);
    m_logX->setObjectName(u"logX"_s);
    m_logX->setToolTip(CurvesView::tr("A log x axis (log-log with Log y); points at x ≤ 0, such as "
                                      "step 0, are not on it. Not for wall time."));
    m_showLegend->setObjectName(u"showLegend"_s);
    m_showLegend->setChecked(true);
    m_showLegend->setToolTip(CurvesView::tr("Which colour is which run, above the charts"));
    for (QWidget *choice : std::initializer_list<QWidget *>{m_smoothing, m_smoothingKind, m_xAxis,
                                                            m_logY, m_logX, m_showLegend})
        remember(choice);
    m_openLogdir->setObjectName(u"openLogdir"_s);
    m_openLogdir->setToolTip(
        CurvesView::tr("Follow the event files of a logdir on this computer or on a node"));
    m_openLogdir->hide();
    auto *reset = new QPushButton(CurvesView::tr("Reset zoom"));
    reset->setToolTip(CurvesView::tr("Fit every chart to its data (or right-click a chart)"));

    // A row that wraps: the runs table beside it may take the width it needs.
    auto *row = new FlowLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    // Each label stays with its control when the row wraps.
    const auto labelled = [](const QString &label, std::initializer_list<QWidget *> widgets) {
        auto *pair = new QWidget;
        auto *layout = new QHBoxLayout(pair);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->addWidget(new QLabel(label));
        for (QWidget *widget : widgets)
            layout->addWidget(widget);
        return pair;
    };
    row->addWidget(
        labelled(CurvesView::tr("Smoothing"), {m_smoothing, m_smoothingLabel, m_smoothingKind}));
    row->addWidget(labelled(CurvesView::tr("X axis"), {m_xAxis}));
    row->addWidget(m_logY);
    row->addWidget(m_logX);
    row->addWidget(m_showLegend);
    row->addWidget(makeGroupButton());
    row->addWidget(m_openLogdir);
    row->addWidget(reset);
    row->addWidget(makeLayoutButton());
    row->addWidget(makeExportButton());

    connect(m_smoothing, &QSlider::valueChanged, this, [this](int value) {
        m_smoothingLabel->setText(QString::number(value / 100.0, 'f', 2));
        Q_EMIT windowChanged();
    });
    m_smoothingLabel->setText(QString::number(m_smoothing->value() / 100.0, 'f', 2));
    connect(m_smoothingKind, &QComboBox::currentIndexChanged, this, &CurvesControls::windowChanged);
    connect(m_xAxis, &QComboBox::currentIndexChanged, this, [this] {
        // Another metric as x (below the separator) is remembered by name, as metrics come later.
        writeSetting(Setting::CurvesXMetric, xMetric());
        Q_EMIT xAxisChanged();
    });
    connect(m_logY, &QCheckBox::toggled, this, &CurvesControls::logYToggled);
    connect(m_logX, &QCheckBox::toggled, this, &CurvesControls::logXToggled);
    connect(m_showLegend, &QCheckBox::toggled, this, &CurvesControls::legendToggled);
    connect(reset, &QPushButton::clicked, this, &CurvesControls::resetZoom);
    connect(m_openLogdir, &QPushButton::clicked, this, &CurvesControls::logdirsRequested);
    updateGroupButton();
}

QWidget *CurvesControls::makeGroupButton() {
    // Runs drawn as groups: seeds of one configuration as their mean and spread.
    m_groupButton = menuButton(u"group"_s, QString(),
                               CurvesView::tr("Draw runs as groups: the mean or median of each "
                                              "group's runs, with a band for their spread"));
    QMenu *menu = m_groupButton->menu();
    auto *groupBy = new QActionGroup(menu);
    const std::pair<RunGrouping::By, QString> ways[] = {
        {RunGrouping::By::Nothing, CurvesView::tr("No groups")},
        {RunGrouping::By::Keys, CurvesView::tr("By config keys…")},
        {RunGrouping::By::Pattern, CurvesView::tr("By name pattern…")},
        {RunGrouping::By::Sweep, CurvesView::tr("By sweep")}};
    for (const auto &[by, text] : ways) {
        QAction *action = menu->addAction(text, this, [this, by = by] { chooseGrouping(by); });
        action->setCheckable(true);
        action->setData(static_cast<int>(by));
        action->setObjectName(u"groupBy%1"_s.arg(static_cast<int>(by)));
        groupBy->addAction(action);
    }
    menu->addSection(CurvesView::tr("Line"));
    auto *centers = new QActionGroup(menu);
    for (const auto &[center, text] : {std::pair{GroupCenter::Mean, CurvesView::tr("Mean")},
                                       std::pair{GroupCenter::Median, CurvesView::tr("Median")}}) {
        QAction *action = menu->addAction(text, this, [this, center = center] {
            RunGrouping grouping = m_grouping;
            grouping.center = center;
            setGrouping(grouping);
        });
        action->setCheckable(true);
        action->setData(static_cast<int>(center));
        action->setObjectName(u"center:"_s + groupCenterName(center));
        centers->addAction(action);
    }
    menu->addSection(CurvesView::tr("Band"));
    auto *bands = new QActionGroup(menu);
    for (const auto &[band, text] :
         {std::pair{GroupBand::StdDev, CurvesView::tr("± standard deviation")},
          std::pair{GroupBand::StdErr, CurvesView::tr("± standard error")},
          std::pair{GroupBand::MinMax, CurvesView::tr("Minimum to maximum")},
          std::pair{GroupBand::None, CurvesView::tr("No band")}}) {
        QAction *action = menu->addAction(text, this, [this, band = band] {
            RunGrouping grouping = m_grouping;
            grouping.band = band;
            setGrouping(grouping);
        });
        action->setCheckable(true);
        action->setData(static_cast<int>(band));
        action->setObjectName(u"band:"_s + groupBandName(band));
        bands->addAction(action);
    }
    return m_groupButton;
}

QWidget *CurvesControls::makeExportButton() {
    // One button for the ways out, so the toolbar fits a small screen.
    QToolButton *button = menuButton(u"export"_s, CurvesView::tr("Export"));
    QMenu *menu = button->menu();
    menu->addAction(CurvesView::tr("Charts as PNG…"), this,
                    &CurvesControls::exportPictureRequested);
    menu->addAction(CurvesView::tr("Raw points, CSV or JSON Lines…"), this,
                    &CurvesControls::exportPointsRequested);
    return button;
}

QWidget *CurvesControls::makeLayoutButton() {
    QToolButton *button =
        menuButton(u"layout"_s, CurvesView::tr("Layout"),
                   CurvesView::tr("Charts a row, their height, and zooming them together"));
    QMenu *menu = button->menu();
    // One choice of a few, remembered and said to the view.
    const auto choices = [this, menu](const QString &title, Setting setting, const QString &name,
                                      const QList<std::pair<int, QString>> &options) {
        menu->addSection(title);
        auto *group = new QActionGroup(menu);
        const int now = readSetting(setting).toInt();
        for (const auto &[value, text] : options) {
            QAction *action = menu->addAction(text, this, [this, setting, value = value] {
                writeSetting(setting, value);
                Q_EMIT layoutChanged();
            });
            action->setObjectName(name + QString::number(value));
            action->setCheckable(true);
            action->setChecked(value == now);
            group->addAction(action);
        }
    };
    choices(CurvesView::tr("Charts a row"), Setting::CurvesColumns, u"columns"_s,
            {{1, u"1"_s}, {2, u"2"_s}, {3, u"3"_s}, {4, u"4"_s}});
    choices(CurvesView::tr("Chart height"), Setting::CurvesChartHeight, u"height"_s,
            {{kChartHeights[0], CurvesView::tr("Small")},
             {kChartHeights[1], CurvesView::tr("Medium")},
             {kChartHeights[2], CurvesView::tr("Large")}});
    menu->addSeparator();
    QAction *sync =
        menu->addAction(CurvesView::tr("Zoom x on every chart together"), this, [this](bool on) {
            writeSetting(Setting::CurvesSyncZoom, on);
            Q_EMIT layoutChanged();
        });
    sync->setObjectName(u"syncZoom"_s);
    sync->setCheckable(true);
    sync->setChecked(syncZoom());
    return button;
}

int CurvesControls::columns() const {
    return std::clamp(readSetting(Setting::CurvesColumns).toInt(), 1, 4);
}

int CurvesControls::chartHeight() const {
    // The nearest of the menu's heights, whatever a view or an edited setting holds.
    const int stored = readSetting(Setting::CurvesChartHeight).toInt();
    return *std::min_element(
        std::begin(kChartHeights), std::end(kChartHeights),
        [stored](int a, int b) { return std::abs(a - stored) < std::abs(b - stored); });
}

bool CurvesControls::syncZoom() const {
    return readSetting(Setting::CurvesSyncZoom).toBool();
}

double CurvesControls::smoothing() const {
    return m_smoothing->value() / 100.0;
}

void CurvesControls::setSmoothing(double weight) {
    m_smoothing->setValue(static_cast<int>(std::lround(weight * 100)));
}

SmoothingKind CurvesControls::smoothingKind() const {
    return static_cast<SmoothingKind>(m_smoothingKind->currentData().toInt());
}

XAxis CurvesControls::xAxis() const {
    return static_cast<XAxis>(m_xAxis->currentData().toInt());
}

QString CurvesControls::xAxisTitle() const {
    return m_xAxis->currentText();
}

QString CurvesControls::xMetric() const {
    const QVariant chosen = m_xAxis->currentData();
    return chosen.typeId() == QMetaType::QString ? chosen.toString() : QString();
}

void CurvesControls::addXMetrics(const QStringList &metrics) {
    const QString rememberedX = readSetting(Setting::CurvesXMetric).toString();
    for (const QString &metric : metrics) {
        if (std::exchange(m_xMetrics[metric], true))
            continue;
        if (m_xAxis->count() == 3)
            m_xAxis->insertSeparator(3);
        m_xAxis->addItem(metric, metric);
        if (metric == rememberedX)
            m_xAxis->setCurrentIndex(m_xAxis->count() - 1);
    }
}

bool CurvesControls::logY() const {
    return m_logY->isChecked();
}

bool CurvesControls::logX() const {
    return m_logX->isChecked();
}

bool CurvesControls::legendShown() const {
    return m_showLegend->isChecked();
}

void CurvesControls::offerLogdirs() {
    m_openLogdir->show();
}

QJsonObject CurvesControls::viewState() const {
    return {{u"smoothing"_s, smoothing()},
            {u"smoothingKind"_s, smoothingKindName(smoothingKind())},
            {u"xAxis"_s, xAxisName(xAxis())},
            {u"xMetric"_s, xMetric()},
            {u"logY"_s, logY()},
            {u"logX"_s, logX()},
            {u"legend"_s, legendShown()},
            {u"groupBy"_s, static_cast<int>(m_grouping.by)},
            {u"groupKeys"_s, QJsonArray::fromStringList(m_grouping.keys)},
            {u"groupPattern"_s, m_grouping.pattern},
            {u"groupCenter"_s, groupCenterName(m_grouping.center)},
            {u"groupBand"_s, groupBandName(m_grouping.band)},
            {u"columns"_s, columns()},
            {u"chartHeight"_s, chartHeight()},
            {u"syncZoom"_s, syncZoom()}};
}

void CurvesControls::applyViewState(const QJsonObject &state) {
    setSmoothing(std::clamp(state.value(u"smoothing"_s).toDouble(smoothing()), 0.0, 0.99));
    SmoothingKind kind = smoothingKind();
    if (parseSmoothingKind(state.value(u"smoothingKind"_s).toString(), &kind))
        m_smoothingKind->setCurrentIndex(m_smoothingKind->findData(static_cast<int>(kind)));
    // Another metric as x if this collector has it; else the axis by name.
    const int metric = m_xAxis->findData(state.value(u"xMetric"_s).toString());
    XAxis axis = XAxis::Step;
    if (!state.value(u"xMetric"_s).toString().isEmpty() && metric >= 0)
        m_xAxis->setCurrentIndex(metric);
    else if (parseXAxis(state.value(u"xAxis"_s).toString(), &axis))
        m_xAxis->setCurrentIndex(std::max(0, m_xAxis->findData(static_cast<int>(axis))));
    m_logY->setChecked(state.value(u"logY"_s).toBool());
    m_logX->setChecked(state.value(u"logX"_s).toBool());
    m_showLegend->setChecked(state.value(u"legend"_s).toBool(true));
    RunGrouping grouping;
    grouping.by = static_cast<RunGrouping::By>(
        std::clamp(state.value(u"groupBy"_s).toInt(), 0, static_cast<int>(RunGrouping::By::Sweep)));
    for (const auto &key : state.value(u"groupKeys"_s).toArray())
        grouping.keys << key.toString();
    grouping.pattern = state.value(u"groupPattern"_s).toString();
    (void)parseGroupCenter(state.value(u"groupCenter"_s).toString(), &grouping.center);
    (void)parseGroupBand(state.value(u"groupBand"_s).toString(), &grouping.band);
    setGrouping(grouping);
    writeSetting(Setting::CurvesColumns, std::clamp(state.value(u"columns"_s).toInt(2), 1, 4));
    writeSetting(Setting::CurvesChartHeight,
                 std::clamp(state.value(u"chartHeight"_s).toInt(kChartHeights[1]), kChartHeights[0],
                            kChartHeights[2]));
    writeSetting(Setting::CurvesSyncZoom, state.value(u"syncZoom"_s).toBool(true));
    // The layout menu's checks follow.
    if (auto *layout = findChild<QToolButton *>(u"layout"_s)) {
        for (QAction *action : layout->menu()->actions()) {
            const QString name = action->objectName();
            if (name.startsWith(u"columns"_s))
                action->setChecked(name.mid(7).toInt() == columns());
            else if (name.startsWith(u"height"_s))
                action->setChecked(name.mid(6).toInt() == chartHeight());
            else if (name == u"syncZoom"_s)
                action->setChecked(syncZoom());
        }
    }
    Q_EMIT layoutChanged();
}

void CurvesControls::setGrouping(const RunGrouping &grouping) {
    m_grouping = grouping;
    writeSetting(Setting::CurvesGroupBy, static_cast<int>(grouping.by));
    writeSetting(Setting::CurvesGroupKeys, grouping.keys);
    writeSetting(Setting::CurvesGroupPattern, grouping.pattern);
    writeSetting(Setting::CurvesGroupCenter, groupCenterName(grouping.center));
    writeSetting(Setting::CurvesGroupBand, groupBandName(grouping.band));
    updateGroupButton();
    Q_EMIT groupingChanged();
}

void CurvesControls::chooseGrouping(RunGrouping::By by) {
    RunGrouping grouping = m_grouping;
    grouping.by = by;
    if (by == RunGrouping::By::Keys) {
        // The hyperparameters the runs have, to tick; the ones chosen before come ticked.
        QDialog dialog(this);
        dialog.setWindowTitle(CurvesView::tr("Group by config keys"));
        auto *keys = new QListWidget;
        keys->setObjectName(u"groupKeys"_s);
        QMap<QString, QSet<QString>> values; // each key's values among the shown runs
        for (const RunInfo &run : m_shownRuns()) {
            const QJsonObject config = flattenConfig(run.config);
            for (auto it = config.begin(); it != config.end(); ++it)
                values[it.key()].insert(configValueText(it.value()));
        }
        for (auto it = values.cbegin(); it != values.cend(); ++it) {
            const QString &key = it.key();
            auto *item = new QListWidgetItem(
                it->size() == 1
                    ? CurvesView::tr("%1  (1 value)").arg(key)
                    : CurvesView::tr("%1  (%2 values)").arg(key, QString::number(it->size())),
                keys);
            item->setData(Qt::UserRole, key);
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            item->setCheckState(m_grouping.keys.contains(key) ? Qt::Checked : Qt::Unchecked);
        }
        auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
        connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
        connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
        auto *layout = new QVBoxLayout(&dialog);
        layout->addWidget(new QLabel(CurvesView::tr("Runs with the same values of the ticked "
                                                    "keys are one group (leave the seed "
                                                    "unticked):")));
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
            this, CurvesView::tr("Group by name pattern"),
            CurvesView::tr("A regular expression on run names; its first group in parentheses "
                           "names the group (the whole match without one):"),
            QLineEdit::Normal,
            m_grouping.pattern.isEmpty() ? u"(.*)[-_]seed\\d+"_s : m_grouping.pattern, &ok);
        if (!ok)
            return updateGroupButton();
        if (const QRegularExpression check(pattern); !check.isValid()) {
            Q_EMIT problem(CurvesView::tr("Not a regular expression: %1").arg(check.errorString()));
            return updateGroupButton();
        }
        grouping.pattern = pattern;
    }
    setGrouping(grouping);
}

void CurvesControls::updateGroupButton() {
    const QString what = m_grouping.describe();
    m_groupButton->setText(
        what.isEmpty()
            ? CurvesView::tr("Group")
            : CurvesView::tr("Grouped: %1")
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

} // namespace sb
