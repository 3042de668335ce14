#pragma once

#include "KubeJobs.h"
#include "code/CodeArchive.h"
#include "config/Config.h"
#include "kube/KubeClient.h"
#include "util/Result.h"

#include <QHash>
#include <QObject>

#include <functional>

namespace sb {

// The code a cluster run takes along: packed from a directory (on the caller's thread, or
// beforehand on a worker for the New-run dialog), kept as its archive, and put where the pods
// fetch it: a ConfigMap named by its hash, or an object store for code a ConfigMap cannot hold.
// Lives on the thread of the backend that owns it.
class KubeCode final : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    void setObjectStore(const ObjectStoreConfig &store) { m_store = store; }
    // How long a packing is reused before the directory is packed again (tests shorten it).
    void setRepackAfterMs(qint64 ms) { m_repackAfterMs = ms; }
    const ObjectStoreConfig &objectStore() const { return m_store; }

    // Packs `directory` on a worker; prepared() says when. Until unpin(), packed() gives that
    // snapshot instead of packing again.
    void prepare(const QString &directory);
    void unpin(const QString &directory);
    // How `directory`'s code, packed now (on this thread), a moment ago or by prepare(), reaches
    // the pods.
    Result<CodeDelivery> packed(const QString &directory) const;
    // "N files, SIZE, packed at TIME into a ConfigMap", or empty when not packed.
    QString summary(const QString &directory) const;
    // Puts the packed code where the pods fetch it from, unless it is there already; `done`
    // gets an error, or an empty string.
    void deliver(KubeClient *client, const CodeDelivery &where,
                 const std::function<void(const QString &error)> &done);

Q_SIGNALS:
    void prepared(const QString &directory, const QString &error);

private:
    Result<CodeDelivery> adopt(const QString &directory, const Result<CodeArchive> &archive,
                               bool pinned) const;
    qint64 limit() const;

    ObjectStoreConfig m_store;
    qint64 m_repackAfterMs = 3000; // the dialog asks often, the tree rarely changes
    struct Packed {
        CodeDelivery delivery;
        qint64 packedAt = 0; // ms since epoch; the dialog asks often, the tree rarely changes
        bool pinned = false; // by prepare(), for the dialog's run
        int files = 0;
        qint64 bytes = 0;
    };
    mutable QHash<QString, Packed> m_packed;       // code directory -> its latest archive
    mutable QHash<QString, QByteArray> m_archives; // ConfigMap name or object key -> archive
};

} // namespace sb
