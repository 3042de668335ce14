#include "EmbeddedCollector.h"

#include <QMetaObject>
#include <QRandomGenerator>

#include <array>

namespace sb {

Result<std::unique_ptr<EmbeddedCollector>> EmbeddedCollector::start(Collector::Options options) {
    if (options.token.isEmpty()) {
        std::array<quint32, 8> secret{};
        QRandomGenerator::system()->fillRange(secret.data(), secret.size());
        options.token = QString::fromLatin1(
            QByteArray(reinterpret_cast<const char *>(secret.data()), sizeof(secret)).toHex());
    }
    std::unique_ptr<EmbeddedCollector> embedded(new EmbeddedCollector);
    embedded->m_token = options.token;
    embedded->m_thread.setObjectName(QStringLiteral("collector"));
    embedded->m_context.moveToThread(&embedded->m_thread);
    embedded->m_thread.start();
    // Created on the worker thread, so its sockets, timers and store live there.
    std::optional<Result<std::unique_ptr<Collector>>> started;
    QMetaObject::invokeMethod(
        &embedded->m_context, [&] { started.emplace(Collector::start(options)); },
        Qt::BlockingQueuedConnection);
    if (!*started)
        return started->failure();
    embedded->m_collector = std::move(*started).value();
    embedded->m_url = embedded->m_collector->url();
    return embedded;
}

EmbeddedCollector::~EmbeddedCollector() {
    // The collector's objects must die on the thread that owns them.
    if (m_collector) {
        QMetaObject::invokeMethod(
            &m_context, [this] { m_collector.reset(); }, Qt::BlockingQueuedConnection);
    }
    m_thread.quit();
    m_thread.wait();
}

} // namespace sb
