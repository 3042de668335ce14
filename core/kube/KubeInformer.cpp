#include "KubeInformer.h"

#include "util/Log.h"

#include <QJsonArray>
#include <QRandomGenerator>
#include <QUrl>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr int kPageSize = 500;
constexpr int kMaxBackoffMs = 30000;

} // namespace

QString kubeName(const QJsonObject &object) {
    return object[u"metadata"_s][u"name"_s].toString();
}

KubeInformer::KubeInformer(KubeClient *client, QString collection, QString labelSelector,
                           QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_collection(std::move(collection))
    , m_labelSelector(std::move(labelSelector)) {
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, [this] { m_synced ? watch() : list(); });
}

KubeInformer::~KubeInformer() {
    stop();
}

void KubeInformer::start() {
    stop();
    m_synced ? watch() : list();
}

void KubeInformer::stop() {
    m_retry.stop();
    if (m_call)
        m_client->cancel(m_call);
    m_call = 0;
    ++m_generation; // whatever the cancelled call had sent on its way is dropped
}

QString KubeInformer::query(bool watching) const {
    QString q = m_collection + u'?';
    if (!m_labelSelector.isEmpty())
        q += u"labelSelector=%1&"_s.arg(
            QString::fromLatin1(QUrl::toPercentEncoding(m_labelSelector)));
    if (watching) // the server ends a watch after a while; spread the ends apart like client-go
        q += u"watch=1&allowWatchBookmarks=true&timeoutSeconds=%1&resourceVersion=%2"_s
                 .arg(300 + QRandomGenerator::global()->bounded(300))
                 .arg(m_resourceVersion);
    else
        q += u"limit=%1"_s.arg(kPageSize);
    return q;
}

void KubeInformer::list(const QString &continueToken) {
    if (continueToken.isEmpty())
        m_listing.clear();
    KubeRequest request;
    request.path = query(false);
    if (!continueToken.isEmpty())
        request.path +=
            u"&continue="_s + QString::fromLatin1(QUrl::toPercentEncoding(continueToken));
    const quint64 generation = ++m_generation;
    m_call = m_client->send(request, this, [this, generation](const KubeReply &reply) {
        if (generation != m_generation)
            return; // an answer to a call given up
        m_call = 0;
        if (!reply.ok()) {
            if (reply.status == 410) // the continue token expired: list from the start
                return list();
            return retryLater(reply.error);
        }
        const QJsonObject body = reply.json.object();
        for (const QJsonValue item : body[u"items"_s].toArray()) {
            const QJsonObject object = item.toObject();
            m_listing.insert(kubeName(object), object);
        }
        const QJsonObject meta = body[u"metadata"_s].toObject();
        if (const QString next = meta[u"continue"_s].toString(); !next.isEmpty())
            return list(next);
        QStringList removed;
        for (auto it = m_objects.cbegin(); it != m_objects.cend(); ++it) {
            if (!m_listing.contains(it.key()))
                removed << it.key();
        }
        if (m_synced) {
            ++m_relists;
            qCInfo(lcKube).noquote() << m_collection << u"listed again after its watch expired"_s;
        }
        m_objects = std::exchange(m_listing, {});
        m_resourceVersion = meta[u"resourceVersion"_s].toString();
        m_synced = true;
        m_backoffMs = 0;
        setError({});
        Q_EMIT updated(m_objects.values(), removed);
        watch();
    });
}

void KubeInformer::watch() {
    KubeRequest request;
    request.path = query(true);
    const quint64 generation = ++m_generation;
    m_call = m_client->watch(
        request, this,
        [this, generation](const QList<QJsonObject> &events) {
            if (generation == m_generation)
                onEvents(events);
        },
        [this, generation](const KubeReply &reply) {
            if (generation != m_generation)
                return;
            m_call = 0;
            if (reply.status == 410)
                return list();
            if (!reply.ok())
                return retryLater(reply.error);
            m_backoffMs = 0;
            watch(); // the server's timeout: go on from the last version seen
        });
}

void KubeInformer::onEvents(const QList<QJsonObject> &events) {
    setError({}); // the watch is back
    m_backoffMs = 0;
    bool relist = false;
    QHash<QString, QJsonObject> changed;
    QStringList removed;
    for (const QJsonObject &event : events) {
        const QString type = event[u"type"_s].toString();
        const QJsonObject object = event[u"object"_s].toObject();
        if (type == "ERROR"_L1) {
            if (object[u"code"_s].toInt() == 410) {
                relist = true; // what follows in this stream is not to be trusted
                break;
            }
            setError(kubeErrorMessage(object[u"code"_s].toInt(),
                                      QJsonDocument(object).toJson(QJsonDocument::Compact)));
            continue;
        }
        if (const QString version = object[u"metadata"_s][u"resourceVersion"_s].toString();
            !version.isEmpty())
            m_resourceVersion = version;
        if (type == "BOOKMARK"_L1)
            continue;
        const QString name = kubeName(object);
        if (type == "DELETED"_L1) {
            m_objects.remove(name);
            changed.remove(name);
            removed << name;
        } else {
            m_objects.insert(name, object);
            changed.insert(name, object);
            removed.removeAll(name);
        }
    }
    if (!changed.isEmpty() || !removed.isEmpty())
        Q_EMIT updated(changed.values(), removed);
    if (relist) {
        m_client->cancel(m_call);
        list();
    }
}

void KubeInformer::retryLater(const QString &error) {
    setError(error);
    m_backoffMs = std::min(kMaxBackoffMs, std::max(1000, m_backoffMs * 2));
    m_retry.start(m_backoffMs);
}

void KubeInformer::setError(const QString &error) {
    if (error == m_error)
        return;
    m_error = error;
    if (error.isEmpty())
        qCInfo(lcKube).noquote() << m_collection << u"reachable again"_s;
    else
        qCWarning(lcKube).noquote() << m_collection << error;
    Q_EMIT errorChanged(error);
}

} // namespace sb
