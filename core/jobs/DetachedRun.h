#pragma once

#include "Job.h"

#include <QString>

#include <optional>

namespace sb {

// A run that outlives Signalbox: a session of its own (setsid), its output appended to DIR/log,
// the process group it leads in DIR/pid and, once it ends, its exit code in DIR/exit (128 +
// signal when a signal ended it), written by a wrapper that is no child of Signalbox. Runs on
// this computer and on SSH nodes are started this way, so quitting Signalbox or losing the
// connection never ends them, and a later Signalbox follows them again by offset.

// sh -c SCRIPT NAME DIR WORKDIR COMMAND: starts COMMAND (shell text, its words quoted) in
// WORKDIR (empty or "~": the home directory); DIR and WORKDIR may start with "~/"; stdin is kept
// as DIR/spec.json. Prints the run's process group (0 if it could not tell).
QString detachedLaunchScript();

// sh -c SCRIPT NAME GROUP GRACE: SIGTERM to the run's process group now, SIGKILL after GRACE
// seconds from a process of its own, so it comes even if Signalbox is gone by then.
QString detachedStopScript();

// Where a run on this computer stands, from its directory's files.
struct DetachedStatus {
    enum State { Starting, Running, Exited, Lost } state = Starting;
    std::optional<int> exitCode; // with Exited
    qint64 processGroup = 0;
};
DetachedStatus detachedStatus(const QString &dir);

// Ends a detached run's job in the same words on every backend: stopped when a stop was asked
// for, succeeded on exit code 0, else failed with `why` or its exit code in words (not found,
// not executable, the signal that ended it). No exit code and no `why`: it vanished.
void endDetachedRun(Job &job, std::optional<int> exitCode, bool stopped, const QString &why = {});

// This computer's boot, to tell a run's process group from a process that got its number after
// a restart.
QString bootId();

} // namespace sb
