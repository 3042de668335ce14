#include "JobsView.h"

#include "Settings.h"

#include "EmptyState.h"
#include "NewRunDialog.h"
#include "Swatches.h"
#include "kube/KubeConfig.h"
#include "util/PlainText.h"

#include <QApplication>
#include <QCheckBox>
#include <QDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLineEdit>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTreeView>
#include <QVBoxLayout>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr int kMaxLogBlocks = 20000; // the view keeps the tail; the file keeps everything

// A job of trials' log holds whole lines, each starting with its trial's "[i] ": one trial's.
QByteArray onlyTrial(const QByteArray &log, const QByteArray &prefix) {
    if (prefix.isEmpty())
        return log;
    QByteArray lines;
    for (const QByteArray &line : log.split('\n')) {
        if (line.startsWith(prefix))
            lines += line.mid(prefix.size()) + '\n';
    }
    return lines;
}

// A state's colour, as a swatch beside its words: readable on light and dark palettes alike.
class StateDelegate final : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override {
        QStyledItemDelegate::initStyleOption(option, index);
        if (index.column() != JobsModel::State)
            return;
        const auto state = static_cast<JobState>(index.data(JobsModel::StateRole).toInt());
        addSwatch(option, colour(state), SwatchShape::Dot);
    }

private:
    static QColor colour(JobState state) {
        static const QHash<JobState, QColor> colours{
            {JobState::Queued, QColor(0xe6, 0x9f, 0x00)},    // amber
            {JobState::Running, QColor(0x00, 0x72, 0xb2)},   // blue
            {JobState::Succeeded, QColor(0x00, 0x9e, 0x73)}, // green
            {JobState::Failed, QColor(0xd5, 0x5e, 0x00)},    // vermilion
            {JobState::Stopped, QColor(0x99, 0x99, 0x99)},   // grey
        };
        return colours.value(state, Qt::gray);
    }
};

} // namespace

QString JobsView::emptyHint(const QString &configPath) const {
    QString hint = tr("<p><b>No runs yet</b></p><p><a href=\"new\">New run…</a> (Ctrl+N) starts "
                      "a script on this computer, on an SSH node's free GPUs or on a cluster, "
                      "and follows its output here.</p>");
    // A cluster backend without clusters says where they would come from.
    const auto noTargets = [this](QLatin1StringView name) {
        const JobBackend *backend = m_jobs->registry()->backend(name);
        return backend && backend->targets().isEmpty();
    };
    if (noTargets(BackendName::kKubernetes)) {
        hint += tr("<p>No Kubernetes cluster: clusters come from the kubeconfig's current "
                   "context (%1; <code>--cluster CONTEXT</code> picks others).</p>")
                    .arg(KubeConfig::defaultPaths().join(u", "_s).toHtmlEscaped());
    }
    if (noTargets(BackendName::kSlurm)) {
        hint += tr("<p>No Slurm cluster: name one under <code>slurm_clusters:</code> in %1, with "
                   "its login node among the config's nodes.</p>")
                    .arg(configPath.isEmpty() ? tr("the config") : configPath.toHtmlEscaped());
    }
    return hint;
}

JobsView::JobsView(JobsModel *jobs, const QString &configPath, QWidget *parent)
    : QWidget(parent)
    , m_jobs(jobs)
    , m_filtered(new QSortFilterProxyModel(this))
    , m_table(new QTreeView)
    , m_log(new QPlainTextEdit) {
    m_filtered->setSourceModel(jobs);
    m_filtered->setFilterKeyColumn(-1); // name, state and its reason, node, GPUs, command
    m_filtered->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filtered->setRecursiveFilteringEnabled(true); // a matching trial keeps its job
    m_filtered->setAutoAcceptChildRows(true);       // a matching sweep shows all of its jobs
    m_table->setModel(m_filtered);
    m_table->setItemDelegate(new StateDelegate(m_table));
    // A run's colour beside its name, as the curves draw it: rows that are runs (not a sweep's,
    // not a job of trials').
    m_table->setItemDelegateForColumn(
        JobsModel::Name, new RunSwatchDelegate(m_table, [this](const QModelIndex &index) {
            return m_filtered->rowCount(index.siblingAtColumn(0)) == 0 ? index.data().toString()
                                                                       : QString();
        }));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setUniformRowHeights(true);     // thousands of cluster jobs
    m_table->setExpandsOnDoubleClick(false); // a double-click opens curves; the arrow unfolds
    m_table->header()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setColumnWidth(JobsModel::Name, 240);
    m_table->setColumnWidth(JobsModel::State, 420); // with the reason a job waits or failed
    for (const auto &[column, width] : {std::pair{JobsModel::Backend, 70},
                                        {JobsModel::Node, 90},
                                        {JobsModel::Gpus, 90},
                                        {JobsModel::Submitted, 140},
                                        {JobsModel::Waited, 60},
                                        {JobsModel::Duration, 70},
                                        {JobsModel::ExitCode, 45}})
        m_table->setColumnWidth(column, width);
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(kMaxLogBlocks);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_log->setPlaceholderText(tr("Select a run to follow its output"));

    auto *run = new QPushButton(tr("New run…"));
    m_stop = new QPushButton(tr("Stop"));
    m_resubmit = new QPushButton(tr("Resubmit…"));
    m_describe = new QPushButton(tr("Describe"));
    m_describe->setToolTip(tr("Everything known about the run; on a cluster also its conditions, "
                              "pods and events (Ctrl+I)"));
    m_allJobs = new QCheckBox(tr("All jobs on the clusters (every user's)"));
    m_allJobs->setToolTip(tr("Also jobs not submitted from Signalbox: every job of a Kubernetes "
                             "namespace, every user's on a Slurm cluster (your own are always "
                             "shown)"));
    m_allJobs->setObjectName(u"allJobs"_s);
    auto *filter = new QLineEdit;
    filter->setObjectName(u"filter"_s);
    filter->setPlaceholderText(tr("Filter (name, state, node, GPUs, command)"));
    filter->setClearButtonEnabled(true);
    connect(filter, &QLineEdit::textChanged, m_filtered,
            &QSortFilterProxyModel::setFilterFixedString);
    // The backends that can show jobs not submitted from Signalbox.
    const QList<JobBackend *> foreign = m_jobs->registry()->with(
        [](const JobBackend::Capabilities &can) { return can.foreignJobs; });
    m_allJobs->setVisible(!foreign.isEmpty());
    m_allJobs->setChecked(!foreign.isEmpty() && foreign.front()->allJobs());
    m_remove = new QPushButton(tr("Remove"));
    m_remove->setObjectName(u"remove"_s);
    // The keyboard's way through a run's life; the buttons' shortcuts work while they show.
    m_stop->setShortcut(Qt::CTRL | Qt::Key_Period);
    m_stop->setToolTip(tr("Stop the run, or cancel it while it waits (Ctrl+.)"));
    m_resubmit->setShortcut(Qt::CTRL | Qt::Key_R);
    m_resubmit->setToolTip(tr("A new run from this one's settings, to edit first (Ctrl+R)"));
    m_describe->setShortcut(Qt::CTRL | Qt::Key_I);
    m_remove->setToolTip(tr("Remove this ended run from the history, with its saved output "
                            "(Delete); its curves stay"));
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(run);
    buttons->addWidget(m_stop);
    buttons->addWidget(m_resubmit);
    buttons->addWidget(m_describe);
    buttons->addWidget(m_remove);
    buttons->addWidget(filter, 1);
    buttons->addWidget(m_allJobs);

    auto *splitter = new QSplitter(Qt::Vertical);
    splitter->setObjectName(u"jobsSplitter"_s);
    splitter->addWidget(m_table);
    // The output, and under it how many metric lines it hides (stored as metrics already).
    m_metricLines = new QCheckBox;
    m_metricLines->setObjectName(u"metricLines"_s);
    m_metricLines->setToolTip(tr("The lines a script prints for its metrics (@signalbox {...}) "
                                 "are stored as metrics; check to see them among its output"));
    m_metricLines->hide();
    connect(m_metricLines, &QCheckBox::toggled, this, [this] { showLog(); });
    auto *output = new QWidget;
    auto *outputLayout = new QVBoxLayout(output);
    outputLayout->setContentsMargins(0, 0, 0, 0);
    outputLayout->addWidget(m_log);
    outputLayout->addWidget(m_metricLines);
    splitter->addWidget(output);
    splitter->setSizes({300, 300});
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(splitter);

    auto *empty = new EmptyState(m_table, [this, filter, configPath] {
        if (m_jobs->rowCount() > 0)
            return tr("No run matches “%1”.").arg(htmlOf(filter->text()));
        return emptyHint(configPath);
    });
    connect(empty, &QLabel::linkActivated, this, [this] { newRun({}); });
    connect(run, &QPushButton::clicked, this, [this] { newRun({}); });
    connect(m_resubmit, &QPushButton::clicked, this, [this] {
        if (const Job *job = selected())
            newRun(job->spec);
    });
    connect(m_describe, &QPushButton::clicked, this, &JobsView::describe);
    // Delete in the table only: elsewhere it edits text.
    auto *removeKey = new QShortcut(QKeySequence::Delete, m_table, nullptr, nullptr,
                                    Qt::WidgetWithChildrenShortcut);
    connect(removeKey, &QShortcut::activated, m_remove, &QPushButton::click);
    connect(m_remove, &QPushButton::clicked, this, [this] {
        const Job *job = selected();
        if (!job || !m_remove->isEnabled())
            return;
        if (Status removed = backendOf(*job)->forget(job->id); !removed)
            Q_EMIT error(removed.error());
    });
    // Double-click or Return: the row's curves.
    connect(m_table, &QTreeView::activated, this, [this](const QModelIndex &index) {
        const QStringList runs = runsOf(index.siblingAtColumn(JobsModel::Name));
        if (!runs.isEmpty())
            Q_EMIT curvesRequested(runs);
    });
    connect(m_allJobs, &QCheckBox::toggled, this, [foreign](bool all) {
        for (JobBackend *backend : foreign)
            backend->setAllJobs(all);
    });
    connect(m_stop, &QPushButton::clicked, this, [this] {
        const Job *job = selected();
        if (!job)
            return;
        JobBackend *backend = backendOf(*job);
        const int trial = selectedTrial();
        if (Status stopped =
                trial < 0 ? backend->stop(job->id) : backend->stopIndex(job->id, trial);
            !stopped)
            Q_EMIT error(stopped.error());
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        showLog();
        updateButtons();
    });
    connect(m_jobs, &QAbstractItemModel::dataChanged, this, [this] {
        updateButtons();
        updatePlaceholder();
    });
    updateButtons();
}

JobBackend *JobsView::backendOf(const Job &job) const {
    return m_jobs->registry()->backend(job.backend);
}

const Job *JobsView::selected() const {
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? nullptr : m_jobs->job(m_filtered->mapToSource(rows.front()));
}

int JobsView::selectedTrial() const {
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : rows.front().data(JobsModel::TrialRole).toInt();
}

QStringList JobsView::runsOf(const QModelIndex &name) const {
    // A run is named as its row is: a job's after the job, a trial's as its row; a job of trials
    // or a sweep shows all of its runs.
    if (m_filtered->rowCount(name) == 0) {
        const Job *job = m_jobs->job(m_filtered->mapToSource(name));
        return job && !job->foreign ? QStringList{name.data().toString()} : QStringList();
    }
    QStringList runs;
    for (int row = 0; row < m_filtered->rowCount(name); ++row)
        runs << runsOf(m_filtered->index(row, JobsModel::Name, name));
    return runs;
}

bool JobsView::selectRun(const QString &run) {
    // A job's own run, else a trial's: "<job>-<index>" is the index's row under the job's.
    const qsizetype dash = run.lastIndexOf(u'-');
    bool isNumber = false;
    const int trial = dash > 0 ? run.mid(dash + 1).toInt(&isNumber) : -1;
    for (const JobBackend *backend : m_jobs->registry()->backends()) {
        QModelIndex index = m_jobs->indexOf(backend->name(), run);
        if (!index.isValid() && isNumber) {
            const QModelIndex job = m_jobs->indexOf(backend->name(), run.left(dash));
            for (int row = 0; row < m_jobs->rowCount(job); ++row) {
                if (m_jobs->index(row, 0, job).data(JobsModel::TrialRole).toInt() == trial)
                    index = m_jobs->index(row, 0, job);
            }
        }
        index = m_filtered->mapFromSource(index);
        if (!index.isValid())
            continue;
        for (QModelIndex parent = index.parent(); parent.isValid(); parent = parent.parent())
            m_table->expand(parent);
        m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                              QItemSelectionModel::Rows);
        m_table->scrollTo(index);
        return true;
    }
    return false;
}

void JobsView::updateButtons() {
    const Job *job = selected();
    const int trial = selectedTrial();
    const bool running = trial < 0 ? job && !job->finishedState()
                                   : job && !isFinished(job->indexStates.value(trial));
    m_stop->setEnabled(running); // a queued job is cancelled
    m_stop->setText(trial < 0 ? tr("Stop") : tr("Stop trial"));
    m_resubmit->setEnabled(job != nullptr);
    m_describe->setEnabled(job != nullptr);
    m_remove->setEnabled(job && trial < 0 && !job->foreign && job->finishedState());
}

void JobsView::describe() {
    const Job *job = selected();
    if (!job)
        return;
    auto *dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setObjectName(u"describe"_s);
    dialog->setWindowTitle(tr("Run %1").arg(job->id));
    auto *text =
        new QPlainTextEdit(tr("Asking %1…").arg(job->node.isEmpty() ? job->backend : job->node));
    text->setReadOnly(true);
    text->setLineWrapMode(QPlainTextEdit::NoWrap);
    text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto *layout = new QVBoxLayout(dialog);
    layout->addWidget(text);
    dialog->resize(900, 560);
    dialog->show();
    backendOf(*job)->describe(job->id, text, [text](const QString &description) {
        text->setPlainText(visibleControls(description)); // a cluster's words, names and all
    });
}

// An empty pane says why: nothing selected, the run has not started, or it ended before it
// printed anything.
void JobsView::updatePlaceholder() {
    const Job *job = selected();
    const int trial = selectedTrial();
    const JobState state =
        !job || trial < 0 ? (job ? job->state : JobState::Queued) : job->indexStates.value(trial);
    const QString message = job ? job->message : QString();
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const bool sweep = !job && !rows.isEmpty();
    m_log->setPlaceholderText(
        sweep  ? tr("A sweep: select one of its jobs to follow its output")
        : !job ? tr("Select a run to follow its output")
        : state == JobState::Queued
            ? tr("No output yet: %1").arg(message.isEmpty() ? tr("waiting to start") : message)
        : state == JobState::Running ? tr("No output yet")
        : message.isEmpty()          ? tr("It printed nothing")
                                     : tr("It printed nothing (%1)").arg(message));
}

void JobsView::showLog() {
    const Job *job = selected();
    m_log->clear();
    if (!job) {
        m_following.clear();
        updateMetricLines();
        updatePlaceholder();
        return;
    }
    JobBackend *backend = backendOf(*job);
    m_following = job->id;
    const int trial = selectedTrial();
    m_followingPrefix = trial < 0 ? QByteArray() : '[' + QByteArray::number(trial) + "] ";
    m_output = JobOutput(m_metricLines->isChecked());
    if (const auto log = backend->log(job->id)) {
        constexpr qsizetype kTail = 4 << 20;
        QByteArray tail = log->right(kTail);
        if (log->size() > kTail) // from the first whole line on
            tail.remove(0, tail.indexOf('\n') + 1);
        const QByteArray lines = onlyTrial(tail, m_followingPrefix);
        QString text = m_output.feed(lines);
        text += m_output.flush(); // the log's last line, whatever it may become
        m_log->setPlainText(text);
    } else {
        m_log->setPlainText(log.error());
    }
    updateMetricLines();
    updatePlaceholder();
    m_log->verticalScrollBar()->setValue(m_log->verticalScrollBar()->maximum());
    disconnect(backend, &JobBackend::logAppended, this, nullptr);
    connect(backend, &JobBackend::logAppended, this,
            [this](const QString &id, const QByteArray &chunk) {
                if (id != m_following)
                    return;
                const QByteArray lines = onlyTrial(chunk, m_followingPrefix);
                if (!lines.isEmpty())
                    appendOutput(m_output.feed(lines));
            });
}

void JobsView::appendOutput(const QString &text) {
    updateMetricLines();
    if (text.isEmpty())
        return;
    QScrollBar *bar = m_log->verticalScrollBar();
    const bool atEnd = bar->value() == bar->maximum();
    m_log->moveCursor(QTextCursor::End);
    m_log->insertPlainText(text);
    if (atEnd)
        bar->setValue(bar->maximum());
}

void JobsView::updateMetricLines() {
    const qint64 count = m_following.isEmpty() ? 0 : m_output.hiddenLines();
    m_metricLines->setText(m_metricLines->isChecked()
                               ? tr("Metric lines shown: %L1").arg(count)
                               : tr("Metric lines hidden: %L1 (stored as metrics)").arg(count));
    m_metricLines->setVisible(count > 0 || m_metricLines->isChecked());
}

void JobsView::newRun(const JobSpec &preset) {
    // A new run starts from the last one's choices (where, GPUs, command, directory, the
    // cluster's options), under a name of its own.
    JobSpec start = preset;
    if (preset.command.isEmpty()) {
        const QJsonObject last =
            QJsonDocument::fromJson(readSetting(Setting::NewRunLast).toByteArray()).object();
        if (!last.isEmpty()) {
            start = JobSpec::fromJson(last);
            start.name.clear();
            start.slurm.script.clear(); // a hand-edited script was for that run
            start.trials = 0;
        }
    }
    NewRunDialog dialog(start, m_nodeNames ? m_nodeNames() : QStringList(), m_jobs->registry(),
                        this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const RunDraft draft = dialog.draft();
    const JobSpec &spec = draft.spec;
    JobBackend *backend = m_jobs->registry()->backend(spec.backend);
    if (!backend) {
        Q_EMIT error(tr("No %1 backend to run this on").arg(spec.backend));
        return;
    }
    // A cluster run goes as the backend's check accepted it in the dialog.
    const auto id = backend->submitDraft(draft);
    if (!id) {
        Q_EMIT error(id.error());
        return;
    }
    writeSetting(Setting::NewRunLast, QJsonDocument(spec.toJson()).toJson(QJsonDocument::Compact));
    selectRun(*id);
    m_table->setFocus(); // the new run, ready for the keyboard: Return for curves, Ctrl+. to stop
}

} // namespace sb
