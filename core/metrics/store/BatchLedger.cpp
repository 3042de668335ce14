#include "BatchLedger.h"

namespace sb {

using namespace Qt::StringLiterals;

QString BatchLedger::key(const QString &run, const QString &batch, BatchKind kind) {
    return QString::number(run.size()) + u':' + run + (kind == BatchKind::InParts ? u'p' : u'w') +
           batch;
}

QString BatchLedger::legacyKey(QByteArrayView payload) {
    const QString text = QString::fromUtf8(payload);
    const qsizetype separator = text.indexOf(QChar(0));
    if (separator <= 0)
        return {};
    const QString id = text.mid(separator + 1);
    const QString linesSuffix = u" (lines)"_s;
    const bool parts = id.size() > linesSuffix.size() && id.endsWith(linesSuffix);
    return key(text.left(separator), parts ? id.chopped(linesSuffix.size()) : id,
               parts ? BatchKind::InParts : BatchKind::Whole);
}

void BatchLedger::forgetRuns(const QSet<QString> &runs) {
    QSet<QString> prefixes; // what key() puts before the kind
    for (const QString &run : runs)
        prefixes.insert(QString::number(run.size()) + u':' + run);
    std::erase_if(m_order, [&](const QString &key) {
        const qsizetype colon = key.indexOf(u':');
        const qsizetype length = key.left(colon).toLongLong();
        const bool gone = colon > 0 && prefixes.contains(key.left(colon + 1 + length));
        if (gone)
            m_keys.remove(key);
        return gone;
    });
}

void BatchLedger::remember(const QString &key) {
    if (m_keys.contains(key))
        return;
    m_keys.insert(key);
    m_order.push_back(key);
    while (qsizetype(m_order.size()) > kRemembered) {
        m_keys.remove(m_order.front());
        m_order.pop_front();
    }
}

} // namespace sb
