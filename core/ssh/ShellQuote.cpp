#include "ShellQuote.h"

namespace sb {

using namespace Qt::StringLiterals;

QString shellQuote(const QString &value) {
    // Words made only of these characters mean the same quoted or not; keep them readable.
    static const QString plain = u"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                                 u"@%+:,./_-"_s;
    if (!value.isEmpty() &&
        std::all_of(value.begin(), value.end(), [](QChar c) { return plain.contains(c); }))
        return value;
    // Inside single quotes nothing is special but the quote itself, which closes, escapes, reopens.
    QString quoted = value;
    quoted.replace(u'\'', u"'\\''"_s);
    return u'\'' + quoted + u'\'';
}

QString shellCommand(const QStringList &arguments) {
    QStringList words;
    words.reserve(arguments.size());
    for (const QString &argument : arguments)
        words << shellQuote(argument);
    return words.join(u' ');
}

} // namespace sb
