#pragma once

#include "SlurmCommands.h"
#include "util/Result.h"

#include <QJsonObject>
#include <QMap>
#include <QNetworkAccessManager>
#include <QUrl>

#include <functional>

namespace sb {

// slurmrestd's REST API: what Signalbox sends and how it reads the answers, as pure functions
// tested on real answers of Slurm 22.05 (v0.0.38) and on the later forms (v0.0.39 to v0.0.44:
// numbers as {set, infinite, number}, states as lists) written from the documented schema; and
// a client that speaks it, authenticated by a JWT (X-SLURM-USER-NAME, X-SLURM-USER-TOKEN).

// The API versions Signalbox speaks, newest first; a client uses the newest the daemon serves.
QStringList slurmRestVersions();

// Rows of GET /slurm/V/jobs (the controller's jobs; only `user`'s unless empty) and of
// GET /slurmdb/V/job/ID (accounting), with job ids as squeue and sacct write them ("12",
// "12_3", "12_[4-9%2]"), so the backend reads them as it reads the commands' rows. `now` gives
// running jobs their elapsed and remaining time.
Result<QList<SlurmJobRow>> parseSlurmRestJobs(const QByteArray &body, const QString &user,
                                              const QDateTime &now);
Result<QList<SlurmJobRow>> parseSlurmRestAccounting(const QByteArray &body);
// An answer's errors in one line ("Invalid job id specified (slurm_kill_job)"); empty if none.
QString slurmRestErrors(const QByteArray &body);

// What sbatch's command line adds to a batch script, which the REST API takes as fields.
struct SlurmRestSubmission {
    QString name;
    QString output;    // stdout and stderr; "%a" for an array task's index
    QString directory; // where it starts
    QMap<QString, QString> environment;
};
// The body of POST /slurm/V/job/submit: the script, and its #SBATCH options read into the job
// description, since slurmrestd does not read them. An option it cannot carry is an error
// naming it; --job-name, --output, --error and --chdir give way to `job`'s, as on sbatch's
// command line.
Result<QJsonObject> slurmRestSubmitBody(const QString &script, const SlurmRestSubmission &job,
                                        const QString &version);

// One cluster's slurmrestd. Requests are asynchronous; every answer comes on the client's
// thread. The version is found once, with the first request.
class SlurmRestClient final : public QObject {
    Q_OBJECT
public:
    // Refuses (in every answer) a token sent in clear: http is for this computer only, unless
    // the requests go through a tunnel.
    SlurmRestClient(const QUrl &base, const QString &user, QObject *parent = nullptr);

    // Sends each request as raw HTTP/1.1 bytes another way (through the login node's SSH, to
    // the URL's host and port as seen from there, or to the socket of a "unix:/path" URL) and
    // takes the raw reply; `done` is to be called on this client's thread, or never once the
    // client is gone.
    using Tunnel = std::function<void(const QByteArray &request,
                                      std::function<void(const Result<QByteArray> &)> done)>;
    void setTunnel(Tunnel tunnel);

    QString user() const { return m_user; }
    bool hasToken() const { return !m_token.isEmpty(); }
    void setToken(const QString &token) { m_token = token; }

    // The controller's jobs (all users' if `allUsers`), then accounting's rows of
    // `accountingIds`: a poll without logs. An error only when the controller's list failed.
    void poll(bool allUsers, const QStringList &accountingIds,
              std::function<void(const Result<SlurmPoll> &)> done);
    // Submits; answers the Slurm job id.
    void submit(const QString &script, const SlurmRestSubmission &job,
                std::function<void(const Result<QString> &)> done);
    // Cancels a job or one array task ("12_3"), as scancel does.
    void cancel(const QString &jobId, std::function<void(const Status &)> done);

private:
    using Done = std::function<void(const Result<QByteArray> &)>;
    // PATH has "%1" where the version goes ("/slurm/%1/jobs").
    void send(const QByteArray &verb, const QString &path, const QByteArray &body, Done done);
    // One request, straight or through the tunnel: the status (0 when none came) and body.
    using Answer = std::function<void(int status, const QByteArray &body, const QString &error)>;
    void transmit(const QByteArray &verb, const QString &path, const QByteArray &body, Answer done);
    // The body, or why the status refuses it; a refused token is dropped.
    Result<QByteArray> answer(int status, const QByteArray &body, const QString &networkError);
    QString refusal() const; // why no request may be sent; empty if they may
    // The poll's second step: accounting's rows of the jobs that have just left the queue.
    void ask(const QList<SlurmJobRow> &queue, const QStringList &accountingIds,
             const std::function<void(const Result<SlurmPoll> &)> &done);
    // Calls `then` once the version is known (at once if it is), or with why it is not.
    void whenReady(std::function<void(const Status &)> then);
    void detectVersion(int next, std::function<void(const Status &)> done);

    QNetworkAccessManager m_network;
    QUrl m_base;
    QString m_user;
    QString m_token;
    QString m_version; // empty until found
    Tunnel m_tunnel;
    QList<std::function<void(const Status &)>> m_waiting; // requests waiting for the version
};

} // namespace sb
