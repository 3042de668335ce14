#pragma once

#include "util/FileEntry.h"
#include "util/Result.h"

#include <QByteArray>
#include <QString>

#include <functional>
#include <memory>
#include <vector>

// libssh's handles, kept out of every header but this one's implementation.
struct ssh_session_struct;
struct ssh_channel_struct;
struct sftp_session_struct;

namespace sb {

// Where and as whom to connect. Nothing secret: keys stay in files or the agent.
// The command libssh runs to reach a host through `proxyJump` (see parseProxyJump): OpenSSH's
// client with checked, quoted arguments; an error when the spec is not a jump host.
Result<QString> proxyCommand(const QString &proxyJump);

struct SshTarget {
    QString host;
    int port = 22;
    QString user;           // empty: the local user
    QString identityFile;   // empty: the agent, then ~/.ssh/id_ed25519, id_ecdsa, id_rsa
    QString proxyJump;      // [user@]host[:port] reached first (through the OpenSSH client)
    QString knownHostsFile; // empty: ~/.ssh/known_hosts
    int timeoutSeconds = 4; // connect and handshake, and any blocking call after
};

// Why a connection failed, in a form the UI can act on.
struct SshFailure {
    enum class Kind { Network, HostKeyUnknown, HostKeyChanged, NeedsPassphrase, AuthFailed };
    Kind kind = Kind::Network;
    QString message;         // for the person reading it
    QString fingerprint;     // the server's key (SHA256:...), for the host key kinds
    QString knownHostsEntry; // the line trusting it would add to known_hosts
    QString keyFile;         // the key that needs a passphrase
};

struct ExecResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// A command's output as one line for a message ("sbatch: error: ...; ..."): lines joined by "; ".
QString oneLine(const QByteArray &output);
// Success when a remote command ran and exited 0; otherwise why not, in one line: its error
// output (or its exit code when it said nothing), or why it could not run.
Status commandSucceeded(const Result<ExecResult> &result);

// A command running on an open channel whose output is read as it comes (the node sampler).
class SshStream {
public:
    ~SshStream();
    SshStream(const SshStream &) = delete;
    SshStream &operator=(const SshStream &) = delete;
    // Appends what has arrived without waiting; false once the command ended or the link broke.
    bool readAvailable(QByteArray *out, QByteArray *err);

private:
    friend class SshSession;
    explicit SshStream(ssh_channel_struct *channel)
        : m_channel(channel) {}
    ssh_channel_struct *m_channel;
};

// One authenticated SSH connection (libssh). Blocking: use it from one worker thread only.
class SshSession {
public:
    // Connects, verifies the host key against known_hosts (unknown and changed keys refuse),
    // then authenticates by agent or key file. Fills `failure` when it returns null.
    static std::unique_ptr<SshSession> connect(const SshTarget &target, const QString &passphrase,
                                               SshFailure *failure);
    ~SshSession();
    SshSession(const SshSession &) = delete;
    SshSession &operator=(const SshSession &) = delete;

    // Runs a shell command line (quote it with shellCommand) and collects its output.
    Result<ExecResult> run(const QString &command, const QByteArray &input = {},
                           int timeoutMs = 15000);
    Result<std::unique_ptr<SshStream>> stream(const QString &command);
    // What `ssh -L` does for one exchange: opens a channel from the node to `host:port` (or to
    // the Unix socket `host` when `port` is 0), sends `data`, and reads the answer until the
    // peer closes it or `whole` says it is complete. `whole` answers an error to give up.
    Result<QByteArray>
    exchange(const QString &host, int port, const QByteArray &data,
             const std::function<Result<bool>(const QByteArray &, bool ended)> &whole,
             int timeoutMs = 30000);
    // Copies a file to the node over SFTP, creating it with `mode`.
    Status upload(const QString &localPath, const QString &remotePath, int mode = 0644);
    // Regular files under `directory` (a path on the node; relative ones start at the home)
    // whose names `wanted` accepts, over SFTP.
    Result<std::vector<FileEntry>> findFiles(const QString &directory,
                                             const std::function<bool(const QString &)> &wanted);
    // Up to `size` bytes of a file on the node from `offset`, over SFTP; fewer at its end.
    Result<QByteArray> readFile(const QString &path, qint64 offset, qint64 size);
    int socket() const; // to wait on with poll()
    QString fingerprint() const { return m_fingerprint; }

private:
    explicit SshSession(ssh_session_struct *session)
        : m_session(session) {}
    QString lastError() const;
    Result<sftp_session_struct *> sftp(); // opened on first use, kept with the session
    ssh_session_struct *m_session;
    sftp_session_struct *m_sftp = nullptr;
    QString m_fingerprint;
};

// Appends `entry` (from SshFailure::knownHostsEntry) to a known_hosts file, creating it.
Status trustHostKey(const QString &knownHostsFile, const QString &entry);
QString defaultKnownHostsFile();
// "libssh 0.10.6", for the About box.
QString libsshVersion();

} // namespace sb
