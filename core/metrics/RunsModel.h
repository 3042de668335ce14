#pragma once

#include "CollectorApi.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QMap>
#include <QSet>
#include <QStringList>

namespace sb {

// The runs table of the curves view: name (checkable: shown on the charts), status, host, tags,
// note, a value of every metric (its last, smallest, largest or best), then every
// hyperparameter. Runs without metrics are left out.
// Rows are updated in place, so the selection and checks survive refreshes. New runs arrive
// checked, as in TensorBoard.
class RunsModel final : public QAbstractTableModel {
    Q_OBJECT
public:
    // StatusRole: the run's status as the collector says it (running, lost, crashed...).
    // ColumnKeyRole (a header's): what a column is, whatever its title says in this language and
    // statistic: "name", "status", "host", "tags", "note", "metric:NAME" or "config.KEY".
    enum Role { RunNameRole = Qt::UserRole + 1, SortRole, StatusRole, ColumnKeyRole };
    static constexpr int kStatusColumn = 1;

    // What a metric's column shows.
    using Statistic = MetricStatistic;
    static constexpr int kTagsColumn = 3;
    static constexpr int kNoteColumn = 4;

    explicit RunsModel(QObject *parent = nullptr);
    void setStatistic(Statistic statistic);
    Statistic statistic() const { return m_statistic; }
    void setRuns(const QList<RunSummary> &runs);
    QStringList checkedRuns() const;
    // Checks (unchecks) these runs, others keeping theirs (runs that arrive later come checked).
    void check(const QStringList &runs, bool checked = true);
    QStringList metricNames() const { return m_metrics; }
    // The config keys of the table's hyperparameter columns.
    QStringList paramNames() const { return m_params; }
    // The run of a row, as the collector listed it; null past the rows.
    const RunSummary *summaryAt(int row) const {
        return row >= 0 && row < m_runs.size() ? &m_runs[row] : nullptr;
    }
    QString runAt(int row) const;
    // A run as the collector listed it; null if it is not.
    const RunSummary *summaryOf(const QString &run) const {
        const auto row = m_rowOf.constFind(run);
        return row == m_rowOf.cend() ? nullptr : summaryAt(static_cast<int>(*row));
    }
    // What the collector knows of a run (its config among it); only the name if not listed.
    RunInfo info(const QString &run) const;
    std::vector<RewindSummary> rewinds(const QString &run) const;
    // Points of `metric` the collector holds for `run`; 0 when the run does not log it.
    qint64 pointCount(const QString &run, const QString &metric) const;
    // How many runs of the table have each status ("" for runs that gave none), of those in
    // the archive or of the others.
    QMap<QString, int> statusCounts(bool archived = false) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    void checkedRunsChanged();

private:
    static constexpr int kFixedColumns = 5; // name, status, host, tags, note
    Statistic m_statistic = Statistic::Last;
    QList<RunSummary> m_runs;
    QHash<QString, qsizetype> m_rowOf; // run name -> row: refreshes stay linear in the runs
    QStringList m_metrics;
    QStringList m_params;
    QSet<QString> m_unchecked;
};

// A run's status in the user's language (the known ones; any other as it came).
QString runStatusText(const QString &status);

} // namespace sb
