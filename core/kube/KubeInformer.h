#pragma once

#include "KubeClient.h"

#include <QHash>
#include <QJsonObject>
#include <QTimer>

namespace sb {

// A live copy of one kind of object in one namespace (Jobs, Pods, Events), kept the way
// client-go's informers keep it: list, then watch from the list's resourceVersion with
// bookmarks; a watch the server ends is resumed where it was; a resourceVersion too old for the
// server (HTTP 410, or an ERROR event in the stream) means listing again; a failure means
// retrying with backoff (1 s doubling to 30 s), while the copy stays as it was and `error()` says
// why.
class KubeInformer final : public QObject {
    Q_OBJECT
public:
    // `collection` is the list's path, e.g. /apis/batch/v1/namespaces/ml/jobs; `labelSelector`
    // may be empty.
    KubeInformer(KubeClient *client, QString collection, QString labelSelector,
                 QObject *parent = nullptr);
    ~KubeInformer() override;

    // Lists, or after a stop() watches on from the last version seen (a version the server
    // has forgotten meanwhile means listing again).
    void start();
    void stop();
    const QHash<QString, QJsonObject> &objects() const { return m_objects; } // by name
    bool synced() const { return m_synced; }
    QString error() const { return m_error; }
    QString resourceVersion() const { return m_resourceVersion; }
    int relists() const { return m_relists; } // lists after the first: 410s recovered from

Q_SIGNALS:
    // Objects added or changed, and names removed, since the last signal; after a list, every
    // object is "changed" and the ones gone are "removed".
    void updated(const QList<QJsonObject> &changed, const QStringList &removed);
    void errorChanged(const QString &error);

private:
    void list(const QString &continueToken = {});
    void watch();
    void onEvents(const QList<QJsonObject> &events);
    void retryLater(const QString &error);
    void setError(const QString &error);
    QString query(bool watching) const;

    KubeClient *m_client;
    QString m_collection;
    QString m_labelSelector;
    QHash<QString, QJsonObject> m_objects;
    QHash<QString, QJsonObject> m_listing; // a list being paged in
    QString m_resourceVersion;
    quint64 m_call = 0;       // the list or watch under way
    quint64 m_generation = 0; // of m_call: answers to earlier calls are ignored
    bool m_synced = false;
    int m_relists = 0;
    int m_backoffMs = 0;
    QString m_error;
    QTimer m_retry;
};

// The name of an object, from its metadata.
QString kubeName(const QJsonObject &object);

} // namespace sb
