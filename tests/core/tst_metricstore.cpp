#include "../support/StoreHelpers.h"
#include "metrics/store/MetricStore.h"
#include "util/Crc32c.h"

#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QtEndian>

#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using sb::MetricStore;
using sb::SeriesPoints;

namespace {

SeriesPoints ramp(const QString &metric, int first, int count) {
    SeriesPoints s{metric, {}};
    for (int i = first; i < first + count; ++i)
        s.points.push_back({double(i), i * 0.5, 1.7e9 + i});
    return s;
}

using store_helpers::openStore;

} // namespace

class TestMetricStore final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void appendQueryAndReopen();
    void runMetadataMerges();
    void tornJournalTailIsCut();
    void uncommittedPointsAreNeverRead();
    void manySeriesShareAFewFiles();
    void migratesAStoreOfSeriesFiles();
    void secondOpenIsRefused();
    void rejectsBadBatchesWhole();
    void exportsCsv();
    void compactionKeepsEverything();
    void relativeTimeUsesRunStart();
    void batchIdsMakeRetriesHarmless();
    void anotherMetricAsX();
    void valueRangesBySummarizing();
    void summariesSurviveARestart();
    void runsFoundByTheirWords();
    void batchKeysNeverCollide();
    void linksAndSpecialFilesAreNeverFollowed();
    void aSharedDirectoryIsRefusedAndKept();
    void aFailedReadIsAnErrorNotZeros();
    void anUnreadableSeriesIsReadAgainOnlyOnceItGrows();
};

void TestMetricStore::appendQueryAndReopen() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        QVERIFY(store->append(u"r1"_s, {ramp(u"loss"_s, 0, 1000), ramp(u"acc"_s, 0, 10)}).ok());
        QVERIFY(store->append(u"r1"_s, {ramp(u"loss"_s, 1000, 500)}).ok());
        QVERIFY(store->append(u"r2"_s, {ramp(u"loss"_s, 0, 3)}).ok());
        const auto q = store->query(u"r1"_s, u"loss"_s, {});
        QVERIFY(q.ok());
        QCOMPARE(q->total, 1500);
    }
    auto store = openStore(dir.path());
    QVERIFY(store->recoveryNotes().isEmpty());
    QCOMPARE(store->runs().size(), 2);
    QCOMPARE(store->totalPoints(), 1513);
    const auto series = store->series(u"r1"_s);
    QCOMPARE(series.size(), std::size_t(2));
    QCOMPARE(series[1].metric, u"loss"_s);
    QCOMPARE(series[1].last.step, 1499.0);
    sb::SeriesWindow window;
    window.width = 2000;
    const auto q = store->query(u"r1"_s, u"loss"_s, window);
    QVERIFY(q.ok());
    QCOMPARE(q->x.size(), std::size_t(1500)); // fewer points than pixels: all of them
    QCOMPARE(q->y.back(), 1499 * 0.5);
    QVERIFY(!store->query(u"r1"_s, u"nope"_s, {}).ok());
    QVERIFY(!store->query(u"nope"_s, u"loss"_s, {}).ok());
}

void TestMetricStore::runMetadataMerges() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        sb::RunInfo info{u"r"_s, {{u"lr"_s, 0.1}}, u"gpu-1"_s, u"running"_s, 100.0, {}};
        QVERIFY(store->updateRun(info).ok());
        sb::RunInfo done{u"r"_s, {{u"seed"_s, 3}}, {}, u"finished"_s, {}, 200.0};
        QVERIFY(store->updateRun(done).ok());
    }
    auto store = openStore(dir.path());
    const auto run = store->run(u"r"_s);
    QVERIFY(run);
    QCOMPARE(run->status, u"finished"_s);
    QCOMPARE(run->host, u"gpu-1"_s);
    QCOMPARE(run->config.value(u"lr"_s).toDouble(), 0.1);
    QCOMPARE(run->config.value(u"seed"_s).toInt(), 3);
    QCOMPARE(run->start.value(), 100.0);
    QCOMPARE(run->end.value(), 200.0);
}

void TestMetricStore::tornJournalTailIsCut() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        QVERIFY(store->append(u"r"_s, {ramp(u"loss"_s, 0, 100)}).ok());
    }
    QFile journal(dir.path() + u"/journal"_s);
    const qint64 goodSize = journal.size();
    QVERIFY(journal.open(QIODevice::Append));
    journal.write("SBJ1\x03\x00\x00\x00\xff\xff", 10); // a record header cut short by a crash
    journal.close();
    {
        auto store = openStore(dir.path());
        QCOMPARE(store->recoveryNotes().size(), 1);
        QVERIFY(store->recoveryNotes().front().contains(u"torn"_s));
        QCOMPARE(store->totalPoints(), 100);
        QVERIFY(store->append(u"r"_s, {ramp(u"loss"_s, 100, 1)}).ok());
    }
    auto store = openStore(dir.path());
    QVERIFY(store->recoveryNotes().isEmpty());
    QCOMPARE(store->totalPoints(), 101);
    QVERIFY(QFile(dir.path() + u"/journal"_s).size() >= goodSize);
}

void TestMetricStore::uncommittedPointsAreNeverRead() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        QVERIFY(store->append(u"r"_s, {ramp(u"loss"_s, 0, 10)}).ok());
    }
    // Points written after the committed ones whose commit record never made it (a crash
    // mid-batch), plus half a point: the series' extent is the data file's first.
    QFile data(dir.path() + u"/data/0.dat"_s);
    QVERIFY(data.open(QIODevice::ReadWrite));
    QVERIFY(data.seek(16 + 24 * 10));
    data.write(QByteArray(24 * 5 + 7, 'x'));
    data.close();
    auto store = openStore(dir.path());
    QCOMPARE(store->totalPoints(), 10);
    QVERIFY(store->recoveryNotes().isEmpty()); // nothing acknowledged was touched
    QCOMPARE(store->query(u"r"_s, u"loss"_s, {})->y.back(), 4.5);
    // The next batch writes over them.
    QVERIFY(store->append(u"r"_s, {ramp(u"loss"_s, 10, 3)}).ok());
    const auto q = store->query(u"r"_s, u"loss"_s, {});
    QCOMPARE(q->total, 13);
    QCOMPARE(q->y, (std::vector<double>{0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6}));
}

void TestMetricStore::manySeriesShareAFewFiles() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        // 1,000 runs x 3 metrics, and one long series written a point at a time, interleaved.
        for (int r = 0; r < 1000; ++r) {
            const QString run = u"run-%1"_s.arg(r);
            QVERIFY(
                store->append(run, {ramp(u"a"_s, 0, 200), ramp(u"b"_s, 0, 3), ramp(u"c"_s, 0, 1)})
                    .ok());
            QVERIFY(store->append(u"long"_s, {ramp(u"x"_s, r * 50, 50)}).ok());
        }
        QVERIFY(store->append(u"run-7"_s, {ramp(u"a"_s, 200, 5000)}).ok());
        QVERIFY(store->sync().ok());
    }
    QCOMPARE(QDir(dir.path() + u"/data"_s).entryList(QDir::Files).size(), 1);
    QVERIFY(!QDir(dir.path() + u"/series"_s).exists());
    auto store = openStore(dir.path());
    QVERIFY(store->recoveryNotes().isEmpty());
    QCOMPARE(store->totalPoints(), 1000 * 204 + 50'000 + 5000);
    // Every point where it was written, across extents.
    QByteArray csv;
    QBuffer out(&csv);
    out.open(QIODevice::WriteOnly);
    QVERIFY(store->exportCsv(u"long"_s, u"x"_s, &out).ok());
    const QList<QByteArray> lines = csv.split('\n');
    QCOMPARE(lines.size(), 50'000 + 2);
    for (int i : {0, 15, 16, 17, 49'999})
        QCOMPARE(lines[i + 1].split(',')[1].toDouble(), i * 0.5);
    sb::SeriesWindow window;
    window.width = 100;
    const auto q = store->query(u"run-7"_s, u"a"_s, window);
    QCOMPARE(q->total, 5200);
    QCOMPARE(q->y.back(), 5199 * 0.5);
}

void TestMetricStore::migratesAStoreOfSeriesFiles() {
    // Written by the release before data files (tests/data/store-v1, made by its MetricStore):
    // run a (loss 1,000 points in two batches, acc 10; config, tags, a note), run b (loss 300),
    // batch ids, and a saved summary of a/loss.
    QTemporaryDir dir;
    const QString from = QStringLiteral(SIGNALBOX_TEST_DATA) + u"/store-v1"_s;
    QDir().mkpath(dir.filePath(u"series"_s));
    for (const QString &name :
         {u"journal"_s, u"summaries"_s, u"series/0.pts"_s, u"series/1.pts"_s, u"series/2.pts"_s})
        QVERIFY(QFile::copy(from + u'/' + name, dir.filePath(name)));
    {
        auto store = openStore(dir.path());
        QVERIFY(store->recoveryNotes().join(u' ').contains(u"moved 3 series (1310 points)"_s));
        QVERIFY(!QDir(dir.filePath(u"series"_s)).exists());
        QCOMPARE(store->run(u"a"_s)->note, std::optional(u"first try"_s));
        QCOMPARE(store->run(u"a"_s)->tags, std::optional(QStringList{u"baseline"_s}));
        QCOMPARE(store->run(u"a"_s)->config.value(u"lr"_s).toDouble(), 0.01);
        QCOMPARE(store->series(u"a"_s)[1].range, std::optional(std::pair(0.0, 499.5))); // saved
        QVERIFY(!store->append(u"a"_s, {ramp(u"loss"_s, 0, 1)}, nullptr, u"batch-2"_s).value());
        QVERIFY(store->acknowledgeRecovery().ok());
    }
    auto store = openStore(dir.path());
    QVERIFY(store->recoveryNotes().isEmpty());
    QCOMPARE(store->totalPoints(), 1310);
    const auto a = store->query(u"a"_s, u"loss"_s, {});
    QCOMPARE(a->total, 1000);
    QCOMPARE(a->y.back(), 999 * 0.5);
    QCOMPARE(store->query(u"b"_s, u"loss"_s, {})->y.back(), -299.0);
    QCOMPARE(store->series(u"a"_s)[0].last.value, 9 * 0.1);
    QVERIFY(store->append(u"b"_s, {ramp(u"loss"_s, 300, 2)}).ok());
    QCOMPARE(store->query(u"b"_s, u"loss"_s, {})->total, 302);
}

void TestMetricStore::secondOpenIsRefused() {
    QTemporaryDir dir;
    auto first = openStore(dir.path());
    const auto second = MetricStore::open(dir.path());
    QVERIFY(!second.ok());
    QVERIFY(second.error().contains(u"in use"_s));
}

void TestMetricStore::rejectsBadBatchesWhole() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        QVERIFY(store->append(u"r"_s, {ramp(u"a"_s, 0, 5)}).ok());
        // The second series is invalid: nothing of this batch may land, not even series "b".
        const auto bad =
            store->append(u"r"_s, {ramp(u"b"_s, 0, 5), ramp(u"a"_s, 5, 5), ramp(u"a"_s, 10, 5)});
        QVERIFY(!bad.ok());
        QVERIFY(bad.error().contains(u"twice"_s));
        QVERIFY(!store->append(QString(), {ramp(u"a"_s, 0, 1)}).ok());
        QCOMPARE(store->totalPoints(), 5);
        QCOMPARE(store->series(u"r"_s).size(), std::size_t(1));
        QVERIFY(store->append(u"r"_s, {ramp(u"c"_s, 0, 2)}).ok());
    }
    auto store = openStore(dir.path());
    QVERIFY2(store->recoveryNotes().isEmpty(), qPrintable(store->recoveryNotes().join(u'\n')));
    QCOMPARE(store->totalPoints(), 7);
    // Names a chart's request carries: 1,024 characters at most, a run's and a metric's.
    const QString longest(MetricStore::kLongestName, u'n');
    QCOMPARE(store->append(longest + u'n', {ramp(u"a"_s, 0, 1)}).errorCode(),
             sb::ErrorCode::InvalidInput);
    QCOMPARE(store->append(u"r"_s, {ramp(longest + u'n', 0, 1)}).errorCode(),
             sb::ErrorCode::InvalidInput);
    QVERIFY(store->append(longest, {ramp(longest, 0, 1)}).ok());
    QCOMPARE(store->totalPoints(), 8);
}

void TestMetricStore::exportsCsv() {
    QTemporaryDir dir;
    auto store = openStore(dir.path());
    QVERIFY(store->append(u"r"_s, {ramp(u"loss"_s, 0, 3)}).ok());
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QVERIFY(store->exportCsv(u"r"_s, u"loss"_s, &buffer).ok());
    QCOMPARE(buffer.data(), QByteArray("step,value,wall_time\n"
                                       "0,0,1700000000.000000\n"
                                       "1,0.5,1700000001.000000\n"
                                       "2,1,1700000002.000000\n"));
}

void TestMetricStore::compactionKeepsEverything() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        // Many small batches grow the journal past the compaction threshold on reopen.
        for (int i = 0; i < 50000; ++i)
            QVERIFY(store->append(u"r"_s, {ramp(u"m"_s + QString::number(i % 50), i, 1)}).ok());
    }
    const qint64 before = QFile(dir.path() + u"/journal"_s).size();
    {
        auto store = openStore(dir.path());
        QCOMPARE(store->totalPoints(), 50000);
    }
    QVERIFY(QFile(dir.path() + u"/journal"_s).size() < before);
    auto store = openStore(dir.path());
    QCOMPARE(store->totalPoints(), 50000);
    QCOMPARE(store->series(u"r"_s).size(), std::size_t(50));
}

void TestMetricStore::relativeTimeUsesRunStart() {
    QTemporaryDir dir;
    auto store = openStore(dir.path());
    sb::RunInfo info{u"r"_s, {}, {}, {}, 1.7e9 - 10, {}};
    QVERIFY(store->append(u"r"_s, {ramp(u"loss"_s, 0, 3)}, &info).ok());
    sb::SeriesWindow window;
    window.axis = sb::XAxis::RelativeTime;
    const auto q = store->query(u"r"_s, u"loss"_s, window);
    QCOMPARE(q->x, (std::vector<double>{10, 11, 12}));
}

void TestMetricStore::batchIdsMakeRetriesHarmless() {
    QTemporaryDir dir;
    {
        auto store = std::move(sb::MetricStore::open(dir.path())).value();
        QCOMPARE(store->append(u"r"_s, {ramp(u"loss"_s, 0, 10)}, nullptr, u"b1"_s).value(), true);
        QCOMPARE(store->append(u"r"_s, {ramp(u"loss"_s, 0, 10)}, nullptr, u"b1"_s).value(), false);
        // An id is the run's: another run's batch of the same id is its own.
        QCOMPARE(store->append(u"s"_s, {ramp(u"loss"_s, 0, 10)}, nullptr, u"b1"_s).value(), true);
        // A refused batch leaves no id behind: sent again, it is stored.
        QVERIFY(!store->append(u"r"_s, {{u"bad"_s, {{1e300, 1, 0}}}}, nullptr, u"b2"_s));
        QCOMPARE(store->append(u"r"_s, {ramp(u"loss"_s, 10, 1)}, nullptr, u"b2"_s).value(), true);
        QCOMPARE(store->series(u"r"_s).front().count, qint64(11));
    }
    // The ids survive a reopen (which compacts the journal) and so a kill.
    auto store = std::move(sb::MetricStore::open(dir.path())).value();
    QCOMPARE(store->append(u"r"_s, {ramp(u"loss"_s, 0, 10)}, nullptr, u"b1"_s).value(), false);
    QCOMPARE(store->append(u"r"_s, {ramp(u"loss"_s, 0, 10)}, nullptr, u"b2"_s).value(), false);
    QCOMPARE(store->series(u"r"_s).front().count, qint64(11));
    // A batch in parts stores every part and is known afterwards, across a reopen too.
    using Batch = sb::MetricStore::Batch;
    QVERIFY(!store->storedBatch(u"r"_s, u"p"_s));
    QCOMPARE(
        store->append(u"r"_s, {ramp(u"loss"_s, 20, 5)}, nullptr, u"p"_s, Batch::InParts).value(),
        true);
    QCOMPARE(
        store->append(u"r"_s, {ramp(u"loss"_s, 25, 5)}, nullptr, u"p"_s, Batch::InParts).value(),
        true);
    QCOMPARE(store->series(u"r"_s).front().count, qint64(21));
    store.reset();
    store = std::move(sb::MetricStore::open(dir.path())).value();
    QVERIFY(store->storedBatch(u"r"_s, u"p"_s));
    QVERIFY(!store->storedBatch(u"s"_s, u"p"_s));
}

QTEST_APPLESS_MAIN(TestMetricStore)
#include "tst_metricstore.moc"

void TestMetricStore::anotherMetricAsX() {
    QTemporaryDir dir;
    auto store = openStore(dir.path());
    // loss at steps 0..9; tokens seen logged at steps 0, 5 and 8 only, out of order.
    SeriesPoints tokens{u"tokens"_s, {{5, 1000, 0}, {0, 0, 0}, {8, 4000, 0}}};
    QVERIFY(store->append(u"r"_s, {ramp(u"loss"_s, 0, 10), tokens}).ok());
    QVERIFY(store->append(u"no-tokens"_s, {ramp(u"loss"_s, 0, 10)}).ok());
    sb::SeriesWindow window;
    window.xMetric = u"tokens"_s;
    const auto q = store->query(u"r"_s, u"loss"_s, window);
    QVERIFY(q.ok());
    // Steps 0..8 on the line between the tokens' points; 9 is past their last: not drawn.
    QCOMPARE(q->x, (std::vector<double>{0, 200, 400, 600, 800, 1000, 2000, 3000, 4000}));
    QCOMPARE(q->y.front(), 0.0);
    QCOMPARE(q->y.back(), 4.0);
    const auto missing = store->query(u"no-tokens"_s, u"loss"_s, window);
    QVERIFY(!missing.ok());
    QVERIFY(missing.error().contains(u"tokens"_s));
    // Zoomed in x: the range is in tokens.
    window.from = 900;
    window.to = 2100;
    QCOMPARE(store->query(u"r"_s, u"loss"_s, window)->x, (std::vector<double>{1000, 2000}));
}

void TestMetricStore::valueRangesBySummarizing() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        SeriesPoints loss{u"loss"_s, {{0, 3, 0}, {1, qInf(), 0}, {2, -1, 0}, {3, qQNaN(), 0}}};
        QVERIFY(store->append(u"r"_s, {loss, SeriesPoints{u"nan"_s, {{0, qQNaN(), 0}}}}).ok());
    }
    auto store = openStore(dir.path());
    QVERIFY(!store->series(u"r"_s)[0].range);      // not read since the store opened
    QVERIFY(!store->summarize(QDeadlineTimer(0))); // no time at all: nothing done
    QVERIFY(store->summarize(QDeadlineTimer(10000)));
    const auto series = store->series(u"r"_s);                      // sorted by metric: loss, nan
    QCOMPARE(series[0].range, std::optional(std::pair(-1.0, 3.0))); // finite values only
    QVERIFY(!series[1].range);
    // Appends keep it up to date.
    QVERIFY(store->append(u"r"_s, {SeriesPoints{u"loss"_s, {{4, 7, 0}}}}).ok());
    QCOMPARE(store->series(u"r"_s)[0].range, std::optional(std::pair(-1.0, 7.0)));
}

void TestMetricStore::summariesSurviveARestart() {
    QTemporaryDir dir;
    sb::SeriesWindow window;
    window.width = 300;
    const QString summaries = dir.path() + u"/summaries"_s;
    auto query = [&](MetricStore &store, const QString &metric) {
        auto result = store.query(u"r"_s, metric, window);
        return result ? std::pair(result->x, result->y)
                      : std::pair<std::vector<double>, std::vector<double>>();
    };
    {
        auto store = openStore(dir.path());
        SeriesPoints noisy = ramp(u"loss"_s, 0, 10'000);
        noisy.points[777].value = qQNaN();
        noisy.points[5000].value = -3;
        noisy.points[6000].step = 10; // unsorted from here on
        QVERIFY(store->append(u"r"_s, {noisy, ramp(u"acc"_s, 0, 300)}).ok());
        QVERIFY(store->summarize(QDeadlineTimer(10000)));
        QVERIFY(store->saveSummaries().ok());
        // Appended after the save, and never saved: read from the series at the next start.
        QVERIFY(store->append(u"r"_s, {ramp(u"loss"_s, 10'000, 1'000)}).ok());
        QVERIFY(store->query(u"r"_s, u"loss"_s, window).ok());
        const qint64 first = QFileInfo(summaries).size();
        QVERIFY(store->saveSummaries().ok()); // only what changed is appended
        QVERIFY(QFileInfo(summaries).size() - first < first / 4);
        QVERIFY(store->append(u"r"_s, {ramp(u"loss"_s, 11'000, 10)}).ok());
    }
    const qint64 saved = QFileInfo(summaries).size();
    QVERIFY(saved > 0);
    {
        auto store = openStore(dir.path());
        // Ranges are there before any read: the summaries came from the file.
        const auto series = store->series(u"r"_s);
        QCOMPARE(series[1].range, std::optional(std::pair(-3.0, 5499.5)));
        QCOMPARE(series[0].range, std::optional(std::pair(0.0, 149.5)));
        auto after = query(*store, u"loss"_s);
        auto fresh = [&] {
            QTemporaryDir copy;
            for (const QString &name : QDir(dir.path()).entryList(QDir::Files))
                if (name != u"summaries"_s && name != u"lock"_s)
                    QFile::copy(dir.filePath(name), copy.filePath(name));
            QDir().mkpath(copy.filePath(u"data"_s));
            for (const QString &name : QDir(dir.filePath(u"data"_s)).entryList(QDir::Files))
                QFile::copy(dir.filePath(u"data/"_s + name), copy.filePath(u"data/"_s + name));
            auto other = openStore(copy.path());
            return query(*other, u"loss"_s);
        }();
        QCOMPARE(after, fresh); // exactly what a store that read every point answers
    }
    // Damage: a torn tail and flipped bytes cost the cache, never an answer.
    QFile file(summaries);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QByteArray bytes = file.readAll();
    bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x5A);
    file.seek(0);
    file.write(bytes.left(bytes.size() - 7));
    file.resize(bytes.size() - 7);
    file.close();
    {
        auto store = openStore(dir.path());
        QVERIFY(QFileInfo(summaries).size() < bytes.size()); // cut back to whole records
        QCOMPARE(store->query(u"r"_s, u"loss"_s, window)->total, 11'010);
    }
    // A series that lost points on disk drops its longer summary.
    QVERIFY(QFile::resize(dir.path() + u"/data/0.dat"_s, 16 + 24 * 100)); // loss' first extent
    auto store = openStore(dir.path());
    QCOMPARE(store->series(u"r"_s)[1].count, 100);
    QVERIFY(!store->series(u"r"_s)[1].range); // not the summary of 11,010 points
    QCOMPARE(store->query(u"r"_s, u"loss"_s, window)->total, 100);
    QCOMPARE(store->series(u"r"_s)[1].range, std::optional(std::pair(0.0, 49.5)));
}

void TestMetricStore::runsFoundByTheirWords() {
    QTemporaryDir dir;
    auto store = openStore(dir.path());
    auto info = [](const QString &name, const QString &note) {
        sb::RunInfo run{name, {}, {}, {}, {}, {}};
        run.config = QJsonObject{{u"optimizer"_s, u"AdamW"_s}};
        run.note = note;
        return run;
    };
    for (const auto &[name, note] : {std::pair{u"b"_s, u"Ärger mit dem LR"_s},
                                     std::pair{u"a"_s, u"warmup"_s}, std::pair{u"c"_s, u""_s}}) {
        const sb::RunInfo run = info(name, note);
        QVERIFY(store->append(name, {}, &run).ok());
    }
    auto find = [&](const QString &text) {
        return store->runsMentioning(text.toLower().toUtf8());
    };
    QCOMPARE(find(u"adamw"_s), (QStringList{u"a"_s, u"b"_s, u"c"_s})); // name order, any case
    QCOMPARE(find(u"ÄRGER"_s), QStringList{u"b"_s});                   // beyond ASCII too
    QCOMPARE(find(u"warmup"_s), QStringList{u"a"_s});
    QCOMPARE(find(u"\"b\""_s), QStringList{u"b"_s}); // JSON text: the name with its quotes
    QVERIFY(find(u"}{"_s).isEmpty());                // never across two runs
    QVERIFY(find(u"\n"_s).isEmpty());
    // A run's change is found at once.
    const sb::RunInfo changed = info(u"c"_s, u"warmup again"_s);
    QVERIFY(store->append(u"c"_s, {}, &changed).ok());
    QCOMPARE(find(u"warmup"_s), (QStringList{u"a"_s, u"c"_s}));
}

void TestMetricStore::batchKeysNeverCollide() {
    using Batch = sb::MetricStore::Batch;
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        const QString nul(QChar(0));
        // Before, "a\0b" + "c" and "a" + "b\0c" made one key, and the second was never stored.
        QCOMPARE(
            store->append(u"a"_s + nul + u"b"_s, {ramp(u"x"_s, 0, 1)}, nullptr, u"c"_s).value(),
            true);
        QCOMPARE(
            store->append(u"a"_s, {ramp(u"x"_s, 0, 1)}, nullptr, u"b"_s + nul + u"c"_s).value(),
            true);
        // A batch in parts and a whole one with the same id are two.
        QCOMPARE(
            store->append(u"r"_s, {ramp(u"x"_s, 0, 1)}, nullptr, u"7"_s, Batch::InParts).value(),
            true);
        QVERIFY(!store->storedBatch(u"r"_s, u"7"_s, Batch::Whole));
        QCOMPARE(store->append(u"r"_s, {ramp(u"x"_s, 1, 1)}, nullptr, u"7"_s).value(), true);
        QCOMPARE(store->append(u"r"_s, {ramp(u"x"_s, 2, 1)}, nullptr, u"7 (lines)"_s).value(),
                 true);
        QCOMPARE(store->series(u"r"_s).front().count, 3);
    }
    // An earlier version's batch records ("run\0id", " (lines)" after a batch in parts) still
    // count, next to this version's.
    QFile journal(dir.filePath(u"journal"_s));
    QVERIFY(journal.open(QIODevice::Append));
    for (const QByteArray &payload : {QByteArray("old\0p (lines)", 13), QByteArray("old\0w", 5)}) {
        char header[16];
        qToLittleEndian<quint32>(0x314A4253, header);
        qToLittleEndian<quint32>(4, header + 4);
        qToLittleEndian<quint32>(quint32(payload.size()), header + 8);
        qToLittleEndian<quint32>(sb::crc32c(payload, sb::crc32c(QByteArrayView(header + 4, 4))),
                                 header + 12);
        journal.write(header, 16);
        journal.write(payload);
    }
    journal.close();
    auto store = openStore(dir.path());
    QVERIFY(store->storedBatch(u"r"_s, u"7"_s, Batch::InParts));
    QVERIFY(store->storedBatch(u"r"_s, u"7"_s, Batch::Whole));
    QVERIFY(store->storedBatch(u"a"_s, u"b"_s + QChar(0) + u"c"_s));
    QVERIFY(!store->storedBatch(u"a"_s + QChar(0) + u"b"_s, u"c"_s + QChar(0)));
    QVERIFY(store->storedBatch(u"old"_s, u"p"_s, Batch::InParts));
    QVERIFY(!store->storedBatch(u"old"_s, u"p"_s, Batch::Whole));
    QVERIFY(store->storedBatch(u"old"_s, u"w"_s, Batch::Whole));
    QCOMPARE(store->append(u"old"_s, {ramp(u"x"_s, 0, 1)}, nullptr, u"w"_s).value(), false);
}

void TestMetricStore::linksAndSpecialFilesAreNeverFollowed() {
    QTemporaryDir outside;
    const QString precious = outside.filePath(u"precious"_s);
    auto writePrecious = [&] {
        QFile file(precious);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write("not the store's\n");
    };
    for (const QString &name : {u"summaries"_s, u"journal"_s, u"data/0.dat"_s, u"lock"_s,
                                u"recovery.json"_s, u"journal.new"_s}) {
        QTemporaryDir dir;
        {
            auto store = openStore(dir.path());
            QVERIFY(store->append(u"r"_s, {ramp(u"loss"_s, 0, 100)}).ok());
            QVERIFY(store->query(u"r"_s, u"loss"_s, {}).ok());
            QVERIFY(store->saveSummaries().ok());
        }
        writePrecious();
        QFile::remove(dir.filePath(name));
        QVERIFY(QFile::link(precious, dir.filePath(name)));
        if (name == u"journal.new"_s) { // with a note to say, the open compacts the journal
            QFile::remove(dir.filePath(u"summaries"_s));
            QVERIFY(QFile::link(precious, dir.filePath(u"summaries"_s)));
        }
        {
            auto store = openStore(dir.path());
            (void)store->append(u"r"_s, {ramp(u"loss"_s, 100, 10)});
            (void)store->saveSummaries();
            if (name != u"journal.new"_s)
                QVERIFY2(
                    store->recoveryNotes().join(u' ').contains(name + u" was a symbolic link"_s),
                    qPrintable(name));
        }
        QFile file(precious);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("not the store's\n"));
        QVERIFY(QFileInfo(precious).isFile());
    }
    // A FIFO as the journal: refused without waiting for a writer, the store goes on.
    QTemporaryDir dir;
    { auto store = openStore(dir.path()); }
    QFile::remove(dir.filePath(u"journal"_s));
    QCOMPARE(::mkfifo(QFile::encodeName(dir.filePath(u"journal"_s)).constData(), 0600), 0);
    auto store = openStore(dir.path());
    QVERIFY(store->append(u"r"_s, {ramp(u"loss"_s, 0, 5)}).ok());
    QVERIFY(QFileInfo(dir.filePath(u"journal"_s)).isFile());
}

void TestMetricStore::aSharedDirectoryIsRefusedAndKept() {
    QTemporaryDir dir;
    QCOMPARE(::chmod(QFile::encodeName(dir.path()).constData(), 01777), 0);
    const auto refused = MetricStore::open(dir.path());
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(u"writable by every user"_s), qPrintable(refused.error()));
    struct stat info {};
    QCOMPARE(::stat(QFile::encodeName(dir.path()).constData(), &info), 0);
    QCOMPARE(info.st_mode & 07777, 01777u);
    QVERIFY(QDir(dir.path()).isEmpty());
    // A new directory in it is the store's own, and private.
    const QString mine = dir.filePath(u"mine"_s);
    QVERIFY(MetricStore::open(mine));
    QCOMPARE(::stat(QFile::encodeName(mine).constData(), &info), 0);
    QCOMPARE(info.st_mode & 0777, 0700u);
}

// A data file cut short under a running store: reading the points it lost is an error, never
// zeros (which would reach charts, exports and the summaries cache).
void TestMetricStore::aFailedReadIsAnErrorNotZeros() {
    QTemporaryDir dir;
    auto store = openStore(dir.path());
    QVERIFY(store->append(u"r"_s, {ramp(u"loss"_s, 0, 1000)}).ok());
    const QDir data(dir.path() + u"/data"_s);
    const QStringList files = data.entryList(QDir::Files);
    QCOMPARE(files.size(), 1);
    QFile file(data.filePath(files.first()));
    QVERIFY(file.resize(16 + 10 * 24)); // the header and the first 10 points are left

    sb::SeriesWindow window;
    window.width = 100;
    const auto queried = store->query(u"r"_s, u"loss"_s, window);
    QVERIFY(!queried.ok());
    QVERIFY2(queried.error().contains(files.first()), qPrintable(queried.error()));
    QVERIFY(!store->series(u"r"_s)[0].range); // the summaries cache was not filled
    QVERIFY(store->summarize(QDeadlineTimer(10000)));
    QVERIFY(!store->series(u"r"_s)[0].range);
    QVERIFY(!store->openSeries(u"r"_s, u"loss"_s).ok());

    QVERIFY(!store->exportCsv(u"r"_s, u"loss"_s).ok());
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QVERIFY(!store->exportCsv(u"r"_s, u"loss"_s, &buffer).ok());
    // What is missing is still told apart from what cannot be read.
    QCOMPARE(store->query(u"r"_s, u"missing"_s, window).errorCode(), sb::ErrorCode::Failed);
    QCOMPARE(queried.errorCode(), sb::ErrorCode::StorageFailed);
}

// A summary restored from the cache outlives a read that failed past it, and summarize() does
// not read the series again until its count changes.
void TestMetricStore::anUnreadableSeriesIsReadAgainOnlyOnceItGrows() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        QVERIFY(store->append(u"r"_s, {ramp(u"loss"_s, 0, 100)}).ok());
        QVERIFY(store->summarize(QDeadlineTimer(10000)));
        QVERIFY(store->saveSummaries().ok());
        QVERIFY(store->append(u"r"_s, {ramp(u"loss"_s, 100, 100)}).ok()); // never saved
    }
    auto store = openStore(dir.path());
    const std::pair<double, double> restored{0, 49.5}; // of the first 100 points
    QVERIFY(store->series(u"r"_s)[0].range == restored);
    const QDir data(dir.path() + u"/data"_s);
    const QStringList files = data.entryList(QDir::Files);
    QCOMPARE(files.size(), 1);
    QFile file(data.filePath(files.first()));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray whole = file.readAll();
    file.close();
    QVERIFY(file.resize(16 + 10 * 24)); // the points the summary lacks cannot be read

    QVERIFY(store->summarize(u"r"_s, QDeadlineTimer(10000)));
    QVERIFY(store->series(u"r"_s)[0].range == restored); // kept, not thrown away
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(whole), whole.size()); // readable again, but the count is the same
    file.close();
    QVERIFY(store->summarize(u"r"_s, QDeadlineTimer(10000)));
    QVERIFY(store->summarize(QDeadlineTimer(10000)));
    QVERIFY(store->series(u"r"_s)[0].range == restored); // not read again
    QVERIFY(store->append(u"r"_s, {ramp(u"loss"_s, 200, 1)}).ok());
    QVERIFY(store->summarize(u"r"_s, QDeadlineTimer(10000)));
    const std::pair<double, double> grown{0, 100};
    QVERIFY(store->series(u"r"_s)[0].range == grown);
}
