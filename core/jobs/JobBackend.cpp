#include "JobBackend.h"

#include "util/Log.h"

#include "JobHistory.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTimer>

namespace sb {

using namespace Qt::StringLiterals;

void JobBackend::appendLog(const Job &job, const QByteArray &data) {
    if (data.isEmpty())
        return;
    QFile log(job.logPath);
    if (log.open(QIODevice::WriteOnly | QIODevice::Append))
        log.write(data);
    Q_EMIT logAppended(job.id, data);
}

Status JobBackend::forget(const QString &id) {
    return fail(u"%1 stays as long as its cluster keeps it"_s.arg(id));
}

Status JobBackend::forgetEnded(QList<Job> &jobs, const QString &id, JobHistory &history,
                               const QStringList &files) {
    const auto it =
        std::find_if(jobs.begin(), jobs.end(), [&id](const Job &j) { return j.id == id; });
    if (it == jobs.end())
        return fail(u"no job %1"_s.arg(id));
    if (!it->finishedState())
        return fail(u"%1 has not ended: stop it first"_s.arg(id));
    jobs.erase(it);
    // Its files go once the history without it is on disk: a crash before brings it back whole.
    history.save(jobs, [id, files](const Status &saved) {
        if (!saved) {
            qCWarning(lcJobs).noquote()
                << u"%1 stays in the history, with its files: %2"_s.arg(id, saved.error());
            return;
        }
        for (const QString &path : files) {
            if (QFileInfo(path).isDir())
                QDir(path).removeRecursively();
            else
                QFile::remove(path);
        }
    });
    Q_EMIT jobRemoved(id);
    return success();
}

QString describeJob(const Job &job) {
    const JobSpec &spec = job.spec;
    QString text = u"%1 (%2 on %3)\n"_s.arg(job.id, job.backend,
                                            job.node.isEmpty() ? u"this computer"_s : job.node);
    auto line = [&text](const QString &key, const QString &value) {
        if (!value.isEmpty())
            text += u"%1 %2\n"_s.arg(key + u':', -12).arg(value);
    };
    line(u"Name"_s, spec.name);
    line(u"State"_s,
         jobStateName(job.state) + (job.message.isEmpty() ? QString() : u" — "_s + job.message));
    line(u"Command"_s, spec.command.join(u' '));
    line(u"Image"_s, spec.kube.image);
    line(u"Directory"_s, spec.workingDirectory);
    line(u"GPUs"_s, spec.gpus ? QString::number(spec.gpus) +
                                    (job.gpuIds.isEmpty() ? QString() : u" ("_s + job.gpuIds + u')')
                              : QString());
    line(u"Workers"_s, spec.workers > 1 ? QString::number(spec.workers) : QString());
    line(u"Template"_s, spec.kube.jobTemplate);
    QStringList env;
    for (auto it = spec.environment.begin(); it != spec.environment.end(); ++it)
        env << it.key() + u'=' + it.value();
    line(u"Environment"_s, env.join(u' '));
    const auto time = [](const QDateTime &t) {
        return t.isValid() ? t.toString(u"yyyy-MM-dd HH:mm:ss"_s) : QString();
    };
    line(u"Submitted"_s, time(job.submitted));
    line(u"Started"_s, time(job.started));
    line(u"Finished"_s, time(job.finished));
    line(u"Exit code"_s, job.exitCode ? QString::number(*job.exitCode) : QString());
    line(u"Log"_s, job.logPath);
    return text;
}

NodeSampleBuilder &JobBackend::gpuSampleBuilder(const QString &job, const QString &where) const {
    static constexpr size_t kMostPlaces = 4096;
    if (m_gpuSampleBuilders.size() >= kMostPlaces)
        m_gpuSampleBuilders.clear(); // ended jobs' places, mostly: a reading without CPU at worst
    return m_gpuSampleBuilders[{job, where}];
}

void JobBackend::sampleGpus(const QString &id, QObject *receiver, JobSamplesDone done) const {
    QTimer::singleShot(0, receiver, [done = std::move(done), id, backend = name()] {
        done(fail(tr("%1 cannot read the GPUs of job %2 where it runs").arg(backend, id)));
    });
}

void JobBackend::describe(const QString &id, QObject *receiver,
                          std::function<void(const QString &)> done) const {
    QString text = tr("No job %1 here").arg(id);
    for (const Job &job : jobs()) {
        if (job.id == id)
            text = describeJob(job);
    }
    // Asynchronous like the backends that ask a server, so callers have one code path.
    QTimer::singleShot(0, receiver, [done = std::move(done), text] { done(text); });
}

void JobBackend::askAvailability(const QString &target, QObject *receiver,
                                 AvailabilityDone done) const {
    QTimer::singleShot(0, receiver, [done = std::move(done), target, backend = name()] {
        done(fail(tr("%1 cannot say what %2 offers").arg(backend, target)));
    });
}

Result<QString> JobBackend::preview(const JobSpec &spec) const {
    Q_UNUSED(spec);
    return fail(tr("%1 shows no preview").arg(name()));
}

void JobBackend::validate(const RunDraft &draft, QObject *receiver, ValidateDone done) {
    Q_UNUSED(draft);
    QTimer::singleShot(0, receiver, [done = std::move(done)] { done(QVariant()); });
}

int JobBackend::unfinished() const {
    const QList<Job> all = jobs();
    return static_cast<int>(
        std::count_if(all.begin(), all.end(), [](const Job &job) { return !job.finishedState(); }));
}

void JobBackend::stopAll() {
    for (const Job &job : jobs()) {
        if (Status stopped = job.finishedState() ? success() : stop(job.id); !stopped)
            qCWarning(lcJobs).noquote() << stopped.error();
    }
}

Result<QString> JobBackend::submitTrials(const JobSpec &spec, const QList<QString> &scripts) {
    Q_UNUSED(spec);
    Q_UNUSED(scripts);
    return fail(tr("%1 runs trials one job each, not many in one").arg(name()));
}

} // namespace sb
