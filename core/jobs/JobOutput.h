#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <QStringDecoder>

namespace sb {

// A job's output as its pane shows it: the script's own prints. Metric lines ("@signalbox {...}",
// after blanks and a trial's "[i] ") are stored as metrics already, so they are hidden and
// counted unless asked for. Control characters show as their pictures (␛) and bidi marks are
// dropped: the output restyles nothing. Fed in pieces as they come, cut anywhere (inside a line,
// inside a UTF-8 character); a line is held back only while it may still become a metric line.
// A lone '\r' (a progress bar redrawn) ends a line, as for the metric line reader.
class JobOutput {
public:
    explicit JobOutput(bool showMetricLines = false);

    // The text to append for the next bytes of output.
    QString feed(QByteArrayView data);
    // What is held back, shown now (the end of a log read back; more may follow, as the rest of
    // that line).
    QString flush();
    // Metric lines hidden so far (one still arriving counts once it is known to be one).
    qint64 hiddenLines() const { return m_hidden; }

private:
    enum class Line { Undecided, Shown, Hidden };
    void take(QChar c, QString *out);

    bool m_showMetricLines;
    QStringDecoder m_decoder{QStringDecoder::Utf8};
    Line m_line = Line::Undecided;
    QString m_start; // an undecided line's beginning
    bool m_afterCr = false;
    qint64 m_hidden = 0;
};

// Once `log` is over `bound` bytes, drops its front and keeps about its last half after `notice`:
// from the first line start there unless that leaves under bound / 16, else from a character's
// start (never inside a UTF-8 sequence).
void keepLogTail(QByteArray &log, qsizetype bound, QByteArrayView notice);

} // namespace sb
