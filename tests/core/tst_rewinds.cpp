// A run resumed from a checkpoint: a rewind hides what it logged past the step (kept,
// restorable, crash-safe, once per batch), a fork copies a parent's history up to the step.
#include "../support/StoreHelpers.h"
#include "metrics/store/MetricStore.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using sb::MetricStore;
using sb::Resume;
using store_helpers::life;
using store_helpers::openStore;
using store_helpers::pointsOf;
using store_helpers::text;

namespace {

std::vector<std::pair<double, double>> expected(std::initializer_list<std::array<int, 3>> lives) {
    std::vector<std::pair<double, double>> out;
    for (const auto &[first, count, lifeNumber] : lives) {
        for (int i = first; i < first + count; ++i)
            out.emplace_back(i, 1000.0 * lifeNumber + i);
    }
    return out;
}

std::vector<double> sampleSteps(MetricStore &store, const QString &run, const QString &tag) {
    auto page = store.samples(run, tag, std::nullopt, std::nullopt, 0, 1000);
    std::vector<double> out;
    if (page)
        for (const auto &found : page->samples)
            out.push_back(found.item.step);
    return out;
}

Resume rewindTo(double step, bool inclusive = false) {
    return Resume{Resume::Mode::Rewind, step, inclusive, {}};
}

} // namespace

class TestRewinds final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aRewindHidesWhatCameAfterTheCheckpoint();
    void aRewindSurvivesRestartsAndCompaction();
    void restoringShowsEverythingAgain();
    void aRetriedBatchRewindsOnce();
    void aForkCopiesTheHistoryUpToTheStep();
    void aForkIsRefusedOntoARunWithPoints();
    void summariesFollowTheView();
    void anEarlierSignalboxRefusesTheStore();
    void pointsTheDiskLostAreNoLongerNamed();
};

void TestRewinds::aRewindHidesWhatCameAfterTheCheckpoint() {
    QTemporaryDir dir;
    auto store = openStore(dir.path());
    // First life: steps 0..99; killed; the checkpoint was at step 59.
    QVERIFY(store->append(u"r"_s, {life(u"loss"_s, 0, 100, 1), life(u"acc"_s, 0, 80, 1)}).ok());
    QVERIFY(store->appendSamples(u"r"_s, {text(u"notes"_s, 10), text(u"notes"_s, 70)}).ok());
    const Resume resume = rewindTo(59);
    QVERIFY(store
                ->append(u"r"_s, {life(u"loss"_s, 60, 50, 2)}, nullptr, u"b1"_s,
                         MetricStore::Batch::Whole, &resume)
                .ok());
    QCOMPARE(pointsOf(*store, u"r"_s, u"loss"_s), expected({{0, 60, 1}, {60, 50, 2}}));
    QCOMPARE(pointsOf(*store, u"r"_s, u"acc"_s), expected({{0, 60, 1}}));
    QCOMPARE(sampleSteps(*store, u"r"_s, u"notes"_s), (std::vector<double>{10}));
    const auto series = store->series(u"r"_s);
    QCOMPARE(series[0].metric, u"acc"_s);
    QCOMPARE(series[0].count, 60);
    QCOMPARE(series[0].last.step, 59.0); // the last shown point
    QCOMPARE(series[1].count, 110);
    QCOMPARE(store->sampleTags(u"r"_s).front().count, 1);
    QCOMPARE(store->sampleTags(u"r"_s).front().lastStep, 10.0);

    const auto &rewinds = store->rewinds(u"r"_s);
    QCOMPARE(rewinds.size(), std::size_t(1));
    QCOMPARE(rewinds[0].step, 59.0);
    QCOMPARE(rewinds[0].points, 40 + 20);
    QCOMPARE(rewinds[0].samples, 1);

    // A second restart from an earlier checkpoint (step 29, its own step too): both lives' later
    // points go, and what the second logged before step 29 never existed.
    const Resume again = rewindTo(29, true);
    QVERIFY(store
                ->append(u"r"_s, {life(u"loss"_s, 29, 5, 3)}, nullptr, u"b2"_s,
                         MetricStore::Batch::Whole, &again)
                .ok());
    QCOMPARE(pointsOf(*store, u"r"_s, u"loss"_s), expected({{0, 29, 1}, {29, 5, 3}}));
    QCOMPARE(store->query(u"r"_s, u"loss"_s, {})->total, 34);
    // Nothing of another run is touched.
    QVERIFY(store->append(u"other"_s, {life(u"loss"_s, 0, 10, 1)}).ok());
    QCOMPARE(pointsOf(*store, u"other"_s, u"loss"_s), expected({{0, 10, 1}}));
}

void TestRewinds::aRewindSurvivesRestartsAndCompaction() {
    QTemporaryDir dir;
    const auto want = expected({{0, 60, 1}, {60, 40, 2}});
    {
        auto store = openStore(dir.path());
        QVERIFY(store->append(u"r"_s, {life(u"loss"_s, 0, 100, 1)}).ok());
        const Resume resume = rewindTo(59);
        QVERIFY(store
                    ->append(u"r"_s, {life(u"loss"_s, 60, 40, 2)}, nullptr, u"b"_s,
                             MetricStore::Batch::Whole, &resume)
                    .ok());
        QVERIFY(store->saveSummaries().ok());
    } // as a kill leaves it: the journal is the only word
    {
        auto store = openStore(dir.path());
        QCOMPARE(pointsOf(*store, u"r"_s, u"loss"_s), want);
        QCOMPARE(store->series(u"r"_s)[0].last.step, 99.0);
        // A run of samples alone keeps its rewind too.
        QVERIFY(store->appendSamples(u"pictures"_s, {text(u"t"_s, 1), text(u"t"_s, 2)}).ok());
        const Resume back = rewindTo(1);
        QVERIFY(store->append(u"pictures"_s, {}, nullptr, u"p"_s, MetricStore::Batch::Whole, &back)
                    .ok());
        QCOMPARE(sampleSteps(*store, u"pictures"_s, u"t"_s), std::vector<double>{1});
        // Enough small batches to compact the journal on the next open.
        for (int i = 0; i < 40000; ++i)
            QVERIFY(
                store->append(u"filler"_s, {life(u"m"_s + QString::number(i % 40), i, 1, 1)}).ok());
    }
    const qint64 before = QFile(dir.path() + u"/journal"_s).size();
    {
        auto store = openStore(dir.path());
        QCOMPARE(pointsOf(*store, u"r"_s, u"loss"_s), want);
    }
    QVERIFY(QFile(dir.path() + u"/journal"_s).size() < before); // compacted, rewind kept
    auto store = openStore(dir.path());
    QCOMPARE(pointsOf(*store, u"r"_s, u"loss"_s), want);
    QCOMPARE(store->rewinds(u"r"_s).size(), std::size_t(1));
    QCOMPARE(sampleSteps(*store, u"pictures"_s, u"t"_s), std::vector<double>{1});
}

void TestRewinds::restoringShowsEverythingAgain() {
    QTemporaryDir dir;
    quint32 id = 0;
    {
        auto store = openStore(dir.path());
        QVERIFY(store->append(u"r"_s, {life(u"loss"_s, 0, 10, 1)}).ok());
        QVERIFY(store->appendSamples(u"r"_s, {text(u"notes"_s, 8)}).ok());
        const Resume resume = rewindTo(4);
        QVERIFY(store
                    ->append(u"r"_s, {life(u"loss"_s, 5, 2, 2)}, nullptr, u"b"_s,
                             MetricStore::Batch::Whole, &resume)
                    .ok());
        QCOMPARE(sampleSteps(*store, u"r"_s, u"notes"_s), std::vector<double>{});
        QVERIFY(store->sampleTags(u"r"_s).empty());
        id = store->rewinds(u"r"_s).front().id;
        QVERIFY(!store->restoreRewind(id + 1).ok()); // no such rewind
        QVERIFY(store->restoreRewind(id).ok());
        QVERIFY(store->rewinds(u"r"_s).empty());
        // In the order they were logged: the run doubled back, as it did.
        QCOMPARE(pointsOf(*store, u"r"_s, u"loss"_s), expected({{0, 10, 1}, {5, 2, 2}}));
        QCOMPARE(sampleSteps(*store, u"r"_s, u"notes"_s), std::vector<double>{8});
    }
    auto store = openStore(dir.path());
    QCOMPARE(pointsOf(*store, u"r"_s, u"loss"_s), expected({{0, 10, 1}, {5, 2, 2}}));
    QVERIFY(!store->restoreRewind(id).ok()); // restored once, for good
    // Ids are never re-used, even once the journal was rewritten without the restored one.
    const Resume resume = rewindTo(1);
    QVERIFY(store->append(u"r"_s, {}, nullptr, u"c"_s, MetricStore::Batch::Whole, &resume).ok());
    QVERIFY(store->rewinds(u"r"_s).front().id > id);
}

void TestRewinds::aRetriedBatchRewindsOnce() {
    QTemporaryDir dir;
    auto store = openStore(dir.path());
    QVERIFY(store->append(u"r"_s, {life(u"loss"_s, 0, 10, 1)}).ok());
    const Resume resume = rewindTo(4);
    const auto first = store->append(u"r"_s, {life(u"loss"_s, 5, 3, 2)}, nullptr, u"b"_s,
                                     MetricStore::Batch::Whole, &resume);
    QVERIFY(first.ok() && *first);
    // The answer was lost and the client sends it again: nothing changes.
    const auto retried = store->append(u"r"_s, {life(u"loss"_s, 5, 3, 2)}, nullptr, u"b"_s,
                                       MetricStore::Batch::Whole, &resume);
    QVERIFY(retried.ok() && !*retried);
    // Metric lines of another batch, forwarded in parts, each line saying the same resume: the
    // first part rewinds, the later ones do not rewind again (what came since stays shown).
    QVERIFY(store
                ->append(u"r"_s, {life(u"loss"_s, 5, 3, 3)}, nullptr, u"lines"_s,
                         MetricStore::Batch::InParts, &resume)
                .ok());
    QVERIFY(store
                ->append(u"r"_s, {life(u"loss"_s, 8, 1, 3)}, nullptr, u"lines"_s,
                         MetricStore::Batch::InParts, &resume)
                .ok());
    QCOMPARE(pointsOf(*store, u"r"_s, u"loss"_s), expected({{0, 5, 1}, {5, 4, 3}}));
    QCOMPARE(store->rewinds(u"r"_s).size(), std::size_t(2));
}

void TestRewinds::aForkCopiesTheHistoryUpToTheStep() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        sb::RunInfo parentInfo{u"parent"_s, QJsonObject{{u"lr"_s, 0.1}}, {}, {}, 1.6e9, {}};
        QVERIFY(store
                    ->append(u"parent"_s, {life(u"loss"_s, 0, 100, 1), life(u"acc"_s, 50, 50, 1)},
                             &parentInfo)
                    .ok());
        QVERIFY(
            store->appendSamples(u"parent"_s, {text(u"notes"_s, 10), text(u"notes"_s, 90)}).ok());
        // The parent rewound once: the fork copies what the parent shows.
        const Resume rewind = rewindTo(79);
        QVERIFY(store
                    ->append(u"parent"_s, {life(u"loss"_s, 80, 5, 2)}, nullptr, u"r"_s,
                             MetricStore::Batch::Whole, &rewind)
                    .ok());
        const Resume fork{Resume::Mode::Fork, 29, false, u"parent"_s};
        sb::RunInfo childInfo{u"child"_s, QJsonObject{{u"lr"_s, 0.01}}, {}, {}, {}, {}};
        QVERIFY(store
                    ->append(u"child"_s, {life(u"loss"_s, 30, 10, 3)}, &childInfo, u"f"_s,
                             MetricStore::Batch::Whole, &fork)
                    .ok());
    }
    auto store = openStore(dir.path());
    QCOMPARE(pointsOf(*store, u"child"_s, u"loss"_s), expected({{0, 30, 1}, {30, 10, 3}}));
    QVERIFY(!store->openSeries(u"child"_s, u"acc"_s)); // nothing at or before step 29
    QCOMPARE(sampleSteps(*store, u"child"_s, u"notes"_s), std::vector<double>{10});
    const sb::RunInfo child = *store->run(u"child"_s);
    QCOMPARE(child.forkedFrom.value(u"run"_s).toString(), u"parent"_s);
    QCOMPARE(child.forkedFrom.value(u"step"_s).toDouble(), 29.0);
    QCOMPARE(child.config.value(u"lr"_s).toDouble(), 0.01); // its own over the parent's
    QCOMPARE(child.start, std::optional(1.6e9));            // the parent's origin of time
    // The parent is as it was.
    QCOMPARE(pointsOf(*store, u"parent"_s, u"loss"_s), expected({{0, 80, 1}, {80, 5, 2}}));
    QVERIFY(store->rewinds(u"child"_s).empty());
}

void TestRewinds::aForkIsRefusedOntoARunWithPoints() {
    QTemporaryDir dir;
    auto store = openStore(dir.path());
    QVERIFY(store->append(u"a"_s, {life(u"loss"_s, 0, 10, 1)}).ok());
    QVERIFY(store->append(u"b"_s, {life(u"loss"_s, 0, 10, 1)}).ok());
    const Resume onto{Resume::Mode::Fork, 5, false, u"a"_s};
    auto refused = store->append(u"b"_s, {}, nullptr, u"x"_s, MetricStore::Batch::Whole, &onto);
    QCOMPARE(refused.errorCode(), sb::ErrorCode::InvalidInput);
    const Resume missing{Resume::Mode::Fork, 5, false, u"nobody"_s};
    refused = store->append(u"c"_s, {}, nullptr, u"y"_s, MetricStore::Batch::Whole, &missing);
    QCOMPARE(refused.errorCode(), sb::ErrorCode::InvalidInput);
    const Resume itself{Resume::Mode::Fork, 5, false, u"a"_s};
    refused = store->append(u"a"_s, {}, nullptr, u"z"_s, MetricStore::Batch::Whole, &itself);
    QCOMPARE(refused.errorCode(), sb::ErrorCode::InvalidInput);
    QVERIFY(!store->run(u"c"_s)); // refused whole
    QCOMPARE(pointsOf(*store, u"b"_s, u"loss"_s), expected({{0, 10, 1}}));
}

void TestRewinds::summariesFollowTheView() {
    QTemporaryDir dir;
    sb::SeriesWindow window;
    window.width = 50;
    std::optional<std::pair<double, double>> hiddenRange;
    {
        auto store = openStore(dir.path());
        QVERIFY(store->append(u"r"_s, {life(u"loss"_s, 0, 20000, 1)}).ok());
        QVERIFY(store->summarize(QDeadlineTimer(10000)));
        QVERIFY(store->saveSummaries().ok()); // of all 20,000
        const Resume resume = rewindTo(999);
        QVERIFY(store
                    ->append(u"r"_s, {life(u"loss"_s, 1000, 10, 2)}, nullptr, u"b"_s,
                             MetricStore::Batch::Whole, &resume)
                    .ok());
        QCOMPARE(store->query(u"r"_s, u"loss"_s, window)->total, 1010);
        QVERIFY(store->summarize(QDeadlineTimer(10000)));
        hiddenRange = store->series(u"r"_s)[0].range;
        QCOMPARE(hiddenRange, std::optional(std::pair(1000.0, 3009.0)));
    } // killed before the summaries were saved again
    {
        auto store = openStore(dir.path());
        // Not the saved summary of 20,000 points: that was of another view.
        QVERIFY(store->series(u"r"_s)[0].range != std::optional(std::pair(1000.0, 20999.0)));
        QCOMPARE(store->query(u"r"_s, u"loss"_s, window)->total, 1010);
        QCOMPARE(store->series(u"r"_s)[0].range, hiddenRange);
        QVERIFY(store->saveSummaries().ok()); // now of the view
        QVERIFY(store->restoreRewind(store->rewinds(u"r"_s).front().id).ok());
    } // killed before the summaries were saved again: the view's must not pass for the whole's
    auto store = openStore(dir.path());
    QVERIFY(store->series(u"r"_s)[0].range != hiddenRange);
    QCOMPARE(store->query(u"r"_s, u"loss"_s, window)->total, 20010);
    QCOMPARE(store->series(u"r"_s)[0].range, std::optional(std::pair(1000.0, 20999.0)));
}

void TestRewinds::pointsTheDiskLostAreNoLongerNamed() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        QVERIFY(store->append(u"r"_s, {life(u"loss"_s, 0, 10, 1)}).ok());
        const Resume resume = rewindTo(5); // hides stored points 6-9
        QVERIFY(
            store->append(u"r"_s, {}, nullptr, u"b"_s, MetricStore::Batch::Whole, &resume).ok());
    }
    // The disk loses points 8 and 9; the run goes on after the restart from 8 on, shown.
    QVERIFY(QFile::resize(dir.path() + u"/data/0.dat"_s, 16 + 24 * 8));
    {
        auto store = openStore(dir.path());
        QCOMPARE(pointsOf(*store, u"r"_s, u"loss"_s), expected({{0, 6, 1}}));
        QVERIFY(store->append(u"r"_s, {life(u"loss"_s, 6, 2, 2)}).ok());
        QCOMPARE(pointsOf(*store, u"r"_s, u"loss"_s), expected({{0, 6, 1}, {6, 2, 2}}));
    }
    // Not hidden by the rewind's first word on them (6-9), at this start or any later one.
    for (int start = 0; start < 2; ++start) {
        auto store = openStore(dir.path());
        QCOMPARE(pointsOf(*store, u"r"_s, u"loss"_s), expected({{0, 6, 1}, {6, 2, 2}}));
    }
}

void TestRewinds::anEarlierSignalboxRefusesTheStore() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        QVERIFY(store->append(u"r"_s, {life(u"loss"_s, 0, 10, 1)}).ok());
        const Resume resume = rewindTo(4);
        QVERIFY(
            store->append(u"r"_s, {}, nullptr, u"b"_s, MetricStore::Batch::Whole, &resume).ok());
    }
    // The journal says format 4 before the first rewind: a Signalbox that reads 3 would show
    // the hidden points as if they were the run's, so it must refuse, which it does by format.
    QFile journal(dir.path() + u"/journal"_s);
    QVERIFY(journal.open(QIODevice::ReadOnly));
    const QByteArray bytes = journal.readAll();
    QByteArray four(4, '\0');
    four[0] = 4;
    QVERIFY(bytes.contains(four));
}

QTEST_GUILESS_MAIN(TestRewinds)
#include "tst_rewinds.moc"
