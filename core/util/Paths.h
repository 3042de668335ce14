#pragma once

#include "Result.h"

#include <QString>
#include <QUrl>

#include <optional>

namespace sb {

// The collector port used when none is given: the daemon listens there, and clients (the CLI,
// the Python client) look there when SIGNALBOX_COLLECTOR is unset and no app published its
// collector (see publishedCollector).
inline constexpr quint16 kDefaultCollectorPort = 7410;

// Where Signalbox keeps its data: $SIGNALBOX_DATA_DIR, else the platform's app data folder.
QString defaultDataDir();
// $SIGNALBOX_COLLECTOR, else the collector the app published, else http://127.0.0.1:7410.
QUrl defaultCollectorUrl();

// Where the app publishes its embedded collector for the same user's scripts and command line:
// $XDG_RUNTIME_DIR/signalbox when XDG_RUNTIME_DIR is an absolute path, else /tmp/signalbox-UID.
// Made with mode 0700 when `create`; refused unless it is a directory (not a link) of this user
// that no one else may write to.
Result<QString> runtimeDirectory(bool create);
// In it, collector.url holds the collector's URL and the app's process id (a line each), and
// collector.token (mode 0600) its secret: each request to it must carry "Authorization: Bearer
// SECRET". The app writes the token first and removes both when it quits.
struct PublishedCollector {
    QUrl url;
    QString token;
};
// The collector the app published, while the app that published it runs.
std::optional<PublishedCollector> publishedCollector();
Status publishCollector(const QUrl &url, const QString &token);
// Removes what publishCollector wrote, unless another app published its own since.
void withdrawCollector(const QUrl &url);
// The published collector's secret when `url` is that collector (a loopback host, its port);
// else empty, so the secret never travels anywhere else.
QString publishedCollectorToken(const QUrl &url);
// A file shipped with Signalbox ("examples/train_mlp.py", "clients/python"): installed beside the
// binary (../share/signalbox), else in the source tree; empty if neither has it.
QString sharedFile(const QString &relative);
// The directory holding Signalbox's Python client (the package signalbox/), as sharedFile finds it.
QString pythonClientDirectory();

} // namespace sb
