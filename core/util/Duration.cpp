#include "Duration.h"

#include <QCoreApplication>

#include <algorithm>

namespace sb {

namespace {

QString twoDigits(qint64 n) {
    return QStringLiteral("%1").arg(n, 2, 10, QChar(u'0'));
}

} // namespace

QString formatDuration(qint64 ms, DurationStyle style) {
    ms = std::max<qint64>(ms, 0);
    const qint64 seconds = ms / 1000;
    switch (style) {
    case DurationStyle::Clock:
        if (seconds < 3600)
            return QStringLiteral("%1:%2").arg(seconds / 60).arg(twoDigits(seconds % 60));
        return QStringLiteral("%1:%2:%3")
            .arg(seconds / 3600)
            .arg(twoDigits(seconds / 60 % 60), twoDigits(seconds % 60));
    case DurationStyle::Uptime: {
        const QString clock = QStringLiteral("%1:%2:%3")
                                  .arg(seconds / 3600 % 24)
                                  .arg(twoDigits(seconds / 60 % 60), twoDigits(seconds % 60));
        return seconds < 86400 ? clock
                               : QCoreApplication::translate("sb::Duration", "%1 d %2")
                                     .arg(seconds / 86400)
                                     .arg(clock);
    }
    case DurationStyle::Words:
        if (seconds < 10)
            return QCoreApplication::translate("sb::Duration", "%1 s")
                .arg(static_cast<double>(ms) / 1000.0, 0, 'f', 1);
        if (seconds < 60)
            return QCoreApplication::translate("sb::Duration", "%1 s").arg(seconds);
        if (seconds < 3600)
            return QCoreApplication::translate("sb::Duration", "%1 min %2 s")
                .arg(seconds / 60)
                .arg(seconds % 60);
        return QCoreApplication::translate("sb::Duration", "%1 h %2 min")
            .arg(seconds / 3600)
            .arg(seconds % 3600 / 60);
    }
    return {};
}

} // namespace sb
