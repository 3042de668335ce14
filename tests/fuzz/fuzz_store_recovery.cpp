// libFuzzer target: the store opened on an arbitrary journal (as a crash or a bad disk may leave
// it) must recover to a consistent state that accepts appends and answers queries.
#include "metrics/MetricStore.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Qt::StringLiterals;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    QTemporaryDir dir;
    QDir().mkpath(dir.path() + u"/series"_s);
    QFile journal(dir.path() + u"/journal"_s);
    if (!journal.open(QIODevice::WriteOnly))
        return 0;
    journal.write(reinterpret_cast<const char *>(data), static_cast<qint64>(size));
    journal.close();
    auto store = sb::MetricStore::open(dir.path());
    if (!store)
        return 0; // refusing is fine; crashing is not
    sb::MetricStore &s = *store.value();
    for (const sb::RunInfo &run : s.runs()) {
        for (const auto &series : s.series(run.name))
            (void)s.query(run.name, series.metric, {});
    }
    const qint64 before = s.totalPoints();
    if (!s.append(u"fuzz"_s, {{u"m"_s, {{1, 2, 3}}}}).ok() || s.totalPoints() != before + 1)
        std::abort(); // a recovered store must take new points
    return 0;
}
