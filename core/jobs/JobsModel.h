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
    void addBackend(JobBackend *backend);
    JobBackend *backend(const QString &name) const;
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
