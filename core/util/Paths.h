#pragma once

#include <QString>
#include <QUrl>

namespace sb {

// The collector port used when none is given: the daemon listens there, and clients (the CLI,
// the Python client) look there when SIGNALBOX_COLLECTOR is unset.
inline constexpr quint16 kDefaultCollectorPort = 7410;

// Where Signalbox keeps its data: $SIGNALBOX_DATA_DIR, else the platform's app data folder.
QString defaultDataDir();
// $SIGNALBOX_COLLECTOR, else http://127.0.0.1:7410.
QUrl defaultCollectorUrl();
// A file shipped with Signalbox ("examples/train_mlp.py", "clients/python"): installed beside the
// binary (../share/signalbox), else in the source tree; empty if neither has it.
QString sharedFile(const QString &relative);

} // namespace sb
