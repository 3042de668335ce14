#include "KubeCode.h"

#include "code/ObjectStore.h"
#include "util/OffThread.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QLocale>

namespace sb {

using namespace Qt::StringLiterals;

qint64 KubeCode::limit() const {
    // Beyond a ConfigMap's size without a store, or a store's reasonable upload: do not pack.
    return m_store.configured() ? 1'000'000'000 : 16'000'000;
}

Result<CodeDelivery> KubeCode::packed(const QString &directory) const {
    if (const auto it = m_packed.constFind(directory);
        it != m_packed.cend() &&
        (it->pinned || QDateTime::currentMSecsSinceEpoch() - it->packedAt < m_repackAfterMs))
        return it->delivery;
    return adopt(directory, packCode(directory, limit()), false);
}

void KubeCode::prepare(const QString &directory) {
    runOffThread(
        this, [directory, limit = limit()] { return packCode(directory, limit); },
        [this, directory](const Result<CodeArchive> &archive) {
            const auto delivery = adopt(directory, archive, true);
            Q_EMIT prepared(directory, delivery.error());
        });
}

Result<CodeDelivery> KubeCode::adopt(const QString &directory, const Result<CodeArchive> &archive,
                                     bool pinned) const {
    if (!archive)
        return fail(archive.error());
    const ObjectStoreConfig &store = m_store;
    CodeDelivery delivery;
    if (archive->gzip.size() <= kConfigMapCodeLimit) {
        delivery.configMap = codeConfigMapName(archive->hash);
    } else if (store.configured()) {
        delivery.object = codeObjectKey(archive->hash);
        delivery.url = ObjectStore(store)
                           .presignedGet(delivery.object, 7 * 24 * 3600)
                           .toString(QUrl::FullyEncoded);
    } else {
        return fail(tr("the code of %1 compresses to %2, more than a ConfigMap holds (%3); set "
                       "up an object_store in the config for larger code")
                        .arg(directory, QLocale::system().formattedDataSize(archive->gzip.size()),
                             QLocale::system().formattedDataSize(kConfigMapCodeLimit)));
    }
    const QString name = delivery.configMap + delivery.object;
    const Packed previous = m_packed.value(directory);
    if (const QString old = previous.delivery.configMap + previous.delivery.object; old != name)
        m_archives.remove(old); // the tree changed: its older state will not be sent
    m_archives.insert(name, archive->gzip);
    m_packed.insert(directory, {delivery, QDateTime::currentMSecsSinceEpoch(), pinned,
                                archive->files, archive->bytes});
    return delivery;
}

QString KubeCode::summary(const QString &directory) const {
    const auto it = m_packed.constFind(directory);
    if (it == m_packed.cend())
        return {};
    return tr("%1, %2, packed at %3 into %4")
        .arg(it->files == 1 ? tr("1 file") : tr("%1 files").arg(it->files),
             QLocale::system().formattedDataSize(it->bytes))
        .arg(QDateTime::fromMSecsSinceEpoch(it->packedAt).toString(u"HH:mm:ss"_s),
             it->delivery.configMap.isEmpty() ? tr("the object store") : tr("a ConfigMap"));
}

void KubeCode::deliver(KubeClient *client, const CodeDelivery &where,
                       const std::function<void(const QString &)> &done) {
    const QString name = where.configMap + where.object;
    const QByteArray gzip = m_archives.value(name);
    if (gzip.isEmpty())
        return done(tr("the code for %1 was not packed here").arg(name));
    if (!where.object.isEmpty()) { // the store's calls block
        runOffThread(
            this,
            [store = ObjectStore(m_store), key = where.object, gzip] {
                const auto found = store.exists(key);
                if (!found)
                    return found.error();
                return *found ? QString() : store.put(key, gzip).error();
            },
            done);
        return;
    }
    const QString ns = client->context().ns;
    const QString configMap = where.configMap;
    KubeRequest exists;
    exists.path = u"/api/v1/namespaces/%1/configmaps/%2"_s.arg(ns, configMap);
    client->send(exists, this, [this, client, configMap, ns, gzip, done](const KubeReply &found) {
        if (found.ok())
            return done({}); // the same code went up before: its name is its hash
        if (found.status != 404)
            return done(tr("ConfigMap %1: %2").arg(configMap, found.error));
        KubeRequest create;
        create.method = "POST";
        create.path = u"/api/v1/namespaces/%1/configmaps"_s.arg(ns);
        create.body =
            QJsonDocument(codeConfigMap(configMap, ns, gzip)).toJson(QJsonDocument::Compact);
        client->send(create, this, [configMap, done](const KubeReply &created) {
            done(created.ok() || created.status == 409 // another submission raced us
                     ? QString()
                     : tr("ConfigMap %1: %2").arg(configMap, created.error));
        });
    });
}

void KubeCode::unpin(const QString &directory) {
    if (auto packed = m_packed.find(directory); packed != m_packed.end())
        packed->pinned = false;
}

} // namespace sb
