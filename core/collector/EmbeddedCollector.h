#pragma once

#include "Collector.h"

#include <QThread>

namespace sb {

// Runs a Collector on its own thread, for the GUI's embedded default: the GUI talks to it over
// HTTP on loopback like to any other collector, so the GUI thread never touches the store.
class EmbeddedCollector final {
public:
    static Result<std::unique_ptr<EmbeddedCollector>> start(const Collector::Options &options);
    ~EmbeddedCollector();
    EmbeddedCollector(const EmbeddedCollector &) = delete;
    EmbeddedCollector &operator=(const EmbeddedCollector &) = delete;
    QUrl url() const { return m_url; }

private:
    EmbeddedCollector() = default;
    QThread m_thread;
    QObject m_context; // lives on m_thread; work is queued to it
    std::unique_ptr<Collector> m_collector;
    QUrl m_url;
};

} // namespace sb
