#pragma once

#include <QLocale>

namespace sb {

// Puts Signalbox's translation for a locale in place (built in as ":/i18n/signalbox_<name>.qm"),
// with Qt's own for its dialogs where the system has them. English needs none: it is the
// source. Returns whether Signalbox's own was found; a second call replaces the first.
bool installTranslations(const QLocale &locale = QLocale::system());

} // namespace sb
