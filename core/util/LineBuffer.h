#pragma once

#include <QByteArray>
#include <QByteArrayView>

namespace sb {

// Bytes that arrive in pieces (a stream, a followed log) handed out as whole lines; a line not
// yet ended waits for the rest.
class LineBuffer {
public:
    // Calls `line` with every line completed by `data`, without its '\n'.
    template <typename Line> void feed(QByteArrayView data, Line &&line) {
        m_partial.append(data);
        qsizetype from = 0;
        for (qsizetype end; (end = m_partial.indexOf('\n', from)) >= 0; from = end + 1)
            line(QByteArrayView(m_partial.constData() + from, end - from));
        m_partial.remove(0, from);
    }
    // What waits for its '\n'.
    const QByteArray &pending() const { return m_partial; }
    void clear() { m_partial.clear(); }

private:
    QByteArray m_partial;
};

} // namespace sb
