#include "SlurmBackend.h"

#include "code/CodeSync.h"
#include "jobs/PythonClient.h"
#include "ssh/ShellQuote.h"
#include "util/Log.h"
#include "util/PlainText.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// An array task that has left squeue with no record in sacct after this many answers was
// cancelled before it started: Slurm keeps no record of such a task.
constexpr int kUnrecordedAnswers = 3;

QString taskKey(const QString &id, int index) {
    return index < 0 ? id : u"%1/%2"_s.arg(id, QString::number(index));
}

// The local copy of one array task's output, whole.
QString taskLogPath(const Job &job, int index) {
    QString path = job.logPath;
    return path.insert(path.size() - 4, u".%1"_s.arg(index)); // "<id>.3.log"
}

// What follows a file's last line break: a task's unfinished line after a restart.
QByteArray unfinishedLine(const QString &path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    file.seek(std::max<qint64>(0, file.size() - (1 << 20)));
    const QByteArray tail = file.readAll();
    return tail.mid(tail.lastIndexOf('\n') + 1);
}

} // namespace

SlurmBackend::SlurmBackend(NodeMonitor *monitor, Options options, QObject *parent)
    : JobBackend(parent)
    , m_monitor(monitor)
    , m_options(std::move(options))
    , m_history(m_options.dataDir + u"/slurm-jobs.json"_s) {
    QDir().mkpath(m_options.dataDir + u"/slurm-logs"_s);
    // Unfinished jobs from the last session go on on their clusters: follow them again.
    m_jobs = m_history.load(&m_restoreProblem);
    for (Job &job : m_jobs) {
        if (!job.finishedState() && job.clusterJobId.isEmpty()) // sbatch's answer was lost
            markFailed(job, u"Signalbox quit before the cluster confirmed the submission; look "
                            "for a job named %1 with squeue"_s.arg(job.id));
    }
    m_poll.setInterval(m_options.pollMs);
    connect(&m_poll, &QTimer::timeout, this, &SlurmBackend::poll);
    m_poll.start();
}

void SlurmBackend::setClusters(const QList<SlurmClusterConfig> &clusters) {
    m_clusters = clusters;
    for (auto it = m_transports.begin(); it != m_transports.end();) {
        const SlurmClusterConfig *now = cluster(it.key());
        if (now && SlurmTransport::sameWay((*it)->cluster(), *now)) {
            (*it)->setCluster(*now);
            ++it;
            continue;
        }
        (*it)->retire(); // its polls' answers are dropped; its sbatch and scancel answers come
        m_polling.remove(it.key());
        it = m_transports.erase(it);
    }
    for (const SlurmClusterConfig &c : clusters) {
        if (!m_transports.contains(c.name))
            m_transports.insert(c.name, makeSlurmTransport(m_monitor, c, this));
    }
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
    m_history.save(m_jobs);
    Q_EMIT jobChanged(job);
}

Result<QString> SlurmBackend::batchScript(const JobSpec &spec) const {
    const SlurmClusterConfig *where = cluster(spec.target);
    if (!where)
        return fail(u"no Slurm cluster named \"%1\""_s.arg(spec.target));
    return slurmBatchScript(spec, *where);
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
            if (Status accepted = commandSucceeded(result); !accepted)
                return done(result && result->err.trimmed().isEmpty()
                                ? u"sbatch --test-only failed"_s
                                : accepted.error(),
                            {});
            done({}, oneLine(result->err)); // when and where it would start
        },
        kSlurmCommandTimeoutMs, script->toUtf8());
}

void SlurmBackend::clusterState(const QString &clusterName, QObject *receiver,
                                std::function<void(const Result<SlurmClusterState> &)> done) const {
    const SlurmClusterConfig *where = cluster(clusterName);
    NodeConnection *login = where ? m_monitor->connection(where->login) : nullptr;
    if (!login) {
        QTimer::singleShot(0, receiver, [done = std::move(done), clusterName] {
            done(fail(u"Slurm cluster %1 has no login node"_s.arg(clusterName)));
        });
        return;
    }
    login->exec(
        shellCommand({u"sh"_s, u"-c"_s, slurmClusterStateScript()}), receiver,
        [done = std::move(done)](const Result<ExecResult> &result) {
            if (!result)
                return done(fail(result.error()));
            if (result->out.contains("@@sinfo-failed"))
                return done(fail(u"sinfo failed: %1"_s.arg(oneLine(result->err))));
            done(parseSlurmClusterState(result->out));
        },
        kSlurmCommandTimeoutMs);
}

void SlurmBackend::sampleGpus(const QString &id, QObject *receiver, JobSamplesDone done) const {
    const auto job =
        std::find_if(m_jobs.begin(), m_jobs.end(), [&](const Job &j) { return j.id == id; });
    const SlurmClusterConfig *where = job != m_jobs.end() ? cluster(job->node) : nullptr;
    NodeConnection *login = where ? m_monitor->connection(where->login) : nullptr;
    QString problem;
    if (job == m_jobs.end())
        problem = u"no Slurm job %1"_s.arg(id);
    else if (job->state != JobState::Running || job->clusterJobId.isEmpty())
        problem = u"job %1 is not running"_s.arg(id);
    else if (!login)
        problem = u"Slurm cluster %1 has no login node"_s.arg(job->node);
    if (!problem.isEmpty()) {
        QTimer::singleShot(0, receiver, [done = std::move(done), problem] { done(fail(problem)); });
        return;
    }
    login->exec(
        shellCommand(slurmJobGpusCommand(slurmBaseJobId(job->clusterJobId))), receiver,
        [done = std::move(done), backend = QPointer<const SlurmBackend>(this),
         id](const Result<ExecResult> &result) {
            if (!result)
                return done(fail(result.error()));
            // Each node's builder is kept across readings: the CPU used since the last one.
            std::map<QString, NodeSampleBuilder> alone; // the backend went away meanwhile
            done(parseSlurmJobGpus(result->out, [&](const QString &node) -> NodeSampleBuilder & {
                return backend ? backend->gpuSampleBuilder(id, node) : alone[node];
            }));
        },
        kSlurmCommandTimeoutMs);
}

Result<QString> SlurmBackend::submit(const JobSpec &spec) {
    if (spec.trials > 0)
        return fail(u"a job of trials is submitted by its sweep"_s);
    return enqueue(spec, {});
}

Result<QString> SlurmBackend::submitTrials(const JobSpec &spec, const QList<QString> &scripts) {
    if (spec.trials != scripts.size() || scripts.isEmpty())
        return fail(u"a job of trials needs one script per trial"_s);
    if (scripts.size() > capabilities().trialsInOneJob)
        return fail(u"%1 trials are more than one job array holds"_s.arg(scripts.size()));
    return enqueue(spec, scripts);
}

Result<QString> SlurmBackend::enqueue(const JobSpec &spec, const QList<QString> &trials) {
    const SlurmClusterConfig *where = cluster(spec.target);
    if (!where)
        return fail(u"no Slurm cluster named \"%1\""_s.arg(spec.target));
    NodeConnection *login = m_monitor->connection(where->login);
    if (!login)
        return fail(u"Slurm cluster %1: its login node \"%2\" is not a node of the config"_s.arg(
            where->name, where->login));
    if (!spec.codeDirectory.isEmpty() && !QFileInfo(spec.codeDirectory).isDir())
        return fail(u"the code directory %1 does not exist"_s.arg(spec.codeDirectory));
    const auto script = slurmBatchScript(spec, *where, trials);
    if (!script)
        return script.failure();
    if (Status carried = m_transports.value(where->name)->accepts(*script); !carried)
        return carried.failure(); // refused now, not later
    Job job;
    job.id = newJobId(spec);
    job.backend = name();
    job.spec = spec;
    job.node = where->name;
    job.submitted = QDateTime::currentDateTime();
    job.logPath = m_options.dataDir + u"/slurm-logs/"_s + job.id + u".log"_s;
    for (qsizetype i = 0; i < trials.size(); ++i)
        job.indexStates.insert(static_cast<int>(i), JobState::Queued);
    job.message = spec.codeDirectory.isEmpty() ? u"submitting through %1"_s.arg(where->login)
                                               : u"copying the code to %1"_s.arg(where->login);
    QFile log(job.logPath);
    if (!log.open(QIODevice::WriteOnly))
        return fail(u"cannot write the log %1: %2"_s.arg(job.logPath, log.errorString()));
    m_jobs << job;
    update(job);
    if (spec.codeDirectory.isEmpty()) {
        sendSubmission(job.id, *script, {});
        return job.id;
    }
    // The code goes to the cluster's shared filesystem, where every compute node reads it.
    syncCode(login, spec.codeDirectory, slurmWorkspace(*where) + u"/code"_s, this,
             [this, id = job.id, script = *script](const Result<QString> &synced) {
                 Job *j = find(id);
                 if (!j || j->finishedState())
                     return;
                 if (m_cancelOnSubmit.remove(id)) { // stopped while the code was listed
                     j->state = JobState::Stopped;
                     j->finished = QDateTime::currentDateTime();
                     j->message = u"stopped before it was submitted"_s;
                     update(*j);
                     return;
                 }
                 if (!synced) {
                     markFailed(*j, u"copying the code failed: %1"_s.arg(synced.error()));
                     update(*j);
                     return;
                 }
                 j->message = u"submitting through the login node"_s;
                 update(*j);
                 sendSubmission(id, script,
                                j->spec.workingDirectory.isEmpty() ? *synced : QString());
             });
    return job.id;
}

void SlurmBackend::sendSubmission(const QString &id, const QString &script,
                                  const QString &directory) {
    const Job *job = find(id);
    const SlurmClusterConfig *where = cluster(job->node);
    NodeConnection *login = where ? m_monitor->connection(where->login) : nullptr;
    if (!login)
        return;
    const auto &shipped = pythonClient();
    if (shipped && !m_clientOn.contains(where->name)) {
        // Once per cluster and session, on its shared filesystem beside the code: `import
        // signalbox` works on every compute node as here.
        login->exec(
            shellCommand({u"sh"_s, u"-c"_s, installPythonClientScript(), u"signalbox-client"_s,
                          sb::pythonClientDirectory(slurmWorkspace(*where), *shipped)}),
            this,
            [this, id, script, directory,
             cluster = where->name](const Result<ExecResult> &installed) {
                const Status done = commandSucceeded(installed);
                if (!done) // the job goes on: a script that never imports the client loses nothing
                    qCWarning(lcJobs).noquote()
                        << u"%1: the Python client was not installed: %2"_s.arg(cluster,
                                                                                done.error());
                m_clientOn.insert(cluster,
                                  done ? QString::fromUtf8(installed->out.trimmed()) : QString());
                if (const Job *j = find(id); j && !j->finishedState())
                    sendSubmission(id, script, directory);
            },
            30000, shipped->archive);
        return;
    }
    QString withClient = script;
    if (const QString dir = m_clientOn.value(where->name); !dir.isEmpty()) {
        // Before the script's first command: sbatch reads #SBATCH lines only until then.
        qsizetype at = 0;
        while (at < script.size()) {
            const qsizetype end = script.indexOf(u'\n', at);
            const qsizetype next = end < 0 ? script.size() : end + 1;
            const QString line = script.mid(at, next - at).trimmed();
            if (!line.isEmpty() && !line.startsWith(u'#'))
                break;
            at = next;
        }
        if (at == script.size() && !script.isEmpty() && !script.endsWith(u'\n')) {
            withClient.append(u'\n'); // a script of comments alone: the export on a line of its own
            ++at;
        }
        withClient.insert(
            at, u"export PYTHONPATH=%1\"${PYTHONPATH:+:$PYTHONPATH}\"\n"_s.arg(
                    shellQuote(dir + u"/signalbox.zip"_s))); // Python imports from the zip
    }
    m_transports.value(where->name)
        ->submit({.id = id,
                  .script = withClient,
                  .log = job->spec.trials > 0 ? u"log-%a"_s : u"log"_s,
                  .directory = directory},
                 [this, id](const Result<QString> &clusterJobId) { submitted(id, clusterJobId); });
}

void SlurmBackend::submitted(const QString &id, const Result<QString> &clusterJobId) {
    Job *j = find(id);
    if (!j)
        return;
    if (!clusterJobId) {
        markFailed(*j, clusterJobId.error());
        update(*j);
        return;
    }
    j->clusterJobId = *clusterJobId;
    j->message = u"submitted as job %1"_s.arg(j->clusterJobId);
    update(*j);
    if (m_cancelOnSubmit.remove(id))
        cancel(*j, j->clusterJobId);
}

void SlurmBackend::cancel(const Job &job, const QString &clusterJobId) {
    const SlurmClusterConfig *where = cluster(job.node);
    NodeConnection *login = where ? m_monitor->connection(where->login) : nullptr;
    if (!login)
        return;
    // scancel and slurmrestd send SIGTERM to the job's steps and batch script, and SIGKILL after
    // the cluster's KillWait: the grace period is the cluster's.
    const auto failed = [this, id = job.id](const QString &why) {
        Job *j = find(id);
        if (!j || j->finishedState())
            return;
        j->message = why;
        update(*j);
    };
    m_transports.value(where->name)->cancel(clusterJobId, [failed](const Status &cancelled) {
        if (!cancelled)
            failed(cancelled.error());
    });
}

Status SlurmBackend::stop(const QString &id) {
    Job *job = find(id);
    if (!job) {
        for (const auto &perCluster : std::as_const(m_foreign)) {
            for (const Job &foreign : perCluster) {
                if (foreign.id == id) {
                    cancel(foreign, foreign.clusterJobId); // scancel says whether one may
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
        cancel(*job, job->clusterJobId);
    return success();
}

Status SlurmBackend::stopIndex(const QString &id, int index) {
    const Job *job = find(id);
    for (auto it = m_foreign.cbegin(); !job && it != m_foreign.cend(); ++it) {
        for (const Job &foreign : *it) {
            if (foreign.id == id)
                job = &foreign; // someone's array: scancel says whether one may
        }
    }
    if (!job || !job->indexStates.contains(index))
        return fail(u"no task %1 of a job %2"_s.arg(QString::number(index), id));
    if (job->clusterJobId.isEmpty())
        return fail(u"%1 is not on the cluster yet"_s.arg(id));
    if (isFinished(job->indexStates.value(index)))
        return fail(u"task %1 of %2 has ended"_s.arg(QString::number(index), id));
    m_cancelledTasks.insert(taskKey(id, index));
    cancel(*job, u"%1_%2"_s.arg(job->clusterJobId, QString::number(index)));
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
part=$(squeue --noheader --states=PENDING --jobs="$1" --format=%P 2>/dev/null | head -n 1)
if [ -n "$part" ]; then
  echo
  squeue --noheader --states=PENDING --partition="$part" --sort=-p,i --format=%F |
    awk -v id="$1" -v part="$part" '!seen[$1]++ { n++; if ($1 == id) at = n }
      END { if (at) printf "Waiting: %d of %d jobs in the queue of partition %s\n", at, n, part }'
  squeue --start --noheader --jobs="$1" --format="Estimated start: %S (%r)" | head -n 1
  echo; echo "Priority factors (sprio):"; sprio --long --jobs="$1" 2>&1
fi
case $2 in "~/"*) ws="$HOME/${2#"~/"}";; *) ws=$2;; esac
if [ -n "$3" ] && [ -f "$ws/$3/job.sh" ]; then echo; echo "Batch script:"; cat "$ws/$3/job.sh"; fi
exit 0)sh"_s;
    const bool ours = findJob(m_jobs, id) != nullptr;
    login->exec(
        shellCommand({u"sh"_s, u"-c"_s, script, u"signalbox-describe"_s, job.clusterJobId,
                      slurmWorkspace(*where), ours ? job.id : QString()}),
        receiver,
        [text, done = std::move(done)](const Result<ExecResult> &result) {
            done(text + u"\n"_s +
                 (result ? QString::fromUtf8(result->out)
                         : u"The login node did not answer: %1\n"_s.arg(result.error())));
        },
        kSlurmCommandTimeoutMs);
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
    QList<LogTarget> read; // the logs this poll reads, in order
    QStringList pairs;
    auto follow = [&](const Job &job, int index) {
        read.append({job.id, index});
        pairs << (index < 0 ? job.id + u"/log"_s
                            : u"%1/log-%2"_s.arg(job.id, QString::number(index)))
              << QString::number(
                     QFileInfo(index < 0 ? job.logPath : taskLogPath(job, index)).size());
    };
    for (const Job &job : std::as_const(m_jobs)) {
        if (job.node != where.name || job.clusterJobId.isEmpty())
            continue;
        if (!job.finishedState() && m_askAccounting.contains(job.id))
            accounting << job.clusterJobId;
        if (job.spec.trials == 0 && (job.state == JobState::Running || m_tail.contains(job.id)))
            follow(job, -1);
        for (auto it = job.indexStates.cbegin(); it != job.indexStates.cend(); ++it) {
            if (it.value() == JobState::Running || m_tail.contains(taskKey(job.id, it.key())))
                follow(job, it.key());
        }
    }
    SlurmTransport *transport = m_transports.value(where.name);
    m_polling.insert(where.name);
    transport->poll(
        m_allUsers || where.allUsers, accounting, pairs,
        [this, transport, name = where.name, read](const SlurmTransport::PollAnswer &answer) {
            if (m_transports.value(name) != transport)
                return; // the cluster's config changed meanwhile
            m_polling.remove(name);
            if (!answer.unreachable.isEmpty())
                return unreachable(name, answer.unreachable);
            received(name, answer.logsRead ? read : QList<LogTarget>(), answer.poll);
        });
}

void SlurmBackend::unreachable(const QString &clusterName, const QString &message) {
    qCWarning(lcSlurm).noquote() << clusterName << u':' << message;
    // By index: a receiver of an update may submit a job (a sweep), growing m_jobs.
    for (qsizetype i = 0; i < m_jobs.size(); ++i) {
        Job &job = m_jobs[i];
        if (job.node == clusterName && !job.finishedState() && job.message != message) {
            job.message = message;
            update(job);
        }
    }
}

void SlurmBackend::received(const QString &clusterName, const QList<LogTarget> &targets,
                            const SlurmPoll &poll) {
    // Found again by id: the list may have changed meanwhile.
    for (const SlurmLogChunk &chunk : poll.logs) {
        const LogTarget target = targets.value(chunk.index);
        const Job *job = chunk.index < targets.size() ? find(target.job) : nullptr;
        if (job && target.index < 0)
            appendLog(*job, chunk.data);
        else if (job)
            appendTaskLog(*job, target.index, chunk.data, false);
    }
    for (const LogTarget &target : targets) { // read after it ended: its log is complete
        const Job *job = find(target.job);
        if (!job ||
            !isFinished(target.index < 0 ? job->state : job->indexStates.value(target.index)))
            continue;
        m_tail.remove(taskKey(target.job, target.index));
        if (target.index >= 0)
            appendTaskLog(*job, target.index, {}, true);
    }
    if (poll.unreadable > 0) // each such record alone is passed over; the rest stands
        qCWarning(lcSlurm).noquote()
            << u"%1: %2 records of squeue or sacct could not be read"_s.arg(
                   clusterName, QString::number(poll.unreadable));
    const QString &why = poll.error;
    if (poll.queueFailed)
        return unreachable(clusterName, why.isEmpty()
                                            ? u"the cluster's controller does not answer squeue; "
                                              "the job goes on there"_s
                                            : u"%1; the job goes on there"_s.arg(why));

    QHash<QString, SlurmJobRow> queue;
    for (const SlurmJobRow &row : poll.queue)
        queue.insert(row.jobId, row);
    QHash<QString, SlurmJobRow> accounting;
    for (const SlurmJobRow &row : poll.accounting)
        accounting.insert(row.jobId, row);
    QSet<QString> ours;
    // By index: a receiver of an update may submit a job (a sweep), growing m_jobs.
    for (qsizetype i = 0; i < m_jobs.size(); ++i) {
        Job &job = m_jobs[i];
        if (job.node != clusterName || job.clusterJobId.isEmpty())
            continue;
        ours.insert(job.clusterJobId);
        if (job.finishedState())
            continue;
        if (job.spec.trials > 0) {
            applyArray(&job, poll);
            continue;
        }
        const bool read = std::any_of(targets.begin(), targets.end(),
                                      [&](const LogTarget &t) { return t.job == job.id; });
        const auto row = queue.constFind(job.clusterJobId);
        const bool queued = row != queue.cend();
        if (queued && !isFinished(slurmJobState(row->state))) {
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
            markFailed(job, u"it left the queue and the cluster keeps no accounting (sacct), so "
                            "how it ended is unknown"_s);
            m_askAccounting.remove(job.id);
            update(job);
        } else {
            m_askAccounting.insert(job.id); // asked in the next poll
        }
    }
    QList<SlurmJobRow> others;
    for (const SlurmJobRow &row : poll.queue) {
        if (!ours.contains(slurmBaseJobId(row.jobId)))
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
    // A job cancelled while it waited never started: it got no nodes (Slurm gives it a start
    // time all the same, the time it was cancelled).
    if (!job->started.isValid() &&
        (state == JobState::Running || (isFinished(state) && !row.nodes.isEmpty())))
        job->started = row.start.isValid() ? row.start : QDateTime::currentDateTime();
    job->state = state;
    job->message = message;
    job->gpuIds = row.gres;
    if (isFinished(state)) {
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

void SlurmBackend::applyArray(Job *job, const SlurmPoll &poll) {
    // Each task's row: a task of its own ("12_3") says more than a range of pending ones
    // ("12_[4-9%2]"), and sacct's word on how a task ended more than squeue's.
    struct Seen {
        const SlurmJobRow *queued = nullptr, *pending = nullptr, *accounted = nullptr;
    };
    QHash<int, Seen> seen;
    auto collect = [&](const QList<SlurmJobRow> &rows, bool fromQueue) {
        for (const SlurmJobRow &row : rows) {
            if (slurmBaseJobId(row.jobId) != job->clusterJobId)
                continue;
            const bool range = row.jobId.contains(u'[');
            for (int index : slurmArrayTasks(row.jobId)) {
                Seen &s = seen[index];
                if (fromQueue)
                    (range ? s.pending : s.queued) = &row;
                else if (!range) // sacct's ranges of pending tasks lag behind squeue's
                    s.accounted = &row;
            }
        }
    };
    collect(poll.queue, true);
    collect(poll.accounting, false);
    const bool answered = m_askAccounting.contains(job->id) && !poll.accountingFailed;
    bool ask = false;
    bool changed = false;
    QStringList nodes;
    const SlurmJobRow *waiting = nullptr;
    for (auto it = job->indexStates.begin(); it != job->indexStates.end(); ++it) {
        const QString key = taskKey(job->id, it.key());
        const Seen s = seen.value(it.key());
        if (s.queued && slurmJobState(s.queued->state) == JobState::Running &&
            !nodes.contains(s.queued->nodes))
            nodes << s.queued->nodes;
        if (s.pending && !waiting)
            waiting = s.pending;
        if (isFinished(it.value()))
            continue;
        JobState state = it.value();
        if (s.accounted && isFinished(slurmJobState(s.accounted->state)))
            state = slurmJobState(s.accounted->state);
        else if (s.queued)
            state = slurmJobState(s.queued->state);
        else if (s.pending)
            state = JobState::Queued;
        else if (m_cancelledTasks.contains(key) ||
                 (answered && ++m_unrecorded[key] >= kUnrecordedAnswers))
            state = JobState::Stopped; // a pending task cancelled alone leaves no record
        else
            ask = true; // it left squeue: sacct says how it ended
        if (s.accounted && !isFinished(state) && !s.queued && !s.pending)
            ask = true; // it left squeue, and sacct lags behind
        if (state == it.value())
            continue;
        changed = true;
        it.value() = state;
        if (isFinished(state)) {
            m_tail.insert(key); // the end of its output comes with the next poll
            m_cancelledTasks.remove(key);
            m_unrecorded.remove(key);
        }
    }
    if (ask)
        m_askAccounting.insert(job->id);
    else
        m_askAccounting.remove(job->id);

    const QList<JobState> states = job->indexStates.values();
    const auto count = [&](auto test) {
        return std::count_if(states.begin(), states.end(), test);
    };
    const qsizetype running = count([](JobState s) { return s == JobState::Running; });
    const qsizetype done = count([](JobState s) { return isFinished(s); });
    const qsizetype failed = count([](JobState s) { return s == JobState::Failed; });
    const qsizetype stopped = count([](JobState s) { return s == JobState::Stopped; });
    const JobState before = job->state;
    QString message;
    if (done == states.size()) {
        job->state = failed > 0    ? JobState::Failed
                     : stopped > 0 ? JobState::Stopped
                                   : JobState::Succeeded;
        job->finished = QDateTime::currentDateTime();
        message = u"%1 trials: %2 succeeded, %3 failed, %4 stopped"_s.arg(states.size())
                      .arg(states.size() - failed - stopped)
                      .arg(failed)
                      .arg(stopped);
    } else if (running > 0) {
        job->state = JobState::Running;
        if (!job->started.isValid())
            job->started = QDateTime::currentDateTime();
        nodes.sort();
        message = u"%1 of %2 trials running, %3 ended, on %4"_s.arg(running)
                      .arg(states.size())
                      .arg(done)
                      .arg(nodes.join(u", "_s));
    } else {
        message = waiting ? slurmMessage(*waiting) : u"waiting"_s;
    }
    if (changed || job->state != before) {
        job->message = message;
        update(*job);
    } else if (message != job->message) {
        job->message = message;
        Q_EMIT jobChanged(*job);
    }
}

void SlurmBackend::appendTaskLog(const Job &job, int index, const QByteArray &data, bool complete) {
    const QString key = taskKey(job.id, index);
    const QString path = taskLogPath(job, index);
    auto partial = m_taskLines.find(key);
    if (partial == m_taskLines.end()) // after a restart: what the last session left unfinished
        partial = m_taskLines.insert(key, unfinishedLine(path));
    if (!data.isEmpty()) {
        QFile file(path);
        if (!file.open(QIODevice::Append) || file.write(data) != data.size())
            qCWarning(lcSlurm).noquote() << u"cannot write %1: %2"_s.arg(path, file.errorString());
    }
    partial->append(data);
    if (complete && !partial->isEmpty() && !partial->endsWith('\n'))
        partial->append('\n');
    const qsizetype end = partial->lastIndexOf('\n');
    if (end < 0)
        return;
    const QByteArray prefix = '[' + QByteArray::number(index) + "] ";
    QByteArray lines;
    for (const QByteArray &line : partial->first(end).split('\n'))
        lines += prefix + line + '\n';
    partial->remove(0, end + 1);
    appendLog(job, lines);
}

void SlurmBackend::showForeign(const QString &clusterName, const QList<SlurmJobRow> &rows) {
    // One job per Slurm job: an array's task rows become the states of its indexes.
    QHash<QString, Job> now;
    QStringList order;
    for (const SlurmJobRow &row : rows) {
        const QString base = slurmBaseJobId(row.jobId);
        auto it = now.find(base);
        if (it == now.end()) {
            order << base;
            Job job;
            // Unique and one line, whatever its owner named it; the name itself stays as is.
            job.id = u"%1 (%2 job %3)"_s.arg(printable(row.name), clusterName, base);
            job.backend = name();
            job.node = clusterName;
            job.clusterJobId = base;
            job.foreign = true;
            job.spec.backend = name();
            job.spec.target = clusterName;
            job.spec.name = row.name;
            job.spec.slurm.partition = row.partition;
            job.state = slurmJobState(row.state);
            job.message = row.user.isEmpty() ? slurmMessage(row)
                                             : u"%1 (%2)"_s.arg(slurmMessage(row), row.user);
            job.submitted = row.submitted;
            if (job.state != JobState::Queued)
                job.started = row.start;
            job.gpuIds = row.gres;
            it = now.insert(base, job);
        }
        for (int index : slurmArrayTasks(row.jobId))
            it->indexStates.insert(index, slurmJobState(row.state));
        // An array runs while any task runs; a task that started earlier started it.
        const JobState state = slurmJobState(row.state);
        if (state == JobState::Running && it->state != JobState::Running) {
            it->state = state;
            it->message = row.user.isEmpty() ? slurmMessage(row)
                                             : u"%1 (%2)"_s.arg(slurmMessage(row), row.user);
        }
        if (state != JobState::Queued && row.start.isValid() &&
            (!it->started.isValid() || row.start < it->started))
            it->started = row.start;
    }
    QHash<QString, Job> &shown = m_foreign[clusterName];
    for (const QString &base : std::as_const(order)) {
        Job &job = now[base];
        job.spec.trials = static_cast<int>(job.indexStates.size());
        const auto it = shown.constFind(base);
        if (it != shown.cend() && it->state == job.state && it->message == job.message &&
            it->started == job.started && it->gpuIds == job.gpuIds &&
            it->spec.name == job.spec.name && it->indexStates == job.indexStates)
            continue; // unchanged: most of a long queue, every poll
        shown.insert(base, job);
        Q_EMIT jobChanged(job);
    }
    for (auto it = shown.begin(); it != shown.end();) {
        if (now.contains(it.key())) {
            ++it;
            continue;
        }
        const QString id = it->id;
        it = shown.erase(it);
        Q_EMIT jobRemoved(id);
    }
}

Status SlurmBackend::forget(const QString &id) {
    const Job *job = find(id);
    QStringList files;
    if (job) {
        files << job->logPath;
        for (auto it = job->indexStates.cbegin(); it != job->indexStates.cend(); ++it)
            files << taskLogPath(*job, it.key());
    }
    return forgetEnded(m_jobs, id, m_history, files);
}

} // namespace sb
