// Deleting runs for good: gone from every listing and read, still gone after a restart, the
// room their points and blobs held given back to the disk (once no reader holds it), a kill
// before the journal is compacted deleting them all the same, and a name used again starting
// afresh, its summaries its own.
#include "../support/StoreHelpers.h"
#include "metrics/store/MetricStore.h"

#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using sb::MetricStore;
using store_helpers::life;
using store_helpers::openStore;
using store_helpers::pointsOf;
using store_helpers::text;

namespace {

// Bytes the store's data files take on the disk (holes take none).
qint64 dataBytesOnDisk(const QString &dir) {
    qint64 bytes = 0;
    for (QDirIterator it(dir + u"/data"_s, QDir::Files); it.hasNext();) {
        struct stat info {};
        if (::stat(QFile::encodeName(it.next()).constData(), &info) == 0)
            bytes += qint64(info.st_blocks) * 512;
    }
    return bytes;
}

// a: 200,000 points (4.8 MB) and three text samples, one of them the same bytes as b's; b: 100
// points and that sample.
void fill(MetricStore &store) {
    QVERIFY(store.append(u"a"_s, {life(u"loss"_s, 0, 200'000, 1), life(u"acc"_s, 0, 10, 1)}));
    QVERIFY(store.appendSamples(
        u"a"_s, {text(u"notes"_s, 1), text(u"notes"_s, 2), text(u"notes"_s, 3, "shared words")}));
    QVERIFY(store.append(u"b"_s, {life(u"loss"_s, 0, 100, 2)}));
    QVERIFY(store.appendSamples(u"b"_s, {text(u"notes"_s, 7, "shared words")}));
}

void bIsWhole(MetricStore &store) {
    QCOMPARE(pointsOf(store, u"b"_s, u"loss"_s).size(), 100u);
    QCOMPARE(pointsOf(store, u"b"_s, u"loss"_s).back(), std::pair(99.0, 2099.0));
    const auto page = store.samples(u"b"_s, u"notes"_s, std::nullopt, std::nullopt, 0, 10);
    QVERIFY(page && page->samples.size() == 1);
    QCOMPARE(store.readBlob(page->samples.front().digest).value(), QByteArray("shared words"));
}

void aIsGone(MetricStore &store) {
    QVERIFY(!store.run(u"a"_s));
    QVERIFY(!store.runsByName().contains(u"a"_s));
    QVERIFY(store.series(u"a"_s).empty());
    QVERIFY(store.sampleTags(u"a"_s).empty());
    QVERIFY(!store.openSeries(u"a"_s, u"loss"_s));
    QVERIFY(!store.runsMentioning("a").contains(u"a"_s));
}

} // namespace

class TestDeleteRuns final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aDeletedRunIsGoneAndItsRoomGoesBack();
    void aReaderHoldsTheRoomUntilItIsDone();
    void aKillBeforeCompactionDeletesAllTheSame();
    void aNameUsedAgainStartsAfresh();
    void anUnknownNameDeletesNothing();
};

void TestDeleteRuns::aDeletedRunIsGoneAndItsRoomGoesBack() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        fill(*store);
        QVERIFY(store->sync());
        const qint64 before = dataBytesOnDisk(dir.path());
        const auto deleted = store->deleteRuns({u"a"_s, u"a"_s});
        QVERIFY2(deleted, qPrintable(deleted.error()));
        QCOMPARE(deleted->runs, QStringList{u"a"_s});
        QCOMPARE(deleted->points, 200'010);
        QCOMPARE(deleted->samples, 3);
        aIsGone(*store);
        bIsWhole(*store);
        // The 4.8 MB of a's points are holes now (b's blob, which a shared, stays).
        QVERIFY2(before - dataBytesOnDisk(dir.path()) > 4'500'000,
                 qPrintable(u"%1 -> %2"_s.arg(before).arg(dataBytesOnDisk(dir.path()))));
        QVERIFY(store->recoveryNotes().isEmpty());
    }
    auto reopened = openStore(dir.path());
    aIsGone(*reopened);
    bIsWhole(*reopened);
    QVERIFY(reopened->recoveryNotes().isEmpty());
}

void TestDeleteRuns::aReaderHoldsTheRoomUntilItIsDone() {
    QTemporaryDir dir;
    auto store = openStore(dir.path());
    fill(*store);
    QVERIFY(store->sync());
    const qint64 before = dataBytesOnDisk(dir.path());
    auto reading = store->openSeries(u"a"_s, u"loss"_s); // an export streaming it, say
    QVERIFY(reading);
    std::unique_ptr<sb::PointSource> source = std::move(reading.value().points);
    QVERIFY(store->deleteRuns({u"a"_s}));
    aIsGone(*store);
    // Read on after the deletion: a's own points, never zeros.
    sb::MetricPoint last;
    source->read(199'999, 1, &last);
    QCOMPARE(last.value, 1000.0 + 199'999);
    QVERIFY(source->failure().isEmpty());
    QVERIFY(before - dataBytesOnDisk(dir.path()) < 1'000'000); // held while it reads
    source.reset();
    QVERIFY(store->saveSummaries()); // what the collector calls every few seconds
    QVERIFY(before - dataBytesOnDisk(dir.path()) > 4'500'000);
    bIsWhole(*store);
}

// A process killed after the deletion's record and before the compaction (a reader held the
// room): the next open deletes the runs, gives their room back and compacts.
void TestDeleteRuns::aKillBeforeCompactionDeletesAllTheSame() {
    QTemporaryDir dir;
    qint64 before = 0;
    {
        auto store = openStore(dir.path());
        fill(*store);
        QVERIFY(store->sync());
        before = dataBytesOnDisk(dir.path());
    }
    const pid_t child = ::fork();
    if (child == 0) {
        auto store = MetricStore::open(dir.path());
        if (!store)
            ::_exit(2);
        auto reading = (*store)->openSeries(u"a"_s, u"loss"_s);
        const bool deleted = reading && (*store)->deleteRuns({u"a"_s}).ok();
        ::_exit(deleted ? 0 : 3); // as a kill -9: no destructor, no compaction
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    QVERIFY(dataBytesOnDisk(dir.path()) > before - 1'000'000); // nothing given back yet
    {
        auto store = openStore(dir.path());
        aIsGone(*store);
        bIsWhole(*store);
        QVERIFY(before - dataBytesOnDisk(dir.path()) > 4'500'000);
        QVERIFY2(store->recoveryNotes().isEmpty(), qPrintable(store->recoveryNotes().join(u'\n')));
    }
    auto again = openStore(dir.path()); // compacted: nothing left to replay or give back
    aIsGone(*again);
    bIsWhole(*again);
}

// Deleted, restarted, and the name logged again: only the new points, and a summary of them.
// b's series had the highest id: after the restart its new series takes that id again, and no
// summary of the old one may be taken for it.
void TestDeleteRuns::aNameUsedAgainStartsAfresh() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        fill(*store);
        QVERIFY(store->append(u"b"_s, {life(u"loss"_s, 100, 100, 2)}, nullptr, u"batch-1"_s));
        QVERIFY(store->openSeries(u"b"_s, u"loss"_s)); // summarized: 2000..2199
        QVERIFY(store->saveSummaries());
        QVERIFY(store->deleteRuns({u"b"_s}));
    }
    auto store = openStore(dir.path());
    // The same batch id again: stored, as the new run's own.
    QVERIFY(store->append(u"b"_s, {life(u"loss"_s, 0, 300, 3)}, nullptr, u"batch-1"_s).value());
    QCOMPARE(pointsOf(*store, u"b"_s, u"loss"_s).size(), 300u);
    QVERIFY(store->samples(u"b"_s, u"notes"_s, std::nullopt, std::nullopt, 0, 10).errorCode() ==
            sb::ErrorCode::Failed);
    QVERIFY(store->saveSummaries());
    store.reset();
    auto reopened = openStore(dir.path());
    const auto opened = reopened->openSeries(u"b"_s, u"loss"_s);
    QVERIFY(opened);
    QCOMPARE(opened->summary->count(), 300);
    QCOMPARE(opened->summary->valueRange(), std::pair(3000.0, 3299.0));
    QCOMPARE(pointsOf(*reopened, u"a"_s, u"acc"_s).size(), 10u);
}

void TestDeleteRuns::anUnknownNameDeletesNothing() {
    QTemporaryDir dir;
    auto store = openStore(dir.path());
    fill(*store);
    const auto refused = store->deleteRuns({u"b"_s, u"ghost"_s});
    QVERIFY(!refused);
    QVERIFY(refused.error().contains(u"ghost"_s));
    bIsWhole(*store);
    QCOMPARE(pointsOf(*store, u"a"_s, u"acc"_s).size(), 10u);
}

QTEST_GUILESS_MAIN(TestDeleteRuns)
#include "tst_deleteruns.moc"
