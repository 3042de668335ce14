#include "KubeClient.h"

#include "util/Files.h"
#include "util/LineBuffer.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QPointer>
#include <QProcess>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QStandardPaths>
#include <QThread>

#include <curl/curl.h>

#include <atomic>
#include <deque>
#include <map>
#include <mutex>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr long kConnectTimeoutMs = 15000;
constexpr long kRequestTimeoutMs = 60000;
constexpr int kExecTimeoutMs = 60000;

// What authenticates a request: a bearer token, a client certificate, or both.
struct Credential {
    QString token;
    QByteArray certPem;
    QByteArray keyPem;
    QDateTime expires; // invalid: does not expire
};

QString describeCurlError(CURLcode code, const char *detail, const QString &server) {
    const QString why =
        *detail ? QString::fromUtf8(detail) : QString::fromUtf8(curl_easy_strerror(code));
    switch (code) {
    case CURLE_PEER_FAILED_VERIFICATION:
        return u"%1: the API server's certificate is not trusted — check the cluster's "
               "certificate-authority in the kubeconfig (%2)"_s.arg(server, why);
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
        return u"%1: the client certificate or key cannot be used (%2)"_s.arg(server, why);
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        return u"%1: cannot connect (%2)"_s.arg(server, why);
    case CURLE_OPERATION_TIMEDOUT:
        return u"%1: no answer in time (%2)"_s.arg(server, why);
    default:
        return u"%1: %2"_s.arg(server, why);
    }
}

} // namespace

QString kubeErrorMessage(int status, const QByteArray &body) {
    const QJsonObject object = QJsonDocument::fromJson(body).object();
    QString message = object.value(u"message"_s).toString();
    if (message.isEmpty())
        message = QString::fromUtf8(body.left(300)).trimmed();
    if (status == 401)
        return u"HTTP 401: the API server does not accept the credentials (%1)"_s.arg(message);
    return message.isEmpty() ? u"HTTP %1"_s.arg(status) : u"HTTP %1: %2"_s.arg(status).arg(message);
}

class KubeClient::Worker {
public:
    enum class Kind { Once, Lines, Bytes };
    struct Call {
        Worker *owner = nullptr;
        quint64 id = 0;
        Kind kind = Kind::Once;
        KubeRequest request;
        QPointer<QObject> receiver;
        Done done;
        JsonLines onLines;
        KubeClient::Bytes bytes;
        bool retried = false;
        // curl's side
        CURL *easy = nullptr;
        curl_slist *headers = nullptr;
        QByteArray received; // a one-off answer, or a refused stream's body
        LineBuffer lines;    // of a watch
        char error[CURL_ERROR_SIZE] = {};
        bool streaming = false; // the status was 2xx: data goes to the receiver as it comes
        bool statusKnown = false;
    };

    Worker(KubeClient *client, KubeContext context)
        : m_client(client)
        , m_context(std::move(context))
        , m_multi(curl_multi_init()) {
        m_thread.reset(QThread::create([this] { run(); }));
        m_thread->start();
    }
    ~Worker() {
        m_quit = true;
        curl_multi_wakeup(m_multi);
        m_thread->wait();
        for (auto &[id, call] : m_calls)
            release(call.get());
        curl_multi_cleanup(m_multi);
    }

    quint64 add(std::unique_ptr<Call> call) {
        const quint64 id = ++m_lastId;
        call->id = id;
        {
            const std::lock_guard lock(m_mutex);
            m_incoming.push_back(std::move(call));
        }
        curl_multi_wakeup(m_multi);
        return id;
    }
    void cancel(quint64 id) {
        {
            const std::lock_guard lock(m_mutex);
            m_cancelled.push_back(id);
        }
        curl_multi_wakeup(m_multi);
    }
    // Reads the credential on the worker's thread (an exec plugin may take a while) and hands
    // it to `use` on the client's thread.
    void withCredential(std::function<void(const Result<Credential> &)> use) {
        {
            const std::lock_guard lock(m_mutex);
            m_tasks.push_back([this, use = std::move(use)] {
                QMetaObject::invokeMethod(
                    m_client, [use, credential = currentCredential()] { use(credential); },
                    Qt::QueuedConnection);
            });
        }
        curl_multi_wakeup(m_multi);
    }

private:
    // Runs `fn` on the client's thread, if the call's receiver still lives then.
    template <typename Fn> void deliver(const Call &call, Fn fn) {
        QMetaObject::invokeMethod(
            m_client,
            [receiver = call.receiver, fn = std::move(fn)]() {
                if (receiver)
                    fn();
            },
            Qt::QueuedConnection);
    }

    void run() {
        while (!m_quit) {
            std::deque<std::unique_ptr<Call>> incoming;
            std::vector<quint64> cancelled;
            std::vector<std::function<void()>> tasks;
            {
                const std::lock_guard lock(m_mutex);
                incoming.swap(m_incoming);
                cancelled.swap(m_cancelled);
                tasks.swap(m_tasks);
            }
            for (const auto &task : tasks)
                task();
            for (auto &call : incoming)
                start(std::move(call));
            for (const quint64 id : cancelled) {
                if (const auto it = m_calls.find(id); it != m_calls.end()) {
                    release(it->second.get());
                    m_calls.erase(it);
                }
            }
            int running = 0;
            curl_multi_perform(m_multi, &running);
            int left = 0;
            while (CURLMsg *message = curl_multi_info_read(m_multi, &left)) {
                if (message->msg != CURLMSG_DONE)
                    continue;
                Call *raw = nullptr;
                curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &raw);
                finish(raw->id, message->data.result);
            }
            curl_multi_poll(m_multi, nullptr, 0, 1000, nullptr);
        }
    }

    void release(Call *call) {
        if (!call->easy)
            return;
        curl_multi_remove_handle(m_multi, call->easy);
        curl_easy_cleanup(call->easy);
        curl_slist_free_all(call->headers);
        call->easy = nullptr;
        call->headers = nullptr;
    }

    void start(std::unique_ptr<Call> call) {
        auto credential = currentCredential();
        if (!credential) {
            KubeReply reply;
            reply.error = credential.error();
            deliver(*call, [done = call->done, reply] { done(reply); });
            return;
        }
        CURL *easy = curl_easy_init();
        call->easy = easy;
        call->owner = this;
        const QByteArray url = (m_context.server + call->request.path).toUtf8();
        curl_easy_setopt(easy, CURLOPT_URL, url.constData());
        curl_easy_setopt(easy, CURLOPT_PRIVATE, call.get());
        curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, call->error);
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, kConnectTimeoutMs);
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &Worker::onData);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, call.get());
        if (call->kind == Kind::Once) {
            curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, kRequestTimeoutMs);
        } else { // a silent watch is normal; a dead peer is found by keepalive
            curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
            curl_easy_setopt(easy, CURLOPT_TCP_KEEPIDLE, 30L);
            curl_easy_setopt(easy, CURLOPT_TCP_KEEPINTVL, 10L);
        }
        if (call->request.method != "GET")
            curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, call->request.method.constData());
        if (!call->request.body.isEmpty() || call->request.method == "POST") {
            curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE,
                             static_cast<curl_off_t>(call->request.body.size()));
            curl_easy_setopt(easy, CURLOPT_COPYPOSTFIELDS, call->request.body.constData());
        }
        call->headers = curl_slist_append(call->headers, "Accept: application/json, */*");
        if (!call->request.body.isEmpty())
            call->headers = curl_slist_append(
                call->headers,
                QByteArray("Content-Type: " + call->request.contentType).constData());
        if (!credential->token.isEmpty())
            call->headers = curl_slist_append(
                call->headers,
                QByteArray("Authorization: Bearer " + credential->token.toUtf8()).constData());
        for (const auto &[name, value] : call->request.headers)
            call->headers =
                curl_slist_append(call->headers, QByteArray(name + ": " + value).constData());
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, call->headers);
        setBlob(easy, CURLOPT_CAINFO_BLOB, m_context.caPem);
        if (!credential->certPem.isEmpty()) {
            setBlob(easy, CURLOPT_SSLCERT_BLOB, credential->certPem);
            setBlob(easy, CURLOPT_SSLKEY_BLOB, credential->keyPem);
            curl_easy_setopt(easy, CURLOPT_SSLCERTTYPE, "PEM");
            curl_easy_setopt(easy, CURLOPT_SSLKEYTYPE, "PEM");
        }
        if (!m_context.proxyUrl.isEmpty())
            curl_easy_setopt(easy, CURLOPT_PROXY, m_context.proxyUrl.toUtf8().constData());
        curl_multi_add_handle(m_multi, easy);
        m_calls.emplace(call->id, std::move(call));
    }

    static void setBlob(CURL *easy, CURLoption option, const QByteArray &data) {
        if (data.isEmpty())
            return;
        curl_blob blob{const_cast<char *>(data.constData()), static_cast<size_t>(data.size()),
                       CURL_BLOB_COPY};
        curl_easy_setopt(easy, option, &blob);
    }

    static size_t onData(char *data, size_t size, size_t count, void *user) {
        auto *call = static_cast<Call *>(user);
        const size_t length = size * count;
        if (!call->statusKnown) {
            long status = 0;
            curl_easy_getinfo(call->easy, CURLINFO_RESPONSE_CODE, &status);
            call->streaming = call->kind != Kind::Once && status >= 200 && status < 300;
            call->statusKnown = true;
        }
        if (!call->streaming) {
            call->received.append(data, static_cast<qsizetype>(length));
            return length;
        }
        call->owner->stream(*call, QByteArrayView(data, static_cast<qsizetype>(length)));
        return length;
    }

    void stream(Call &call, QByteArrayView data) {
        if (call.kind == Kind::Bytes) {
            deliver(call, [bytes = call.bytes, chunk = data.toByteArray()] { bytes(chunk); });
            return;
        }
        QList<QJsonObject> objects;
        call.lines.feed(data, [&objects](QByteArrayView line) {
            if (!line.trimmed().isEmpty())
                objects << QJsonDocument::fromJson(line.toByteArray()).object();
        });
        if (!objects.isEmpty())
            deliver(call, [lines = call.onLines, objects] { lines(objects); });
    }

    void finish(quint64 id, CURLcode code) {
        const auto it = m_calls.find(id);
        if (it == m_calls.end())
            return;
        std::unique_ptr<Call> call = std::move(it->second);
        m_calls.erase(it);
        long status = 0;
        curl_easy_getinfo(call->easy, CURLINFO_RESPONSE_CODE, &status);
        KubeReply reply;
        reply.status = static_cast<int>(status);
        if (code != CURLE_OK) {
            reply.error = describeCurlError(code, call->error, m_context.server);
        } else if (status == 401 && m_context.exec && !call->retried) {
            // The plugin's credential was revoked or expired early: ask it again, once.
            release(call.get());
            m_credential.reset();
            call->retried = true;
            call->received.clear();
            call->statusKnown = false;
            start(std::move(call));
            return;
        } else if (status < 200 || status >= 300) {
            reply.error = kubeErrorMessage(reply.status, call->received);
        }
        reply.body = std::move(call->received);
        if (call->kind == Kind::Once && reply.body.startsWith('{'))
            reply.json = QJsonDocument::fromJson(reply.body);
        if (call->kind == Kind::Lines && !call->lines.pending().trimmed().isEmpty())
            stream(*call, "\n"); // the last event had no newline
        release(call.get());
        deliver(*call, [done = call->done, reply] { done(reply); });
    }

    Result<Credential> currentCredential() {
        Credential fixed{m_context.token, m_context.clientCertPem, m_context.clientKeyPem, {}};
        if (!m_context.tokenFile.isEmpty()) {
            const auto token = readRegularFile(m_context.tokenFile, 1 << 20);
            if (!token)
                return fail(u"the token file: %1"_s.arg(token.error()));
            fixed.token = QString::fromUtf8(token->trimmed());
        }
        if (!m_context.exec)
            return fixed;
        if (m_credential && (!m_credential->expires.isValid() ||
                             m_credential->expires > QDateTime::currentDateTimeUtc().addSecs(10)))
            return *m_credential;
        auto fresh = runExecPlugin(*m_context.exec);
        if (!fresh)
            return fail(fresh.error());
        m_credential = std::move(fresh).value();
        return *m_credential;
    }

    Result<Credential> runExecPlugin(const ExecPlugin &plugin) const {
        QString program = plugin.command;
        if (program.contains(u'/'))
            program = QDir(plugin.baseDir).absoluteFilePath(program);
        else if (const QString found = QStandardPaths::findExecutable(program); !found.isEmpty())
            program = found;
        QJsonObject spec{{u"interactive"_s, false}};
        if (plugin.provideClusterInfo)
            spec[u"cluster"_s] = QJsonObject{
                {u"server"_s, m_context.server},
                {u"certificate-authority-data"_s, QString::fromLatin1(m_context.caPem.toBase64())}};
        const QJsonObject info{{u"apiVersion"_s, plugin.apiVersion},
                               {u"kind"_s, u"ExecCredential"_s},
                               {u"spec"_s, spec}};
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (auto it = plugin.env.begin(); it != plugin.env.end(); ++it)
            env.insert(it.key(), it.value());
        env.insert(u"KUBERNETES_EXEC_INFO"_s,
                   QString::fromUtf8(QJsonDocument(info).toJson(QJsonDocument::Compact)));
        QProcess process;
        process.setProcessEnvironment(env);
        process.start(program, plugin.args);
        const QString hint =
            plugin.installHint.isEmpty() ? QString() : u" — "_s + plugin.installHint;
        if (!process.waitForStarted(kExecTimeoutMs))
            return fail(u"the credential plugin %1 cannot start: %2%3"_s.arg(
                plugin.command, process.errorString(), hint));
        if (!process.waitForFinished(kExecTimeoutMs)) {
            process.kill();
            process.waitForFinished();
            return fail(u"the credential plugin %1 did not finish in %2 s"_s.arg(plugin.command)
                            .arg(kExecTimeoutMs / 1000));
        }
        if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
            return fail(u"the credential plugin %1 failed (exit %2): %3"_s.arg(plugin.command)
                            .arg(process.exitCode())
                            .arg(QString::fromUtf8(process.readAllStandardError().trimmed())));
        const QJsonObject status = QJsonDocument::fromJson(process.readAllStandardOutput())
                                       .object()[u"status"_s]
                                       .toObject();
        Credential credential;
        credential.token = status[u"token"_s].toString();
        credential.certPem = status[u"clientCertificateData"_s].toString().toUtf8();
        credential.keyPem = status[u"clientKeyData"_s].toString().toUtf8();
        if (const QString expires = status[u"expirationTimestamp"_s].toString(); !expires.isEmpty())
            credential.expires = QDateTime::fromString(expires, Qt::ISODate);
        if (credential.token.isEmpty() && credential.certPem.isEmpty())
            return fail(
                u"the credential plugin %1 printed no token and no client certificate"_s.arg(
                    plugin.command));
        return credential;
    }

    KubeClient *m_client;
    KubeContext m_context;
    CURLM *m_multi;
    std::unique_ptr<QThread> m_thread; // libcurl's multi loop, for as long as the client lives
    std::atomic<bool> m_quit{false};
    std::atomic<quint64> m_lastId{0};
    std::mutex m_mutex;
    std::deque<std::unique_ptr<Call>> m_incoming;
    std::vector<quint64> m_cancelled;
    std::vector<std::function<void()>> m_tasks;
    std::map<quint64, std::unique_ptr<Call>> m_calls; // the worker thread's own
    std::optional<Credential> m_credential;           // an exec plugin's, cached
};

KubeClient::KubeClient(KubeContext context, QObject *parent)
    : QObject(parent)
    , m_context(std::move(context))
    , m_worker(std::make_unique<Worker>(this, m_context)) {
}

KubeClient::~KubeClient() = default;

namespace {

std::unique_ptr<KubeClient::Worker::Call> newCall(KubeClient::Worker::Kind kind,
                                                  const KubeRequest &request, QObject *receiver,
                                                  KubeClient::Done done) {
    auto call = std::make_unique<KubeClient::Worker::Call>();
    call->kind = kind;
    call->request = request;
    call->receiver = receiver;
    call->done = std::move(done);
    return call;
}

} // namespace

void KubeClient::exec(const QString &ns, const QString &pod, const QString &container,
                      const QStringList &command, QObject *receiver, KubeExecDone done,
                      int timeoutMs) {
    // Every word percent-encoded whole: a command's spaces, quotes and '&' stay its own.
    QByteArray query =
        "container=" + QUrl::toPercentEncoding(container) + "&stdout=true&stderr=true";
    for (const QString &word : command)
        query += "&command=" + QUrl::toPercentEncoding(word);
    QUrl url(m_context.server);
    url.setScheme(url.scheme() == u"http"_s ? u"ws"_s : u"wss"_s);
    url.setPath(url.path() + u"/api/v1/namespaces/%1/pods/%2/exec"_s.arg(
                                 QString::fromLatin1(QUrl::toPercentEncoding(ns)),
                                 QString::fromLatin1(QUrl::toPercentEncoding(pod))),
                QUrl::TolerantMode);
    url.setQuery(QString::fromLatin1(query), QUrl::TolerantMode);
    QPointer<QObject> guard(receiver);
    m_worker->withCredential([this, url, guard, done = std::move(done),
                              timeoutMs](const Result<Credential> &credential) mutable {
        if (!guard)
            return;
        if (!credential)
            return done(fail(credential.error()));
        QNetworkRequest request(url);
        if (!credential->token.isEmpty())
            request.setRawHeader("Authorization", "Bearer " + credential->token.toUtf8());
        // TLS as for every request: verified against the kubeconfig's authority, with the
        // client certificate when there is one.
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setPeerVerifyMode(QSslSocket::VerifyPeer);
        if (!m_context.caPem.isEmpty())
            tls.setCaCertificates(QSslCertificate::fromData(m_context.caPem, QSsl::Pem));
        if (!credential->certPem.isEmpty()) {
            tls.setLocalCertificate(QSslCertificate(credential->certPem, QSsl::Pem));
            QSslKey key(credential->keyPem, QSsl::Rsa, QSsl::Pem);
            if (key.isNull())
                key = QSslKey(credential->keyPem, QSsl::Ec, QSsl::Pem);
            if (key.isNull())
                return done(fail(u"the client key is neither RSA nor EC in PEM"_s));
            tls.setPrivateKey(key);
        }
        request.setSslConfiguration(tls);
        KubeExecSession::start(request, guard, std::move(done), timeoutMs);
    });
}

quint64 KubeClient::send(const KubeRequest &request, QObject *receiver, Done done) {
    return m_worker->add(newCall(Worker::Kind::Once, request, receiver, std::move(done)));
}

quint64 KubeClient::watch(const KubeRequest &request, QObject *receiver, JsonLines lines,
                          Done done) {
    auto call = newCall(Worker::Kind::Lines, request, receiver, std::move(done));
    call->onLines = std::move(lines);
    return m_worker->add(std::move(call));
}

quint64 KubeClient::follow(const KubeRequest &request, QObject *receiver, Bytes bytes, Done done) {
    auto call = newCall(Worker::Kind::Bytes, request, receiver, std::move(done));
    call->bytes = std::move(bytes);
    return m_worker->add(std::move(call));
}

void KubeClient::cancel(quint64 id) {
    m_worker->cancel(id);
}

QString libcurlVersion() {
    return QString::fromLatin1(curl_version());
}

} // namespace sb
