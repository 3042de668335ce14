#pragma once

#include <QObject>
#include <QString>

#include <functional>
#include <optional>

// Secrets Signalbox keeps in the system keychain (QtKeychain, under one service name): an SSH
// key's passphrase, a lab collector's token. Both calls answer on `context`'s thread, only
// while it lives.
namespace sb::keychain {

// The secret kept under `key`; none when there is none or the keychain cannot be reached.
void read(const QString &key, QObject *context, std::function<void(std::optional<QString>)> done);
// Keeps `secret` under `key`; done with the keychain's error, empty when it was kept.
void write(const QString &key, const QString &secret, QObject *context,
           std::function<void(QString)> done);

// The keys of what is kept.
QString sshKeyPassphrase(const QString &keyFile);
QString collectorToken(const QString &collectorUrl);

} // namespace sb::keychain
