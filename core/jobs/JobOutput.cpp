#include "JobOutput.h"

#include "metrics/MetricLineParser.h"
#include "util/PlainText.h"

#include <utility>

namespace sb {

namespace {

enum class Start { Maybe, Metric, Output };

// A line held this long without a verdict is output (blanks, a trial's index of many digits).
constexpr qsizetype kLongestUndecided = 256;

bool blank(QChar c) {
    return c == u' ' || c == u'\t';
}

// Whether a line's beginning is a metric line's: blanks, a trial's "[i] ", then the prefix.
Start classify(QStringView line) {
    qsizetype i = 0;
    while (i < line.size() && blank(line[i]))
        ++i;
    if (i < line.size() && line[i] == u'[') {
        qsizetype j = i + 1;
        while (j < line.size() && line[j] >= u'0' && line[j] <= u'9')
            ++j;
        if (j == line.size())
            return Start::Maybe;
        if (j == i + 1 || line[j] != u']')
            return Start::Output;
        if (j + 1 == line.size())
            return Start::Maybe;
        if (line[j + 1] != u' ')
            return Start::Output;
        i = j + 2;
    }
    const QLatin1StringView prefix(MetricLines::prefix.data(), MetricLines::prefix.size());
    const QStringView rest = line.sliced(i);
    if (rest.size() >= prefix.size())
        return rest.startsWith(prefix) ? Start::Metric : Start::Output;
    return prefix.startsWith(rest) ? Start::Maybe : Start::Output;
}

} // namespace

JobOutput::JobOutput(bool showMetricLines)
    : m_showMetricLines(showMetricLines) {
}

QString JobOutput::feed(QByteArrayView data) {
    const QString text = m_decoder.decode(data);
    QString out;
    out.reserve(text.size());
    for (const QChar c : text)
        take(c, &out);
    return visibleControls(out);
}

QString JobOutput::flush() {
    if (m_line != Line::Undecided || m_start.isEmpty())
        return {}; // at a line's start nothing is held: the next line is judged as it comes
    m_line = Line::Shown;
    return visibleControls(std::exchange(m_start, QString()));
}

void JobOutput::take(QChar c, QString *out) {
    if (c == u'\n' && m_afterCr) { // "\r\n": one end of line
        m_afterCr = false;
        return;
    }
    m_afterCr = c == u'\r';
    if (c == u'\n' || c == u'\r') {
        if (m_line == Line::Undecided)
            *out += std::exchange(m_start, QString());
        if (m_line != Line::Hidden)
            *out += u'\n';
        m_line = Line::Undecided;
        return;
    }
    switch (m_line) {
    case Line::Hidden:
        return;
    case Line::Shown:
        *out += c;
        return;
    case Line::Undecided:
        break;
    }
    m_start += c;
    Start start = classify(m_start);
    if (start == Start::Maybe && m_start.size() > kLongestUndecided)
        start = Start::Output;
    if (start == Start::Metric) {
        ++m_hidden;
        if (!m_showMetricLines) {
            m_line = Line::Hidden;
            m_start.clear();
            return;
        }
    }
    if (start != Start::Maybe) {
        m_line = Line::Shown;
        *out += std::exchange(m_start, QString());
    }
}

void keepLogTail(QByteArray &log, qsizetype bound, QByteArrayView notice) {
    if (log.size() <= bound)
        return;
    qsizetype cut = log.size() - bound / 2;
    if (const qsizetype newline = log.indexOf('\n', cut);
        newline >= 0 && log.size() - (newline + 1) >= bound / 16) {
        cut = newline + 1;
    } else {
        while (cut < log.size() && (static_cast<uchar>(log.at(cut)) & 0xC0) == 0x80)
            ++cut; // a continuation byte: the character began before
    }
    log = notice.toByteArray() + log.sliced(cut);
}

} // namespace sb
