#pragma once

#include <QString>
#include <QtGlobal>

namespace sb {

// How a duration reads: the one formatter of the app and the CLI, translated.
enum class DurationStyle {
    Clock,  // 4:05 under an hour, then 1:04:05 (hours go on past a day: 49:00:00)
    Uptime, // 0:04:05, 1:04:05, and days from a day on: 2 d 1:00:00
    Words,  // 4.2 s under ten seconds, 42 s, 4 min 5 s, then 1 h 4 min
};

// `ms` (negative counts as zero) in `style`; the units translated, the clocks as they are.
QString formatDuration(qint64 ms, DurationStyle style);

} // namespace sb
