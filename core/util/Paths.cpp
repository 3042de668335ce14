#include "Paths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace sb {

using namespace Qt::StringLiterals;

QString defaultDataDir() {
    QString fromEnv = qEnvironmentVariable("SIGNALBOX_DATA_DIR");
    if (!fromEnv.isEmpty())
        return fromEnv;
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + u"/signalbox"_s;
}

QUrl defaultCollectorUrl() {
    const QString fromEnv = qEnvironmentVariable("SIGNALBOX_COLLECTOR");
    if (!fromEnv.isEmpty())
        return QUrl::fromUserInput(fromEnv);
    return QUrl(u"http://127.0.0.1:%1"_s.arg(kDefaultCollectorPort));
}

QString sharedFile(const QString &relative) {
    const QStringList candidates{QCoreApplication::applicationDirPath() +
                                     u"/../share/signalbox/"_s + relative,
                                 QStringLiteral(SIGNALBOX_SOURCE_DIR) + u"/"_s + relative};
    for (const QString &path : candidates) {
        if (QFileInfo::exists(path))
            return QDir::cleanPath(path);
    }
    return {};
}

} // namespace sb
