#include "SshSession.h"

#include "ShellQuote.h"
#include "config/Config.h"
#include "util/Files.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include <deque>
#include <fcntl.h>
#include <mutex>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr qint64 kMaxKeyFileBytes = 1 << 20; // keys are a few KiB; /dev/zero is refused

void initOnce() {
    static std::once_flag once;
    std::call_once(once, [] { ssh_init(); });
}

QString expandHome(const QString &path) {
    return path.startsWith(u"~/"_s) ? QDir::homePath() + path.mid(1) : path;
}

QString serverFingerprint(ssh_session session) {
    ssh_key key = nullptr;
    if (ssh_get_server_publickey(session, &key) != SSH_OK)
        return {};
    unsigned char *hash = nullptr;
    size_t length = 0;
    QString result;
    if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &length) == 0) {
        char *text = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, length);
        result = QString::fromLatin1(text);
        ssh_string_free_char(text);
        ssh_clean_pubkey_hash(&hash);
    }
    ssh_key_free(key);
    return result;
}

// PEM keys say "ENCRYPTED"; OpenSSH's own format names its cipher ("none" when plain).
bool isEncryptedKey(const QByteArray &text) {
    if (text.contains("ENCRYPTED"))
        return true;
    QByteArray base64;
    for (const QByteArray &line : text.split('\n')) {
        if (!line.startsWith("-----"))
            base64 += line.trimmed();
    }
    const QByteArray blob = QByteArray::fromBase64(base64);
    static constexpr QByteArrayView kMagic{"openssh-key-v1\0", 15};
    if (!blob.startsWith(kMagic) || blob.size() < kMagic.size() + 4)
        return false;
    const auto *p = reinterpret_cast<const unsigned char *>(blob.constData() + kMagic.size());
    const qsizetype length = (p[0] << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
    return blob.mid(kMagic.size() + 4, length) != "none";
}

// A key file's private key, or why not: a missing file is no error (the next one is tried). The
// file is read here, so libssh never reads a device or a FIFO named as a key.
enum class KeyLoad { Loaded, Missing, Encrypted, Broken };
KeyLoad loadKey(const QString &path, const QString &passphrase, ssh_key *key, QString *problem) {
    if (!QFileInfo::exists(path))
        return KeyLoad::Missing;
    const auto text = readRegularFile(path, kMaxKeyFileBytes);
    if (!text) {
        *problem = text.error();
        return KeyLoad::Broken;
    }
    const QByteArray secret = passphrase.toUtf8();
    if (ssh_pki_import_privkey_base64(text->constData(),
                                      secret.isEmpty() ? nullptr : secret.constData(), nullptr,
                                      nullptr, key) == SSH_OK)
        return KeyLoad::Loaded;
    if (isEncryptedKey(*text))
        return KeyLoad::Encrypted;
    *problem = u"%1 is not a private key libssh can read"_s.arg(path);
    return KeyLoad::Broken;
}

} // namespace

Result<QString> proxyCommand(const QString &proxyJump) {
    const auto hops = parseProxyJump(proxyJump);
    if (!hops)
        return hops.failure();
    auto spec = [](const JumpHost &hop) {
        const QString host = hop.host.contains(u':') ? u'[' + hop.host + u']' : hop.host;
        return (hop.user.isEmpty() ? QString() : hop.user + u'@') + host + u':' +
               QString::number(hop.port);
    };
    QStringList arguments{u"ssh"_s, u"-W"_s, u"[%h]:%p"_s};
    if (hops->size() > 1) {
        QStringList earlier;
        for (qsizetype i = 0; i + 1 < hops->size(); ++i)
            earlier << spec(hops->at(i));
        arguments << u"-J"_s << earlier.join(u',');
    }
    const JumpHost &last = hops->last();
    arguments << u"-p"_s << QString::number(last.port);
    if (!last.user.isEmpty())
        arguments << u"-l"_s << last.user;
    arguments << u"--"_s << last.host;
    return shellCommand(arguments);
}

QString libsshVersion() {
    return u"libssh %1"_s.arg(QString::fromLatin1(ssh_version(0)));
}

QString defaultKnownHostsFile() {
    return QDir::homePath() + u"/.ssh/known_hosts"_s;
}

std::unique_ptr<SshSession> SshSession::connect(const SshTarget &target, const QString &passphrase,
                                                SshFailure *failure) {
    initOnce();
    auto fail = [&](SshFailure::Kind kind, QString message) {
        failure->kind = kind;
        failure->message = std::move(message);
        return nullptr;
    };
    ssh_session raw = ssh_new();
    if (!raw)
        return fail(SshFailure::Kind::Network, u"cannot create an SSH session"_s);
    std::unique_ptr<SshSession> session(new SshSession(raw));
    // Signalbox's node list is the configuration: libssh must not read ~/.ssh/config as well.
    bool processConfig = false;
    long timeout = target.timeoutSeconds;
    const int port = target.port;
    const QByteArray host = target.host.toUtf8();
    const QByteArray knownHosts = QFile::encodeName(expandHome(
        target.knownHostsFile.isEmpty() ? defaultKnownHostsFile() : target.knownHostsFile));
    ssh_options_set(raw, SSH_OPTIONS_PROCESS_CONFIG, &processConfig);
    ssh_options_set(raw, SSH_OPTIONS_HOST, host.constData());
    ssh_options_set(raw, SSH_OPTIONS_PORT, &port);
    ssh_options_set(raw, SSH_OPTIONS_TIMEOUT, &timeout);
    ssh_options_set(raw, SSH_OPTIONS_KNOWNHOSTS, knownHosts.constData());
    ssh_options_set(raw, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/etc/ssh/ssh_known_hosts");
    if (!target.user.isEmpty())
        ssh_options_set(raw, SSH_OPTIONS_USER, target.user.toUtf8().constData());
    if (!target.proxyJump.isEmpty()) {
        // libssh 0.10 has no native jump host; OpenSSH's client carries the connection. libssh
        // runs the command through a shell: it is built from checked names, each word quoted.
        const auto command = proxyCommand(target.proxyJump);
        if (!command)
            return fail(SshFailure::Kind::Network, u"proxy_jump: %1"_s.arg(command.error()));
        ssh_options_set(raw, SSH_OPTIONS_PROXYCOMMAND, command->toUtf8().constData());
    }
    const QString where = u"%1:%2"_s.arg(target.host).arg(target.port);
    if (ssh_connect(raw) != SSH_OK)
        return fail(SshFailure::Kind::Network,
                    u"cannot connect to %1: %2"_s.arg(where, session->lastError()));

    // Verify the server before sending it anything that identifies the user.
    session->m_fingerprint = serverFingerprint(raw);
    failure->fingerprint = session->m_fingerprint;
    switch (ssh_session_is_known_server(raw)) {
    case SSH_KNOWN_HOSTS_OK:
        break;
    case SSH_KNOWN_HOSTS_CHANGED:
    case SSH_KNOWN_HOSTS_OTHER:
        return fail(
            SshFailure::Kind::HostKeyChanged,
            u"refused: the host key of %1 changed (now %2). Either the node was "
            "reinstalled or someone is intercepting the connection. If you know it was "
            "reinstalled, remove the old key with: ssh-keygen -R %3 -f %4"_s.arg(
                where, session->m_fingerprint,
                target.port == 22 ? target.host : u"'[%1]:%2'"_s.arg(target.host).arg(target.port),
                QFile::decodeName(knownHosts)));
    case SSH_KNOWN_HOSTS_UNKNOWN:
    case SSH_KNOWN_HOSTS_NOT_FOUND: {
        char *entry = nullptr;
        if (ssh_session_export_known_hosts_entry(raw, &entry) == SSH_OK) {
            failure->knownHostsEntry = QString::fromUtf8(entry);
            ssh_string_free_char(entry);
        }
        return fail(SshFailure::Kind::HostKeyUnknown,
                    u"%1 is not a known host; its key fingerprint is %2"_s.arg(
                        where, session->m_fingerprint));
    }
    case SSH_KNOWN_HOSTS_ERROR:
        return fail(SshFailure::Kind::Network,
                    u"cannot check the host key of %1: %2"_s.arg(where, session->lastError()));
    }

    // The agent first, then key files; never a password.
    int auth = ssh_userauth_none(raw, nullptr);
    if (auth != SSH_AUTH_SUCCESS && qEnvironmentVariableIsSet("SSH_AUTH_SOCK"))
        auth = ssh_userauth_agent(raw, nullptr);
    QString encryptedKey;
    QStringList problems;
    const QStringList keys =
        target.identityFile.isEmpty()
            ? QStringList{u"~/.ssh/id_ed25519"_s, u"~/.ssh/id_ecdsa"_s, u"~/.ssh/id_rsa"_s}
            : QStringList{target.identityFile};
    for (const QString &file : keys) {
        if (auth == SSH_AUTH_SUCCESS)
            break;
        ssh_key key = nullptr;
        QString problem;
        switch (loadKey(expandHome(file), passphrase, &key, &problem)) {
        case KeyLoad::Loaded:
            auth = ssh_userauth_publickey(raw, nullptr, key);
            ssh_key_free(key);
            break;
        case KeyLoad::Encrypted:
            encryptedKey = file;
            break;
        case KeyLoad::Broken:
            problems << problem;
            break;
        case KeyLoad::Missing:
            break;
        }
    }
    if (auth == SSH_AUTH_SUCCESS)
        return session;
    if (!encryptedKey.isEmpty()) {
        failure->keyFile = encryptedKey;
        return fail(SshFailure::Kind::NeedsPassphrase,
                    passphrase.isEmpty()
                        ? u"the key %1 needs its passphrase"_s.arg(encryptedKey)
                        : u"the passphrase for %1 is not right"_s.arg(encryptedKey));
    }
    return fail(SshFailure::Kind::AuthFailed,
                u"%1 accepted none of the keys (agent, %2)%3"_s.arg(
                    where, keys.join(u", "_s),
                    problems.isEmpty() ? QString() : u"; "_s + problems.join(u"; "_s)));
}

SshSession::~SshSession() {
    if (m_sftp)
        sftp_free(m_sftp);
    ssh_disconnect(m_session);
    ssh_free(m_session);
}

QString SshSession::lastError() const {
    return QString::fromUtf8(ssh_get_error(m_session));
}

int SshSession::socket() const {
    return ssh_get_fd(m_session);
}

namespace {

ssh_channel openExec(ssh_session session, const QString &command) {
    ssh_channel channel = ssh_channel_new(session);
    if (!channel)
        return nullptr;
    if (ssh_channel_open_session(channel) != SSH_OK ||
        ssh_channel_request_exec(channel, command.toUtf8().constData()) != SSH_OK) {
        ssh_channel_free(channel);
        return nullptr;
    }
    return channel;
}

// Reads whatever is buffered on both streams; returns false on a broken link.
bool drain(ssh_channel channel, QByteArray *out, QByteArray *err) {
    char buffer[16384];
    for (int stream = 0; stream < 2; ++stream) {
        for (;;) {
            const int n = ssh_channel_read_nonblocking(channel, buffer, sizeof buffer, stream);
            if (n == SSH_ERROR)
                return false;
            if (n <= 0)
                break;
            (stream ? err : out)->append(buffer, n);
        }
    }
    return true;
}

} // namespace

QString oneLine(const QByteArray &output) {
    return QString::fromUtf8(output).trimmed().split(u'\n', Qt::SkipEmptyParts).join(u"; "_s);
}

Status commandSucceeded(const Result<ExecResult> &result) {
    if (!result)
        return result.failure();
    if (result->exitCode == 0)
        return success();
    const QString said = oneLine(result->err);
    return fail(said.isEmpty() ? u"exited with code %1"_s.arg(result->exitCode) : said);
}

Result<ExecResult> SshSession::run(const QString &command, const QByteArray &input, int timeoutMs) {
    ssh_channel channel = openExec(m_session, command);
    if (!channel)
        return fail(u"cannot start a command: %1"_s.arg(lastError()));
    const auto cleanup = qScopeGuard([channel] {
        ssh_channel_close(channel);
        ssh_channel_free(channel);
    });
    if (!input.isEmpty() &&
        ssh_channel_write(channel, input.constData(), static_cast<uint32_t>(input.size())) !=
            static_cast<int>(input.size()))
        return fail(u"cannot send input: %1"_s.arg(lastError()));
    ssh_channel_send_eof(channel);
    ExecResult result;
    const QDeadlineTimer deadline(timeoutMs);
    while (!ssh_channel_is_eof(channel)) {
        if (deadline.hasExpired())
            return fail(u"the command did not finish within %1 s"_s.arg(timeoutMs / 1000.0));
        if (ssh_channel_poll_timeout(channel, 100, 0) == SSH_ERROR ||
            !drain(channel, &result.out, &result.err))
            return fail(u"the connection broke: %1"_s.arg(lastError()));
    }
    if (!drain(channel, &result.out, &result.err))
        return fail(u"the connection broke: %1"_s.arg(lastError()));
    result.exitCode = ssh_channel_get_exit_status(channel);
    return result;
}

Result<QByteArray>
SshSession::exchange(const QString &host, int port, const QByteArray &data,
                     const std::function<Result<bool>(const QByteArray &, bool)> &whole,
                     int timeoutMs) {
    ssh_channel channel = ssh_channel_new(m_session);
    if (!channel)
        return fail(u"cannot open a channel: %1"_s.arg(lastError()));
    const auto cleanup = qScopeGuard([channel] {
        ssh_channel_close(channel);
        ssh_channel_free(channel);
    });
    const QByteArray to = host.toUtf8();
    const int opened = port > 0
                           ? ssh_channel_open_forward(channel, to.constData(), port, "127.0.0.1", 0)
                           : ssh_channel_open_forward_unix(channel, to.constData(), "127.0.0.1", 0);
    if (opened != SSH_OK)
        return fail(u"the node did not open a channel to %1: %2"_s.arg(
            port > 0 ? u"%1:%2"_s.arg(host).arg(port) : host, lastError()));
    if (ssh_channel_write(channel, data.constData(), static_cast<uint32_t>(data.size())) !=
        static_cast<int>(data.size()))
        return fail(u"cannot send: %1"_s.arg(lastError()));
    QByteArray answer;
    QByteArray unused;
    const QDeadlineTimer deadline(timeoutMs);
    while (true) {
        if (ssh_channel_poll_timeout(channel, 100, 0) == SSH_ERROR ||
            !drain(channel, &answer, &unused))
            return fail(u"the connection broke: %1"_s.arg(lastError()));
        const bool ended = ssh_channel_is_eof(channel) || ssh_channel_is_closed(channel);
        const auto done = whole(answer, ended);
        if (!done)
            return done.failure();
        if (*done)
            return answer;
        if (ended)
            return fail(u"the peer closed the channel after %1 bytes"_s.arg(answer.size()));
        if (deadline.hasExpired())
            return fail(u"no whole answer within %1 s"_s.arg(timeoutMs / 1000.0));
    }
}

Result<std::unique_ptr<SshStream>> SshSession::stream(const QString &command) {
    ssh_channel channel = openExec(m_session, command);
    if (!channel)
        return fail(u"cannot start a command: %1"_s.arg(lastError()));
    return std::unique_ptr<SshStream>(new SshStream(channel));
}

SshStream::~SshStream() {
    ssh_channel_close(m_channel);
    ssh_channel_free(m_channel);
}

bool SshStream::readAvailable(QByteArray *out, QByteArray *err) {
    return drain(m_channel, out, err) && !ssh_channel_is_eof(m_channel) &&
           !ssh_channel_is_closed(m_channel);
}

Result<sftp_session_struct *> SshSession::sftp() {
    if (m_sftp)
        return m_sftp;
    sftp_session sftp = sftp_new(m_session);
    if (!sftp || sftp_init(sftp) != SSH_OK) {
        if (sftp)
            sftp_free(sftp);
        return fail(u"the node offers no SFTP: %1"_s.arg(lastError()));
    }
    m_sftp = sftp;
    return m_sftp;
}

Status SshSession::upload(const QString &localPath, const QString &remotePath, int mode) {
    QFile local(localPath);
    if (!local.open(QIODevice::ReadOnly))
        return fail(u"cannot read %1: %2"_s.arg(localPath, local.errorString()));
    const auto sftp = this->sftp();
    if (!sftp)
        return fail(sftp.error());
    sftp_file file = sftp_open(*sftp, remotePath.toUtf8().constData(), O_WRONLY | O_CREAT | O_TRUNC,
                               static_cast<mode_t>(mode));
    if (!file)
        return fail(u"cannot write %1 on the node: %2"_s.arg(remotePath, lastError()));
    const auto closeFile = qScopeGuard([file] { sftp_close(file); });
    while (!local.atEnd()) {
        const QByteArray chunk = local.read(32768);
        if (sftp_write(file, chunk.constData(), static_cast<size_t>(chunk.size())) != chunk.size())
            return fail(u"writing %1 on the node failed: %2"_s.arg(remotePath, lastError()));
    }
    return success();
}

Result<std::vector<FileEntry>>
SshSession::findFiles(const QString &directory,
                      const std::function<bool(const QString &)> &wanted) {
    const auto sftp = this->sftp();
    if (!sftp)
        return fail(sftp.error());
    std::vector<FileEntry> found;
    // Breadth first, relative paths; symbolic links are not followed (no cycles).
    QStringList pending{QString()};
    constexpr int kMaxDirectories = 10000;
    for (int visited = 0; !pending.isEmpty() && visited < kMaxDirectories; ++visited) {
        const QString relative = pending.takeFirst();
        const QString path = relative.isEmpty() ? directory : directory + u'/' + relative;
        sftp_dir dir = sftp_opendir(*sftp, path.toUtf8().constData());
        if (!dir) {
            if (relative.isEmpty())
                return fail(u"cannot list %1 on the node: %2"_s.arg(directory, lastError()));
            continue; // a subdirectory that went away or is not ours to read
        }
        while (sftp_attributes entry = sftp_readdir(*sftp, dir)) {
            const QString name = QString::fromUtf8(entry->name);
            const QString child = relative.isEmpty() ? name : relative + u'/' + name;
            if (entry->type == SSH_FILEXFER_TYPE_DIRECTORY && name != u"."_s && name != u".."_s)
                pending << child;
            else if (entry->type == SSH_FILEXFER_TYPE_REGULAR && wanted(name))
                found.push_back({child, static_cast<qint64>(entry->size)});
            sftp_attributes_free(entry);
        }
        sftp_closedir(dir);
    }
    return found;
}

Result<QByteArray> SshSession::readFile(const QString &path, qint64 offset, qint64 size) {
    const auto sftp = this->sftp();
    if (!sftp)
        return fail(sftp.error());
    sftp_file file = sftp_open(*sftp, path.toUtf8().constData(), O_RDONLY, 0);
    if (!file)
        return fail(u"cannot read %1 on the node: %2"_s.arg(path, lastError()));
    const auto closeFile = qScopeGuard([file] { sftp_close(file); });
    if (sftp_seek64(file, static_cast<std::uint64_t>(offset)) != 0)
        return fail(u"cannot seek in %1 on the node: %2"_s.arg(path, lastError()));
    // Up to kInFlight reads of 64 KiB (about the most one SFTP read carries) are asked for
    // before the first answer is awaited, so a long link is not one round trip per 64 KiB.
    constexpr qint64 kPiece = 65536;
    constexpr std::size_t kInFlight = 16;
    QByteArray bytes(size, Qt::Uninitialized);
    std::deque<std::pair<std::uint32_t, qint64>> asked; // request id and length, in order
    qint64 askedUpTo = 0;
    qint64 got = 0;
    bool shortRead = false;
    QString error;
    while (error.isEmpty() && !shortRead && (askedUpTo < size || !asked.empty())) {
        while (askedUpTo < size && asked.size() < kInFlight) {
            const qint64 length = std::min(kPiece, size - askedUpTo);
            const int id = sftp_async_read_begin(file, static_cast<std::uint32_t>(length));
            if (id < 0) {
                error = lastError();
                break;
            }
            asked.emplace_back(static_cast<std::uint32_t>(id), length);
            askedUpTo += length;
        }
        if (asked.empty())
            break;
        const auto [id, length] = asked.front();
        asked.pop_front();
        const int n =
            sftp_async_read(file, bytes.data() + got, static_cast<std::uint32_t>(length), id);
        if (n < 0)
            error = lastError();
        else
            got += n;
        shortRead = n >= 0 && n < length; // the file ends here (it was listed longer)
    }
    // Answers still owed are collected, so none is left queued on the session.
    QByteArray discard(kPiece, Qt::Uninitialized);
    for (const auto &[id, length] : asked)
        (void)sftp_async_read(file, discard.data(), static_cast<std::uint32_t>(length), id);
    if (!error.isEmpty())
        return fail(u"reading %1 on the node failed: %2"_s.arg(path, error));
    bytes.truncate(got);
    return bytes;
}

Status trustHostKey(const QString &knownHostsFile, const QString &entry) {
    const QString path =
        expandHome(knownHostsFile.isEmpty() ? defaultKnownHostsFile() : knownHostsFile);
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Text))
        return fail(u"cannot write %1: %2"_s.arg(path, file.errorString()));
    QByteArray line = entry.trimmed().toUtf8();
    line.append('\n');
    if (file.write(line) != line.size())
        return fail(u"cannot write %1: %2"_s.arg(path, file.errorString()));
    return success();
}

} // namespace sb
