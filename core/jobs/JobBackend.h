#pragma once

#include "Job.h"
#include "monitor/SampleScript.h"
#include "util/Result.h"

#include <QObject>
#include <QVariant>

#include <functional>
#include <map>

namespace sb {

class JobHistory;

// The part of describe() every backend shares: what ran where, its state, times and exit code.
QString describeJob(const Job &job);

// A running job's GPUs on one of its nodes (a Slurm node, a pod), read from inside its allocation
// by the sampling script: only the job's own GPUs are in `sample`.
struct JobNodeSample {
    QString where; // the node or pod
    NodeSample sample;
};
using JobSamplesDone = std::function<void(const Result<std::vector<JobNodeSample>> &)>;

// A run about to be submitted, as the New-run dialog shows it: its spec, the text preview() made
// of it (perhaps edited by hand), and what validate() accepted, for submitDraft().
struct RunDraft {
    JobSpec spec;
    QString text;
    QVariant accepted; // the backend's own form of what it checked; null: not checked
};
// What a target offers now, in words ("3 of 8 GPUs free"), or why that is not known.
using AvailabilityDone = std::function<void(const Result<QString> &)>;
// validate()'s verdict: what to pass as RunDraft::accepted, or why the run would be refused.
using ValidateDone = std::function<void(const Result<QVariant> &)>;

// Where jobs run: this computer, an SSH node, a Kubernetes or Slurm cluster. Every backend
// lives on the GUI thread and never blocks it: slow work happens on its own workers, and
// changes arrive through the signals.
class JobBackend : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    // What a backend can do beyond submit, stop, log and describe. Callers ask this (and find
    // backends in the BackendRegistry), never cast to a backend's type.
    struct Capabilities {
        // How many independent trials one job may hold (submitTrials; stopIndex stops one
        // alone); 0: each trial is a job of its own.
        int trialsInOneJob = 0;
        // It can also show jobs not submitted from Signalbox (setAllJobs).
        bool foreignJobs = false;
        // It can read a running job's GPUs from inside its allocation (sampleGpus).
        bool jobGpus = false;
        // Its jobs run on this computer (what quitting asks about).
        bool thisComputer = false;
        // It gives a job the GPUs it asks for (JobSpec::gpus), and takes a code directory along
        // (JobSpec::codeDirectory).
        bool gpusAndCode = false;
        // It runs one job on several workers (JobSpec::workers).
        bool workers = false;
        // Where the code directory is found on the far side; null: a place of the run's own.
        const char *codeLandsIn = nullptr;
        // It packs the code directory beforehand, off the GUI thread (prepareCode()).
        bool packsCode = false;
        // preview(): what a spec becomes, as text a person may read and edit before it goes.
        bool preview = false;
        // validate(): it checks a run with its scheduler without submitting it.
        bool validate = false;
        // askAvailability(): what a target offers now.
        bool availability = false;
    };

    virtual QString name() const = 0;
    virtual Capabilities capabilities() const { return {}; }
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

    // With Capabilities::jobGpus: a running job's GPUs, node by node, read where it runs (Slurm:
    // a step beside the job's; Kubernetes: inside its pods). `done` on `receiver`'s thread.
    virtual void sampleGpus(const QString &id, QObject *receiver, JobSamplesDone done) const;

    // With Capabilities::trialsInOneJob: a job of trials (spec.trials > 0), `scripts[i]` being
    // what trial i runs, shell-quoted. Otherwise an error.
    virtual Result<QString> submitTrials(const JobSpec &spec, const QList<QString> &scripts);
    // Stops one trial of a job of trials alone; a backend without such jobs stops the job.
    virtual Status stopIndex(const QString &id, int index) {
        Q_UNUSED(index);
        return stop(id);
    }
    // With Capabilities::foreignJobs: every job where it looks, or only Signalbox's (default).
    virtual void setAllJobs(bool all) { Q_UNUSED(all); }
    virtual bool allJobs() const { return false; }
    // Removes an ended job from the history, with its local copy of the output (its curves
    // stay in the collector); jobRemoved() says so. Jobs a cluster keeps stay as long as it does.
    virtual Status forget(const QString &id);

    // The places within it a job may be sent (JobSpec::target), such as its clusters; empty where
    // there is one place, or the places come from elsewhere (SSH nodes are the node list's).
    virtual QStringList targets() const { return {}; }
    // The config's job templates a run may name (KubeOptions::jobTemplate).
    virtual QStringList templateNames() const { return {}; }
    // With Capabilities::availability: what `target` offers now, for a person choosing where to
    // run. `done` on `receiver`'s thread, perhaps before this returns when the answer is at hand.
    virtual void askAvailability(const QString &target, QObject *receiver,
                                 AvailabilityDone done) const;
    // With Capabilities::preview: what submitting `spec` sends (a batch script, manifests as
    // YAML), or why it cannot be made. Quick, no I/O: code is packed beforehand (prepareCode()).
    virtual Result<QString> preview(const JobSpec &spec) const;
    // With Capabilities::packsCode: packs a code directory off the GUI thread; codePrepared()
    // says when, and preview() and submissions use that snapshot from then on.
    virtual void prepareCode(const QString &directory) { Q_UNUSED(directory); }
    // "N files, SIZE, packed at TIME ...", or empty when not packed.
    virtual QString codeSummary(const QString &directory) const {
        Q_UNUSED(directory);
        return {};
    }
    // With Capabilities::validate: whether the scheduler would take the draft (its text as
    // edited), nothing submitted. `done` on `receiver`'s thread; without the capability,
    // accepted as it is.
    virtual void validate(const RunDraft &draft, QObject *receiver, ValidateDone done);
    // Submits a draft: what validate() accepted where it did, else its spec.
    virtual Result<QString> submitDraft(const RunDraft &draft) { return submit(draft.spec); }
    // The jobs not ended yet, and stopping them all (as on quitting).
    int unfinished() const;
    void stopAll();

    // Why the history kept from an earlier start could not be read (the broken file was kept
    // aside), or empty; for the window's banner.
    const QString &restoreProblem() const { return m_restoreProblem; }

Q_SIGNALS:
    void jobChanged(const sb::Job &job);
    void logAppended(const QString &id, const QByteArray &data);
    // A job the backend no longer shows (for example after the scope of a watch changed).
    void jobRemoved(const QString &id);
    // prepareCode() is done: `error` empty when the directory was packed.
    void codePrepared(const QString &directory, const QString &error);

protected:
    // Appends to the local copy of a job's output and says so (logAppended).
    void appendLog(const Job &job, const QByteArray &data);
    // forget() for a backend that keeps its history in `jobs`, saved to `history`: the job,
    // if ended, leaves both, and `files` (its output, and whatever else is its alone) are removed.
    Status forgetEnded(QList<Job> &jobs, const QString &id, JobHistory &history,
                       const QStringList &files);
    // The sample builder of a job's place (node or pod) across readings, so a reading has the
    // CPU used since the last one; forgotten when too many pile up.
    NodeSampleBuilder &gpuSampleBuilder(const QString &job, const QString &where) const;

    QString m_restoreProblem;

private:
    mutable std::map<std::pair<QString, QString>, NodeSampleBuilder> m_gpuSampleBuilders;
};

} // namespace sb
