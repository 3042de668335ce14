#include "SlurmTransport.h"

#include "SlurmRest.h"
#include "net/HttpReply.h"
#include "ssh/ShellQuote.h"
#include "util/Files.h"
#include "util/OffThread.h"

#include <QDir>

namespace sb {

using namespace Qt::StringLiterals;

QString slurmWorkspace(const SlurmClusterConfig &cluster) {
    return cluster.workspace.isEmpty() ? u"~/.signalbox/slurm"_s : cluster.workspace;
}

SlurmTransport::SlurmTransport(NodeMonitor *monitor, SlurmClusterConfig cluster, QObject *parent)
    : QObject(parent)
    , m_monitor(monitor)
    , m_cluster(std::move(cluster)) {
}

bool SlurmTransport::sameWay(const SlurmClusterConfig &before, const SlurmClusterConfig &after) {
    return before.login == after.login && before.restUrl == after.restUrl &&
           before.restUser == after.restUser && before.restTokenFile == after.restTokenFile &&
           before.restViaLogin == after.restViaLogin;
}

void SlurmTransport::submit(const Submission &job,
                            std::function<void(const Result<QString> &)> done) {
    ++m_answering;
    doSubmit(job, [this, done = std::move(done)](const Result<QString> &clusterJobId) {
        done(clusterJobId);
        answered();
    });
}

void SlurmTransport::cancel(const QString &clusterJobId, std::function<void(const Status &)> done) {
    ++m_answering;
    doCancel(clusterJobId, [this, done = std::move(done)](const Status &cancelled) {
        done(cancelled);
        answered();
    });
}

void SlurmTransport::retire() {
    m_retired = true;
    if (m_answering == 0)
        deleteLater();
}

void SlurmTransport::answered() {
    if (--m_answering == 0 && m_retired)
        deleteLater();
}

Status SlurmTransport::accepts(const QString &script) const {
    Q_UNUSED(script);
    return success();
}

void SlurmTransport::runPollScript(bool allUsers, const QStringList &accountingIds,
                                   const QStringList &logs, bool askQueue,
                                   std::function<void(const Result<SlurmPoll> &)> done) {
    NodeConnection *node = login();
    if (!node)
        return done(fail(u"no login node \"%1\""_s.arg(m_cluster.login)));
    const QByteArray key = slurmPollKey();
    node->exec(
        shellCommand(
            slurmPollArguments(slurmWorkspace(m_cluster), allUsers, accountingIds, askQueue) +
            logs),
        this,
        [done = std::move(done), key](const Result<ExecResult> &result) {
            if (!result)
                return done(result.failure());
            done(parseSlurmPoll(result->out, key));
        },
        kSlurmCommandTimeoutMs, slurmPollInput(key));
}

void SlurmTransport::runSubmitScript(const Submission &job, bool prepare,
                                     std::function<void(const Result<QStringList> &)> done) {
    NodeConnection *node = login();
    if (!node)
        return done(fail(u"no login node \"%1\""_s.arg(m_cluster.login)));
    node->exec(
        shellCommand({u"sh"_s, u"-c"_s, slurmSubmitScript(), u"signalbox-sbatch"_s,
                      slurmWorkspace(m_cluster), job.id, job.log, job.directory,
                      prepare ? u"prepare"_s : QString()}),
        this,
        [done = std::move(done), prepare](const Result<ExecResult> &result) {
            if (Status ran = commandSucceeded(result); !ran)
                return done(ran.failure());
            const QStringList lines =
                QString::fromUtf8(result->out).split(u'\n', Qt::SkipEmptyParts);
            if (lines.size() < (prepare ? 2 : 1))
                return done(fail(oneLine(result->err)));
            done(lines);
        },
        kSlurmCommandTimeoutMs, job.script.toUtf8());
}

namespace {

// The login node's commands: sbatch, scancel, and one poll script for squeue, sacct and logs.
class LoginTransport final : public SlurmTransport {
public:
    using SlurmTransport::SlurmTransport;

    void doSubmit(const Submission &job,
                  std::function<void(const Result<QString> &)> done) override {
        runSubmitScript(job, false, [done = std::move(done)](const Result<QStringList> &lines) {
            if (!lines)
                return done(fail(u"sbatch refused it: %1"_s.arg(lines.error())));
            done(lines->first().trimmed());
        });
    }

    void doCancel(const QString &clusterJobId, std::function<void(const Status &)> done) override {
        NodeConnection *node = login();
        if (!node)
            return done(fail(u"no login node \"%1\""_s.arg(m_cluster.login)));
        node->exec(
            shellCommand({u"scancel"_s, clusterJobId}), this,
            [done = std::move(done)](const Result<ExecResult> &result) {
                if (Status cancelled = commandSucceeded(result); !cancelled)
                    return done(fail(u"scancel failed: %1"_s.arg(cancelled.error())));
                done(success());
            },
            kSlurmCommandTimeoutMs);
    }

    void poll(bool allUsers, const QStringList &accountingIds, const QStringList &logs,
              std::function<void(const PollAnswer &)> done) override {
        runPollScript(allUsers, accountingIds, logs, true,
                      [done = std::move(done)](const Result<SlurmPoll> &poll) {
                          PollAnswer answer;
                          if (poll) {
                              answer.poll = *poll;
                              answer.logsRead = true;
                          } else {
                              answer.unreachable = u"cannot reach the login node; the job goes "
                                                   "on there (%1)"_s.arg(poll.error());
                          }
                          done(answer);
                      });
    }
};

// slurmrestd, authenticated by a token from rest_token_file or `scontrol token`; the login node
// still prepares each run's directory and serves the logs.
class RestTransport final : public SlurmTransport {
public:
    RestTransport(NodeMonitor *monitor, const SlurmClusterConfig &cluster, QObject *parent)
        : SlurmTransport(monitor, cluster, parent) {
        QString user = cluster.restUser;
        for (const NodeConfig &node : monitor->nodes()) {
            if (user.isEmpty() && node.name == cluster.login)
                user = node.user;
        }
        if (user.isEmpty())
            user = qEnvironmentVariable("USER"); // as ssh logs in
        const QUrl url(cluster.restUrl);
        m_client = new SlurmRestClient(url, user, this);
        if (cluster.restViaLogin || url.scheme() == "unix"_L1)
            m_client->setTunnel([this, url](const QByteArray &request, auto done) {
                tunnel(url, request, std::move(done));
            });
    }

    Status accepts(const QString &script) const override {
        const auto body = slurmRestSubmitBody(script, {}, slurmRestVersions().last());
        return body ? success() : Status(body.failure());
    }

    void doSubmit(const Submission &job,
                  std::function<void(const Result<QString> &)> done) override {
        runSubmitScript(
            job, true,
            [this, job, done = std::move(done)](const Result<QStringList> &lines) mutable {
                if (!lines)
                    return done(fail(u"the login node could not make the run's directory: %1"_s.arg(
                        lines.error())));
                // sbatch would pass the login shell's environment; slurmrestd passes what it is
                // given.
                const SlurmRestSubmission submission{
                    .name = job.id,
                    .output = lines->at(0) + u'/' + job.log,
                    .directory = lines->at(1),
                    .environment = {{u"SIGNALBOX_RUN"_s, job.id}, {u"PATH"_s, lines->value(2)}}};
                withToken([job, submission, done = std::move(done)](
                              const Result<SlurmRestClient *> &client) mutable {
                    if (!client)
                        return done(fail(u"slurmrestd: %1"_s.arg(client.error())));
                    (*client)->submit(
                        job.script, submission,
                        [done = std::move(done)](const Result<QString> &jobId) {
                            done(jobId ? jobId
                                       : fail(u"slurmrestd refused it: %1"_s.arg(jobId.error())));
                        });
                });
            });
    }

    void doCancel(const QString &clusterJobId, std::function<void(const Status &)> done) override {
        withToken([clusterJobId,
                   done = std::move(done)](const Result<SlurmRestClient *> &client) mutable {
            if (!client)
                return done(fail(u"cannot cancel it: %1"_s.arg(client.error())));
            (*client)->cancel(clusterJobId, [done = std::move(done)](const Status &cancelled) {
                done(cancelled
                         ? success()
                         : fail(u"slurmrestd did not cancel it: %1"_s.arg(cancelled.error())));
            });
        });
    }

    void poll(bool allUsers, const QStringList &accountingIds, const QStringList &logs,
              std::function<void(const PollAnswer &)> done) override {
        // Two answers, in either order: the jobs from slurmrestd, the logs over SSH.
        struct Round {
            PollAnswer answer;
            QString restError;
            int left = 2;
            std::function<void(const PollAnswer &)> done;
        };
        auto round = std::make_shared<Round>();
        round->done = std::move(done);
        const auto finish = [round] {
            if (--round->left > 0)
                return;
            round->answer.poll.queueFailed = !round->restError.isEmpty();
            round->answer.poll.error = round->restError;
            round->done(round->answer);
        };
        withToken([allUsers, accountingIds, round,
                   finish](const Result<SlurmRestClient *> &client) {
            if (!client) {
                round->restError = client.error();
                return finish();
            }
            (*client)->poll(allUsers, accountingIds,
                            [round, finish](const Result<SlurmPoll> &answer) {
                                if (!answer) {
                                    round->restError = answer.error();
                                } else {
                                    round->answer.poll.queue = answer->queue;
                                    round->answer.poll.accounting = answer->accounting;
                                    round->answer.poll.accountingFailed = answer->accountingFailed;
                                }
                                finish();
                            });
        });
        if (logs.isEmpty() || !login())
            return finish();
        runPollScript(allUsers, {}, logs, false, [round, finish](const Result<SlurmPoll> &read) {
            if (read) { // else read by offset next time
                round->answer.poll.logs = read->logs;
                round->answer.logsRead = true;
            }
            finish();
        });
    }

private:
    // To slurmrestd through the login node's SSH connection: its host and port as seen from
    // there, or the socket of a "unix:/path" URL.
    void tunnel(const QUrl &url, const QByteArray &request,
                std::function<void(const Result<QByteArray> &)> done) {
        NodeConnection *node = login();
        if (!node)
            return done(
                fail(u"no login node \"%1\" to reach slurmrestd through"_s.arg(m_cluster.login)));
        const bool socket = url.scheme() == "unix"_L1;
        node->withSession<QByteArray>(
            [request, socket, url](SshSession &session) {
                return session.exchange(
                    socket ? url.path() : url.host(),
                    socket ? 0 : url.port(url.scheme() == "https"_L1 ? 443 : 80), request,
                    [](const QByteArray &bytes, bool ended) -> Result<bool> {
                        const auto reply = parseHttpReply(bytes, ended);
                        if (!reply)
                            return reply.failure();
                        return reply->has_value();
                    });
            },
            m_client, std::move(done)); // never answered once the client is gone
    }

    // Calls `then` once the client holds a token: read from rest_token_file (off the GUI
    // thread, a regular file only: a FIFO or a hung mount must not freeze the window), or made
    // by `scontrol token` on the login node. Read again each time the daemon refused it.
    void withToken(std::function<void(const Result<SlurmRestClient *> &)> then) {
        if (m_client->hasToken())
            return then(m_client);
        if (QString path = m_cluster.restTokenFile; !path.isEmpty()) {
            if (path.startsWith("~/"_L1))
                path.replace(0, 1, QDir::homePath());
            runOffThread(
                this, [path] { return readRegularFile(path, 64 << 10); },
                [this, path, then = std::move(then)](const Result<QByteArray> &bytes) {
                    if (!bytes) {
                        // The wording of before: "cannot read rest_token_file PATH: why".
                        QString why = bytes.error();
                        if (const QString said = u"cannot read %1: "_s.arg(path);
                            why.startsWith(said))
                            why.remove(0, said.size());
                        return then(fail(u"cannot read rest_token_file %1: %2"_s.arg(path, why)));
                    }
                    const QString token =
                        QString::fromUtf8(*bytes).trimmed().remove(u"SLURM_JWT="_s);
                    if (token.isEmpty())
                        return then(fail(u"rest_token_file %1 holds no token"_s.arg(path)));
                    m_client->setToken(token);
                    then(m_client);
                });
            return;
        }
        NodeConnection *node = login();
        if (!node)
            return then(fail(u"Slurm cluster %1 has no login node"_s.arg(m_cluster.name)));
        // A token of the login user's, kept in memory only; made again when it is refused.
        node->exec(
            shellCommand({u"scontrol"_s, u"token"_s, u"lifespan=86400"_s}), this,
            [this, then = std::move(then)](const Result<ExecResult> &made) {
                const Status ran = commandSucceeded(made);
                const QString out = ran ? QString::fromUtf8(made->out).trimmed() : QString();
                if (!out.startsWith("SLURM_JWT="_L1))
                    return then(fail(u"scontrol token on the login node failed: %1"_s.arg(
                        ran ? oneLine(made->err) : ran.error())));
                m_client->setToken(out.mid(10));
                then(m_client);
            },
            kSlurmCommandTimeoutMs);
    }

    SlurmRestClient *m_client; // a child
};

} // namespace

SlurmTransport *makeSlurmTransport(NodeMonitor *monitor, const SlurmClusterConfig &cluster,
                                   QObject *parent) {
    if (cluster.restUrl.isEmpty())
        return new LoginTransport(monitor, cluster, parent);
    return new RestTransport(monitor, cluster, parent);
}

} // namespace sb
