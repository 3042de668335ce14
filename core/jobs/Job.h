#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QMap>
#include <QMetaType>
#include <QStringList>

#include <optional>

namespace sb {

enum class JobState { Queued, Running, Succeeded, Failed, Stopped };

QString jobStateName(JobState state);

// What to run: an argument vector (never shell text), where, and with which environment.
struct JobSpec {
    QString name;
    QStringList command;
    QString workingDirectory;
    QMap<QString, QString> environment;

    QJsonObject toJson() const;
    static JobSpec fromJson(const QJsonObject &json);
};

// A job as every backend reports it, for the one jobs table.
struct Job {
    QString id;      // unique within its backend
    QString backend; // "local", later "ssh", "kubernetes", "slurm"
    QString node;    // where it runs: a node or a cluster
    JobSpec spec;
    JobState state = JobState::Queued;
    QDateTime submitted;
    QDateTime started;
    QDateTime finished;
    std::optional<int> exitCode;
    QString logPath;
    QString message; // why it is queued or failed, in the researcher's words

    bool finishedState() const { return state >= JobState::Succeeded; }
    QJsonObject toJson() const;
    static Job fromJson(const QJsonObject &json);
};

} // namespace sb

Q_DECLARE_METATYPE(sb::Job)
