#include "LocalBackend.h"

#include "jobs/DetachedRun.h"
#include "ssh/ShellQuote.h"
#include "util/Files.h"
#include "util/Log.h"
#include "util/Paths.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QSysInfo>

#include <csignal>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// Reads before a run that left no exit code is called lost: its wrapper writes the code a
// moment after the run's process group is gone.
constexpr int kLostReads = 4;

QString runDirectory(const Job &job) {
    return QFileInfo(job.logPath).path();
}

// Whether a job is a detached run (its log in runs/<id>/); older histories kept children.
bool detached(const Job &job) {
    return job.logPath.endsWith(u"/runs/"_s + job.id + u"/log"_s);
}

// Written when a run is asked to stop, so that a run stopped just before the app quit still reads
// "stopped" (not "killed by signal 15") when the next start finds it ended.
QString stopMarker(const Job &job) {
    return runDirectory(job) + u"/stop-requested"_s;
}

} // namespace

LocalBackend::LocalBackend(Options options, QObject *parent)
    : JobBackend(parent)
    , m_options(std::move(options))
    , m_history(m_options.dataDir + u"/jobs.json"_s) {
    QDir().mkpath(m_options.dataDir + u"/runs"_s);
    m_jobs = m_history.load(&m_restoreProblem);
    for (Job &job : m_jobs) {
        if (job.finishedState())
            continue;
        if (detached(job)) { // it went on while Signalbox was away: follow it from here
            m_offsets.insert(job.id, QFileInfo(job.logPath).size());
            continue;
        }
        // No finish time: when it ended is not known.
        job.state = JobState::Failed;
        job.message = u"Signalbox quit while this run was going"_s;
    }
    m_follow.setInterval(m_options.followMs);
    connect(&m_follow, &QTimer::timeout, this, &LocalBackend::follow);
    m_follow.start();
}

Result<QString> LocalBackend::submit(const JobSpec &spec) {
    if (spec.command.isEmpty() || spec.command.front().isEmpty())
        return fail(u"the job has no command"_s);
    const QString workingDirectory =
        spec.workingDirectory.isEmpty() ? QDir::currentPath() : spec.workingDirectory;
    if (!QDir(workingDirectory).exists())
        return fail(u"the working directory %1 does not exist"_s.arg(workingDirectory));

    Job job;
    job.id = newJobId(spec);
    job.backend = name();
    job.node = QSysInfo::machineHostName();
    job.spec = spec;
    job.spec.workingDirectory = workingDirectory;
    job.submitted = QDateTime::currentDateTime();
    const QString dir = m_options.dataDir + u"/runs/"_s + job.id;
    job.logPath = dir + u"/log"_s;
    if (!QDir().mkpath(dir))
        return fail(u"cannot make the run's directory %1"_s.arg(dir));
    QFile log(job.logPath);
    if (!log.open(QIODevice::WriteOnly | QIODevice::Append))
        return fail(u"cannot write the log %1: %2"_s.arg(job.logPath, log.errorString()));
    log.close();

    // The launcher hands the run to a session of its own and returns at once with its process
    // group; the environment reaches the run through it.
    auto *launcher = new QProcess(this);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (auto it = m_options.environment.begin(); it != m_options.environment.end(); ++it)
        env.insert(it.key(), it.value());
    for (auto it = spec.environment.begin(); it != spec.environment.end(); ++it)
        env.insert(it.key(), it.value());
    env.insert(u"SIGNALBOX_RUN"_s, job.id);
    env.insert(u"PYTHONUNBUFFERED"_s, u"1"_s);
    // `import signalbox` works in every run without the user's help, ahead of any other module
    // of that name.
    if (const QString client = pythonClientDirectory(); !client.isEmpty()) {
        const QString rest = env.value(u"PYTHONPATH"_s);
        env.insert(u"PYTHONPATH"_s, rest.isEmpty() ? client : client + u':' + rest);
    }
    launcher->setProcessEnvironment(env);
    launcher->setProgram(u"/bin/sh"_s);
    launcher->setArguments({u"-c"_s, detachedLaunchScript(), u"signalbox-launch"_s, dir,
                            workingDirectory, shellCommand(spec.command)});
    const QString id = job.id;
    connect(launcher, &QProcess::finished, this, [this, id, launcher](int code) {
        launcher->deleteLater();
        if (Job *j = find(id); j && code != 0) { // it could not even make the run's directory
            j->message = u"could not start: %1"_s.arg(
                QString::fromUtf8(launcher->readAllStandardError()).trimmed());
            return finish(id, std::nullopt, false);
        }
        launched(id, launcher->readAllStandardOutput().trimmed().toLongLong());
    });
    connect(launcher, &QProcess::errorOccurred, this, [this, id, launcher](auto error) {
        if (error != QProcess::FailedToStart)
            return;
        if (Job *j = find(id)) {
            j->message = u"could not start: %1"_s.arg(launcher->errorString());
            finish(id, std::nullopt, false);
        }
        launcher->deleteLater();
    });

    m_jobs << job;
    m_offsets.insert(id, 0);
    update(job);
    launcher->start();
    launcher->write(QJsonDocument(spec.toJson()).toJson(QJsonDocument::Compact));
    launcher->closeWriteChannel();
    return id;
}

void LocalBackend::launched(const QString &id, qint64 processGroup) {
    Job *job = find(id);
    if (!job || job->finishedState() || processGroup <= 0)
        return; // ended already, or its exit code tells (read by follow)
    job->state = JobState::Running;
    job->processGroup = processGroup;
    job->started = QDateTime::currentDateTime();
    update(*job);
    if (m_stopRequested.contains(id) || QFileInfo::exists(stopMarker(*job)))
        // stopped before it was known to run
        signalStop(processGroup);
}

void LocalBackend::signalStop(qint64 group) {
    if (!QProcess::startDetached(u"/bin/sh"_s, {u"-c"_s, detachedStopScript(), u"signalbox-stop"_s,
                                                QString::number(group),
                                                QString::number(m_options.stopGraceMs / 1000.0)}))
        ::kill(-static_cast<pid_t>(group), SIGKILL); // no shell to wait with: at once
}

void LocalBackend::follow() {
    // By id: what a signal's receiver does (a sweep submits its next trial) changes m_jobs.
    for (const QString &id : m_offsets.keys()) {
        const Job *job = find(id);
        if (!job)
            continue;
        QFile log(job->logPath);
        if (qint64 &offset = m_offsets[id]; log.open(QIODevice::ReadOnly) && log.size() > offset) {
            log.seek(offset);
            const QByteArray data = log.read(std::min<qint64>(log.size() - offset, 4 << 20));
            offset += data.size();
            Q_EMIT logAppended(id, data);
        }
        Job *now = find(id);
        if (!now || now->finishedState())
            continue;
        const DetachedStatus status = detachedStatus(runDirectory(*now));
        if (status.state == DetachedStatus::Exited) {
            finish(id, status.exitCode, false);
        } else if (status.state == DetachedStatus::Lost) {
            if (++m_lostReads[id] >= kLostReads)
                finish(id, std::nullopt, true);
        } else if (status.state == DetachedStatus::Running && now->state == JobState::Queued) {
            launched(id, status.processGroup); // the launcher's answer was lost
        }
    }
}

void LocalBackend::finish(const QString &id, std::optional<int> exitCode, bool lost) {
    if (const Job *ending = find(id); ending && m_offsets.contains(id)) { // its output's end first
        QFile log(ending->logPath);
        if (log.open(QIODevice::ReadOnly) && log.size() > m_offsets[id]) {
            log.seek(m_offsets[id]);
            Q_EMIT logAppended(id, log.readAll());
        }
    }
    Job *job = find(id); // found again: a receiver may have changed the list
    if (!job)
        return;
    m_offsets.remove(id);
    m_lostReads.remove(id);
    // A launcher that failed left its words in the message.
    const bool stopped = m_stopRequested.remove(id) || QFileInfo::exists(stopMarker(*job));
    endDetachedRun(*job, exitCode, stopped, !exitCode && !lost ? job->message : QString());
    update(*job);
}

QList<Job> LocalBackend::jobs() const {
    return m_jobs;
}

Status LocalBackend::stop(const QString &id) {
    const Job *job = find(id);
    if (!job || job->finishedState())
        return fail(u"%1 is not running"_s.arg(id));
    m_stopRequested.insert(id);
    if (detached(*job)) {
        if (Status marked = writeFileAtomically(stopMarker(*job), {}); !marked)
            qCWarning(lcJobs).noquote() << marked.error(); // this session still knows
    }
    const qint64 group = job->processGroup;
    if (group > 0)
        signalStop(group);
    // else: signalled once it is known to run
    return success();
}

Result<QByteArray> LocalBackend::log(const QString &id) const {
    const Job *job = findJob(m_jobs, id);
    return job ? readJobLog(*job) : fail(u"no job %1"_s.arg(id));
}

Job *LocalBackend::find(const QString &id) {
    return findJob(m_jobs, id);
}

Status LocalBackend::forget(const QString &id) {
    const Job *job = findJob(m_jobs, id);
    // A detached run's directory is its alone (spec, log, exit code); an older child's log too.
    const QString files = job && detached(*job) ? runDirectory(*job)
                          : job                 ? job->logPath
                                                : QString();
    return forgetEnded(m_jobs, id, m_history, {files});
}

void LocalBackend::update(const Job &job) {
    m_history.save(m_jobs);
    Q_EMIT jobChanged(job);
}

} // namespace sb
