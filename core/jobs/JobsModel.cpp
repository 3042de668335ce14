#include "JobsModel.h"
#include "util/Log.h"

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// "4:05", "1:02:03".
QString clock(qint64 s) {
    s = std::max<qint64>(0, s);
    if (s < 3600)
        return u"%1:%2"_s.arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return u"%1:%2:%3"_s.arg(s / 3600)
        .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
        .arg(s % 60, 2, 10, QLatin1Char('0'));
}

QString duration(const Job &job) {
    if (!job.started.isValid())
        return {};
    const QDateTime end = job.finished.isValid() ? job.finished : QDateTime::currentDateTime();
    return clock(job.started.secsTo(end));
}

// How long it waited for a place to run: until it started, or until now while it waits.
QString waited(const Job &job) {
    if (!job.submitted.isValid())
        return {};
    const QDateTime end = job.started.isValid()    ? job.started
                          : job.finished.isValid() ? job.finished
                                                   : QDateTime::currentDateTime();
    return clock(job.submitted.secsTo(end));
}

QString gpus(const Job &job) {
    if (job.gpuIds.isEmpty())
        return job.spec.gpus > 0 && !job.finishedState() ? u"asks %1"_s.arg(job.spec.gpus)
                                                         : QString();
    // On a node, which of its GPUs; on a cluster, what the scheduler says it allocated.
    const bool onNode = job.backend == "local"_L1 || job.backend == "ssh"_L1;
    return onNode ? u"%1: %2"_s.arg(job.node, job.gpuIds) : job.gpuIds;
}

} // namespace

JobsModel::JobsModel(QObject *parent)
    : QAbstractItemModel(parent) {
    // Once a second, one signal for the clock columns: views repaint only the rows they show.
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, [this] {
        if (std::any_of(m_jobs.begin(), m_jobs.end(), [](const Job &job) {
                return job.state == JobState::Running || job.state == JobState::Queued;
            }))
            Q_EMIT dataChanged(index(0, Waited), index(rowCount() - 1, Duration),
                               {Qt::DisplayRole});
    });
    m_tick.start();
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
    if (!index.isValid())
        return nullptr;
    if (index.internalId() != 0) { // a trial's row: its job by serial
        const auto it = m_bySerial.constFind(index.internalId());
        return it != m_bySerial.cend() ? &m_jobs[*it] : nullptr;
    }
    return index.row() < m_jobs.size() ? &m_jobs[positionOf(index.row())] : nullptr;
}

namespace {

QString keyOf(const QString &backend, const QString &id) {
    return backend + u'/' + id;
}

} // namespace

QModelIndex JobsModel::indexOf(const QString &backend, const QString &id) const {
    const auto it = m_index.constFind(keyOf(backend, id));
    return it == m_index.cend() ? QModelIndex() : index(rowOf(*it), 0);
}

QModelIndex JobsModel::index(int row, int column, const QModelIndex &parent) const {
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < m_jobs.size() ? createIndex(row, column, quintptr(0)) : QModelIndex();
    if (parent.internalId() != 0 || parent.row() >= m_jobs.size())
        return {}; // trials have no rows of their own
    const qsizetype position = positionOf(parent.row());
    if (row >= m_jobs[position].indexStates.size())
        return {};
    return createIndex(row, column, m_serials[position]);
}

QModelIndex JobsModel::parent(const QModelIndex &child) const {
    if (!child.isValid() || child.internalId() == 0)
        return {};
    const auto it = m_bySerial.constFind(child.internalId());
    return it == m_bySerial.cend() ? QModelIndex() : createIndex(rowOf(*it), 0, quintptr(0));
}

void JobsModel::reindex() {
    m_index.clear();
    m_bySerial.clear();
    for (qsizetype i = 0; i < m_jobs.size(); ++i) {
        m_index.insert(keyOf(m_jobs[i].backend, m_jobs[i].id), i);
        m_bySerial.insert(m_serials[i], i);
    }
}

void JobsModel::upsert(const Job &job) {
    const auto it = m_index.constFind(keyOf(job.backend, job.id));
    // Every backend's jobs pass here: one place to log their lives.
    if (it == m_index.cend() ? !job.finishedState() : m_jobs[*it].state != job.state)
        qCInfo(lcJobs).noquote() << u"%1/%2 %3 on %4%5"_s.arg(
            job.backend, job.id, jobStateName(job.state), job.node,
            job.message.isEmpty() ? QString() : u": "_s + job.message);
    if (it == m_index.cend()) {
        beginInsertRows({}, 0, 0);
        m_index.insert(keyOf(job.backend, job.id), m_jobs.size());
        m_bySerial.insert(m_nextSerial, m_jobs.size());
        m_serials.append(m_nextSerial++);
        m_jobs.append(job);
        endInsertRows();
        return;
    }
    const qsizetype position = *it;
    const QModelIndex row = index(rowOf(position), 0);
    const QList<int> before = m_jobs[position].indexStates.keys();
    if (before != job.indexStates.keys()) { // trials came or went: their rows anew
        if (!before.isEmpty()) {
            beginRemoveRows(row, 0, static_cast<int>(before.size() - 1));
            m_jobs[position].indexStates.clear();
            endRemoveRows();
        }
        if (!job.indexStates.isEmpty())
            beginInsertRows(row, 0, static_cast<int>(job.indexStates.size() - 1));
        m_jobs[position] = job;
        if (!job.indexStates.isEmpty())
            endInsertRows();
    } else {
        m_jobs[position] = job;
        if (!before.isEmpty())
            Q_EMIT dataChanged(index(0, 0, row),
                               index(static_cast<int>(before.size() - 1), ColumnCount - 1, row));
    }
    Q_EMIT dataChanged(row, index(row.row(), ColumnCount - 1));
}

void JobsModel::remove(const QString &backend, const QString &id) {
    const auto it = m_index.constFind(keyOf(backend, id));
    if (it == m_index.cend())
        return;
    const qsizetype position = *it;
    const int row = rowOf(position);
    beginRemoveRows({}, row, row);
    m_jobs.removeAt(position);
    m_serials.removeAt(position);
    reindex(); // positions after it moved; removals are rare
    endRemoveRows();
}

int JobsModel::rowCount(const QModelIndex &parent) const {
    if (!parent.isValid())
        return static_cast<int>(m_jobs.size());
    if (parent.internalId() != 0 || parent.column() != 0 || parent.row() >= m_jobs.size())
        return 0;
    return static_cast<int>(m_jobs[positionOf(parent.row())].indexStates.size());
}

int JobsModel::columnCount(const QModelIndex &) const {
    return ColumnCount;
}

QVariant JobsModel::data(const QModelIndex &index, int role) const {
    const Job *j = job(index);
    if (!j)
        return {};
    if (index.internalId() != 0)
        return trialData(*j, index, role);
    if (role == TrialRole)
        return -1;
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
    case Gpus:
        return gpus(*j);
    case Submitted:
        return j->submitted.isValid() ? j->submitted.toString(u"yyyy-MM-dd hh:mm:ss"_s) : QString();
    case Waited:
        return waited(*j);
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

QVariant JobsModel::trialData(const Job &job, const QModelIndex &index, int role) const {
    const auto it = std::next(job.indexStates.cbegin(), index.row());
    if (role == TrialRole)
        return it.key();
    if (role == JobIdRole)
        return job.id;
    if (role == BackendRole)
        return job.backend;
    if (role == StateRole)
        return static_cast<int>(it.value());
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Name: // the trial's run, as the curves name it; someone else's array task as Slurm does
        return job.foreign ? u"%1_%2"_s.arg(job.clusterJobId).arg(it.key())
                           : u"%1-%2"_s.arg(job.id).arg(it.key());
    case State:
        return jobStateName(it.value());
    case Backend:
        return job.backend;
    case Node:
        return job.node;
    default:
        return {};
    }
}

QVariant JobsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const QStringList names{tr("Run"),  tr("State"),     tr("Backend"), tr("Node"),
                                   tr("GPUs"), tr("Submitted"), tr("Waited"),  tr("Elapsed"),
                                   tr("Exit"), tr("Command")};
    return names.value(section);
}

} // namespace sb
