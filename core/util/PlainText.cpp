#include "PlainText.h"

#include <QList>

using namespace Qt::StringLiterals;

namespace sb {

namespace {

constexpr char32_t kFirstStrongIsolate = 0x2068;
constexpr char32_t kPopDirectionalIsolate = 0x2069;

bool isBidiControl(char32_t c) {
    return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E ||
           c == 0x200F || c == 0x061C;
}

} // namespace

bool isControlOrBidi(char32_t c) {
    return c < 0x20 || (c >= 0x7F && c <= 0x9F) || isBidiControl(c);
}

QString printable(const QString &text) {
    QString out;
    out.reserve(text.size());
    for (const char32_t c : text.toUcs4()) {
        if (c == u'\\')
            out += u"\\\\"_s;
        else if (c == u'\n')
            out += u"\\n"_s;
        else if (c == u'\t')
            out += u"\\t"_s;
        else if (c == u'\r')
            out += u"\\r"_s;
        else if (c < 0x100 && isControlOrBidi(c))
            out += u"\\x%1"_s.arg(static_cast<uint>(c), 2, 16, QChar(u'0'));
        else if (isControlOrBidi(c))
            out += u"\\u%1"_s.arg(static_cast<uint>(c), 4, 16, QChar(u'0'));
        else
            out += QString::fromUcs4(&c, 1);
    }
    return out;
}

QString isolated(const QString &text) {
    return QChar(static_cast<ushort>(kFirstStrongIsolate)) + visibleControls(text) +
           QChar(static_cast<ushort>(kPopDirectionalIsolate));
}

QString oneLine(const QString &text) {
    QString flat = text;
    for (const char16_t lineBreak : {u'\n', u'\u2028', u'\u2029'})
        flat.replace(QChar(lineBreak), QChar(u'\u23ce'));
    return isolated(flat);
}

QString visibleControls(const QString &text) {
    QString out;
    out.reserve(text.size());
    // By UTF-16 unit: every control and bidi mark is one; a surrogate pair passes as it is.
    for (const QChar unit : text) {
        const char16_t c = unit.unicode();
        const bool kept =
            c == u'\n' || c == u'\t' ||
            (c >= 0x20 && c != 0x7F && !(c >= 0x80 && c <= 0x9F) && !isBidiControl(c));
        if (kept)
            out += unit;
        else if (c < 0x20)
            out += QChar(static_cast<ushort>(0x2400 + c)); // the control picture: ␛ for ESC
        else if (c == 0x7F)
            out += QChar(static_cast<ushort>(0x2421)); // ␡
        else if (c <= 0x9F)
            out += QChar(static_cast<ushort>(0xFFFD)); // C1
        // a bidi mark is dropped
    }
    return out;
}

QString htmlOf(const QString &text) {
    // A long run without spaces (a path, a hash, a value of 2,000 characters) gets a place to
    // break every so often (a zero-width space), or a tooltip of it grows wider than the screen.
    constexpr qsizetype kLongestUnbroken = 64;
    const QString shown = isolated(text);
    QString breakable;
    breakable.reserve(shown.size());
    qsizetype unbroken = 0;
    for (qsizetype i = 0; i < shown.size(); ++i) {
        const QChar c = shown[i];
        unbroken = c.isSpace() ? 0 : unbroken + 1;
        if (unbroken > kLongestUnbroken && !c.isLowSurrogate()) {
            breakable += QChar(0x200B);
            unbroken = 1;
        }
        breakable += c;
    }
    return breakable.toHtmlEscaped().replace(u'\n', u"<br>"_s);
}

QString richTextOf(const QString &text) {
    return u"<qt>"_s + htmlOf(text) + u"</qt>"_s;
}

} // namespace sb
