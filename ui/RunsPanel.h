#pragma once

#include <QSet>
#include <QStringList>
#include <QWidget>

class QLabel;
class QComboBox;
class QJsonObject;
class QLineEdit;
class QListWidget;
class QSortFilterProxyModel;
class QTableView;
class QTimer;
class QToolButton;

namespace sb {

class CollectorClient;
class RunsModel;
class RunFilter;
class WordCompleter;

// The curves view's left side: the runs table (filtered by text, a regular expression or a query
// over the runs' fields, and by status, with a run's actions in its context menu) and the metric
// picker below it.
class RunsPanel final : public QWidget {
    Q_OBJECT
public:
    RunsPanel(RunsModel *runs, CollectorClient *collector, QWidget *parent = nullptr);

    // The runs the charts draw: checked, and passing the filter, in the table's order.
    QStringList shownRuns() const;
    // Selects these runs' rows, the first in sight (a click on a curve).
    void selectRuns(const QStringList &runs);
    QStringList selectedRuns() const;
    // Lists these runs first: their common prefix (a sweep's id) as the filter.
    void filterToPrefixOf(const QStringList &runs);
    // New metrics join the picker checked (those the user unchecked stay so); whether any came.
    bool addMetrics(const QStringList &metrics);
    // The checked metrics, in the picker's (sorted) order.
    QStringList checkedMetrics() const;
    // What a saved view keeps of the table: the filter, status, archive, the metrics' value,
    // the columns put away and the sort. Applying takes what it can read and leaves the rest.
    QJsonObject viewState() const;
    void applyViewState(const QJsonObject &state);

Q_SIGNALS:
    void shownRunsChanged();               // rows came or went through the filter
    void metricsChanged();                 // a metric was checked or unchecked
    void jobRequested(const QString &run); // the job that made a run, and its output
    void groupToggled(const QString &run); // the run's group: one by one, or as one
    void annotated(); // tags and note saved, a rewind undone, runs deleted: list them again
    void problem(const QString &message); // for the banner
    void selectionChanged();              // rows selected or unselected

private:
    QLayout *filterRows();
    void addRunActions();
    void applyFilter();
    // Says why the filter cannot be read, under it; nothing for none.
    void showFilterProblem(const QString &problem);
    // The words the filter completes: the query's own, the runs' config keys and metrics.
    void offerWords();
    // The run of the table's current row; empty if none.
    QString currentRun() const;
    // A dialog for the run's tags and note; saved in the collector.
    void annotateRun(const QString &run);
    // The selected runs' configs, only the keys that differ, side by side.
    void compareConfigs();
    // Deletes the selected runs from the collector for good, once the person said so, having
    // read what goes.
    void deleteSelected();
    // Puts the selected runs in the archive (kept, out of the table), or brings them back.
    void archiveSelected(bool archived);
    // What the run ran, as its client recorded it: its code's commit and state, its command line
    // and environment.
    void showRecord(const QString &run);
    // The button whose menu puts columns away and back: a search and a list to check.
    QToolButton *makeColumnChooser();
    // Hides the columns whose titles are put away (columns come as the runs' keys do).
    void applyHiddenColumns();
    // What a column is, in any language and statistic (RunsModel::ColumnKeyRole).
    QString columnKey(int column) const;
    // Widens the name column to the names shown now (never narrower: a width the user gave
    // stays), up to two thirds of the table.
    void fitNames();

    RunsModel *m_runs;
    CollectorClient *m_collector;
    RunFilter *m_byFields;
    QSortFilterProxyModel *m_filtered;
    QLineEdit *m_filter;
    QToolButton *m_regex; // the filter is a regular expression
    QComboBox *m_statistic;
    QComboBox *m_status;
    QToolButton *m_archive;
    QLabel *m_filterProblem;
    WordCompleter *m_completer;
    QTableView *m_table;           // a FrozenColumnTable: the names stay while the columns scroll
    QSet<QString> m_hiddenColumns; // by key: columns come and go as runs are listed
    QListWidget *m_metrics;
    QHash<QString, bool> m_listedMetrics; // in the picker (a lookup: 20,000 metrics)
    QTimer *m_fitNames;                   // once for many rows that came or went
};

} // namespace sb
