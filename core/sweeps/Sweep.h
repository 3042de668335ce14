#pragma once

#include "SweepSpec.h"
#include "jobs/Job.h"

#include <QDateTime>
#include <QJsonObject>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <optional>

namespace sb {

class CollectorClient;
class JobBackend;
class JobsModel;

// One set of parameters of a sweep and the job that tries it.
struct Trial {
    int number = 0;
    QJsonObject parameters;
    QStringList command;
    QString backend; // of the job
    QString jobId;   // the job that runs it; a cluster's Indexed Job holds many trials
    int index = -1;  // its completion index in that Indexed Job; -1: a job of its own
    QString run;     // its run in the collector
    QString node;    // where it ran
    JobState state = JobState::Queued;
    bool earlyStopped = false; // by hyperband
    QString message;
    QList<double> values; // the sweep's metric, in the order logged
    QDateTime started;
    QDateTime finished;

    bool finishedState() const { return isFinished(state); }
    std::optional<double> last() const;
    std::optional<double> best(bool maximize) const;
    QJsonObject toJson() const;
    static Trial fromJson(const QJsonObject &json);
};

// A running sweep: the app is its controller while it is open. It draws trials (grid, random,
// or TPE from finished trials' metrics), runs each as a job on the sweep's target — this
// computer, SSH nodes' free GPUs (queued until GPUs free up), or a Kubernetes cluster (grid and
// random as one Indexed Job whose pods read their parameters by completion index) — keeps at
// most `parallelism` running, reads their metric from the collector, and stops trials that
// hyperband finds hopeless. Its state is written to a file on every change, and a sweep
// reopened from that file goes on where it was.
class Sweep final : public QObject {
    Q_OBJECT
public:
    enum class State { Running, Stopped, Finished };
    struct Options {
        QString stateDirectory; // where <id>.json is kept
        quint64 seed = 0;
        int pollMs = 2000; // how often the metric is read while trials run
    };

    // A new sweep; nothing runs before start().
    static Result<Sweep *> create(const SweepSpec &spec, JobsModel *jobs,
                                  CollectorClient *collector, const Options &options,
                                  QObject *parent = nullptr);
    // A sweep as its state file left it; it goes on at once unless it was stopped or finished.
    static Result<Sweep *> resume(const QString &stateFile, JobsModel *jobs,
                                  CollectorClient *collector, const Options &options,
                                  QObject *parent = nullptr);
    // Every sweep state file in `directory`.
    static QStringList stateFiles(const QString &directory);

    QString id() const { return m_id; }
    const SweepSpec &spec() const { return m_spec; }
    const QList<Trial> &trials() const { return m_trials; }
    State state() const { return m_state; }
    QString statusText() const;
    // Why the sweep stopped by itself (its trials kept failing), in words; empty otherwise.
    QString stopReason() const { return m_stopReason; }
    // A sweep whose first kFirstFailures trials all fail, or kFailuresInARow in a row, stops:
    // more trials would fail the same way.
    static constexpr int kFirstFailures = 3;
    static constexpr int kFailuresInARow = 5;
    QString statePath() const;
    // The trial with the best metric so far, or -1.
    int bestTrial() const;
    // How many trials the sweep may run in all: run_cap, the grid's size, or 0 for no limit.
    int limit() const { return m_limit; }
    QStringList runs() const;

    void start();
    // No new trials; running ones are stopped.
    void stop();
    // `more` trials than the limit allowed, and running again if it had stopped or finished.
    void extend(int more);

Q_SIGNALS:
    void changed();
    // A trial could not be started, or the state not written: for the UI.
    void problem(const QString &message);

private:
    Sweep(SweepSpec spec, JobsModel *jobs, CollectorClient *collector, Options options,
          QObject *parent);
    JobBackend *backend() const;
    JobSpec trialJob(const Trial &trial) const;
    void connectBackend();
    void onJob(const Job &job);
    void schedule();
    void launchOne();
    void launchIndexed();
    void pollMetrics();
    void applyHyperband();
    void finishIfDone();
    void stopIfFailing();
    void save();
    int active() const;
    bool mayDrawMore() const;
    bool targetReached() const;

    SweepSpec m_spec;
    JobsModel *m_jobs;
    CollectorClient *m_collector;
    Options m_options;
    QString m_id;
    QDateTime m_created;
    State m_state = State::Stopped;
    int m_limit = 0;
    QList<Trial> m_trials;
    // Trials whose metric is still to be read -> when they ended (0: running).
    QHash<int, qint64> m_unread;
    QString m_stopReason;
    QTimer m_poll;
    bool m_polling = false;
    bool m_scheduling = false;
};

} // namespace sb
