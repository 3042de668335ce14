#pragma once

#include "config/Config.h"
#include "util/Result.h"

#include <QDateTime>
#include <QUrl>

namespace sb {

// Objects in the bucket, over libcurl with AWS Signature Version 4. The calls block: run them
// off the GUI thread.
class ObjectStore {
public:
    explicit ObjectStore(ObjectStoreConfig config)
        : m_config(std::move(config)) {}

    const ObjectStoreConfig &config() const { return m_config; }
    // Whether the object exists (HEAD).
    Result<bool> exists(const QString &key) const;
    Status put(const QString &key, const QByteArray &data) const;
    // A URL that lets anyone holding it GET the object until `expiry` after `now` (at most
    // 7 days): signed in its query string, on the pods' endpoint.
    QUrl presignedGet(const QString &key, int expirySeconds,
                      const QDateTime &now = QDateTime::currentDateTimeUtc()) const;

private:
    QUrl objectUrl(const QUrl &endpoint, const QString &key) const;

    ObjectStoreConfig m_config;
};

} // namespace sb
