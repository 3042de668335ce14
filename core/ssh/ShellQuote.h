#pragma once

#include <QString>
#include <QStringList>

namespace sb {

// POSIX shell quoting, so an argument vector crosses a remote shell as the same vector: every
// value, whatever it holds (`; rm -rf ~`, `$(...)`, quotes, newlines), stays one literal word.
QString shellQuote(const QString &value);
// The arguments quoted and joined by spaces: a command line for `sh -c` or an SSH exec request.
QString shellCommand(const QStringList &arguments);

} // namespace sb
