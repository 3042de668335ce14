#pragma once

#include "Collector.h"

#include <QThread>

namespace sb {

// Runs a Collector on its own thread, for the GUI's embedded default: the GUI talks to it over
// HTTP on loopback like to any other collector, so the GUI thread never touches the store.
// Without a token in the options it makes a secret of its own (32 random bytes from the system,
// in hex) that every request must bear: another user on this machine, or a web page, cannot
// read or write its runs.
class EmbeddedCollector final {
public:
    static Result<std::unique_ptr<EmbeddedCollector>> start(Collector::Options options);
    ~EmbeddedCollector();
    EmbeddedCollector(const EmbeddedCollector &) = delete;
    EmbeddedCollector &operator=(const EmbeddedCollector &) = delete;
    QUrl url() const { return m_url; }
    // The bearer token its clients must send.
    const QString &token() const { return m_token; }

private:
    EmbeddedCollector() = default;
    QThread m_thread;
    QObject m_context; // lives on m_thread; work is queued to it
    std::unique_ptr<Collector> m_collector;
    QUrl m_url;
    QString m_token;
};

} // namespace sb
