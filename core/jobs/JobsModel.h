#pragma once

#include "JobBackend.h"

#include <QAbstractItemModel>
#include <QHash>
#include <QTimer>

namespace sb {

// The one jobs table: every backend's jobs, newest first; a job of trials (a sweep's Indexed
// Job or job array, a Slurm array) has a row per trial under its own. Lives on the GUI thread.
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
    // JobIdRole: the job's id on a trial's row too; TrialRole: the trial's index, or -1.
    enum Role { JobIdRole = Qt::UserRole + 1, BackendRole, StateRole, TrialRole };

    explicit JobsModel(QObject *parent = nullptr);
    // The registry of backends: the one place that knows them by name and by type.
    void addBackend(JobBackend *backend);
    JobBackend *backend(const QString &name) const;
    const QList<JobBackend *> &backends() const { return m_backends; }
    // The backend of a type, for a view made for it (the New-run dialog's cluster page).
    template <typename T> T *backendOfType() const {
        for (JobBackend *backend : m_backends) {
            if (auto *typed = qobject_cast<T *>(backend))
                return typed;
        }
        return nullptr;
    }
    // The job of a row, or of a trial's row.
    const Job *job(const QModelIndex &index) const;
    // A job's row.
    QModelIndex indexOf(const QString &backend, const QString &id) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    void upsert(const Job &job);
    void remove(const QString &backend, const QString &id);

    qsizetype positionOf(int row) const { return m_jobs.size() - 1 - row; }
    int rowOf(qsizetype position) const { return static_cast<int>(m_jobs.size() - 1 - position); }
    void reindex();
    QVariant trialData(const Job &job, const QModelIndex &index, int role) const;

    QList<JobBackend *> m_backends;
    QList<Job> m_jobs;         // oldest first; rows show them newest first
    QList<quintptr> m_serials; // per job, for ever: a trial row's internal id names it
    quintptr m_nextSerial = 1;
    QHash<QString, qsizetype> m_index;     // backend + '/' + id -> position in m_jobs
    QHash<quintptr, qsizetype> m_bySerial; // serial -> position in m_jobs
    QTimer m_tick;                         // running jobs' durations go on
};

} // namespace sb
