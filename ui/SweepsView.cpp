#include "SweepsView.h"

#include "EmptyState.h"
#include "Swatches.h"
#include "util/PlainText.h"

#include "charts/ParallelCoordinates.h"
#include "sweeps/Sweep.h"
#include "sweeps/SweepRegistry.h"
#include "sweeps/TrialCommand.h"
#include "sweeps/TrialsModel.h"
#include "util/Paths.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// Whether the spec draws this (flattened) parameter from a log distribution.
bool logDistributed(const QList<SweepParameter> &parameters, const QString &path) {
    const QString head = path.section(u'.', 0, 0);
    for (const SweepParameter &p : parameters) {
        if (p.name != head)
            continue;
        if (p.kind == SweepParameter::Kind::Nested)
            return logDistributed(p.children, path.section(u'.', 1));
        return p.distribution.contains("log"_L1);
    }
    return false;
}

// The trials that have the sweep's metric, as the analysis reads runs: their parameters, and
// their best value as the metric; log axes where the spec draws from a log distribution.
ParamTable trialsTable(const Sweep &sweep) {
    const SweepSpec &spec = sweep.spec();
    const QString metric = spec.metric.isEmpty() ? u"metric"_s : spec.metric;
    QList<RunSummary> trials;
    for (const Trial &trial : sweep.trials()) {
        const std::optional<double> best = trial.best(spec.maximize);
        if (!best)
            continue;
        RunSummary run;
        run.info.name = trial.run.isEmpty() ? u"trial %1"_s.arg(trial.number) : trial.run;
        run.info.config = trial.parameters;
        run.metrics[metric].count = 1;
        run.metrics[metric].last.value = *best;
        trials << run;
    }
    ParamTable table = paramTable(trials, metric, MetricStatistic::Last);
    for (ParamColumn &column : table.params)
        column.logScale = !column.categorical && logDistributed(spec.parameters, column.name);
    return table;
}

// The best trial's row: bold on a pale green.
class BestRowDelegate final : public QStyledItemDelegate {
public:
    // runOf: the run of a trial's row, for its colour's swatch beside its number.
    BestRowDelegate(QObject *parent, std::function<QString(const QModelIndex &)> runOf)
        : QStyledItemDelegate(parent)
        , m_runOf(std::move(runOf)) {}

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override {
        QStyledItemDelegate::initStyleOption(option, index);
        if (index.column() == TrialsModel::Number)
            addRunSwatch(option, m_runOf(index));
        if (index.data(TrialsModel::BestRole).toBool()) {
            option->font.setBold(true);
            option->backgroundBrush = QColor(0x59, 0xa1, 0x4f, 70); // green on light and dark
        }
    }

private:
    std::function<QString(const QModelIndex &)> m_runOf;
};

// A value for a summary line: numbers to six digits.
QString shortValue(const QJsonValue &value) {
    return value.isDouble() ? QString::number(value.toDouble(), 'g', 6) : argumentValue(value);
}

} // namespace

SweepsView::SweepsView(JobsModel *jobs, CollectorClient *collector, QWidget *parent)
    : QWidget(parent)
    , m_registry(new SweepRegistry(jobs, collector, defaultDataDir() + u"/sweeps"_s, this))
    , m_model(new TrialsModel(this))
    , m_sorted(new QSortFilterProxyModel(this))
    , m_list(new QComboBox)
    , m_status(new QLabel)
    , m_stop(new QPushButton(tr("Stop")))
    , m_more(new QSpinBox)
    , m_extend(new QPushButton(tr("Extend")))
    , m_curves(new QPushButton(tr("Show curves")))
    , m_table(new QTableView)
    , m_chart(new ParallelCoordinates) {
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(TrialsModel::SortRole);
    m_table->setModel(m_sorted);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(TrialsModel::Number, Qt::AscendingOrder);
    m_table->setItemDelegate(new BestRowDelegate(m_table, [this](const QModelIndex &index) {
        const Sweep *sweep = current();
        const int trial = index.data(TrialsModel::TrialRole).toInt();
        return sweep && trial >= 0 && trial < sweep->trials().size() ? sweep->trials()[trial].run
                                                                     : QString();
    }));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setToolTip(tr("Double-click a trial for its curve alone"));
    m_list->setMinimumWidth(280);
    m_list->setPlaceholderText(tr("No sweeps yet"));
    m_more->setRange(1, 10000);
    m_more->setValue(10);
    m_more->setSuffix(tr(" trials"));
    m_status->setWordWrap(true);
    auto *open = new QPushButton(tr("Open sweep…"));
    open->setToolTip(tr("A W&B sweep YAML with a signalbox: section for where trials run"));

    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Sweep:")));
    bar->addWidget(m_list, 1);
    bar->addWidget(open);
    bar->addSpacing(12);
    bar->addWidget(m_stop);
    bar->addWidget(m_more);
    bar->addWidget(m_extend);
    bar->addWidget(m_curves);
    auto *split = new QSplitter(Qt::Vertical);
    split->setObjectName(u"sweepsSplitter"_s);
    split->addWidget(m_table);
    split->addWidget(m_chart);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

    auto *empty = new EmptyState(m_table, [this] {
        if (m_list->count() > 0)
            return tr("No trial has started yet.");
        return tr("<p><b>No sweeps yet</b></p><p><a href=\"open\">Open a sweep…</a> (Ctrl+O): "
                  "a Weights &amp; Biases sweep YAML with a <code>signalbox:</code> section that "
                  "says where its trials run (this computer, SSH nodes' free GPUs, a Kubernetes "
                  "or Slurm cluster). Examples: %1</p>")
            .arg(sharedFile(u"examples/sweeps"_s).toHtmlEscaped());
    });
    connect(m_list, &QComboBox::currentIndexChanged, empty, &EmptyState::refresh);
    connect(empty, &QLabel::linkActivated, this, &SweepsView::chooseFile);
    connect(open, &QPushButton::clicked, this, &SweepsView::chooseFile);
    connect(m_list, &QComboBox::currentIndexChanged, this, &SweepsView::showSweep);
    connect(m_stop, &QPushButton::clicked, this, [this] {
        if (Sweep *sweep = current())
            sweep->stop();
    });
    connect(m_extend, &QPushButton::clicked, this, [this] {
        if (Sweep *sweep = current())
            sweep->extend(m_more->value());
    });
    connect(m_curves, &QPushButton::clicked, this, [this] {
        if (Sweep *sweep = current())
            Q_EMIT curvesRequested(sweep->runs());
    });
    connect(m_registry, &SweepRegistry::added, this, &SweepsView::add);
    connect(m_registry, &SweepRegistry::problem, this, &SweepsView::error);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        Sweep *sweep = current();
        const int trial = index.data(TrialsModel::TrialRole).toInt();
        if (sweep && trial < sweep->trials().size() && !sweep->trials()[trial].run.isEmpty())
            Q_EMIT curvesRequested({sweep->trials()[trial].run});
    });
    refresh();
}

QList<Sweep *> SweepsView::sweeps() const {
    return m_registry->sweeps();
}

Sweep *SweepsView::current() const {
    const int index = m_list->currentIndex();
    const QList<Sweep *> all = sweeps();
    return index >= 0 && index < all.size() ? all[index] : nullptr;
}

void SweepsView::setStateDirectory(const QString &directory) {
    m_registry->setStateDirectory(directory);
}

void SweepsView::resumeAll() {
    m_registry->resumeAll();
}

Result<Sweep *> SweepsView::open(const QString &file, quint64 seed) {
    return m_registry->open(file, seed);
}

void SweepsView::chooseFile() {
    const QString file = QFileDialog::getOpenFileName(this, tr("Open a sweep"), {},
                                                      tr("Sweep files (*.yaml *.yml)"));
    if (file.isEmpty())
        return;
    if (const auto sweep = open(file, QRandomGenerator::global()->generate64()); !sweep)
        Q_EMIT error(sweep.error());
}

void SweepsView::add(Sweep *sweep) {
    m_list->addItem(sweep->spec().name);
    connect(sweep, &Sweep::changed, this, [this, sweep] {
        if (sweep == current() && m_model->rowCount() != m_sizedRows) {
            m_table->resizeColumnsToContents(); // to the values, as trials arrive
            m_sizedRows = m_model->rowCount();
        }
        const auto index = sweeps().indexOf(sweep);
        m_list->setItemText(static_cast<int>(index),
                            u"%1 · %2"_s.arg(sweep->spec().name, sweep->statusText()));
        if (sweep == current())
            refresh();
    });
    m_list->setCurrentIndex(static_cast<int>(sweeps().size() - 1));
    Q_EMIT sweep->changed();
}

void SweepsView::showSweep(int index) {
    const QList<Sweep *> all = sweeps();
    Sweep *sweep = index >= 0 && index < all.size() ? all[index] : nullptr;
    m_model->setSweep(sweep);
    m_sizedRows = m_model->rowCount();
    m_table->resizeColumnsToContents();
    refresh();
}

void SweepsView::refresh() {
    Sweep *sweep = current();
    m_stop->setEnabled(sweep && sweep->state() == Sweep::State::Running);
    m_extend->setEnabled(sweep != nullptr);
    m_more->setEnabled(sweep != nullptr);
    m_curves->setEnabled(sweep && !sweep->runs().isEmpty());
    m_chart->setTable(sweep ? trialsTable(*sweep) : ParamTable{},
                      sweep ? !sweep->spec().maximize : true);
    if (!sweep) {
        m_status->setText(tr("Open a sweep file (the W&B sweep YAML) to run its trials on this "
                             "computer, SSH nodes' free GPUs, a Kubernetes or a Slurm cluster."));
        return;
    }
    QString text = u"<b>%1</b> · %2 · %3"_s.arg(htmlOf(sweep->spec().name),
                                                sweepMethodName(sweep->spec().method),
                                                htmlOf(sweep->statusText()));
    if (const int best = sweep->bestTrial(); best >= 0) {
        const Trial &trial = sweep->trials()[best];
        QStringList parameters;
        for (const QString &name : flatParameterNames(*sweep))
            parameters << u"%1=%2"_s.arg(name, shortValue(flatParameter(trial.parameters, name)));
        text += u"<br>best: trial %1, %2 %3 %4 (%5)"_s.arg(best).arg(
            htmlOf(sweep->spec().metric), sweep->spec().maximize ? u"max"_s : u"min"_s,
            QString::number(*trial.best(sweep->spec().maximize), 'g', 6),
            htmlOf(parameters.join(u", "_s)));
    }
    m_status->setText(text);
}

} // namespace sb
