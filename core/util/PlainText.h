#pragma once

#include <QString>

// Text from outside (run, metric and job names, tags, notes, config values, hosts, process
// command lines, remote messages) is data: never markup, never a terminal escape, never a
// writing direction that spills onto the text after it. Every widget and terminal shows it
// through one of these.
namespace sb {

// A control character (C0, DEL, C1) or a bidi embedding, override or isolate mark: the code
// points that can restyle a terminal or reorder the text around them.
bool isControlOrBidi(char32_t c);

// For terminals and logs: control and bidi characters as escapes (\n, \t, \x1b, \u202e), a
// backslash as \\, so that a name is one line that moves or colours nothing.
QString printable(const QString &text);

// For a widget's plain text: each control character but newline and tab as its visible
// picture (␛) and stray bidi marks dropped, the whole wrapped in an isolate (FSI … PDI), so a
// right-to-left override reverses nothing outside it.
QString isolated(const QString &text);
// isolated() for a cell or a title of one line: a line break (newline, U+2028, U+2029) as ⏎.
QString oneLine(const QString &text);
// isolated() without the isolate: for text shown a piece at a time (a job's output, line by line).
QString visibleControls(const QString &text);

// isolated(), escaped for rich text (&, <, > and quotes; newlines as <br>; a zero-width space
// every 64 characters of a run without spaces, where it may break): a name inside a message
// that is rich text anyway.
QString htmlOf(const QString &text);

// A whole rich text that shows `text` as written: for tooltips and labels whose text Qt would
// otherwise guess to be markup.
QString richTextOf(const QString &text);

} // namespace sb
