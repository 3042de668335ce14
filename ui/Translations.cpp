#include "Translations.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QTranslator>

#include <memory>

namespace sb {

using namespace Qt::StringLiterals;

bool installTranslations(const QLocale &locale) {
    static std::unique_ptr<QTranslator> own;
    static std::unique_ptr<QTranslator> qt;
    for (auto *installed : {own.get(), qt.get()}) {
        if (installed)
            QCoreApplication::removeTranslator(installed);
    }
    own = std::make_unique<QTranslator>();
    qt = std::make_unique<QTranslator>();
    // QTranslator::load walks the locale's UI languages ("zh_CN", "zh"), the first that exists.
    const bool found = own->load(locale, u"signalbox"_s, u"_"_s, u":/i18n"_s);
    if (found)
        QCoreApplication::installTranslator(own.get());
    if (qt->load(locale, u"qtbase"_s, u"_"_s, QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt.get());
    return found;
}

} // namespace sb
