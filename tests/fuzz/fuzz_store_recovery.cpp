// libFuzzer target: the store opened on an arbitrary journal (as a crash or a bad disk may leave
// it) must recover to a consistent state that accepts appends (points and samples), answers
// queries, and takes restarts (rewinds, their undoing, forks) and deletions. An input that
// starts with "summary:" is instead a saved summary of a real series, framed with a valid
// checksum, so that what the store's summaries file may hold reaches SeriesSummary::restore.
#include "metrics/store/MetricStore.h"
#include "util/Crc32c.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtEndian>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Qt::StringLiterals;

namespace {

// A store with one series of 1,000 points, and `payload` as its summary, checksummed.
void restoredSummary(QByteArrayView payload) {
    QTemporaryDir dir;
    {
        auto store = sb::MetricStore::open(dir.path());
        if (!store)
            std::abort();
        sb::SeriesPoints points{u"m"_s, {}};
        for (int i = 0; i < 1000; ++i)
            points.points.push_back({double(i % 300), i * 0.5, 1.7e9 + i});
        if (!(*store)->append(u"r"_s, {points}).ok())
            std::abort();
    }
    const QByteArray body = QByteArray(4, '\0') + payload.toByteArray(); // series id 0
    char header[16];
    qToLittleEndian<quint32>(0x314A4253, header); // the store's record magic
    qToLittleEndian<quint32>(5, header + 4);      // a summary
    qToLittleEndian<quint32>(quint32(body.size()), header + 8);
    qToLittleEndian<quint32>(sb::crc32c(body, sb::crc32c(QByteArrayView(header + 4, 4))),
                             header + 12);
    QFile file(dir.path() + u"/summaries"_s);
    if (!file.open(QIODevice::WriteOnly))
        return;
    file.write(header, sizeof header);
    file.write(body);
    file.close();
    auto store = sb::MetricStore::open(dir.path());
    if (!store)
        std::abort();
    for (sb::XAxis axis : {sb::XAxis::Step, sb::XAxis::WallTime}) {
        sb::SeriesWindow window;
        window.axis = axis;
        window.width = 13;
        if (!(*store)->query(u"r"_s, u"m"_s, window).ok())
            std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const QByteArrayView input(reinterpret_cast<const char *>(data), qsizetype(size));
    if (input.startsWith("summary:")) {
        restoredSummary(input.sliced(8));
        return 0;
    }
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
    // Every sample it lists is paged through and its blob read (or its loss said).
    for (const sb::RunInfo &run : s.runs()) {
        for (const auto &tag : s.sampleTags(run.name)) {
            const auto page = s.samples(run.name, tag.tag, {}, {}, 0, 1000);
            if (!page)
                std::abort(); // a listed tag has items
            for (const auto &found : page->samples)
                (void)s.readBlob(found.digest);
        }
    }
    const qint64 before = s.totalPoints();
    if (!s.append(u"fuzz"_s, {{u"m"_s, {{1, 2, 3}}}}).ok() || s.totalPoints() != before + 1)
        std::abort(); // a recovered store must take new points
    sb::Sample text{u"t"_s, sb::SampleKind::Text, 1, 2, 0, {}, "fuzz", {}};
    if (!sb::checkSample(&text).ok() || !s.appendSamples(u"fuzz"_s, {text}).ok())
        std::abort(); // and new samples
    if (const auto read = s.readBlob(text.digest); !read || *read != "fuzz")
        std::abort();
    // Every run's rewinds undone, and each run rewound and forked: never a crash, and what is
    // shown always readable.
    for (const sb::RunInfo &run : s.runs()) {
        const std::vector<sb::Rewind> rewinds = s.rewinds(run.name); // a copy: restored below
        for (const sb::Rewind &rewind : rewinds)
            (void)s.restoreRewind(rewind.id);
        const sb::Resume back{sb::Resume::Mode::Rewind, 1, false, {}};
        (void)s.append(run.name, {}, nullptr, u"fuzz-rewind"_s, sb::MetricStore::Batch::Whole,
                       &back);
        const sb::Resume fork{sb::Resume::Mode::Fork, 2, true, run.name};
        (void)s.append(run.name + u"-fork"_s, {}, nullptr, u"fuzz-fork"_s,
                       sb::MetricStore::Batch::Whole, &fork);
        for (const auto &series : s.series(run.name))
            (void)s.query(run.name, series.metric, {});
    }
    // Every other run deleted: gone, the others' points and blobs still read, after a reopen too.
    QStringList doomed;
    int nth = 0;
    for (const sb::RunInfo &run : s.runs())
        if (run.name != u"fuzz"_s && nth++ % 2 == 0)
            doomed << run.name;
    if (!doomed.isEmpty() && !s.deleteRuns(doomed).ok())
        std::abort(); // every name is held
    store.value().reset();
    auto reopened = sb::MetricStore::open(dir.path());
    if (!reopened)
        return 0; // a damaged start may refuse again
    for (const QString &run : std::as_const(doomed))
        if ((*reopened)->run(run))
            std::abort(); // a deleted run came back
    if (const auto read = (*reopened)->readBlob(text.digest); !read || *read != "fuzz")
        std::abort();
    for (const sb::RunInfo &run : (*reopened)->runs())
        for (const auto &series : (*reopened)->series(run.name))
            (void)(*reopened)->query(run.name, series.metric, {});
    return 0;
}
