#pragma once

#include "JobBackend.h"

#include <QAbstractTableModel>
#include <QHash>

namespace sb {

// The one jobs table: every backend's jobs, newest first. Lives on the GUI thread.
class JobsModel final : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, State, Backend, Node, Started, Duration, ExitCode, Command, ColumnCount };
    enum Role { JobIdRole = Qt::UserRole + 1, BackendRole, StateRole };

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
    const Job *job(const QModelIndex &index) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    void upsert(const Job &job);
    void remove(const QString &backend, const QString &id);

    qsizetype positionOf(int row) const { return m_jobs.size() - 1 - row; }

    QList<JobBackend *> m_backends;
    QList<Job> m_jobs;                 // oldest first; rows show them newest first
    QHash<QString, qsizetype> m_index; // backend + '/' + id -> position in m_jobs
};

} // namespace sb
