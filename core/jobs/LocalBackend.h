#pragma once

#include "JobBackend.h"

#include <QHash>
#include <QProcess>

#include <memory>

namespace sb {

// Runs jobs on this computer. Output (stdout and stderr merged) goes to a log file per job under
// the data directory and to logAppended(); the job history persists in jobs.json, so finished
// runs are still listed after a restart. Runs stop when Signalbox quits (they are its children).
class LocalBackend final : public JobBackend {
    Q_OBJECT
public:
    struct Options {
        QString dataDir;
        int stopGraceMs = 10000;
        QMap<QString, QString> environment; // added to every job, e.g. SIGNALBOX_COLLECTOR
    };
    explicit LocalBackend(Options options, QObject *parent = nullptr);
    ~LocalBackend() override;

    QString name() const override { return QStringLiteral("local"); }
    Result<QString> submit(const JobSpec &spec) override;
    QList<Job> jobs() const override;
    Status stop(const QString &id) override;
    Result<QByteArray> log(const QString &id) const override;

private:
    struct Running;
    qsizetype indexOf(const QString &id) const; // -1: no such job
    Job *find(const QString &id);
    void finish(const QString &id, int exitCode, QProcess::ExitStatus status);
    void releaseLater(std::shared_ptr<Running> running);
    void update(const Job &job);
    void save() const;

    Options m_options;
    QList<Job> m_jobs;
    QHash<QString, std::shared_ptr<Running>> m_running;
};

} // namespace sb
