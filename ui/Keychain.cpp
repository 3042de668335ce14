#include "Keychain.h"

#include <qt6keychain/keychain.h>

namespace sb::keychain {

using namespace Qt::StringLiterals;

namespace {

const QString kService = u"io.signalbox.Signalbox"_s;

} // namespace

void read(const QString &key, QObject *context, std::function<void(std::optional<QString>)> done) {
    auto *job = new QKeychain::ReadPasswordJob(kService, context); // deletes itself when done
    job->setKey(key);
    QObject::connect(job, &QKeychain::Job::finished, context,
                     [done = std::move(done)](QKeychain::Job *finished) {
                         auto *read = static_cast<QKeychain::ReadPasswordJob *>(finished);
                         done(read->error() == QKeychain::NoError
                                  ? std::optional<QString>(read->textData())
                                  : std::nullopt);
                     });
    job->start();
}

void write(const QString &key, const QString &secret, QObject *context,
           std::function<void(QString)> done) {
    auto *job = new QKeychain::WritePasswordJob(kService, context);
    job->setKey(key);
    job->setTextData(secret);
    QObject::connect(job, &QKeychain::Job::finished, context,
                     [done = std::move(done)](QKeychain::Job *finished) {
                         done(finished->error() == QKeychain::NoError ? QString()
                                                                      : finished->errorString());
                     });
    job->start();
}

QString sshKeyPassphrase(const QString &keyFile) {
    return u"ssh-key:"_s + keyFile;
}

QString collectorToken(const QString &collectorUrl) {
    return u"collector-token:"_s + collectorUrl;
}

} // namespace sb::keychain
