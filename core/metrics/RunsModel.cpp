#include "RunsModel.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QRegularExpression>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

const QString &name(const RunSummary &run) {
    return run.info.name;
}

// Every metric name, or every hyperparameter name, of these runs, sorted.
QStringList sortedKeys(const QList<RunSummary> &runs, bool metrics) {
    QSet<QString> keys;
    for (const RunSummary &run : runs) {
        const QStringList names = metrics ? run.metrics.keys() : run.info.config.keys();
        for (const QString &key : names)
            keys.insert(key);
    }
    QStringList list(keys.begin(), keys.end());
    list.sort();
    return list;
}

} // namespace

RunsModel::RunsModel(QObject *parent)
    : QAbstractTableModel(parent) {
}

void RunsModel::setRuns(const QList<RunSummary> &runs) {
    QList<RunSummary> incoming;
    for (const RunSummary &run : runs) {
        // A run without metrics has nothing to plot (yet): a job that logs none, or a client
        // that has only said hello.
        if (!run.metrics.isEmpty())
            incoming << run;
    }
    const QStringList metrics = sortedKeys(incoming, true);
    const QStringList params = sortedKeys(incoming, false);
    if (metrics != m_metrics || params != m_params) {
        beginResetModel();
        m_runs = incoming;
        m_metrics = metrics;
        m_params = params;
        m_rowOf.clear();
        for (qsizetype row = 0; row < m_runs.size(); ++row)
            m_rowOf.insert(name(m_runs[row]), row);
        endResetModel();
        Q_EMIT checkedRunsChanged();
        return;
    }
    // Runs no longer listed (deleted) leave the table.
    QSet<QString> listed;
    for (const RunSummary &run : std::as_const(incoming))
        listed.insert(name(run));
    bool removed = false;
    for (qsizetype row = m_runs.size() - 1; row >= 0; --row) {
        if (listed.contains(name(m_runs[row])))
            continue;
        beginRemoveRows({}, static_cast<int>(row), static_cast<int>(row));
        m_runs.removeAt(row);
        endRemoveRows();
        removed = true;
    }
    if (removed) {
        m_rowOf.clear();
        for (qsizetype row = 0; row < m_runs.size(); ++row)
            m_rowOf.insert(name(m_runs[row]), row);
    }
    bool added = removed;
    for (const RunSummary &run : std::as_const(incoming)) {
        const auto known = m_rowOf.constFind(name(run));
        if (known != m_rowOf.constEnd()) {
            if (m_runs[*known] != run) {
                m_runs[*known] = run;
                const int row = static_cast<int>(*known);
                Q_EMIT dataChanged(index(row, 0), index(row, columnCount() - 1));
            }
        } else {
            beginInsertRows({}, static_cast<int>(m_runs.size()), static_cast<int>(m_runs.size()));
            m_rowOf.insert(name(run), m_runs.size());
            m_runs << run;
            endInsertRows();
            added = true;
        }
    }
    if (added)
        Q_EMIT checkedRunsChanged();
}

QStringList RunsModel::checkedRuns() const {
    QStringList runs;
    for (const RunSummary &run : m_runs) {
        if (!m_unchecked.contains(name(run)))
            runs << name(run);
    }
    return runs;
}

QString RunsModel::runAt(int row) const {
    return row >= 0 && row < m_runs.size() ? name(m_runs[row]) : QString();
}

RunInfo RunsModel::info(const QString &run) const {
    const auto row = m_rowOf.constFind(run);
    RunInfo found = row == m_rowOf.constEnd() ? RunInfo{} : m_runs[*row].info;
    found.name = run;
    return found;
}

std::vector<RewindSummary> RunsModel::rewinds(const QString &run) const {
    const auto row = m_rowOf.constFind(run);
    return row == m_rowOf.constEnd() ? std::vector<RewindSummary>{} : m_runs[*row].rewinds;
}

qint64 RunsModel::pointCount(const QString &run, const QString &metric) const {
    const auto row = m_rowOf.constFind(run);
    if (row == m_rowOf.constEnd())
        return 0;
    return m_runs[*row].metrics.value(metric).count;
}
int RunsModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_runs.size());
}

int RunsModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0
                            : kFixedColumns + static_cast<int>(m_metrics.size() + m_params.size());
}

QMap<QString, int> RunsModel::statusCounts(bool archived) const {
    QMap<QString, int> counts;
    for (const RunSummary &run : m_runs)
        if (run.info.archived.value_or(false) == archived)
            ++counts[run.info.status];
    return counts;
}

// The statuses clients send, in the user's language; any other as it came.
QString runStatusText(const QString &status) {
    static constexpr const char *kKnown[] = {QT_TRANSLATE_NOOP("sb::RunStatus", "running"),
                                             QT_TRANSLATE_NOOP("sb::RunStatus", "finished"),
                                             QT_TRANSLATE_NOOP("sb::RunStatus", "failed"),
                                             QT_TRANSLATE_NOOP("sb::RunStatus", "stopped"),
                                             QT_TRANSLATE_NOOP("sb::RunStatus", "crashed"),
                                             QT_TRANSLATE_NOOP("sb::RunStatus", "lost")};
    for (const char *known : kKnown) {
        if (status == QLatin1StringView(known))
            return QCoreApplication::translate("sb::RunStatus", known);
    }
    return status;
}

QVariant RunsModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || index.row() >= m_runs.size())
        return {};
    const RunSummary &run = m_runs[index.row()];
    const int column = index.column();
    if (role == RunNameRole)
        return name(run);
    if (role == StatusRole)
        return run.info.status;
    if (role == Qt::CheckStateRole && column == 0)
        return m_unchecked.contains(name(run)) ? Qt::Unchecked : Qt::Checked;
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return {};
    switch (column) {
    case 0:
        return name(run);
    case 1:
        return runStatusText(run.info.status);
    case 2:
        return run.info.host;
    case kTagsColumn:
        return run.info.tags.value_or(QStringList()).join(u", "_s);
    case kNoteColumn:
        // One line in the cell; the whole note in its tooltip.
        return role == Qt::ToolTipRole ? run.info.note.value_or(QString())
                                       : run.info.note.value_or(QString()).section(u'\n', 0, 0);
    default:
        break;
    }
    const int m = column - kFixedColumns;
    if (m < m_metrics.size()) {
        const auto metric = run.metrics.constFind(m_metrics[m]);
        if (metric == run.metrics.constEnd())
            return {};
        const auto range = metric->range;
        if (role == Qt::ToolTipRole) {
            QString tip = tr("last %1 at step %2")
                              .arg(metric->last.value, 0, 'g', 6)
                              .arg(metric->last.step, 0, 'g', 10);
            if (range)
                tip += tr("; smallest %1, largest %2")
                           .arg(range->first, 0, 'g', 6)
                           .arg(range->second, 0, 'g', 6);
            return tip;
        }
        const std::optional<double> value = metric->value(m_statistic, m_metrics[m]);
        if (!value)
            return {};
        // A value of +-Infinity or NaN reads as what it is ("inf"), never as 0.
        return role == SortRole ? QVariant(*value) : QVariant(QString::number(*value, 'g', 5));
    }
    const QJsonValue param = run.info.config.value(m_params.value(m - m_metrics.size()));
    if (param.isDouble())
        return param.toDouble();
    if (param.isString() || param.isBool())
        return param.toVariant().toString();
    return param.isUndefined()
               ? QVariant()
               : QVariant(QString::fromUtf8(
                     QJsonDocument(param.toObject()).toJson(QJsonDocument::Compact)));
}

void RunsModel::setStatistic(Statistic statistic) {
    if (statistic == m_statistic)
        return;
    m_statistic = statistic;
    if (m_metrics.isEmpty())
        return;
    Q_EMIT headerDataChanged(Qt::Horizontal, kFixedColumns,
                             kFixedColumns + static_cast<int>(m_metrics.size()) - 1);
    if (!m_runs.isEmpty())
        Q_EMIT dataChanged(
            index(0, kFixedColumns),
            index(rowCount() - 1, kFixedColumns + static_cast<int>(m_metrics.size()) - 1));
}

void RunsModel::check(const QStringList &runs, bool checked) {
    for (const QString &run : runs) {
        if (checked)
            m_unchecked.remove(run);
        else
            m_unchecked.insert(run);
    }
    if (!m_runs.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, 0), {Qt::CheckStateRole});
    Q_EMIT checkedRunsChanged();
}

bool RunsModel::setData(const QModelIndex &index, const QVariant &value, int role) {
    if (!index.isValid() || index.column() != 0 || role != Qt::CheckStateRole)
        return false;
    const QString run = name(m_runs[index.row()]);
    if (value.toInt() == Qt::Checked)
        m_unchecked.remove(run);
    else
        m_unchecked.insert(run);
    Q_EMIT dataChanged(index, index, {Qt::CheckStateRole});
    Q_EMIT checkedRunsChanged();
    return true;
}

Qt::ItemFlags RunsModel::flags(const QModelIndex &index) const {
    Qt::ItemFlags flags = QAbstractTableModel::flags(index);
    if (index.column() == 0)
        flags |= Qt::ItemIsUserCheckable;
    return flags;
}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation == Qt::Horizontal && role == ColumnKeyRole) {
        if (section < kFixedColumns)
            return QStringList{u"name"_s, u"status"_s, u"host"_s, u"tags"_s, u"note"_s}.value(
                section);
        const int m = section - kFixedColumns;
        if (m < m_metrics.size())
            return QVariant(u"metric:"_s + m_metrics[m]);
        const QString param = m_params.value(m - m_metrics.size());
        return param.isEmpty() ? QVariant() : QVariant(u"config."_s + param);
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    if (section < kFixedColumns)
        return QStringList{tr("Run"), tr("Status"), tr("Host"), tr("Tags"), tr("Note")}.value(
            section);
    const int m = section - kFixedColumns;
    if (m < m_metrics.size()) {
        switch (m_statistic) {
        case Statistic::Last:
            return m_metrics[m];
        case Statistic::Min:
            return tr("%1 (min)").arg(m_metrics[m]);
        case Statistic::Max:
            return tr("%1 (max)").arg(m_metrics[m]);
        case Statistic::Best:
            return tr("%1 (best)").arg(m_metrics[m]);
        }
    }
    // As the filter's queries name it, and apart from a metric of the same name.
    const QString param = m_params.value(m - m_metrics.size());
    return param.isEmpty() ? QVariant() : QVariant(u"config."_s + param);
}

} // namespace sb
