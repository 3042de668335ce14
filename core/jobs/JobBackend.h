#pragma once

#include "Job.h"
#include "util/Result.h"

#include <QObject>

#include <functional>

namespace sb {

// The part of describe() every backend shares: what ran where, its state, times and exit code.
QString describeJob(const Job &job);

// Where jobs run: this computer, an SSH node, a Kubernetes or Slurm cluster. Every backend
// lives on the GUI thread and never blocks it: slow work happens on its own workers, and
// changes arrive through the signals.
class JobBackend : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    virtual QString name() const = 0;
    // Starts a job; returns its id at once. Progress comes through jobChanged().
    virtual Result<QString> submit(const JobSpec &spec) = 0;
    virtual QList<Job> jobs() const = 0;
    // Asks a job to stop: SIGTERM, then SIGKILL after the grace period.
    virtual Status stop(const QString &id) = 0;
    // The log captured so far; logAppended() delivers what follows.
    virtual Result<QByteArray> log(const QString &id) const = 0;
    // What is known about a job, as text for a person: the spec, state and times; a cluster
    // adds its conditions, pods and events, which may take a round trip. `done` is called on
    // `receiver`'s thread, and not at all when the receiver is gone.
    virtual void describe(const QString &id, QObject *receiver,
                          std::function<void(const QString &text)> done) const;

    // Why the history kept from an earlier start could not be read (the broken file was kept
    // aside), or empty; for the window's banner.
    const QString &restoreProblem() const { return m_restoreProblem; }

Q_SIGNALS:
    void jobChanged(const sb::Job &job);
    void logAppended(const QString &id, const QByteArray &data);
    // A job the backend no longer shows (for example after the scope of a watch changed).
    void jobRemoved(const QString &id);

protected:
    QString m_restoreProblem;
};

} // namespace sb
