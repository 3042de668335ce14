#pragma once

#include <QStringList>

// `signalbox-collector users ...`: a lab collector's users, their tokens and rights, kept in its
// users file (sb::AccessList). Returns the exit status.
int runUsersCommand(const QStringList &arguments);
