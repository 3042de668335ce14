#include "LocalBackend.h"

#include <QDir>
#include <QFile>
#include <QSysInfo>
#include <QTimer>

#include <csignal>
#include <unistd.h>

namespace sb {

using namespace Qt::StringLiterals;

struct LocalBackend::Running {
    QProcess process;
    QFile log;
    QTimer killTimer;
    bool stopRequested = false;
};

LocalBackend::LocalBackend(Options options, QObject *parent)
    : JobBackend(parent)
    , m_options(std::move(options)) {
    QDir().mkpath(m_options.dataDir + u"/logs"_s);
    m_jobs = loadJobs(m_options.dataDir + u"/jobs.json"_s, &m_restoreProblem);
    for (Job &job : m_jobs) {
        if (!job.finishedState()) {
            job.state = JobState::Failed;
            job.message = u"Signalbox quit while this run was going"_s;
        }
    }
}

LocalBackend::~LocalBackend() {
    // Children would outlive us as orphans; end them as a terminal would.
    for (const auto &running : std::as_const(m_running)) {
        running->process.disconnect(this);
        if (running->process.processId() > 0)
            ::kill(-static_cast<pid_t>(running->process.processId()), SIGTERM);
        running->process.waitForFinished(2000);
    }
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
    job.logPath = m_options.dataDir + u"/logs/"_s + job.id + u".log"_s;

    auto running = std::make_shared<Running>();
    running->log.setFileName(job.logPath);
    if (!running->log.open(QIODevice::WriteOnly | QIODevice::Append))
        return fail(u"cannot write the log %1: %2"_s.arg(job.logPath, running->log.errorString()));

    QProcess &process = running->process;
    process.setProgram(spec.command.front());
    process.setArguments(spec.command.mid(1));
    process.setWorkingDirectory(workingDirectory);
    process.setProcessChannelMode(QProcess::MergedChannels);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (auto it = m_options.environment.begin(); it != m_options.environment.end(); ++it)
        env.insert(it.key(), it.value());
    for (auto it = spec.environment.begin(); it != spec.environment.end(); ++it)
        env.insert(it.key(), it.value());
    env.insert(u"SIGNALBOX_RUN"_s, job.id);
    env.insert(u"PYTHONUNBUFFERED"_s, u"1"_s);
    process.setProcessEnvironment(env);
    // Its own process group, so stop reaches data-loader workers and other children too.
    process.setChildProcessModifier([] { ::setsid(); });

    const QString id = job.id;
    connect(&process, &QProcess::readyRead, this, [this, id, r = running.get()] {
        const QByteArray data = r->process.readAll();
        r->log.write(data);
        r->log.flush();
        Q_EMIT logAppended(id, data);
    });
    connect(&process, &QProcess::started, this, [this, id, r = running.get()] {
        if (Job *j = find(id)) {
            j->state = JobState::Running;
            j->processGroup = r->process.processId();
            j->started = QDateTime::currentDateTime();
            update(*j);
        }
    });
    connect(&process, &QProcess::finished, this,
            [this, id](int code, QProcess::ExitStatus status) { finish(id, code, status); });
    connect(&process, &QProcess::errorOccurred, this, [this, id, r = running.get()](auto error) {
        if (error != QProcess::FailedToStart)
            return;
        if (Job *j = find(id)) {
            j->state = JobState::Failed;
            j->finished = QDateTime::currentDateTime();
            j->message = u"could not start: %1"_s.arg(r->process.errorString());
            update(*j);
        }
        releaseLater(m_running.take(id));
    });
    running->killTimer.setSingleShot(true);
    connect(&running->killTimer, &QTimer::timeout, this,
            [r = running.get()] { ::kill(-static_cast<pid_t>(r->process.processId()), SIGKILL); });

    m_jobs << job;
    m_running.insert(id, running);
    update(job);
    process.start();
    return id;
}

void LocalBackend::finish(const QString &id, int exitCode, QProcess::ExitStatus status) {
    const auto running = m_running.take(id);
    if (!running)
        return;
    running->log.write(running->process.readAll());
    running->log.close();
    if (Job *job = find(id)) {
        job->finished = QDateTime::currentDateTime();
        job->exitCode = status == QProcess::NormalExit ? exitCode : -1;
        if (running->stopRequested) {
            job->state = JobState::Stopped;
            job->message = u"stopped"_s;
        } else if (status == QProcess::NormalExit && exitCode == 0) {
            job->state = JobState::Succeeded;
            job->message.clear();
        } else {
            job->state = JobState::Failed;
            job->message = status == QProcess::CrashExit ? u"killed by a signal"_s
                                                         : u"exited with code %1"_s.arg(exitCode);
        }
        update(*job);
    }
    releaseLater(running);
}

// A QProcess must not be destroyed inside its own signal; let the event loop drop it.
void LocalBackend::releaseLater(std::shared_ptr<Running> running) {
    QTimer::singleShot(0, this, [running = std::move(running)] {});
}

QList<Job> LocalBackend::jobs() const {
    return m_jobs;
}

Status LocalBackend::stop(const QString &id) {
    const auto running = m_running.value(id);
    if (!running)
        return fail(u"%1 is not running"_s.arg(id));
    running->stopRequested = true;
    ::kill(-static_cast<pid_t>(running->process.processId()), SIGTERM);
    running->killTimer.start(m_options.stopGraceMs);
    return success();
}

Result<QByteArray> LocalBackend::log(const QString &id) const {
    const qsizetype at = indexOf(id);
    return at < 0 ? fail(u"no job %1"_s.arg(id)) : readJobLog(m_jobs[at]);
}

qsizetype LocalBackend::indexOf(const QString &id) const {
    for (qsizetype i = 0; i < m_jobs.size(); ++i) {
        if (m_jobs[i].id == id)
            return i;
    }
    return -1;
}

Job *LocalBackend::find(const QString &id) {
    const qsizetype at = indexOf(id);
    return at < 0 ? nullptr : &m_jobs[at];
}

void LocalBackend::update(const Job &job) {
    save();
    Q_EMIT jobChanged(job);
}

void LocalBackend::save() const {
    if (Status saved = saveJobs(m_options.dataDir + u"/jobs.json"_s, m_jobs); !saved)
        qWarning("%s", qPrintable(saved.error()));
}

} // namespace sb
