#include "JobsModel.h"

#include "BackendName.h"
#include "util/Duration.h"
#include "util/Log.h"

namespace sb {

using namespace Qt::StringLiterals;

namespace {

QString clock(qint64 seconds) {
    return formatDuration(seconds * 1000, DurationStyle::Clock);
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
    const bool onNode = job.backend == BackendName::kLocal || job.backend == BackendName::kSsh;
    return onNode ? u"%1: %2"_s.arg(job.node, job.gpuIds) : job.gpuIds;
}

} // namespace

JobsModel::JobsModel(BackendRegistry *backends, QObject *parent)
    : QAbstractItemModel(parent)
    , m_backends(backends) {
    // Once a second, one signal for the clock columns: views repaint only the rows they show.
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, [this] {
        if (std::any_of(m_jobs.begin(), m_jobs.end(), [](const Job &job) {
                return job.state == JobState::Running || job.state == JobState::Queued;
            }))
            Q_EMIT dataChanged(index(0, Waited), index(rowCount() - 1, Duration),
                               {Qt::DisplayRole});
        for (auto sweep = m_sweeps.cbegin(); sweep != m_sweeps.cend(); ++sweep) {
            const QModelIndex row = indexOfItem(sweep.key());
            if (std::any_of(sweep->jobs.begin(), sweep->jobs.end(),
                            [this](quintptr item) { return !jobOfItem(item)->finishedState(); }))
                Q_EMIT dataChanged(index(0, Waited, row),
                                   index(static_cast<int>(sweep->jobs.size() - 1), Duration, row),
                                   {Qt::DisplayRole});
        }
    });
    m_tick.start();
    for (JobBackend *backend : m_backends->backends())
        watch(backend);
    connect(m_backends, &BackendRegistry::added, this, &JobsModel::watch);
}

void JobsModel::watch(JobBackend *backend) {
    connect(backend, &JobBackend::jobChanged, this, &JobsModel::upsert);
    connect(backend, &JobBackend::jobRemoved, this,
            [this, backend](const QString &id) { remove(backend->name(), id); });
    for (const Job &job : backend->jobs())
        upsert(job);
}

namespace {

QString keyOf(const QString &backend, const QString &id) {
    return backend + u'/' + id;
}

// The sweep a job is a trial of, as the sweep put it in the trial's environment.
QString sweepOf(const Job &job) {
    return job.spec.environment.value(u"SIGNALBOX_SWEEP"_s);
}

} // namespace

const QList<quintptr> &JobsModel::childrenOf(quintptr parent) const {
    static const QList<quintptr> none;
    if (parent == 0)
        return m_top;
    const auto sweep = m_sweeps.constFind(parent);
    return sweep == m_sweeps.cend() ? none : sweep->jobs;
}

quintptr JobsModel::itemAt(const QModelIndex &index) const {
    if (!index.isValid() || (index.internalId() != 0 && !m_sweeps.contains(index.internalId())))
        return 0; // a trial's row
    const QList<quintptr> &siblings = childrenOf(index.internalId());
    return index.row() < siblings.size() ? siblings[siblings.size() - 1 - index.row()] : 0;
}

QModelIndex JobsModel::indexOfItem(quintptr item, int column) const {
    const quintptr parent = parentOf(item);
    const auto slot = m_slot.constFind(item);
    if (slot == m_slot.cend())
        return {};
    return createIndex(static_cast<int>(childrenOf(parent).size() - 1 - *slot), column, parent);
}

const Job *JobsModel::jobOfItem(quintptr item) const {
    const auto it = m_bySerial.constFind(item);
    return it == m_bySerial.cend() ? nullptr : &m_jobs[*it];
}

const Job *JobsModel::job(const QModelIndex &index) const {
    if (!index.isValid())
        return nullptr;
    if (const quintptr item = itemAt(index))
        return jobOfItem(item);
    return jobOfItem(index.internalId()); // a trial's row: its parent's job
}

QList<const Job *> JobsModel::sweepJobs(const QModelIndex &index) const {
    QList<const Job *> jobs;
    const auto sweep = m_sweeps.constFind(itemAt(index));
    if (sweep != m_sweeps.cend()) {
        for (const quintptr item : sweep->jobs)
            jobs << jobOfItem(item);
    }
    return jobs;
}

QModelIndex JobsModel::indexOf(const QString &backend, const QString &id) const {
    const auto it = m_index.constFind(keyOf(backend, id));
    return it == m_index.cend() ? QModelIndex() : indexOfItem(m_serials[*it]);
}

QModelIndex JobsModel::index(int row, int column, const QModelIndex &parent) const {
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < m_top.size() ? createIndex(row, column, quintptr(0)) : QModelIndex();
    const quintptr item = itemAt(parent);
    if (item == 0 || parent.column() != 0)
        return {}; // trials have no rows of their own
    if (m_sweeps.contains(item))
        return row < m_sweeps[item].jobs.size() ? createIndex(row, column, item) : QModelIndex();
    const Job *j = jobOfItem(item);
    return j && row < j->indexStates.size() ? createIndex(row, column, item) : QModelIndex();
}

QModelIndex JobsModel::parent(const QModelIndex &child) const {
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return indexOfItem(child.internalId());
}

void JobsModel::reindex() {
    m_index.clear();
    m_bySerial.clear();
    m_slot.clear();
    for (qsizetype i = 0; i < m_jobs.size(); ++i) {
        m_index.insert(keyOf(m_jobs[i].backend, m_jobs[i].id), i);
        m_bySerial.insert(m_serials[i], i);
    }
    for (qsizetype i = 0; i < m_top.size(); ++i)
        m_slot.insert(m_top[i], i);
    for (const Sweep &sweep : std::as_const(m_sweeps)) {
        for (qsizetype i = 0; i < sweep.jobs.size(); ++i)
            m_slot.insert(sweep.jobs[i], i);
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
        const quintptr item = m_nextSerial++;
        const QString sweepId = sweepOf(job);
        quintptr sweep = m_sweepById.value(sweepId, 0);
        if (!sweepId.isEmpty() && sweep == 0) { // the sweep's first job: its row first
            sweep = m_nextSerial++;
            beginInsertRows({}, 0, 0);
            m_slot.insert(sweep, m_top.size());
            m_top.append(sweep);
            m_sweeps.insert(sweep, Sweep{sweepId, {}});
            m_sweepById.insert(sweepId, sweep);
            endInsertRows();
        }
        beginInsertRows(sweep ? indexOfItem(sweep) : QModelIndex(), 0, 0);
        QList<quintptr> &siblings = sweep ? m_sweeps[sweep].jobs : m_top;
        m_slot.insert(item, siblings.size());
        siblings.append(item);
        if (sweep)
            m_sweepOf.insert(item, sweep);
        m_index.insert(keyOf(job.backend, job.id), m_jobs.size());
        m_bySerial.insert(item, m_jobs.size());
        m_serials.append(item);
        m_jobs.append(job);
        endInsertRows();
        if (sweep)
            Q_EMIT dataChanged(indexOfItem(sweep), indexOfItem(sweep, ColumnCount - 1));
        return;
    }
    const qsizetype position = *it;
    const quintptr item = m_serials[position];
    const QModelIndex row = indexOfItem(item);
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
    Q_EMIT dataChanged(row, row.siblingAtColumn(ColumnCount - 1));
    if (const quintptr sweep = parentOf(item))
        Q_EMIT dataChanged(indexOfItem(sweep), indexOfItem(sweep, ColumnCount - 1));
}

void JobsModel::remove(const QString &backend, const QString &id) {
    const auto it = m_index.constFind(keyOf(backend, id));
    if (it == m_index.cend())
        return;
    const qsizetype position = *it;
    const quintptr item = m_serials[position];
    const quintptr sweep = parentOf(item);
    const QModelIndex row = indexOfItem(item);
    beginRemoveRows(row.parent(), row.row(), row.row());
    (sweep ? m_sweeps[sweep].jobs : m_top).removeAt(m_slot.value(item));
    m_sweepOf.remove(item);
    m_jobs.removeAt(position);
    m_serials.removeAt(position);
    reindex(); // positions after it moved; removals are rare
    endRemoveRows();
    if (sweep && m_sweeps[sweep].jobs.isEmpty()) { // its last job: the sweep's row goes too
        const QModelIndex sweepRow = indexOfItem(sweep);
        beginRemoveRows({}, sweepRow.row(), sweepRow.row());
        m_top.removeAt(m_slot.value(sweep));
        m_sweepById.remove(m_sweeps[sweep].id);
        m_sweeps.remove(sweep);
        reindex();
        endRemoveRows();
    } else if (sweep) {
        Q_EMIT dataChanged(indexOfItem(sweep), indexOfItem(sweep, ColumnCount - 1));
    }
}

int JobsModel::rowCount(const QModelIndex &parent) const {
    if (!parent.isValid())
        return static_cast<int>(m_top.size());
    const quintptr item = itemAt(parent);
    if (item == 0 || parent.column() != 0)
        return 0;
    if (const auto sweep = m_sweeps.constFind(item); sweep != m_sweeps.cend())
        return static_cast<int>(sweep->jobs.size());
    const Job *j = jobOfItem(item);
    return j ? static_cast<int>(j->indexStates.size()) : 0;
}

int JobsModel::columnCount(const QModelIndex &) const {
    return ColumnCount;
}

QVariant JobsModel::data(const QModelIndex &index, int role) const {
    const quintptr item = itemAt(index);
    if (const auto sweep = m_sweeps.constFind(item); item && sweep != m_sweeps.cend())
        return sweepData(*sweep, index, role);
    const Job *j = job(index);
    if (!j)
        return {};
    if (item == 0)
        return trialData(*j, index, role);
    if (role == TrialRole)
        return -1;
    if (role == SweepRole)
        return sweepOf(*j);
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
                   ? jobStateText(j->state)
                   : u"%1: %2"_s.arg(jobStateText(j->state), j->message);
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
    if (role == SweepRole)
        return sweepOf(job);
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
        return job.foreign ? u"%1_%2"_s.arg(job.clusterJobId, QString::number(it.key()))
                           : u"%1-%2"_s.arg(job.id, QString::number(it.key()));
    case State:
        return jobStateText(it.value());
    case Backend:
        return job.backend;
    case Node:
        return job.node;
    default:
        return {};
    }
}

QVariant JobsModel::sweepData(const Sweep &sweep, const QModelIndex &index, int role) const {
    QList<const Job *> jobs;
    for (const quintptr item : sweep.jobs)
        jobs << jobOfItem(item);
    const auto count = [&jobs](JobState state) {
        return std::count_if(jobs.begin(), jobs.end(),
                             [state](const Job *j) { return j->state == state; });
    };
    if (role == TrialRole)
        return -1;
    if (role == SweepRole)
        return sweep.id;
    if (role == JobIdRole)
        return QString();
    if (role == BackendRole)
        return jobs.constLast()->backend;
    if (role == StateRole) { // the swatch: what most needs the eye
        for (const JobState state :
             {JobState::Running, JobState::Queued, JobState::Failed, JobState::Stopped})
            if (count(state) > 0)
                return static_cast<int>(state);
        return static_cast<int>(JobState::Succeeded);
    }
    const QString size = jobs.size() == 1 ? tr("1 job") : tr("%1 jobs").arg(jobs.size());
    if (role == Qt::ToolTipRole)
        return tr("Sweep %1: %2; the Sweeps tab follows it").arg(sweep.id, size);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Name:
        return tr("%1 (sweep, %2)").arg(sweep.id, size);
    case State: {
        QStringList parts;
        for (const JobState state : {JobState::Running, JobState::Queued, JobState::Succeeded,
                                     JobState::Failed, JobState::Stopped}) {
            if (const auto n = count(state))
                parts << u"%1 %2"_s.arg(n).arg(jobStateText(state));
        }
        return parts.join(u" · "_s);
    }
    case Backend:
        return jobs.constLast()->backend;
    case Node: {
        QStringList nodes;
        for (const Job *j : jobs) {
            if (!j->node.isEmpty() && !nodes.contains(j->node))
                nodes << j->node;
        }
        return nodes.join(u", "_s);
    }
    case Submitted:
        return jobs.constFirst()->submitted.isValid()
                   ? jobs.constFirst()->submitted.toString(u"yyyy-MM-dd hh:mm:ss"_s)
                   : QString();
    case Command:
        return jobs.constLast()->spec.command.join(u' ');
    default:
        return {};
    }
}

QVariant JobsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    const QStringList names{tr("Run"),  tr("State"),     tr("Backend"), tr("Node"),
                            tr("GPUs"), tr("Submitted"), tr("Waited"),  tr("Elapsed"),
                            tr("Exit"), tr("Command")};
    return names.value(section);
}

} // namespace sb
