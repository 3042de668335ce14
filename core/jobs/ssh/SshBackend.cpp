#include "SshBackend.h"

#include "code/CodeSync.h"
#include "jobs/DetachedRun.h"
#include "jobs/PythonClient.h"
#include "ssh/ShellQuote.h"
#include "util/Log.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// Polls in a row that find a run's process gone without an exit code before it counts as lost
// (its wrapper writes the code a moment after the process ends).
constexpr int kLostAfterPolls = 5;

} // namespace

QString SshBackend::pollScript() {
    // Arguments: "id offset" per run. For each: a header line, then the log bytes after offset.
    return uR"sh(for run in "$@"; do
  id=${run%% *} off=${run#* }
  d="$HOME/.signalbox/runs/$id"
  if [ ! -d "$d" ]; then echo "@sb:run $id 0 missing 0"; continue; fi
  size=$(wc -c < "$d/log" 2>/dev/null || echo 0)
  if [ -s "$d/exit" ]; then state=$(cat "$d/exit")
  elif [ -s "$d/pid" ] && kill -0 "$(cat "$d/pid")" 2>/dev/null; then state=running
  elif [ -s "$d/pid" ]; then state=lost
  else state=starting; fi
  n=$((size - off)); [ $n -lt 0 ] && n=0; [ $n -gt 1048576 ] && n=1048576
  echo "@sb:run $id $((size)) $state $n"
  [ $n -gt 0 ] && tail -c +$((off + 1)) "$d/log" | head -c $n
done
exit 0
)sh"_s;
}

SshBackend::SshBackend(NodeMonitor *monitor, Options options, QObject *parent)
    : JobBackend(parent)
    , m_monitor(monitor)
    , m_options(std::move(options))
    , m_history(m_options.dataDir + u"/ssh-jobs.json"_s) {
    QDir().mkpath(m_options.dataDir + u"/ssh-logs"_s);
    // Unfinished runs from the last session go on on their nodes: follow them again.
    m_jobs = m_history.load(&m_restoreProblem);
    connect(m_monitor, &NodeMonitor::sampled, this,
            [this](const QString &node, const NodeSample &sample) {
                m_samples[node] = sample;
                schedule();
            });
    m_poll.setInterval(m_options.pollMs);
    connect(&m_poll, &QTimer::timeout, this, &SshBackend::poll);
    m_poll.start();
}

QList<Job> SshBackend::jobs() const {
    return m_jobs;
}

Job *SshBackend::find(const QString &id) {
    return findJob(m_jobs, id);
}

void SshBackend::update(const Job &job) {
    m_history.save(m_jobs);
    Q_EMIT jobChanged(job);
}

Result<QString> SshBackend::submit(const JobSpec &spec) {
    if (spec.command.isEmpty() || spec.command.front().isEmpty())
        return fail(u"the job has no command"_s);
    if (spec.target.isEmpty())
        return fail(u"the job names no node"_s);
    for (const QString &node :
         spec.target == JobSpec::kAnyNode ? spec.nodes : QStringList{spec.target}) {
        if (!m_monitor->connection(node))
            return fail(u"there is no node named %1"_s.arg(node));
    }
    if (spec.gpus < 0)
        return fail(u"a job cannot ask for %1 GPUs"_s.arg(spec.gpus));
    if (!spec.codeDirectory.isEmpty() && !QFileInfo(spec.codeDirectory).isDir())
        return fail(u"the code directory %1 does not exist"_s.arg(spec.codeDirectory));
    Job job;
    job.id = newJobId(spec);
    job.backend = name();
    job.spec = spec;
    job.node = spec.target == JobSpec::kAnyNode ? QString() : spec.target;
    job.submitted = QDateTime::currentDateTime();
    job.logPath = m_options.dataDir + u"/ssh-logs/"_s + job.id + u".log"_s;
    job.message = u"waiting for the node"_s;
    QFile log(job.logPath);
    if (!log.open(QIODevice::WriteOnly))
        return fail(u"cannot write the log %1: %2"_s.arg(job.logPath, log.errorString()));
    m_jobs << job;
    update(job);
    schedule();
    return job.id;
}

QString SshBackend::availability(const QString &node) const {
    const NodeStatus status = m_monitor->status(node);
    if (status.state != NodeStatus::State::Connected)
        return status.message.isEmpty() ? status.stateName()
                                        : u"%1: %2"_s.arg(status.stateName(), status.message);
    const auto sample = m_samples.constFind(node);
    if (sample == m_samples.constEnd())
        return tr("connected");
    if (sample->gpus.empty())
        return tr("no GPUs");
    return tr("%1 of %2 GPUs free").arg(freeGpus(node).size()).arg(sample->gpus.size());
}

QStringList SshBackend::freeGpus(const QString &node) const {
    const auto sample = m_samples.constFind(node);
    if (sample == m_samples.constEnd())
        return {};
    NodeSample reserved = *sample;
    reserved.reservedGpus = reservedGpus(node);
    QStringList free;
    for (const GpuReading &gpu : reserved.gpus) {
        if (isFreeGpu(gpu, reserved))
            free << QString::number(gpu.index.value_or(-1));
    }
    return free;
}

QHash<int, QString> SshBackend::reservedGpus(const QString &node) const {
    QHash<int, QString> reserved;
    for (const Job &job : m_jobs) {
        if (job.node == node && !job.finishedState() && !job.gpuIds.isEmpty())
            for (const QString &index : job.gpuIds.split(u','))
                reserved.insert(index.toInt(), job.id);
    }
    return reserved;
}

void SshBackend::schedule() {
    // By index: a receiver of an update may submit a job (a sweep), growing m_jobs.
    for (qsizetype i = 0; i < m_jobs.size(); ++i) {
        Job &job = m_jobs[i];
        if (job.state != JobState::Queued || m_launching.contains(job.id))
            continue;
        const int wanted = job.spec.gpus;
        QString chosen;
        QStringList gpus;
        QStringList candidates{job.spec.target};
        if (job.spec.target == JobSpec::kAnyNode)
            candidates = job.spec.nodes.isEmpty() ? QStringList(m_samples.keys()) : job.spec.nodes;
        for (const QString &node : candidates) {
            if (!m_samples.contains(node) || !m_monitor->connection(node))
                continue; // not connected yet
            const QStringList free = freeGpus(node);
            if (free.size() < wanted || (!chosen.isEmpty() && free.size() <= gpus.size()))
                continue; // "any node": the one with the most free GPUs
            chosen = node;
            gpus = free;
        }
        if (chosen.isEmpty()) {
            const QString why =
                wanted > 0
                    ? (job.spec.target != JobSpec::kAnyNode
                           ? u"waiting for %1 free GPUs on %2"_s.arg(wanted).arg(job.spec.target)
                       : job.spec.nodes.isEmpty()
                           ? u"waiting for a node with %1 free GPUs"_s.arg(wanted)
                           : u"waiting for %1 free GPUs on one of %2"_s.arg(wanted).arg(
                                 job.spec.nodes.join(u", "_s)))
                    : u"waiting for %1 to connect"_s.arg(job.spec.target);
            if (job.message != why) {
                job.message = why;
                update(job);
            }
            continue;
        }
        launch(job, chosen, gpus.mid(0, wanted));
    }
}

void SshBackend::launch(const Job &job, const QString &node, const QStringList &gpus) {
    // Copied first: `job` is an element of the list that update()'s receivers may grow.
    const QString id = job.id;
    const QString code = job.spec.codeDirectory;
    m_launching.insert(id);
    Job *stored = find(id);
    stored->node = node;
    stored->gpuIds = gpus.join(u',');
    stored->message = code.isEmpty() ? u"starting"_s : u"copying the code"_s;
    update(*stored);
    NodeConnection *connection = m_monitor->connection(node);
    const auto &shipped = pythonClient();
    if (shipped && connection && !m_clientOn.contains(node)) {
        // Once per node and session, before the run: `import signalbox` works there as here.
        connection->exec(
            shellCommand({u"sh"_s, u"-c"_s, installPythonClientScript(), u"signalbox-client"_s,
                          sb::pythonClientDirectory(u"~/.signalbox"_s, *shipped)}),
            this,
            [this, job, node, gpus](const Result<ExecResult> &installed) {
                if (Status ok = commandSucceeded(installed); ok)
                    m_clientOn.insert(node, QString::fromUtf8(installed->out.trimmed()));
                else // the run goes on: a script that never imports the client loses nothing
                    qCWarning(lcJobs).noquote()
                        << u"%1: the Python client was not installed: %2"_s.arg(node, ok.error());
                m_clientOn.insert(node, m_clientOn.value(node)); // tried: not again this session
                if (const Job *j = find(job.id); j && !j->finishedState())
                    launch(*j, node, gpus);
                else
                    m_launching.remove(job.id);
            },
            30000, shipped->archive);
        return;
    }
    if (code.isEmpty()) {
        startRun(id);
        return;
    }
    m_listingCode.insert(id, false);
    syncCode(connection, code, u"~/.signalbox/code"_s, this,
             [this, id](const Result<QString> &synced) {
                 const bool stopped = m_listingCode.take(id);
                 Job *j = find(id);
                 if (!j)
                     return;
                 if (stopped) { // nothing is uploaded or started
                     m_launching.remove(id);
                     stopUnstarted(*j);
                     schedule(); // its GPUs are free for the queue
                     return;
                 }
                 if (!synced) {
                     m_launching.remove(id);
                     markFailed(*j, u"copying the code failed: %1"_s.arg(synced.error()));
                     update(*j);
                     return;
                 }
                 if (j->spec.workingDirectory.isEmpty())
                     j->spec.workingDirectory = *synced;
                 startRun(id);
             });
}

void SshBackend::startRun(const QString &id) {
    Job *job = find(id);
    NodeConnection *connection = job ? m_monitor->connection(job->node) : nullptr;
    if (!connection) {
        m_launching.remove(id);
        return;
    }
    QStringList command{u"env"_s};
    QMap<QString, QString> env = m_options.environment;
    env.insert(job->spec.environment);
    env[u"SIGNALBOX_RUN"_s] = id;
    env[u"PYTHONUNBUFFERED"_s] = u"1"_s;
    if (job->spec.gpus > 0) {
        // nvidia-smi numbers GPUs in PCI order; CUDA must count the same way.
        env[u"CUDA_DEVICE_ORDER"_s] = u"PCI_BUS_ID"_s;
        env[u"CUDA_VISIBLE_DEVICES"_s] = job->gpuIds;
    }
    for (auto it = env.begin(); it != env.end(); ++it)
        command << it.key() + u'=' + it.value();
    const QString client = m_clientOn.value(job->node);
    command << (client.isEmpty() ? job->spec.command : withPythonClient(client, job->spec.command));
    const QString launch = shellCommand({u"sh"_s, u"-c"_s, detachedLaunchScript(),
                                         u"signalbox-launch"_s, u"~/.signalbox/runs/"_s + id,
                                         job->spec.workingDirectory, shellCommand(command)});
    connection->exec(
        launch, this,
        [this, id](const Result<ExecResult> &result) {
            m_launching.remove(id);
            Job *j = find(id);
            if (!j)
                return;
            if (Status started = commandSucceeded(result); !started) {
                markFailed(*j, u"could not start on %1: %2"_s.arg(j->node, started.error()));
                update(*j);
                schedule();
                return;
            }
            j->state = JobState::Running;
            j->started = QDateTime::currentDateTime();
            j->processGroup = result->out.trimmed().toLongLong();
            j->message.clear();
            update(*j);
        },
        30000, QJsonDocument(job->toJson()).toJson(QJsonDocument::Compact));
}

void SshBackend::poll() {
    QHash<QString, QList<Job>> byNode;
    for (const Job &job : std::as_const(m_jobs)) {
        if (job.state == JobState::Running)
            byNode[job.node] << job;
    }
    for (auto it = byNode.begin(); it != byNode.end(); ++it) {
        if (!m_polling.contains(it.key()))
            pollNode(it.key(), it.value());
    }
}

void SshBackend::pollNode(const QString &node, const QList<Job> &jobs) {
    NodeConnection *connection = m_monitor->connection(node);
    if (!connection)
        return;
    QStringList args{u"sh"_s, u"-c"_s, pollScript(), u"signalbox-poll"_s};
    for (const Job &job : jobs)
        args << u"%1 %2"_s.arg(job.id).arg(QFileInfo(job.logPath).size());
    m_polling.insert(node);
    connection->exec(shellCommand(args), this, [this, node](const Result<ExecResult> &result) {
        m_polling.remove(node);
        if (!result) {
            // The run goes on over there; say so, and pick up from the same offset later.
            // By index: a receiver of an update may submit a job (a sweep), growing m_jobs.
            for (qsizetype i = 0; i < m_jobs.size(); ++i) {
                Job &job = m_jobs[i];
                const QString why = u"cannot reach %1; the run goes on there"_s.arg(node);
                if (job.node == node && job.state == JobState::Running && job.message != why) {
                    job.message = why;
                    update(job);
                }
            }
            return;
        }
        const QByteArray &out = result->out;
        qsizetype at = 0;
        while (at < out.size()) {
            const qsizetype eol = out.indexOf('\n', at);
            if (eol < 0)
                break;
            const QList<QByteArray> header = out.mid(at, eol - at).simplified().split(' ');
            at = eol + 1;
            if (header.size() != 5 || header[0] != "@sb:run")
                continue;
            const qsizetype count = header[4].toLongLong();
            const QByteArray data = out.mid(at, count);
            at += count;
            Job *job = find(QString::fromUtf8(header[1]));
            if (!job || job->finishedState())
                continue;
            if (!job->message.isEmpty() && job->message.startsWith(u"cannot reach"_s)) {
                job->message.clear();
                update(*job);
            }
            appendLog(*job, data);
            const QByteArray &state = header[3];
            bool numeric = false;
            const int code = state.toInt(&numeric);
            if (numeric) {
                finish(job, code);
            } else if (state == "missing") {
                finish(job, std::nullopt, u"its directory vanished from %1"_s.arg(node));
            } else if (state == "lost") {
                if (++m_lostPolls[job->id] >= kLostAfterPolls)
                    finish(job, std::nullopt,
                           u"it ended without an exit code (killed with its wrapper, or %1 "
                           "rebooted)"_s.arg(node));
            } else {
                m_lostPolls.remove(job->id);
            }
        }
    });
}

void SshBackend::finish(Job *job, std::optional<int> exitCode, const QString &message) {
    m_lostPolls.remove(job->id);
    endDetachedRun(*job, exitCode, m_stopRequested.remove(job->id), message);
    update(*job);
    schedule(); // its GPUs are free for the queue
}

void SshBackend::stopUnstarted(Job &job) {
    job.state = JobState::Stopped;
    job.finished = QDateTime::currentDateTime();
    job.message = u"stopped before it started"_s;
    update(job);
}

Status SshBackend::stop(const QString &id) {
    Job *job = find(id);
    if (!job || job->finishedState())
        return fail(u"%1 is not running"_s.arg(id));
    if (job->state == JobState::Queued && !m_launching.contains(id)) {
        stopUnstarted(*job);
        return success();
    }
    if (const auto listing = m_listingCode.find(id); listing != m_listingCode.end()) {
        *listing = true; // the listing's answer ends it
        return success();
    }
    NodeConnection *connection = m_monitor->connection(job->node);
    if (!connection || job->processGroup <= 0)
        return fail(u"%1 cannot be stopped before it has started"_s.arg(id));
    m_stopRequested.insert(id);
    // From the node itself, so the SIGKILL comes even if the connection drops meanwhile.
    connection->exec(shellCommand({u"sh"_s, u"-c"_s, detachedStopScript(), u"signalbox-stop"_s,
                                   QString::number(job->processGroup),
                                   QString::number(m_options.stopGraceMs / 1000.0)}),
                     this, [this, id](const Result<ExecResult> &result) {
                         if (!result)
                             if (Job *j = find(id)) {
                                 m_stopRequested.remove(id);
                                 j->message = u"stop failed: %1"_s.arg(result.error());
                                 update(*j);
                             }
                     });
    return success();
}

Result<QByteArray> SshBackend::log(const QString &id) const {
    const Job *job = findJob(m_jobs, id);
    return job ? readJobLog(*job) : fail(u"no job %1"_s.arg(id));
}

QHash<qint64, QString> SshBackend::runsOn(const QString &node) const {
    QHash<qint64, QString> runs;
    for (const Job &job : m_jobs) {
        if (job.node == node && job.state == JobState::Running && job.processGroup > 0)
            runs.insert(job.processGroup, job.id); // its run in the collector
    }
    return runs;
}

Status SshBackend::forget(const QString &id) {
    const Job *job = findJob(m_jobs, id);
    return forgetEnded(m_jobs, id, m_history, {job ? job->logPath : QString()});
}

} // namespace sb
