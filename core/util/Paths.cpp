#include "Paths.h"

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

} // namespace sb
