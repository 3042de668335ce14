#pragma once

#include "util/Result.h"

#include <QList>
#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QSortFilterProxyModel;
class QTableView;

namespace sb {

class CollectorClient;
class JobsModel;
class ParallelCoordinates;
class Sweep;
class SweepRegistry;
class TrialsModel;

// Sweeps: pick one, and see its trials (parameters, state, last and best metric, runtime;
// sortable, the best one highlighted), a parallel-coordinates chart of parameters against the
// metric, and buttons to stop it, extend it by more trials, or show its trials' curves. The
// sweeps themselves belong to a SweepRegistry (core): the view shows what it holds.
class SweepsView final : public QWidget {
    Q_OBJECT
public:
    SweepsView(JobsModel *jobs, CollectorClient *collector, QWidget *parent = nullptr);

    SweepRegistry *registry() const { return m_registry; }
    // Where sweeps keep their state; resumeAll() reopens every sweep found there.
    void setStateDirectory(const QString &directory);
    void resumeAll();
    // Reads the sweep file, starts the sweep and shows it; the error says file, line and key.
    Result<Sweep *> open(const QString &file, quint64 seed);
    // Asks for a sweep file and opens it.
    void chooseFile();

    QList<Sweep *> sweeps() const;
    Sweep *current() const;
    TrialsModel *trialsModel() const { return m_model; }
    ParallelCoordinates *chart() const { return m_chart; }
    QTableView *table() const { return m_table; }

Q_SIGNALS:
    void error(const QString &message);
    // "Show curves": these runs, alone, in the curves view.
    void curvesRequested(const QStringList &runs);

private:
    void add(Sweep *sweep);
    void showSweep(int index);
    void refresh();

    SweepRegistry *m_registry;
    TrialsModel *m_model;
    QSortFilterProxyModel *m_sorted;
    QComboBox *m_list;
    QLabel *m_status;
    QPushButton *m_stop;
    QSpinBox *m_more;
    QPushButton *m_extend;
    QPushButton *m_curves;
    QTableView *m_table;
    ParallelCoordinates *m_chart;
    int m_sizedRows = 0; // the rows the table's columns were last sized to
};

} // namespace sb
