#include "TrialsModel.h"

#include "Sweep.h"
#include "ssh/ShellQuote.h"
#include "sweeps/TrialCommand.h"
#include "util/Duration.h"

namespace sb {

using namespace Qt::StringLiterals;

namespace {

void flatten(const QList<SweepParameter> &parameters, const QString &prefix, QStringList &out) {
    for (const SweepParameter &p : parameters) {
        if (p.kind == SweepParameter::Kind::Nested)
            flatten(p.children, prefix + p.name + u'.', out);
        else
            out << prefix + p.name;
    }
}

enum Tail { Last, Best, Runtime, Node, Message, TailCount };

} // namespace

QStringList flatParameterNames(const Sweep &sweep) {
    QStringList names;
    flatten(sweep.spec().parameters, {}, names);
    return names;
}

QJsonValue flatParameter(const QJsonObject &parameters, const QString &path) {
    QJsonValue value = parameters;
    for (const QString &key : path.split(u'.'))
        value = value.toObject().value(key);
    return value;
}

TrialsModel::TrialsModel(QObject *parent)
    : QAbstractTableModel(parent) {
}

void TrialsModel::setSweep(Sweep *sweep) {
    if (m_sweep)
        disconnect(m_sweep, nullptr, this, nullptr);
    beginResetModel();
    m_sweep = sweep;
    m_parameters = sweep ? flatParameterNames(*sweep) : QStringList();
    m_rows = sweep ? static_cast<int>(sweep->trials().size()) : 0;
    endResetModel();
    if (sweep)
        connect(sweep, &Sweep::changed, this, &TrialsModel::reload);
}

void TrialsModel::reload() {
    const int rows = m_sweep ? static_cast<int>(m_sweep->trials().size()) : 0;
    if (rows > m_rows) {
        beginInsertRows({}, m_rows, rows - 1);
        m_rows = rows;
        endInsertRows();
    }
    if (m_rows > 0)
        Q_EMIT dataChanged(index(0, 0), index(m_rows - 1, columnCount() - 1));
}

int TrialsModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : m_rows;
}

int TrialsModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : ColumnCount + static_cast<int>(m_parameters.size()) + TailCount;
}

QVariant TrialsModel::data(const QModelIndex &index, int role) const {
    if (!m_sweep || !index.isValid() || index.row() >= m_sweep->trials().size())
        return {};
    const Trial &trial = m_sweep->trials()[index.row()];
    const bool maximize = m_sweep->spec().maximize;
    if (role == BestRole)
        return trial.number == m_sweep->bestTrial();
    if (role == TrialRole)
        return trial.number;
    if (role == Qt::ToolTipRole)
        return shellCommand(trial.command);
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool sorting = role == SortRole;
    const int column = index.column();
    if (column == Number)
        return trial.number;
    if (column == State) {
        const QString state = jobStateText(trial.state);
        return trial.earlyStopped ? tr("stopped early") : state;
    }
    const int parameter = column - ColumnCount;
    if (parameter < m_parameters.size()) {
        const QJsonValue value = flatParameter(trial.parameters, m_parameters[parameter]);
        if (value.isDouble()) // six digits here; the tooltip has the exact command
            return sorting ? QVariant(value.toDouble())
                           : QVariant(QString::number(value.toDouble(), 'g', 6));
        return argumentValue(value);
    }
    switch (parameter - m_parameters.size()) {
    case Last:
    case Best: {
        const auto value =
            parameter - m_parameters.size() == Last ? trial.last() : trial.best(maximize);
        if (!value)
            return sorting ? QVariant(maximize ? -1e300 : 1e300) : QVariant();
        return sorting ? QVariant(*value) : QVariant(QString::number(*value, 'g', 6));
    }
    case Runtime: {
        if (!trial.started.isValid())
            return sorting ? QVariant(0) : QVariant();
        const QDateTime end =
            trial.finished.isValid() ? trial.finished : QDateTime::currentDateTime();
        const qint64 ms = trial.started.msecsTo(end);
        return sorting ? QVariant(ms) : QVariant(formatDuration(ms, DurationStyle::Words));
    }
    case Node:
        return trial.node;
    case Message:
        return trial.message;
    default:
        return {};
    }
}

QVariant TrialsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    if (section == Number)
        return tr("Trial");
    if (section == State)
        return tr("State");
    const int parameter = section - ColumnCount;
    if (parameter < m_parameters.size())
        return m_parameters[parameter];
    const QString metric = m_sweep ? m_sweep->spec().metric : QString();
    switch (parameter - m_parameters.size()) {
    case Last:
        return tr("%1 (last)").arg(metric);
    case Best:
        return tr("%1 (best)").arg(metric);
    case Runtime:
        return tr("Runtime");
    case Node:
        return tr("Where");
    case Message:
        return tr("Note");
    default:
        return {};
    }
}

} // namespace sb
