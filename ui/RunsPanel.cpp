#include "RunsPanel.h"

#include "CurvesView.h" // its translations: these words were its own
#include "FrozenColumnTable.h"
#include "MenuButton.h"
#include "Remembered.h"
#include "Settings.h"
#include "Swatches.h"
#include "Theme.h"
#include "WordCompleter.h"
#include "client/CollectorClient.h"
#include "metrics/ConfigDiff.h"
#include "metrics/RunColors.h"
#include "metrics/RunQuery.h"
#include "metrics/RunsModel.h"
#include "util/PlainText.h"

#include <QAction>
#include <QColorDialog>
#include <QComboBox>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWidgetAction>

#include <functional>
#include <optional>

namespace sb {

using namespace Qt::StringLiterals;

// The runs of one status (every run without one), counted honestly, that pass the filter's query;
// the status column coloured where a run ended badly (failed, crashed) or fell silent (lost).
class RunFilter final : public QSortFilterProxyModel {
public:
    explicit RunFilter(RunsModel *runs, QObject *parent)
        : QSortFilterProxyModel(parent)
        , m_runs(runs) {
        setSourceModel(runs);
    }
    void setStatus(const std::optional<QString> &status) {
        m_status = status;
        invalidateFilter();
    }
    void setQuery(std::optional<RunQuery> query) {
        m_query = std::move(query);
        invalidateFilter();
    }
    // The archived runs alone, or (by default) the others.
    void setArchived(bool archived) {
        m_archived = archived;
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
    bool filterAcceptsRow(int row, const QModelIndex &) const override {
        const RunSummary *run = m_runs->summaryAt(row);
        return run && run->info.archived.value_or(false) == m_archived &&
               (!m_status || run->info.status == *m_status) &&
               (!m_query ||
                m_query->matches(*run, double(QDateTime::currentMSecsSinceEpoch()) / 1000));
    }

private:
    RunsModel *m_runs;
    std::optional<QString> m_status;
    std::optional<RunQuery> m_query;
    bool m_archived = false;
};

RunsPanel::RunsPanel(RunsModel *runs, CollectorClient *collector, QWidget *parent)
    : QWidget(parent)
    , m_runs(runs)
    , m_collector(collector)
    , m_byFields(new RunFilter(runs, this))
    , m_filtered(new QSortFilterProxyModel(this))
    , m_table(new FrozenColumnTable)
    , m_metrics(new QListWidget) {
    m_filtered->setSourceModel(m_byFields);
    m_filtered->setFilterKeyColumn(-1);
    m_filtered->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filtered->setSortRole(RunsModel::SortRole);
    for (const auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_filtered, signal, this, &RunsPanel::shownRunsChanged);
    connect(m_filtered, &QAbstractItemModel::modelReset, this, &RunsPanel::shownRunsChanged);
    m_fitNames = new QTimer(this);
    m_fitNames->setSingleShot(true);
    connect(m_fitNames, &QTimer::timeout, this, &RunsPanel::fitNames);
    connect(this, &RunsPanel::shownRunsChanged, m_fitNames, qOverload<>(&QTimer::start));

    m_table->setModel(m_filtered);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &RunsPanel::selectionChanged);
    m_table->setItemDelegateForColumn(0,
                                      new RunSwatchDelegate(m_table, [](const QModelIndex &index) {
                                          return index.data(RunsModel::RunNameRole).toString();
                                      }));
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(0, Qt::AscendingOrder); // A to Z (a header's first sort is Z to A)
    // One line a run: long names elided in the middle (a sweep's prefix and its trial's end
    // both show), never wrapped.
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);
    connect(m_runs, &QAbstractItemModel::modelReset, m_table, [this] {
        applyHiddenColumns();
        m_table->resizeColumnsToContents();
    });
    static_cast<FrozenColumnTable *>(m_table)->syncFrozen(); // the manners set above
    m_hiddenColumns = [] {
        const QStringList hidden = readSetting(Setting::RunsHiddenColumns).toStringList();
        return QSet<QString>(hidden.cbegin(), hidden.cend());
    }();
    addRunActions();

    m_metrics->setMaximumHeight(160);
    connect(m_metrics, &QListWidget::itemChanged, this, &RunsPanel::metricsChanged);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(filterRows());
    layout->addWidget(m_table, 3);
    layout->addWidget(new QLabel(CurvesView::tr("Metrics")));
    layout->addWidget(m_metrics, 1);
}

QLayout *RunsPanel::filterRows() {
    m_filter = new QLineEdit;
    m_filter->setObjectName(u"filter"_s);
    m_filter->setPlaceholderText(
        CurvesView::tr("Filter runs: words, or a query such as config.lr < 1e-3"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setToolTip(CurvesView::tr(
        "Words find the runs whose name, status, host, tags, note or hyperparameters hold them.\n"
        "A query compares their fields:\n"
        "  config.lr < 1e-3 and best(val/loss) < 0.5 and tags has \"baseline\"\n"
        "  status in (failed, crashed) or val/loss = nan\n"
        "  start > 7d ago and duration > 2h and config.optimizer ~ \"^adam\"\n"
        "Fields: name, status, host, sweep, note, tags, start, end, last_seen, duration, "
        "config.KEY, a metric (its last value), last/min/max/best/count/step(METRIC).\n"
        "Operators: = != < <= > >= ~ (regular expression) !~ has in (…), joined by and, or, not."));
    m_completer = new WordCompleter(m_filter);
    m_filterProblem = new QLabel;
    m_filterProblem->setObjectName(u"filterProblem"_s);
    m_filterProblem->setTextFormat(Qt::PlainText); // it quotes what was typed
    m_filterProblem->setWordWrap(true);
    m_filterProblem->hide();
    connect(m_runs, &QAbstractItemModel::modelReset, this, &RunsPanel::offerWords); // new columns
    offerWords();
    // Plain text, or a regular expression as TensorBoard's filter (the ".*" toggle).
    m_regex = new QToolButton;
    m_regex->setObjectName(u"regex"_s);
    m_regex->setText(u".*"_s);
    m_regex->setCheckable(true);
    m_regex->setToolTip(CurvesView::tr("Filter with a regular expression"));
    connect(m_filter, &QLineEdit::textChanged, this, &RunsPanel::applyFilter);
    connect(m_regex, &QToolButton::toggled, this, &RunsPanel::applyFilter);

    // Which value of each metric the table shows: the last, or the run's smallest, largest, best.
    auto *statistic = m_statistic = new QComboBox;
    statistic->setObjectName(u"statistic"_s);
    statistic->addItem(CurvesView::tr("Last"), static_cast<int>(RunsModel::Statistic::Last));
    statistic->addItem(CurvesView::tr("Min"), static_cast<int>(RunsModel::Statistic::Min));
    statistic->addItem(CurvesView::tr("Max"), static_cast<int>(RunsModel::Statistic::Max));
    statistic->addItem(CurvesView::tr("Best"), static_cast<int>(RunsModel::Statistic::Best));
    statistic->setToolTip(
        CurvesView::tr("The value of each metric in the table: its last, smallest or "
                       "largest, or its best (smallest for losses, errors and times, "
                       "largest otherwise)"));
    statistic->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(statistic, &QComboBox::currentIndexChanged, this, [this, statistic] {
        m_runs->setStatistic(static_cast<RunsModel::Statistic>(statistic->currentData().toInt()));
    });
    remember(statistic);
    m_runs->setStatistic(static_cast<RunsModel::Statistic>(statistic->currentData().toInt()));

    // Each status with how many runs have it, lost and crashed runs among them.
    auto *status = m_status = new QComboBox;
    status->setObjectName(u"statusFilter"_s);
    status->setSizeAdjustPolicy(QComboBox::AdjustToContents); // its counts never cut off
    // The archive: its runs alone, counted.
    auto *archive = m_archive = new QToolButton;
    archive->setObjectName(u"archived"_s);
    archive->setCheckable(true);
    archive->setToolTip(CurvesView::tr("Show the archived runs instead of the others"));
    connect(archive, &QToolButton::toggled, m_byFields, &RunFilter::setArchived);
    auto countStatuses = [this, status, archive] {
        const QVariant chosen = status->currentData();
        const QMap<QString, int> counts = m_runs->statusCounts(archive->isChecked());
        int archived = 0;
        for (const int count : m_runs->statusCounts(true))
            archived += count;
        archive->setText(CurvesView::tr("Archived (%1)").arg(archived));
        int all = 0;
        for (const int count : counts)
            all += count;
        const QSignalBlocker quiet(status);
        status->clear();
        status->addItem(CurvesView::tr("All statuses (%1)").arg(all));
        for (auto it = counts.begin(); it != counts.end(); ++it) {
            if (!it.key().isEmpty())
                status->addItem(
                    u"%1 (%2)"_s.arg(runStatusText(it.key()), QString::number(it.value())),
                    it.key());
        }
        status->setCurrentIndex(std::max(0, status->findData(chosen)));
        // The status gone from this side (the archive toggled, the last such run gone): the
        // filter follows what the box shows.
        const QVariant shown = status->currentData();
        m_byFields->setStatus(shown.isValid() ? std::optional<QString>(shown.toString())
                                              : std::nullopt);
    };
    connect(m_runs, &QAbstractItemModel::modelReset, status, countStatuses);
    connect(m_runs, &QAbstractItemModel::rowsInserted, status, countStatuses);
    connect(m_runs, &QAbstractItemModel::rowsRemoved, status, countStatuses);
    connect(m_runs, &QAbstractItemModel::dataChanged, status, countStatuses);
    connect(archive, &QToolButton::toggled, status, countStatuses);
    connect(status, &QComboBox::currentIndexChanged, m_byFields, [this, status] {
        const QVariant chosen = status->currentData();
        m_byFields->setStatus(chosen.isValid() ? std::optional<QString>(chosen.toString())
                                               : std::nullopt);
    });
    countStatuses();

    auto *filterRow = new QHBoxLayout;
    filterRow->addWidget(m_filter, 1);
    filterRow->addWidget(m_regex);
    filterRow->addWidget(statistic);
    // A row of its own: the filter row's width is the window's least.
    auto *statusRow = new QHBoxLayout;
    statusRow->addWidget(status);
    statusRow->addWidget(archive);
    statusRow->addWidget(makeColumnChooser());
    statusRow->addStretch();
    auto *rows = new QVBoxLayout;
    rows->addLayout(filterRow);
    rows->addWidget(m_filterProblem);
    rows->addLayout(statusRow);
    return rows;
}

QToolButton *RunsPanel::makeColumnChooser() {
    QToolButton *button =
        menuButton(u"columns"_s, CurvesView::tr("Columns"),
                   CurvesView::tr("Put columns away or back (or right-click the header)"));
    QMenu *menu = button->menu();
    auto *chooser = new QWidget;
    auto *search = new QLineEdit;
    search->setObjectName(u"columnSearch"_s);
    search->setPlaceholderText(CurvesView::tr("Find a column"));
    search->setClearButtonEnabled(true);
    auto *list = new QListWidget;
    list->setObjectName(u"columnList"_s);
    list->setMinimumSize(280, 320);
    auto *layout = new QVBoxLayout(chooser);
    layout->addWidget(search);
    layout->addWidget(list);
    auto *holder = new QWidgetAction(menu);
    holder->setDefaultWidget(chooser);
    menu->addAction(holder);
    // Every column but the runs' names, as the table has them now.
    connect(menu, &QMenu::aboutToShow, this, [this, list, search] {
        const QSignalBlocker quiet(list);
        list->clear();
        for (int column = 1; column < m_filtered->columnCount(); ++column) {
            const QString title = m_filtered->headerData(column, Qt::Horizontal).toString();
            const QString key = columnKey(column);
            auto *item = new QListWidgetItem(isolated(title), list);
            item->setData(Qt::UserRole, key);
            item->setData(Qt::UserRole + 1, title);
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
            item->setCheckState(m_hiddenColumns.contains(key) ? Qt::Unchecked : Qt::Checked);
        }
        search->clear();
        search->setFocus();
    });
    connect(search, &QLineEdit::textChanged, list, [list](const QString &text) {
        for (int i = 0; i < list->count(); ++i)
            list->item(i)->setHidden(!list->item(i)
                                          ->data(Qt::UserRole + 1)
                                          .toString()
                                          .contains(text, Qt::CaseInsensitive));
    });
    connect(list, &QListWidget::itemChanged, this, [this](QListWidgetItem *item) {
        const QString key = item->data(Qt::UserRole).toString();
        if (item->checkState() == Qt::Checked)
            m_hiddenColumns.remove(key);
        else
            m_hiddenColumns.insert(key);
        writeSetting(Setting::RunsHiddenColumns,
                     QStringList(m_hiddenColumns.cbegin(), m_hiddenColumns.cend()));
        applyHiddenColumns();
    });
    // The header's context menu is the same chooser, over the frozen names' header too.
    for (QHeaderView *header :
         {m_table->horizontalHeader(),
          static_cast<FrozenColumnTable *>(m_table)->frozen()->horizontalHeader()}) {
        header->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(header, &QHeaderView::customContextMenuRequested, menu,
                [header, menu](const QPoint &at) { menu->popup(header->mapToGlobal(at)); });
    }
    return button;
}

QJsonObject RunsPanel::viewState() const {
    const QHeaderView *header = m_table->horizontalHeader();
    return {{u"filter"_s, m_filter->text()},
            {u"regex"_s, m_regex->isChecked()},
            {u"status"_s, m_status->currentData().toString()},
            {u"archived"_s, m_archive->isChecked()},
            {u"statistic"_s, m_statistic->currentIndex()},
            {u"hiddenColumns"_s, QJsonArray::fromStringList(QStringList(m_hiddenColumns.cbegin(),
                                                                        m_hiddenColumns.cend()))},
            {u"sortColumn"_s, columnKey(header->sortIndicatorSection())},
            {u"sortDescending"_s, header->sortIndicatorOrder() == Qt::DescendingOrder}};
}

void RunsPanel::applyViewState(const QJsonObject &state) {
    m_regex->setChecked(state.value(u"regex"_s).toBool());
    m_filter->setText(state.value(u"filter"_s).toString());
    m_archive->setChecked(state.value(u"archived"_s).toBool());
    m_status->setCurrentIndex(std::max(0, m_status->findData(state.value(u"status"_s).toString())));
    const int statistic = state.value(u"statistic"_s).toInt();
    if (statistic >= 0 && statistic < m_statistic->count())
        m_statistic->setCurrentIndex(statistic);
    m_hiddenColumns.clear();
    for (const auto &title : state.value(u"hiddenColumns"_s).toArray())
        m_hiddenColumns.insert(title.toString());
    writeSetting(Setting::RunsHiddenColumns,
                 QStringList(m_hiddenColumns.cbegin(), m_hiddenColumns.cend()));
    applyHiddenColumns();
    const QString sortKey = state.value(u"sortColumn"_s).toString(u"name"_s);
    for (int column = 0; column < m_filtered->columnCount(); ++column) {
        if (columnKey(column) == sortKey) {
            m_table->sortByColumn(column, state.value(u"sortDescending"_s).toBool()
                                              ? Qt::DescendingOrder
                                              : Qt::AscendingOrder);
            break;
        }
    }
}

void RunsPanel::fitNames() {
    const int was = m_table->columnWidth(0);
    m_table->resizeColumnToContents(0); // the rows in view
    const int most = std::max(was, m_table->viewport()->width() * 2 / 3);
    m_table->setColumnWidth(0, std::clamp(m_table->columnWidth(0), was, most));
}

QString RunsPanel::columnKey(int column) const {
    return m_filtered->headerData(column, Qt::Horizontal, RunsModel::ColumnKeyRole).toString();
}

void RunsPanel::applyHiddenColumns() {
    for (int column = 1; column < m_filtered->columnCount(); ++column)
        m_table->setColumnHidden(column, m_hiddenColumns.contains(columnKey(column)));
}

void RunsPanel::addRunActions() {
    // From a run to the job that made it and its output: a double-click, or the context menu.
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto *showJob = new QAction(CurvesView::tr("Show its job and output"), m_table);
    m_table->addAction(showJob);
    connect(showJob, &QAction::triggered, this, [this] {
        if (m_table->currentIndex().isValid())
            Q_EMIT jobRequested(currentRun());
    });
    connect(m_table, &QTableView::doubleClicked, showJob, &QAction::trigger);
    // Every run the table shows (filter and status) on the charts, or none of them.
    for (const bool checked : {true, false}) {
        auto *action = new QAction(checked ? CurvesView::tr("Check the runs shown")
                                           : CurvesView::tr("Uncheck the runs shown"),
                                   m_table);
        action->setObjectName(checked ? u"checkShown"_s : u"uncheckShown"_s);
        m_table->addAction(action);
        connect(action, &QAction::triggered, this, [this, checked] {
            QStringList shown;
            for (int row = 0; row < m_filtered->rowCount(); ++row)
                shown << m_filtered->index(row, 0).data(RunsModel::RunNameRole).toString();
            m_runs->check(shown, checked);
        });
    }
    // The hyperparameters in which the selected runs differ, side by side.
    auto *compare = new QAction(CurvesView::tr("Compare their configs…"), m_table);
    compare->setObjectName(u"compareConfigs"_s);
    m_table->addAction(compare);
    connect(compare, &QAction::triggered, this, &RunsPanel::compareConfigs);
    // An action on the table's current run, when there is one.
    const auto onCurrentRun = [this](const QString &text, const QString &name,
                                     const std::function<void(const QString &)> &act) {
        auto *action = new QAction(text, m_table);
        action->setObjectName(name);
        m_table->addAction(action);
        connect(action, &QAction::triggered, this, [this, act] {
            if (const QString run = currentRun(); !run.isEmpty())
                act(run);
        });
    };
    onCurrentRun(CurvesView::tr("What it ran…"), u"showRecord"_s,
                 [this](const QString &run) { showRecord(run); });
    // A grouped run's group, drawn as its runs one by one, or folded back into one curve.
    onCurrentRun(CurvesView::tr("Show its group's runs one by one, or as one"), u"toggleGroup"_s,
                 [this](const QString &run) { Q_EMIT groupToggled(run); });
    // The researcher's own tags and note on a run, kept by the collector and found by the filter.
    onCurrentRun(CurvesView::tr("Tags and note…"), u"annotate"_s,
                 [this](const QString &run) { annotateRun(run); });
    // The selected runs put away in the archive (kept whole), or brought back from it.
    for (const bool archived : {true, false}) {
        auto *action = new QAction(archived ? CurvesView::tr("Archive")
                                            : CurvesView::tr("Bring back from the archive"),
                                   m_table);
        action->setObjectName(archived ? u"archiveRuns"_s : u"unarchiveRuns"_s);
        m_table->addAction(action);
        connect(action, &QAction::triggered, this, [this, archived] { archiveSelected(archived); });
    }
    // The selected runs gone for good, from the collector (asks first, saying what goes).
    auto *remove = new QAction(CurvesView::tr("Delete…"), m_table);
    remove->setObjectName(u"deleteRuns"_s);
    remove->setShortcut(QKeySequence::Delete);
    remove->setShortcutContext(Qt::WidgetShortcut);
    m_table->addAction(remove);
    connect(remove, &QAction::triggered, this, &RunsPanel::deleteSelected);
    // A run's colour, as the user wants it: every view and every later session follow.
    auto *recolor = new QAction(CurvesView::tr("Change its colour…"), m_table);
    m_table->addAction(recolor);
    connect(recolor, &QAction::triggered, this, [this] {
        const QString run = currentRun();
        if (run.isEmpty())
            return;
        const QColor chosen =
            QColorDialog::getColor(runColor(run), this, CurvesView::tr("Colour of %1").arg(run));
        if (chosen.isValid())
            (void)RunColors::shared().setColor(run, chosen.name());
    });
}

QString RunsPanel::currentRun() const {
    return m_table->currentIndex().data(RunsModel::RunNameRole).toString();
}

QStringList RunsPanel::shownRuns() const {
    QStringList runs;
    for (int row = 0; row < m_filtered->rowCount(); ++row) {
        const QModelIndex index = m_filtered->index(row, 0);
        if (index.data(Qt::CheckStateRole).toInt() == Qt::Checked)
            runs << index.data(RunsModel::RunNameRole).toString();
    }
    return runs;
}

void RunsPanel::selectRuns(const QStringList &runs) {
    const QSet<QString> wanted(runs.cbegin(), runs.cend());
    QItemSelection selection; // a range for each run of consecutive rows
    int from = -1;
    const auto close = [&](int end) {
        if (from >= 0)
            selection.select(m_filtered->index(from, 0), m_filtered->index(end - 1, 0));
        from = -1;
    };
    bool scrolled = false;
    for (int row = 0; row < m_filtered->rowCount(); ++row) {
        const QModelIndex index = m_filtered->index(row, 0);
        if (!wanted.contains(index.data(RunsModel::RunNameRole).toString())) {
            close(row);
            continue;
        }
        if (!std::exchange(scrolled, true))
            m_table->scrollTo(index); // the first in sight
        if (from < 0)
            from = row;
    }
    close(m_filtered->rowCount());
    m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect |
                                                     QItemSelectionModel::Rows);
}

void RunsPanel::filterToPrefixOf(const QStringList &runs) {
    QString prefix = runs.value(0);
    for (const QString &run : runs) {
        while (!run.startsWith(prefix))
            prefix.chop(1);
    }
    // A prefix the filter would read as a query ("lr=0.1"): asked as a name's start instead.
    if (!m_regex->isChecked() && RunQuery::looksLikeQuery(prefix))
        prefix = u"name ~ \"^%1\""_s.arg(
            QRegularExpression::escape(prefix).replace(u'\\', u"\\\\"_s).replace(u'"', u"\\\""_s));
    m_filter->setText(prefix);
}

bool RunsPanel::addMetrics(const QStringList &metrics) {
    const QSignalBlocker block(m_metrics);
    bool changed = false;
    for (const QString &metric : metrics) {
        if (!std::exchange(m_listedMetrics[metric], true)) {
            auto *item = new QListWidgetItem(metric, m_metrics);
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            item->setCheckState(Qt::Checked);
            changed = true;
        }
    }
    if (changed)
        m_metrics->sortItems();
    return changed;
}

QStringList RunsPanel::checkedMetrics() const {
    QStringList checked;
    for (int i = 0; i < m_metrics->count(); ++i) {
        if (m_metrics->item(i)->checkState() == Qt::Checked)
            checked << m_metrics->item(i)->text();
    }
    return checked;
}

void RunsPanel::applyFilter() {
    const QString text = m_filter->text();
    if (m_regex->isChecked()) {
        // A pattern that does not parse matches nothing, and says why.
        const QRegularExpression pattern(text, QRegularExpression::CaseInsensitiveOption);
        m_byFields->setQuery(std::nullopt);
        m_filtered->setFilterRegularExpression(pattern);
        showFilterProblem(pattern.isValid() ? QString() : pattern.errorString());
        return;
    }
    if (RunQuery::looksLikeQuery(text)) {
        // A query that cannot be read filters nothing, and says where it goes wrong.
        auto query = RunQuery::parse(text);
        m_filtered->setFilterFixedString({});
        showFilterProblem(query.error());
        m_byFields->setQuery(query ? std::optional<RunQuery>(std::move(query).value())
                                   : std::nullopt);
        return;
    }
    m_byFields->setQuery(std::nullopt);
    m_filtered->setFilterFixedString(text);
    showFilterProblem({});
}

void RunsPanel::showFilterProblem(const QString &problem) {
    m_filterProblem->setText(problem);
    m_filterProblem->setVisible(!problem.isEmpty());
    const QString red = u"color: %1;"_s.arg(problemColor(palette()).name());
    m_filterProblem->setStyleSheet(red);
    m_filter->setStyleSheet(problem.isEmpty() ? QString() : u"QLineEdit { %1 }"_s.arg(red));
}

void RunsPanel::offerWords() {
    QStringList words = RunQuery::vocabulary();
    for (const QString &key : m_runs->paramNames())
        words << u"config."_s + key;
    // A metric's name as the query reads it: backquoted where it holds other characters.
    static const QRegularExpression plain(u"^[\\p{L}_][\\p{L}\\p{N}_./:@#%-]*$"_s);
    const QStringList language = RunQuery::vocabulary();
    // A name the query would read as something else: a field, a keyword, a prefix of fields.
    const auto isLanguage = [&language](const QString &name) {
        return name.startsWith(u"info."_s, Qt::CaseInsensitive) ||
               std::any_of(language.begin(), language.end(), [&name](const QString &word) {
                   return word.compare(name, Qt::CaseInsensitive) == 0 ||
                          (word.endsWith(u'.') && name.startsWith(word, Qt::CaseInsensitive));
               });
    };
    for (const QString &metric : m_runs->metricNames())
        words << (plain.match(metric).hasMatch() && !isLanguage(metric)
                      ? metric
                      : u"`%1`"_s.arg(
                            QString(metric).replace(u'\\', u"\\\\"_s).replace(u'`', u"\\`"_s)));
    words.removeDuplicates();
    words.sort(Qt::CaseInsensitive);
    m_completer->setWords(words);
}

void RunsPanel::annotateRun(const QString &run) {
    const RunInfo info = m_runs->info(run);
    auto *dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setObjectName(u"annotateRun"_s);
    dialog->setWindowTitle(CurvesView::tr("Tags and note of %1").arg(run));
    auto *tags = new QLineEdit(info.tags.value_or(QStringList()).join(u", "_s));
    tags->setObjectName(u"tags"_s);
    tags->setPlaceholderText(CurvesView::tr("baseline, ablation, paper"));
    auto *note = new QPlainTextEdit(info.note.value_or(QString()));
    note->setObjectName(u"note"_s);
    note->setPlaceholderText(CurvesView::tr("What this run tried, and what came of it"));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel);
    auto *form = new QFormLayout(dialog);
    form->addRow(CurvesView::tr("Tags (comma-separated)"), tags);
    form->addRow(CurvesView::tr("Note"), note);
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
                    Q_EMIT annotated(); // the table shows them, the filter finds them
                else
                    Q_EMIT problem(
                        CurvesView::tr("The tags and note were not saved: %1").arg(stored.error()));
            });
        dialog->accept();
    });
    dialog->resize(480, 300);
    dialog->show();
}

void RunsPanel::showRecord(const QString &run) {
    const RunInfo info = m_runs->info(run);
    auto *dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setObjectName(u"runRecord"_s);
    dialog->setWindowTitle(CurvesView::tr("What %1 ran").arg(run));
    auto *form = new QFormLayout(dialog);
    const auto add = [form](const QString &label, const QString &value) {
        if (value.isEmpty())
            return;
        auto *text = new QLabel(value); // the run's words: plain text, never markup
        text->setTextFormat(Qt::PlainText);
        text->setTextInteractionFlags(Qt::TextSelectableByMouse);
        text->setWordWrap(true);
        form->addRow(label, text);
    };
    const QJsonObject &code = info.code;
    const QJsonObject &environment = info.environment;
    if (code.isEmpty() && environment.isEmpty())
        add(CurvesView::tr("Nothing recorded"),
            CurvesView::tr("Its client recorded no code or environment (record_code=False, or "
                           "a client from before 0.1)."));
    add(CurvesView::tr("Commit"), code.value(u"commit"_s).toString());
    add(CurvesView::tr("Branch"), code.value(u"branch"_s).toString());
    if (code.contains(u"dirty"_s)) { // absent where git could not say in time: never guessed
        const bool cut = code.value(u"diff_cut"_s).toBool();
        add(CurvesView::tr("Working tree"),
            !code.value(u"dirty"_s).toBool() ? CurvesView::tr("clean: the commit is the code")
            : code.contains(u"diff_bytes"_s)
                ? CurvesView::tr("changed since the commit: %1 bytes of diff%2, in the Samples "
                                 "tab at code/diff")
                      .arg(code.value(u"diff_bytes"_s).toInteger())
                      .arg(cut ? CurvesView::tr(" (cut)") : QString())
                : CurvesView::tr("changed since the commit (its diff was not recorded)"));
    }
    add(CurvesView::tr("Repository"), code.value(u"root"_s).toString());
    add(CurvesView::tr("Remote"), code.value(u"remote"_s).toString());
    add(CurvesView::tr("Command"),
        environment.value(u"argv"_s).toVariant().toStringList().join(u' '));
    add(CurvesView::tr("Directory"), environment.value(u"cwd"_s).toString());
    add(CurvesView::tr("Python"), QStringList{environment.value(u"python"_s).toString(),
                                              environment.value(u"executable"_s).toString()}
                                      .join(u"  "_s)
                                      .trimmed());
    add(CurvesView::tr("Platform"), environment.value(u"platform"_s).toString());
    add(CurvesView::tr("Host"), environment.value(u"host"_s).toString());
    if (!environment.isEmpty())
        add(CurvesView::tr("Packages"),
            CurvesView::tr("in the Samples tab at environment/packages"));
    if (!info.forkedFrom.isEmpty()) // a name of any length: its middle elided, never the dialog
        add(CurvesView::tr("Forked from"),
            CurvesView::tr("%1, its history up to step %2 copied")
                .arg(
                    dialog->fontMetrics().elidedText(
                        isolated(info.forkedFrom.value(u"run"_s).toString()), Qt::ElideMiddle, 400),
                    QString::number(info.forkedFrom.value(u"step"_s).toDouble(), 'g', 17)));
    // Each restart from a checkpoint: what it hides, and a way to show it again.
    for (const RewindSummary &rewind : m_runs->rewinds(run)) {
        const QString step = QString::number(rewind.step, 'g', 17);
        const QString when = QDateTime::fromMSecsSinceEpoch(qint64(rewind.time * 1000))
                                 .toString(u"yyyy-MM-dd HH:mm"_s);
        // One line (the row's label says the step): a wrapped label is cut in a form's row.
        QString hidden = CurvesView::tr("%1 — hidden: %2 points").arg(when).arg(rewind.points);
        if (rewind.samples > 0)
            hidden += CurvesView::tr(", %1 samples").arg(rewind.samples);
        auto *row = new QHBoxLayout;
        auto *text = new QLabel(hidden);
        text->setToolTip(rewind.inclusive
                             ? CurvesView::tr("What the run had logged at step %1 and later "
                                              "before it restarted")
                                   .arg(step)
                             : CurvesView::tr("What the run had logged after step %1 before it "
                                              "restarted")
                                   .arg(step));
        auto *restore = new QPushButton(CurvesView::tr("Show them again"));
        restore->setObjectName(u"restoreRewind%1"_s.arg(rewind.id));
        restore->setToolTip(CurvesView::tr("Undo this restart: the run's curves show everything "
                                           "it logged again, both times at the steps it logged "
                                           "twice"));
        connect(restore, &QPushButton::clicked, this, [this, restore, text, id = rewind.id] {
            restore->setEnabled(false);
            m_collector->restoreRewind(
                id, restore, [this, restore, text](const Result<qint64> &done) {
                    if (!done) {
                        restore->setEnabled(true);
                        Q_EMIT problem(CurvesView::tr("Cannot show the hidden points again: %1")
                                           .arg(done.error()));
                        return;
                    }
                    restore->setText(CurvesView::tr("Shown again"));
                    text->setText(CurvesView::tr("What this restart hid is shown again."));
                    Q_EMIT annotated(); // the runs and curves are fetched again
                });
        });
        row->addWidget(text, 1);
        row->addWidget(restore);
        form->addRow(rewind.inclusive ? CurvesView::tr("Restarted at step %1").arg(step)
                                      : CurvesView::tr("Restarted after step %1").arg(step),
                     row);
    }
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    form->addRow(buttons);
    dialog->setMinimumWidth(640);
    dialog->adjustSize(); // tall enough for its wrapped lines
    dialog->show();
}

QStringList RunsPanel::selectedRuns() const {
    QStringList runs;
    for (const QModelIndex &row : m_table->selectionModel()->selectedRows())
        runs << row.data(RunsModel::RunNameRole).toString();
    return runs;
}

void RunsPanel::archiveSelected(bool archived) {
    const QStringList runs = selectedRuns();
    auto left = std::make_shared<qsizetype>(runs.size());
    for (const QString &run : std::as_const(runs)) {
        const QJsonObject body{{u"run"_s, run},
                               {u"info"_s, QJsonObject{{u"archived"_s, archived}}}};
        m_collector->push(
            QJsonDocument(body).toJson(), this, [this, left](const Result<qint64> &stored) {
                if (!stored)
                    Q_EMIT problem(CurvesView::tr("Not archived: %1").arg(stored.error()));
                if (--*left == 0)
                    Q_EMIT annotated(); // listed again, in their place
            });
    }
}

void RunsPanel::deleteSelected() {
    const QStringList runs = selectedRuns();
    qint64 points = 0;
    for (const QString &run : runs) {
        for (const QString &metric : m_runs->metricNames())
            points += m_runs->pointCount(run, metric);
    }
    if (runs.isEmpty())
        return;
    const QFontMetrics metrics(font());
    QStringList named;
    for (const QString &run : runs.mid(0, 10))
        named << u"• "_s + metrics.elidedText(run, Qt::ElideMiddle, 360);
    if (runs.size() > 10)
        named << CurvesView::tr("and %1 more").arg(runs.size() - 10);
    const bool one = runs.size() == 1;
    QMessageBox ask(QMessageBox::Warning, CurvesView::tr("Delete runs"),
                    one ? CurvesView::tr("Delete this run for good?")
                        : CurvesView::tr("Delete these %1 runs for good?").arg(runs.size()),
                    QMessageBox::Cancel, this);
    ask.setObjectName(u"confirmDelete"_s);
    ask.setTextFormat(Qt::PlainText);
    const QString logged = points == 1 ? CurvesView::tr("1 point")
                                       : CurvesView::tr("%1 points").arg(locale().toString(points));
    ask.setInformativeText(
        named.join(u'\n') + u"\n\n"_s +
        (one ? CurvesView::tr("What it logged (%1), its samples, config, tags and note go from "
                              "the collector, and nothing brings them back.")
             : CurvesView::tr("What they logged (%1), their samples, configs, tags and notes go "
                              "from the collector, and nothing brings them back."))
            .arg(logged));
    // Run names are the outside's text: the informative label must not read them as markup.
    if (auto *informative = ask.findChild<QLabel *>(u"qt_msgbox_informativelabel"_s))
        informative->setTextFormat(Qt::PlainText);
    QPushButton *confirm = ask.addButton(CurvesView::tr("Delete"), QMessageBox::DestructiveRole);
    confirm->setObjectName(u"confirmDeleteButton"_s);
    ask.setDefaultButton(QMessageBox::Cancel);
    ask.exec();
    if (ask.clickedButton() != confirm)
        return;
    m_collector->deleteRuns(runs, this, [this](const Result<CollectorClient::Deleted> &deleted) {
        if (!deleted) {
            Q_EMIT problem(CurvesView::tr("The runs were not deleted: %1").arg(deleted.error()));
            return;
        }
        Q_EMIT annotated(); // listed again, without them
    });
}

void RunsPanel::compareConfigs() {
    QList<RunInfo> runs;
    for (const QString &run : selectedRuns())
        runs << m_runs->info(run);
    if (runs.size() < 2) {
        Q_EMIT problem(
            CurvesView::tr("Select two runs or more in the table to compare their configs"));
        return;
    }
    const ConfigDiff diff = diffConfigs(runs);
    auto *dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setObjectName(u"configDiff"_s);
    dialog->setWindowTitle(CurvesView::tr("How %1 runs differ").arg(diff.runs.size()));
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
            auto *item = new QTableWidgetItem(value.isEmpty() ? CurvesView::tr("(none)") : value);
            if (value.isEmpty())
                item->setForeground(palette().color(QPalette::PlaceholderText));
            table->setItem(row, column, item);
        }
    }
    table->resizeColumnsToContents();
    auto *same = new QLabel(
        diff.keys.isEmpty()
            ? CurvesView::tr("Their configs are the same (%1 keys).").arg(diff.sameKeys)
        : diff.sameKeys == 1
            ? CurvesView::tr("1 more key is the same in all of them.")
            : CurvesView::tr("%1 more keys are the same in all of them.").arg(diff.sameKeys));
    auto *layout = new QVBoxLayout(dialog);
    layout->addWidget(table);
    layout->addWidget(same);
    dialog->resize(760, 420);
    dialog->show();
}

} // namespace sb
