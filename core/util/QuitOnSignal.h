#pragma once

namespace sb {

// Makes SIGINT and SIGTERM quit the running QCoreApplication cleanly (through a self-pipe, as
// only async-signal-safe work may happen in the handler). Call once, after the app exists.
void quitOnTerminationSignals();

} // namespace sb
