#pragma once

#include "util/Result.h"

#include <QLoggingCategory>

// One logging category per module, "signalbox.<module>". Info and above are on by default;
// QT_LOGGING_RULES="signalbox.*.debug=true" turns on the rest.
Q_DECLARE_LOGGING_CATEGORY(lcCollector)
Q_DECLARE_LOGGING_CATEGORY(lcConfig)
Q_DECLARE_LOGGING_CATEGORY(lcJobs)
Q_DECLARE_LOGGING_CATEGORY(lcKube)
Q_DECLARE_LOGGING_CATEGORY(lcMonitor)
Q_DECLARE_LOGGING_CATEGORY(lcSlurm)
Q_DECLARE_LOGGING_CATEGORY(lcSsh)
Q_DECLARE_LOGGING_CATEGORY(lcSweeps)
Q_DECLARE_LOGGING_CATEGORY(lcTensorboard)
Q_DECLARE_LOGGING_CATEGORY(lcUi)

namespace sb {

// A log file a user can attach to a bug report: every message of the process, one record per
// line ("2026-11-24T05:30:01.123Z warning signalbox.ssh: ..."), also passed on to stderr.
// Kept under maxBytes by moving it to <name>.1 (the one older file kept). Thread-safe.
class LogFile {
public:
    static constexpr qint64 kDefaultMaxBytes = 4 * 1024 * 1024;

    // Starts writing <directory>/signalbox.log (made if missing); a second call moves the log.
    static Status install(const QString &directory, qint64 maxBytes = kDefaultMaxBytes);
    // Where the log is written; empty before install().
    static QString path();
    // Stops writing to the file; messages go to stderr only.
    static void uninstall();
    // Every message of the process, from here on, reaches stderr as format() escapes it, with or
    // without a file: for programs that keep no log file (signalbox-cli, signalbox-collector).
    static void escapeStderr();
    // A message as a log shows it: each line printable() (controls and bidi marks as escapes),
    // continuation lines indented, so no message can forge a record or move a terminal.
    static QString escaped(const QString &message);

    // One record as it is written: escaped() (a remote message cannot move the terminal of
    // whoever reads the log, nor forge a record).
    static QByteArray format(QtMsgType type, const char *category, const QString &message,
                             const QDateTime &when);
};

} // namespace sb
