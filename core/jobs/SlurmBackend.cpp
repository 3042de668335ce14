#include "SlurmBackend.h"

#include "ssh/ShellQuote.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr int kCommandTimeoutMs = 30000;

QString workspaceOf(const SlurmClusterConfig &cluster) {
    return cluster.workspace.isEmpty() ? u"~/.signalbox/slurm"_s : cluster.workspace;
}

// A command's error output as one line for the jobs table ("sbatch: error: ...; ...").
QString oneLine(const QByteArray &output) {
    return QString::fromUtf8(output).trimmed().split(u'\n', Qt::SkipEmptyParts).join(u"; "_s);
}

} // namespace

SlurmBackend::SlurmBackend(NodeMonitor *monitor, Options options, QObject *parent)
    : JobBackend(parent)
    , m_monitor(monitor)
    , m_options(std::move(options)) {
    QDir().mkpath(m_options.dataDir + u"/slurm-logs"_s);
    // Unfinished jobs from the last session go on on their clusters: follow them again.
    m_jobs = loadJobs(m_options.dataDir + u"/slurm-jobs.json"_s, &m_restoreProblem);
    for (Job &job : m_jobs) {
        if (!job.finishedState() && job.clusterJobId.isEmpty()) { // sbatch's answer was lost
            job.state = JobState::Failed;
            job.finished = QDateTime::currentDateTime();
            job.message = u"Signalbox quit before the cluster confirmed the submission; look "
                          "for a job named %1 with squeue"_s.arg(job.id);
        }
    }
    m_poll.setInterval(m_options.pollMs);
    connect(&m_poll, &QTimer::timeout, this, &SlurmBackend::poll);
    m_poll.start();
}

void SlurmBackend::setClusters(const QList<SlurmClusterConfig> &clusters) {
    m_clusters = clusters;
    QTimer::singleShot(0, this, &SlurmBackend::poll);
}

QStringList SlurmBackend::clusters() const {
    QStringList names;
    for (const SlurmClusterConfig &c : m_clusters)
        names << c.name;
    return names;
}

const SlurmClusterConfig *SlurmBackend::cluster(const QString &name) const {
    for (const SlurmClusterConfig &c : m_clusters) {
        if (c.name == name)
            return &c;
    }
    return nullptr;
}

QList<Job> SlurmBackend::jobs() const {
    QList<Job> all = m_jobs;
    for (const auto &perCluster : m_foreign)
        all << perCluster.values();
    return all;
}

Job *SlurmBackend::find(const QString &id) {
    return findJob(m_jobs, id);
}

void SlurmBackend::update(const Job &job) {
    if (Status saved = saveJobs(m_options.dataDir + u"/slurm-jobs.json"_s, m_jobs); !saved)
        qWarning("%s", qPrintable(saved.error()));
    Q_EMIT jobChanged(job);
}

Result<QString> SlurmBackend::batchScript(const JobSpec &spec) const {
    const SlurmClusterConfig *where = cluster(spec.target);
    if (!where)
        return fail(u"no Slurm cluster named \"%1\""_s.arg(spec.target));
    return slurmBatchScript(spec, *where, u"<run>"_s);
}

void SlurmBackend::check(const JobSpec &spec, QObject *receiver,
                         std::function<void(const QString &, const QString &)> done) const {
    const SlurmClusterConfig *where = cluster(spec.target);
    NodeConnection *login = where ? m_monitor->connection(where->login) : nullptr;
    const auto script = batchScript(spec);
    if (!script || !login) {
        const QString error =
            !script ? script.error() : u"Slurm cluster %1 has no login node"_s.arg(spec.target);
        QTimer::singleShot(0, receiver, [done = std::move(done), error] { done(error, {}); });
        return;
    }
    login->exec(
        shellCommand({u"sbatch"_s, u"--test-only"_s}), receiver,
        [done = std::move(done)](const Result<ExecResult> &result) {
            if (!result)
                return done(result.error(), {});
            const QString said = oneLine(result->err);
            if (result->exitCode != 0)
                return done(said.isEmpty() ? u"sbatch --test-only failed"_s : said, {});
            done({}, said);
        },
        kCommandTimeoutMs, script->toUtf8());
}

Result<QString> SlurmBackend::submit(const JobSpec &spec) {
    const SlurmClusterConfig *where = cluster(spec.target);
    if (!where)
        return fail(u"no Slurm cluster named \"%1\""_s.arg(spec.target));
    if (!m_monitor->connection(where->login))
        return fail(u"Slurm cluster %1: its login node \"%2\" is not a node of the config"_s.arg(
            where->name, where->login));
    if (spec.trials > 0)
        return fail(u"a job of trials is not supported on Slurm yet; the sweep runs its trials "
                    "as jobs of their own"_s);
    Job job;
    job.id = newJobId(spec);
    const auto script = slurmBatchScript(spec, *where, job.id);
    if (!script)
        return script.failure();
    job.backend = name();
    job.spec = spec;
    job.node = where->name;
    job.submitted = QDateTime::currentDateTime();
    job.logPath = m_options.dataDir + u"/slurm-logs/"_s + job.id + u".log"_s;
    job.message = u"submitting through %1"_s.arg(where->login);
    QFile log(job.logPath);
    if (!log.open(QIODevice::WriteOnly))
        return fail(u"cannot write the log %1: %2"_s.arg(job.logPath, log.errorString()));
    m_jobs << job;
    update(job);
    sendSubmission(job.id, *script);
    return job.id;
}

void SlurmBackend::sendSubmission(const QString &id, const QString &script) {
    const Job *job = find(id);
    const SlurmClusterConfig *where = cluster(job->node);
    m_monitor->connection(where->login)
        ->exec(
            shellCommand({u"sh"_s, u"-c"_s, slurmSubmitScript(), u"signalbox-sbatch"_s,
                          workspaceOf(*where), id}),
            this,
            [this, id](const Result<ExecResult> &result) {
                Job *j = find(id);
                if (!j)
                    return;
                const QStringList lines =
                    result ? QString::fromUtf8(result->out).split(u'\n', Qt::SkipEmptyParts)
                           : QStringList();
                if (!result || result->exitCode != 0 || lines.isEmpty()) {
                    j->state = JobState::Failed;
                    j->finished = QDateTime::currentDateTime();
                    j->message = u"sbatch refused it: %1"_s.arg(result ? oneLine(result->err)
                                                                       : result.error());
                    update(*j);
                    return;
                }
                j->clusterJobId = lines.first().trimmed();
                j->message = u"submitted as job %1"_s.arg(j->clusterJobId);
                update(*j);
                if (m_cancelOnSubmit.remove(id))
                    cancel(*j);
            },
            kCommandTimeoutMs, script.toUtf8());
}

void SlurmBackend::cancel(const Job &job) {
    const SlurmClusterConfig *where = cluster(job.node);
    NodeConnection *login = where ? m_monitor->connection(where->login) : nullptr;
    if (!login)
        return;
    // scancel sends SIGTERM to the job's steps and batch script, and SIGKILL after the
    // cluster's KillWait: the grace period is the cluster's.
    login->exec(
        shellCommand({u"scancel"_s, job.clusterJobId}), this,
        [this, id = job.id](const Result<ExecResult> &result) {
            Job *j = find(id);
            if (!j || j->finishedState())
                return;
            if (!result || result->exitCode != 0) {
                j->message =
                    u"scancel failed: %1"_s.arg(result ? oneLine(result->err) : result.error());
                update(*j);
            }
        },
        kCommandTimeoutMs);
}

Status SlurmBackend::stop(const QString &id) {
    Job *job = find(id);
    if (!job) {
        for (const auto &perCluster : std::as_const(m_foreign)) {
            for (const Job &foreign : perCluster) {
                if (foreign.id == id) {
                    cancel(foreign); // scancel itself says whether this user may
                    return success();
                }
            }
        }
        return fail(u"no job %1"_s.arg(id));
    }
    if (job->finishedState())
        return fail(u"%1 has ended"_s.arg(id));
    job->message = u"stopping"_s;
    update(*job);
    if (job->clusterJobId.isEmpty())
        m_cancelOnSubmit.insert(id);
    else
        cancel(*job);
    return success();
}

Result<QByteArray> SlurmBackend::log(const QString &id) const {
    if (const Job *job = findJob(m_jobs, id))
        return readJobLog(*job);
    return fail(u"%1 was not submitted from Signalbox; its output is where its batch script "
                "said"_s.arg(id));
}

void SlurmBackend::describe(const QString &id, QObject *receiver,
                            std::function<void(const QString &text)> done) const {
    Job job;
    for (const Job &j : jobs()) {
        if (j.id == id)
            job = j;
    }
    const SlurmClusterConfig *where = cluster(job.node);
    NodeConnection *login = where ? m_monitor->connection(where->login) : nullptr;
    if (job.id.isEmpty() || job.clusterJobId.isEmpty() || !login)
        return JobBackend::describe(id, receiver, std::move(done));
    const QString text = describeJob(job);
    // What the controller knows, then the script as it was submitted.
    static const QString script =
        uR"sh(scontrol show job "$1" 2>&1 || echo "(the controller no longer holds it)"
case $2 in "~/"*) ws="$HOME/${2#"~/"}";; *) ws=$2;; esac
if [ -n "$3" ] && [ -f "$ws/$3/job.sh" ]; then echo; echo "Batch script:"; cat "$ws/$3/job.sh"; fi
exit 0)sh"_s;
    const bool ours = findJob(m_jobs, id) != nullptr;
    login->exec(
        shellCommand({u"sh"_s, u"-c"_s, script, u"signalbox-describe"_s, job.clusterJobId,
                      workspaceOf(*where), ours ? job.id : QString()}),
        receiver,
        [text, done = std::move(done)](const Result<ExecResult> &result) {
            done(text + u"\n"_s +
                 (result ? QString::fromUtf8(result->out)
                         : u"The login node did not answer: %1\n"_s.arg(result.error())));
        },
        kCommandTimeoutMs);
}

void SlurmBackend::setAllJobs(bool all) {
    if (all == m_allUsers)
        return;
    m_allUsers = all;
    poll();
}

void SlurmBackend::poll() {
    for (const SlurmClusterConfig &c : m_clusters) {
        if (!m_polling.contains(c.name))
            pollCluster(c);
    }
}

void SlurmBackend::pollCluster(const SlurmClusterConfig &where) {
    NodeConnection *login = m_monitor->connection(where.login);
    if (!login)
        return;
    QStringList accounting;
    QStringList ids; // the jobs whose logs this poll reads, in order
    QStringList pairs;
    for (const Job &job : std::as_const(m_jobs)) {
        if (job.node != where.name || job.clusterJobId.isEmpty())
            continue;
        if (!job.finishedState() && m_askAccounting.contains(job.id))
            accounting << job.clusterJobId;
        if (job.state == JobState::Running || m_tail.contains(job.id)) {
            ids << job.id;
            pairs << job.id << QString::number(QFileInfo(job.logPath).size());
        }
    }
    m_polling.insert(where.name);
    login->exec(
        shellCommand(
            slurmPollArguments(workspaceOf(where), m_allUsers || where.allUsers, accounting) +
            pairs),
        this,
        [this, name = where.name, ids](const Result<ExecResult> &result) {
            m_polling.remove(name);
            if (!result)
                return unreachable(name, u"cannot reach the login node; the job goes on there "
                                         "(%1)"_s.arg(result.error()));
            QList<Job *> jobs; // found again: the list may have changed meanwhile
            for (const QString &id : ids)
                jobs << find(id);
            received(name, jobs, parseSlurmPoll(result->out));
        },
        kCommandTimeoutMs);
}

void SlurmBackend::unreachable(const QString &clusterName, const QString &message) {
    for (Job &job : m_jobs) {
        if (job.node == clusterName && !job.finishedState() && job.message != message) {
            job.message = message;
            update(job);
        }
    }
}

void SlurmBackend::received(const QString &clusterName, const QList<Job *> &following,
                            const SlurmPoll &poll) {
    for (const SlurmLogChunk &chunk : poll.logs) {
        if (chunk.index >= 0 && chunk.index < following.size() && following[chunk.index])
            appendLog(*following[chunk.index], chunk.data);
    }
    for (Job *job : following) {
        if (job && job->finishedState())
            m_tail.remove(job->id); // its log was read after it ended: complete
    }
    if (poll.queueFailed)
        return unreachable(clusterName, u"the cluster's controller does not answer squeue; the "
                                        "job goes on there"_s);

    QHash<QString, SlurmJobRow> queue;
    for (const SlurmJobRow &row : poll.queue)
        queue.insert(row.jobId, row);
    QHash<QString, SlurmJobRow> accounting;
    for (const SlurmJobRow &row : poll.accounting)
        accounting.insert(row.jobId, row);
    QSet<QString> ours;
    for (Job &job : m_jobs) {
        if (job.node != clusterName || job.clusterJobId.isEmpty())
            continue;
        ours.insert(job.clusterJobId);
        if (job.finishedState())
            continue;
        const bool read = following.contains(&job);
        const auto row = queue.constFind(job.clusterJobId);
        const bool queued = row != queue.cend();
        if (queued && slurmJobState(row->state) < JobState::Succeeded) {
            m_askAccounting.remove(job.id);
            apply(&job, *row, read);
            continue;
        }
        // It has ended (squeue says so, for MinJobAge) or left the queue: sacct knows how,
        // with the exit code squeue lacks.
        if (const auto done = accounting.constFind(job.clusterJobId); done != accounting.cend()) {
            apply(&job, *done, read);
        } else if (poll.accountingFailed && queued) {
            apply(&job, *row, read); // squeue's word, without an exit code
        } else if (poll.accountingFailed && m_askAccounting.contains(job.id)) {
            job.state = JobState::Failed;
            job.finished = QDateTime::currentDateTime();
            job.message = u"it left the queue and the cluster keeps no accounting (sacct), so "
                          "how it ended is unknown"_s;
            m_askAccounting.remove(job.id);
            update(job);
        } else {
            m_askAccounting.insert(job.id); // asked in the next poll
        }
    }
    QList<SlurmJobRow> others;
    for (const SlurmJobRow &row : poll.queue) {
        if (!ours.contains(row.jobId))
            others << row;
    }
    showForeign(clusterName, others);
}

void SlurmBackend::apply(Job *job, const SlurmJobRow &row, bool logRead) {
    const JobState state = slurmJobState(row.state);
    const QString message = slurmMessage(row);
    if (state == job->state) { // the time left ticks: shown, not written to the history
        if (message != job->message) {
            job->message = message;
            Q_EMIT jobChanged(*job);
        }
        return;
    }
    if (state != JobState::Queued && !job->started.isValid())
        job->started = row.start.isValid() ? row.start : QDateTime::currentDateTime();
    job->state = state;
    job->message = message;
    job->gpuIds = row.gres;
    if (state >= JobState::Succeeded) {
        job->finished = row.end.isValid() ? row.end : QDateTime::currentDateTime();
        // Slurm writes 0:0 for a cancelled or timed-out job: an exit code only where the script
        // gave one, else the signal that ended it as a shell would (128 + signal).
        const bool exited = row.state == "COMPLETED"_L1 || row.state == "FAILED"_L1;
        job->exitCode = row.signal > 0 ? std::optional<int>(128 + row.signal)
                        : exited       ? row.exitCode
                                       : std::nullopt;
        m_askAccounting.remove(job->id);
        if (!logRead)
            m_tail.insert(job->id); // the end of its output comes with the next poll
    }
    update(*job);
}

void SlurmBackend::showForeign(const QString &clusterName, const QList<SlurmJobRow> &rows) {
    QHash<QString, Job> &shown = m_foreign[clusterName];
    QSet<QString> seen;
    for (const SlurmJobRow &row : rows) {
        seen.insert(row.jobId);
        Job job;
        job.id = u"%1 (%2 job %3)"_s.arg(row.name, clusterName, row.jobId); // unique, readable
        job.backend = name();
        job.node = clusterName;
        job.clusterJobId = row.jobId;
        job.spec.backend = name();
        job.spec.target = clusterName;
        job.spec.name = row.name;
        job.spec.slurm.partition = row.partition;
        job.state = slurmJobState(row.state);
        job.message =
            row.user.isEmpty() ? slurmMessage(row) : u"%1 (%2)"_s.arg(slurmMessage(row), row.user);
        job.submitted = row.submitted;
        if (job.state != JobState::Queued)
            job.started = row.start;
        job.gpuIds = row.gres;
        const auto it = shown.constFind(row.jobId);
        if (it != shown.cend() && it->state == job.state && it->message == job.message &&
            it->started == job.started && it->gpuIds == job.gpuIds &&
            it->spec.name == job.spec.name)
            continue; // unchanged: most of a long queue, every poll
        shown.insert(row.jobId, job);
        Q_EMIT jobChanged(job);
    }
    for (auto it = shown.begin(); it != shown.end();) {
        if (seen.contains(it.key())) {
            ++it;
            continue;
        }
        const QString id = it->id;
        it = shown.erase(it);
        Q_EMIT jobRemoved(id);
    }
}

} // namespace sb
