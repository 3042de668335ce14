#include "JobsModel.h"

namespace sb {

using namespace Qt::StringLiterals;

namespace {

QString duration(const Job &job) {
    if (!job.started.isValid())
        return {};
    const QDateTime end = job.finished.isValid() ? job.finished : QDateTime::currentDateTime();
    const qint64 s = job.started.secsTo(end);
    if (s < 3600)
        return u"%1:%2"_s.arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return u"%1:%2:%3"_s.arg(s / 3600)
        .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
        .arg(s % 60, 2, 10, QLatin1Char('0'));
}

} // namespace

JobsModel::JobsModel(QObject *parent)
    : QAbstractTableModel(parent) {
}

void JobsModel::addBackend(JobBackend *backend) {
    m_backends << backend;
    connect(backend, &JobBackend::jobChanged, this, &JobsModel::upsert);
    connect(backend, &JobBackend::jobRemoved, this,
            [this, backend](const QString &id) { remove(backend->name(), id); });
    for (const Job &job : backend->jobs())
        upsert(job);
}

JobBackend *JobsModel::backend(const QString &name) const {
    for (JobBackend *backend : m_backends) {
        if (backend->name() == name)
            return backend;
    }
    return nullptr;
}

const Job *JobsModel::job(const QModelIndex &index) const {
    return index.isValid() && index.row() < m_jobs.size() ? &m_jobs[positionOf(index.row())]
                                                          : nullptr;
}

namespace {

QString keyOf(const QString &backend, const QString &id) {
    return backend + u'/' + id;
}

} // namespace

void JobsModel::upsert(const Job &job) {
    const auto it = m_index.constFind(keyOf(job.backend, job.id));
    if (it != m_index.cend()) {
        m_jobs[*it] = job;
        const int row = static_cast<int>(m_jobs.size() - 1 - *it);
        Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
        return;
    }
    beginInsertRows({}, 0, 0);
    m_index.insert(keyOf(job.backend, job.id), m_jobs.size());
    m_jobs.append(job);
    endInsertRows();
}

void JobsModel::remove(const QString &backend, const QString &id) {
    const auto it = m_index.constFind(keyOf(backend, id));
    if (it == m_index.cend())
        return;
    const qsizetype position = *it;
    const int row = static_cast<int>(m_jobs.size() - 1 - position);
    beginRemoveRows({}, row, row);
    m_jobs.removeAt(position);
    m_index.clear(); // positions after it moved; removals are rare
    for (qsizetype i = 0; i < m_jobs.size(); ++i)
        m_index.insert(keyOf(m_jobs[i].backend, m_jobs[i].id), i);
    endRemoveRows();
}

int JobsModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_jobs.size());
}

int JobsModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant JobsModel::data(const QModelIndex &index, int role) const {
    const Job *j = job(index);
    if (!j)
        return {};
    if (role == JobIdRole)
        return j->id;
    if (role == BackendRole)
        return j->backend;
    if (role == StateRole)
        return static_cast<int>(j->state);
    if (role == Qt::ToolTipRole)
        return j->message.isEmpty() ? j->spec.command.join(u' ') : j->message;
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Name:
        return j->id;
    case State:
        return j->message.isEmpty() || j->state == JobState::Stopped
                   ? jobStateName(j->state)
                   : u"%1: %2"_s.arg(jobStateName(j->state), j->message);
    case Backend:
        return j->backend;
    case Node:
        return j->node;
    case Started:
        return j->started.isValid() ? j->started.toString(u"yyyy-MM-dd hh:mm:ss"_s) : QString();
    case Duration:
        return duration(*j);
    case ExitCode:
        return j->exitCode ? QVariant(*j->exitCode) : QVariant();
    case Command:
        return j->spec.command.join(u' ');
    default:
        return {};
    }
}

QVariant JobsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const QStringList names{tr("Run"),     tr("State"),    tr("Backend"), tr("Node"),
                                   tr("Started"), tr("Duration"), tr("Exit"),    tr("Command")};
    return names.value(section);
}

} // namespace sb
