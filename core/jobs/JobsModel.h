#pragma once

#include "BackendRegistry.h"

#include <QAbstractItemModel>
#include <QHash>
#include <QTimer>

namespace sb {

// The one jobs table: every backend's jobs, newest first. A sweep's jobs are folded under one
// row of the sweep; a job of trials (a sweep's Indexed Job or job array, a Slurm array) has a
// row per trial under its own. Lives on the GUI thread.
class JobsModel final : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column {
        Name,
        State,
        Backend,
        Node,
        Gpus, // what it got ("box: 3,7", "gpu:2"), or what it asks for while it waits
        Submitted,
        Waited,   // from submitted to started, ticking while it waits
        Duration, // from started to finished, ticking while it runs
        ExitCode,
        Command,
        ColumnCount
    };
    // JobIdRole: the job's id on a trial's row too (empty on a sweep's row); TrialRole: the
    // trial's index, or -1; SweepRole: the sweep a job belongs to, on its sweep's row too.
    enum Role { JobIdRole = Qt::UserRole + 1, BackendRole, StateRole, TrialRole, SweepRole };

    // Shows the jobs of every backend of `backends`, those added later too.
    explicit JobsModel(BackendRegistry *backends, QObject *parent = nullptr);
    // The backends whose jobs it shows.
    BackendRegistry *registry() const { return m_backends; }
    // The job of a row, or of a trial's row; none for a sweep's row.
    const Job *job(const QModelIndex &index) const;
    // The jobs of a sweep's row, oldest first; empty for any other row.
    QList<const Job *> sweepJobs(const QModelIndex &index) const;
    // A job's row (under its sweep's row if it has one).
    QModelIndex indexOf(const QString &backend, const QString &id) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    // The tree's items are jobs and sweeps, each named by a serial that is never reused; an index's
    // internal id is its parent item's serial (0: a top-level row). A trial's row has no item.
    struct Sweep {
        QString id;
        QList<quintptr> jobs; // serials, oldest first
    };

    void watch(JobBackend *backend);
    void upsert(const Job &job);
    void remove(const QString &backend, const QString &id);

    const QList<quintptr> &childrenOf(quintptr parent) const;
    quintptr parentOf(quintptr item) const { return m_sweepOf.value(item, 0); }
    quintptr itemAt(const QModelIndex &index) const; // 0 for a trial's row
    QModelIndex indexOfItem(quintptr item, int column = 0) const;
    const Job *jobOfItem(quintptr item) const;
    void reindex();
    QVariant trialData(const Job &job, const QModelIndex &index, int role) const;
    QVariant sweepData(const Sweep &sweep, const QModelIndex &index, int role) const;

    BackendRegistry *m_backends;
    QList<Job> m_jobs;         // oldest first
    QList<quintptr> m_serials; // per job
    quintptr m_nextSerial = 1;
    QHash<QString, qsizetype> m_index;     // backend + '/' + id -> position in m_jobs
    QHash<quintptr, qsizetype> m_bySerial; // a job's serial -> position in m_jobs
    QList<quintptr> m_top;                 // top-level items, oldest first (rows: newest first)
    QHash<quintptr, Sweep> m_sweeps;       // by serial
    QHash<QString, quintptr> m_sweepById;
    QHash<quintptr, quintptr> m_sweepOf; // a job's serial -> its sweep's serial
    QHash<quintptr, qsizetype> m_slot;   // an item's place in its parent's list
    QTimer m_tick;                       // running jobs' durations go on
};

} // namespace sb
