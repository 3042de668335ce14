#include "CsvExport.h"

#include <vector>

namespace sb {

QByteArray CsvExport::next() {
    if (m_next < 0) {
        m_next = 0;
        return "step,value,wall_time\n";
    }
    constexpr qint64 chunk = 8192;
    const qint64 n = std::min(chunk, m_source->size() - m_next);
    if (n <= 0 || !m_error.isEmpty())
        return {};
    std::vector<MetricPoint> buffer(static_cast<std::size_t>(n));
    m_source->read(m_next, n, buffer.data());
    if (m_error = m_source->failure(); !m_error.isEmpty())
        return {};
    m_next += n;
    QByteArray text;
    text.reserve(n * 64);
    for (const MetricPoint &point : buffer) {
        text += QByteArray::number(point.step, 'g', 17) + ',' +
                QByteArray::number(point.value, 'g', 17) + ',' +
                QByteArray::number(point.wall, 'f', 6) + '\n';
    }
    return text;
}

} // namespace sb
