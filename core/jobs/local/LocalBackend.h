#pragma once

#include "jobs/JobBackend.h"
#include "jobs/JobHistory.h"

#include <QHash>
#include <QSet>
#include <QTimer>

namespace sb {

// Runs jobs on this computer, detached (DetachedRun.h): each run is a session of its own whose
// output (stdout and stderr merged) and exit code are files in <data>/runs/<id>/, so a run
// survives Signalbox quitting, and the next start follows it again from where its log was. The
// job history persists in jobs.json.
class LocalBackend final : public JobBackend {
    Q_OBJECT
public:
    struct Options {
        QString dataDir;
        int stopGraceMs = 10000;
        QMap<QString, QString> environment; // added to every job, e.g. SIGNALBOX_COLLECTOR
        int followMs = 250;                 // how often running jobs' logs and exits are read
    };
    explicit LocalBackend(Options options, QObject *parent = nullptr);

    QString name() const override { return BackendName::kLocal; }
    Capabilities capabilities() const override { return {.thisComputer = true}; }
    Result<QString> submit(const JobSpec &spec) override;
    QList<Job> jobs() const override;
    Status stop(const QString &id) override;
    Status forget(const QString &id) override;
    Result<QByteArray> log(const QString &id) const override;
    // A variable of every job started from now on (a collector's token typed in later).
    void setEnvironment(const QString &name, const QString &value) {
        m_options.environment.insert(name, value);
    }

private:
    Job *find(const QString &id);
    void launched(const QString &id, qint64 processGroup);
    void signalStop(qint64 group); // SIGTERM, SIGKILL after the grace, even after we quit
    void follow();
    void finish(const QString &id, std::optional<int> exitCode, bool lost);
    void update(const Job &job);

    Options m_options;
    JobHistory m_history;
    QList<Job> m_jobs;
    QHash<QString, qint64> m_offsets; // unfinished runs: how much of the log was said
    QHash<QString, int> m_lostReads;  // reads that found the run gone without an exit code
    QSet<QString> m_stopRequested;
    QTimer m_follow;
};

} // namespace sb
