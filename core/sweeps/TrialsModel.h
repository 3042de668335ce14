#pragma once

#include <QAbstractTableModel>
#include <QJsonObject>
#include <QPointer>
#include <QStringList>

namespace sb {

class Sweep;

// A sweep's trials as a table: number, state, every parameter (nested ones as "group.name"),
// the metric's last and best values, runtime and node. The best trial's row answers true to
// BestRole, for the view to highlight. Lives on the GUI thread; follows the sweep's changes.
class TrialsModel final : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Number, State, ColumnCount }; // then parameters, then the fixed tail
    enum Role { SortRole = Qt::UserRole + 1, BestRole, TrialRole };

    explicit TrialsModel(QObject *parent = nullptr);
    void setSweep(Sweep *sweep);
    Sweep *sweep() const { return m_sweep; }
    const QStringList &parameterNames() const { return m_parameters; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    void reload();

    QPointer<Sweep> m_sweep;
    QStringList m_parameters; // flattened paths, in the sweep file's order
    int m_rows = 0;
};

// A trial's parameters flattened: "optimizer.lr" for nested groups, in the spec's order.
QStringList flatParameterNames(const Sweep &sweep);
QJsonValue flatParameter(const QJsonObject &parameters, const QString &path);

} // namespace sb
