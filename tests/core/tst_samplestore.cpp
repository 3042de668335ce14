// The store's samples (images, histograms, text, audio): stored as points are (whole or not at
// all, crash-safe, recovery that never destroys), each blob once, and read back by run, tag
// and step range.
#include "../support/MediaBytes.h"
#include "../support/StoreHelpers.h"
#include "metrics/store/MetricStore.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace Qt::StringLiterals;
using sb::MetricStore;
using sb::Sample;
using sb::SampleKind;

namespace {

using store_helpers::openStore;

// An item as a push or a logdir gives it: checked, so its facts and digest are set.
Sample item(const QString &tag, SampleKind kind, double step, QByteArray bytes,
            sb::SampleFacts facts = {}) {
    Sample sample{tag, kind, step, 1.7e9 + step, 0, facts, std::move(bytes), {}};
    if (sb::Status checked = sb::checkSample(&sample); !checked)
        qFatal("not a valid sample: %s", qPrintable(checked.error()));
    return sample;
}

Sample histogram(const QString &tag, double step) {
    const QByteArray buckets = sb::encodeBuckets({{-1, 0, 3}, {0, 1, 5 + step}});
    return item(tag, SampleKind::Histogram, step, buckets, {-1, 1, 8 + step, qQNaN()});
}

std::vector<double> steps(const MetricStore::SamplePage &page) {
    std::vector<double> out;
    for (const auto &found : page.samples)
        out.push_back(found.item.step);
    return out;
}

} // namespace

class TestSampleStore final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyKindIsStoredListedAndReadBack();
    void theSameBytesAreStoredOnce();
    void aBatchIsRefusedWholeAndATagKeepsItsKind();
    void stepRangesComeInStepOrder();
    void aTornCommitLeavesNothingOfItsBatch();
    void compactionKeepsEverySample();
    void aLostDataFileIsSaidAndItsBlobsFailToRead();
    void onlyAStoreWithSamplesSaysTheNewFormat();
    void hostileItemsAreRefusedInWords();
    void aFullTagRefusesMoreAndNothingElse();
};

void TestSampleStore::everyKindIsStoredListedAndReadBack() {
    QTemporaryDir dir;
    const QByteArray image = media_bytes::png(64, 32);
    const QByteArray clip = media_bytes::wav(16000, 1, 3200, 3200);
    const QByteArray table = R"([["a","b"],["c","d"]])";
    {
        auto store = openStore(dir.path());
        const auto stored = store->appendSamples(
            u"r"_s, {item(u"samples/x"_s, SampleKind::Image, 10, image), histogram(u"w"_s, 10),
                     item(u"note"_s, SampleKind::Text, 10, "héllo"),
                     item(u"grid"_s, SampleKind::Text, 10, table, {2, 2, 0, 0}),
                     item(u"voice"_s, SampleKind::Audio, 10, clip)});
        QCOMPARE(stored.value(), 5);
        QVERIFY(store->run(u"r"_s)); // the run exists, with its start
        QCOMPARE(*store->run(u"r"_s)->start, 1.7e9 + 10);
    }
    auto store = openStore(dir.path());
    QVERIFY(store->recoveryNotes().isEmpty());
    const auto tags = store->sampleTags(u"r"_s);
    QCOMPARE(tags.size(), std::size_t(5));
    QCOMPARE(tags[0].tag, u"grid"_s); // in tag order
    QCOMPARE(tags[0].kind, SampleKind::Text);
    const auto images = store->samples(u"r"_s, u"samples/x"_s, {}, {}, 0, 10);
    QVERIFY(images.ok());
    QCOMPARE(images->kind, SampleKind::Image);
    QCOMPARE(images->total, 1);
    QCOMPARE(images->samples[0].item.facts[0], 64.0); // from the image's own header
    QCOMPARE(images->samples[0].item.facts[1], 32.0);
    QCOMPARE(store->readBlob(images->samples[0].digest).value(), image);
    const auto clips = store->samples(u"r"_s, u"voice"_s, {}, {}, 0, 10);
    QCOMPARE(clips->samples[0].item.facts[0], 16000.0);
    QCOMPARE(clips->samples[0].item.facts[1], 1600.0); // frames
    QCOMPARE(store->readBlob(clips->samples[0].digest).value(), clip);
    const auto weights = store->samples(u"r"_s, u"w"_s, {}, {}, 0, 10);
    const auto buckets = sb::decodeBuckets(store->readBlob(weights->samples[0].digest).value());
    QCOMPARE(buckets->size(), std::size_t(2));
    QCOMPARE(buckets->at(1).count, 15.0);
    QCOMPARE(weights->samples[0].item.facts[2], 18.0);
    QVERIFY(std::isnan(weights->samples[0].item.facts[3]));
    const auto note = store->samples(u"r"_s, u"note"_s, {}, {}, 0, 10);
    QCOMPARE(QString::fromUtf8(store->readBlob(note->samples[0].digest).value()), u"héllo"_s);
    QCOMPARE(store->samples(u"r"_s, u"grid"_s, {}, {}, 0, 1)->samples[0].item.facts[0], 2.0);
    // Missing is said, and is not a storage failure.
    const auto missing = store->samples(u"r"_s, u"nothing"_s, {}, {}, 0, 10);
    QVERIFY(!missing);
    QCOMPARE(missing.errorCode(), sb::ErrorCode::Failed);
    QCOMPARE(store->readBlob(QByteArray(32, 'x')).errorCode(), sb::ErrorCode::Failed);
}

void TestSampleStore::theSameBytesAreStoredOnce() {
    QTemporaryDir dir;
    auto store = openStore(dir.path());
    const QByteArray image = media_bytes::png(8, 8, QByteArray(100'000, '\0'));
    QCOMPARE(store->appendSamples(u"a"_s, {item(u"x"_s, SampleKind::Image, 1, image)}).value(), 1);
    const qint64 afterFirst = QFile(dir.path() + u"/data/0.dat"_s).size();
    // Another run, another tag, another step: the same bytes, one blob.
    QCOMPARE(store
                 ->appendSamples(u"b"_s, {item(u"y"_s, SampleKind::Image, 2, image),
                                          item(u"z"_s, SampleKind::Image, 2, image)})
                 .value(),
             2);
    QCOMPARE(QFile(dir.path() + u"/data/0.dat"_s).size(), afterFirst);
    // The very same item again (a file read again after a restart): nothing new.
    QCOMPARE(store->appendSamples(u"a"_s, {item(u"x"_s, SampleKind::Image, 1, image)}).value(), 0);
    QCOMPARE(store->samples(u"a"_s, u"x"_s, {}, {}, 0, 10)->total, 1);
    // The same bytes at another step are another item.
    QCOMPARE(store->appendSamples(u"a"_s, {item(u"x"_s, SampleKind::Image, 5, image)}).value(), 1);
    QCOMPARE(store->samples(u"a"_s, u"x"_s, {}, {}, 0, 10)->total, 2);
}

void TestSampleStore::aBatchIsRefusedWholeAndATagKeepsItsKind() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        QVERIFY(store->appendSamples(u"r"_s, {histogram(u"t"_s, 0)}).ok());
        const QByteArray fresh = media_bytes::png(3, 3, "fresh");
        const auto refused = store->appendSamples(
            u"r"_s, {item(u"u"_s, SampleKind::Image, 1, fresh),
                     item(u"t"_s, SampleKind::Image, 1, media_bytes::png(2, 2))});
        QVERIFY(!refused);
        QCOMPARE(refused.errorCode(), sb::ErrorCode::InvalidInput);
        QVERIFY(refused.error().contains(u"holds histogram samples, not image"_s));
        QCOMPARE(store->sampleTags(u"r"_s).size(), std::size_t(1));
        QVERIFY(!store->readBlob(sb::sampleDigest(fresh)));
        // The room the refused batch took is taken back: the next item lies where it was.
        QVERIFY(store->appendSamples(u"r"_s, {item(u"u"_s, SampleKind::Image, 1, fresh)}).ok());
    }
    auto store = openStore(dir.path());
    QVERIFY(store->recoveryNotes().isEmpty());
    QCOMPARE(store->sampleTags(u"r"_s).size(), std::size_t(2));
    QCOMPARE(store->samples(u"r"_s, u"t"_s, {}, {}, 0, 10)->total, 1);
    QCOMPARE(store->samples(u"r"_s, u"u"_s, {}, {}, 0, 10)->total, 1);
}

void TestSampleStore::stepRangesComeInStepOrder() {
    QTemporaryDir dir;
    auto store = openStore(dir.path());
    for (const double step : {0.0, 1.0, 2.0, 3.0, 4.0})
        QVERIFY(store->appendSamples(u"up"_s, {histogram(u"h"_s, step)}).ok());
    QCOMPARE(steps(*store->samples(u"up"_s, u"h"_s, 1, 3, 0, 10)), (std::vector<double>{1, 2, 3}));
    QCOMPARE(steps(*store->samples(u"up"_s, u"h"_s, 1, {}, 1, 2)), (std::vector<double>{2, 3}));
    QCOMPARE(store->samples(u"up"_s, u"h"_s, 1, {}, 1, 2)->total, 4);
    // A restarted run logs earlier steps again: still every item, in step order.
    for (const double step : {5.0, 1.0, 3.0, 2.0, 4.0})
        QVERIFY(store->appendSamples(u"back"_s, {histogram(u"h"_s, step)}).ok());
    QCOMPARE(steps(*store->samples(u"back"_s, u"h"_s, 2, 4, 0, 10)),
             (std::vector<double>{2, 3, 4}));
    QCOMPARE(steps(*store->samples(u"back"_s, u"h"_s, {}, {}, 3, 10)), (std::vector<double>{4, 5}));
    // Read again (a logdir after a restart): each item is known, without a scan of the tag.
    for (const double step : {5.0, 1.0, 3.0})
        QCOMPARE(store->appendSamples(u"back"_s, {histogram(u"h"_s, step)}).value(), 0);
    const auto tags = store->sampleTags(u"back"_s);
    QCOMPARE(tags[0].firstStep, 1.0);
    QCOMPARE(tags[0].lastStep, 5.0);
}

void TestSampleStore::aTornCommitLeavesNothingOfItsBatch() {
    QTemporaryDir dir;
    const QByteArray first = media_bytes::png(4, 4, "first");
    const QByteArray second = media_bytes::png(4, 4, "second");
    qint64 before = 0;
    {
        auto store = openStore(dir.path());
        QVERIFY(store->appendSamples(u"r"_s, {item(u"x"_s, SampleKind::Image, 1, first)}).ok());
        before = QFile(dir.path() + u"/journal"_s).size();
        QVERIFY(store->appendSamples(u"r"_s, {item(u"x"_s, SampleKind::Image, 2, second)}).ok());
    }
    // The kill came while the second batch's record was being written: its bytes are in the
    // data file, its record half in the journal.
    QVERIFY(QFile::resize(dir.path() + u"/journal"_s, before + 20));
    {
        auto store = openStore(dir.path());
        QVERIFY(store->recoveryNotes().join(u' ').contains(u"torn"_s));
        QCOMPARE(steps(*store->samples(u"r"_s, u"x"_s, {}, {}, 0, 10)), (std::vector<double>{1}));
        // Sent again, it is stored.
        QVERIFY(store->appendSamples(u"r"_s, {item(u"x"_s, SampleKind::Image, 2, second)}).ok());
    }
    auto store = openStore(dir.path());
    const auto page = store->samples(u"r"_s, u"x"_s, {}, {}, 0, 10);
    QCOMPARE(steps(*page), (std::vector<double>{1, 2}));
    QCOMPARE(store->readBlob(page->samples[0].digest).value(), first);
    QCOMPARE(store->readBlob(page->samples[1].digest).value(), second);
}

void TestSampleStore::compactionKeepsEverySample() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        QVERIFY(store->append(u"r"_s, {{u"loss"_s, {{0, 1, 1.7e9}}}}).ok());
        for (int step = 0; step < 3000; ++step)
            QVERIFY(store
                        ->appendSamples(u"r"_s, {histogram(u"h"_s, step),
                                                 item(u"t"_s, SampleKind::Text, step, "same")})
                        .ok());
    }
    // A torn tail makes the next open compact: the snapshot must hold every sample and blob.
    QFile journal(dir.path() + u"/journal"_s);
    QVERIFY(journal.open(QIODevice::Append));
    journal.write("SBJ1\x0d\x00", 6);
    journal.close();
    const qint64 grown = QFile(dir.path() + u"/journal"_s).size();
    {
        auto store = openStore(dir.path());
        QCOMPARE(store->samples(u"r"_s, u"h"_s, {}, {}, 0, 1)->total, 3000);
    }
    QVERIFY(QFile(dir.path() + u"/journal"_s).size() < grown); // compacted
    auto store = openStore(dir.path());
    QCOMPARE(store->samples(u"r"_s, u"h"_s, {}, {}, 0, 1)->total, 3000);
    QCOMPARE(store->samples(u"r"_s, u"t"_s, {}, {}, 0, 1)->total, 3000);
    const auto last = store->samples(u"r"_s, u"h"_s, 2999, {}, 0, 1);
    QCOMPARE(sb::decodeBuckets(store->readBlob(last->samples[0].digest).value())->at(1).count,
             3004.0);
    QCOMPARE(store->totalPoints(), 1);
}

void TestSampleStore::aLostDataFileIsSaidAndItsBlobsFailToRead() {
    QTemporaryDir dir;
    {
        auto store = openStore(dir.path());
        QVERIFY(store->appendSamples(u"r"_s, {histogram(u"h"_s, 1)}).ok());
    }
    QVERIFY(QFile::remove(dir.path() + u"/data/0.dat"_s));
    auto store = openStore(dir.path());
    const QString notes = store->recoveryNotes().join(u'\n');
    QVERIFY2(notes.contains(u"data/0.dat is missing"_s), qPrintable(notes));
    QVERIFY2(notes.contains(u"1 blobs"_s), qPrintable(notes));
    // Still listed, as the record says; reading fails, and says so.
    const auto page = store->samples(u"r"_s, u"h"_s, {}, {}, 0, 10);
    QCOMPARE(page->total, 1);
    const auto read = store->readBlob(page->samples[0].digest);
    QVERIFY(!read);
    QCOMPARE(read.errorCode(), sb::ErrorCode::StorageFailed);
    // New items go to a new file, never over what was lost.
    QVERIFY(store->appendSamples(u"r"_s, {histogram(u"h"_s, 2)}).ok());
    QVERIFY(!QFile::exists(dir.path() + u"/data/0.dat"_s));
    // The same bytes logged again are written anew, and read.
    QCOMPARE(store->appendSamples(u"r"_s, {histogram(u"h"_s, 1)}).value(), 0); // item known
    QVERIFY(store->readBlob(page->samples[0].digest).ok());
    QVERIFY(store->acknowledgeRecovery().ok());
    store.reset();
    // The loss was said once: the next start finds nothing new to say.
    store = openStore(dir.path());
    QVERIFY2(store->recoveryNotes().isEmpty(), qPrintable(store->recoveryNotes().join(u'\n')));
    QVERIFY(store->readBlob(page->samples[0].digest).ok());
    QCOMPARE(store->samples(u"r"_s, u"h"_s, {}, {}, 0, 10)->total, 2);
}

void TestSampleStore::onlyAStoreWithSamplesSaysTheNewFormat() {
    QTemporaryDir dir;
    auto journalFormats = [&] {
        QFile file(dir.path() + u"/journal"_s);
        (void)file.open(QIODevice::ReadOnly);
        const QByteArray bytes = file.readAll();
        // A Format record: its type (6) after the magic, then 4 bytes of length (4).
        QList<int> formats;
        for (qsizetype at = bytes.indexOf("SBJ1\x06\x00\x00\x00\x04", 0); at >= 0;
             at = bytes.indexOf("SBJ1\x06\x00\x00\x00\x04", at + 1))
            formats << int(quint8(bytes[at + 16]));
        return formats;
    };
    {
        auto store = openStore(dir.path());
        QVERIFY(store->append(u"r"_s, {{u"loss"_s, {{0, 1, 1.7e9}}}}).ok());
    }
    QCOMPARE(journalFormats(), QList<int>{2}); // an earlier Signalbox still opens it
    {
        auto store = openStore(dir.path());
        QVERIFY(store->appendSamples(u"r"_s, {histogram(u"h"_s, 1)}).ok());
        QVERIFY(store->appendSamples(u"r"_s, {histogram(u"h"_s, 2)}).ok());
    }
    QCOMPARE(journalFormats(), (QList<int>{2, 3})); // said once, with the first sample
    auto store = openStore(dir.path());
    QCOMPARE(store->samples(u"r"_s, u"h"_s, {}, {}, 0, 10)->total, 2);
}

void TestSampleStore::hostileItemsAreRefusedInWords() {
    auto refusal = [](Sample sample) {
        const sb::Status checked = sb::checkSample(&sample);
        return checked ? QString() : checked.error();
    };
    auto raw = [](SampleKind kind, QByteArray bytes, sb::SampleFacts facts = {}) {
        return Sample{u"t"_s, kind, 1, 1.7e9, 0, facts, std::move(bytes), {}};
    };
    QVERIFY(
        refusal(raw(SampleKind::Image, media_bytes::png(100000, 100000))).contains(u"pixels"_s));
    QByteArray cut = media_bytes::jpeg(10, 10);
    cut.chop(2); // no end marker
    QVERIFY(!refusal(raw(SampleKind::Image, cut)).isEmpty());
    QVERIFY(!refusal(raw(SampleKind::Audio, media_bytes::wav(16000, 1, 1 << 30, 100))).isEmpty());
    QVERIFY(refusal(raw(SampleKind::Text, "\xff\xfe")).contains(u"UTF-8"_s));
    QVERIFY(refusal(raw(SampleKind::Text, QByteArray(sb::kMostTextBytes + 1, 'a')))
                .contains(u"more than"_s));
    QVERIFY(refusal(raw(SampleKind::Text, "[[\"a\"]]", {2, 1, 0, 0})).contains(u"rows"_s));
    const QByteArray nanEdge = sb::encodeBuckets({{qQNaN(), 1, 1}});
    QVERIFY(refusal(raw(SampleKind::Histogram, nanEdge, {0, 1, 1, 0})).contains(u"finite"_s));
    QVERIFY(refusal(raw(SampleKind::Histogram, QByteArray(24 * (sb::kMostHistogramBuckets + 1), 0),
                        {0, 1, 1, 0}))
                .contains(u"the most is"_s));
    QVERIFY(
        refusal(raw(SampleKind::Histogram, QByteArray(25, 0), {0, 1, 1, 0})).contains(u"whole"_s));
    QVERIFY(refusal(raw(SampleKind::Histogram, {}, {2, 1, 1, 0})).contains(u"min"_s));
    QVERIFY(refusal(raw(SampleKind::Image, QByteArray(sb::kMostBlobBytes + 1, 0)))
                .contains(u"bytes"_s));
    Sample infinite = raw(SampleKind::Text, "x");
    infinite.step = qInf();
    QVERIFY(refusal(infinite).contains(u"finite"_s));
    QVERIFY(refusal(Sample{{}, SampleKind::Text, 1, 1, 0, {}, "x", {}}).contains(u"tag"_s));
}

void TestSampleStore::aFullTagRefusesMoreAndNothingElse() {
    QTemporaryDir dir;
    auto store = openStore(dir.path());
    const Sample one = item(u"many"_s, SampleKind::Text, 0, "step");
    std::vector<Sample> batch(std::size_t(sb::SampleTable::kMostSamplesPerTag), one);
    for (std::size_t i = 0; i < batch.size(); ++i)
        batch[i].step = double(i);
    std::vector<Sample> tooMany = batch;
    tooMany.push_back(one);
    tooMany.back().step = -1;
    const auto refused = store->appendSamples(u"r"_s, tooMany);
    QVERIFY(!refused);
    QVERIFY(refused.error().contains(u"the most a tag keeps"_s));
    QVERIFY(store->sampleTags(u"r"_s).empty());
    // What the refused batch wrote is of no record: the next start has nothing to keep aside.
    store.reset();
    store = openStore(dir.path());
    QVERIFY2(store->recoveryNotes().isEmpty(), qPrintable(store->recoveryNotes().join(u'\n')));
    QCOMPARE(store->appendSamples(u"r"_s, batch).value(), sb::SampleTable::kMostSamplesPerTag);
    Sample more = one;
    more.step = -1;
    QVERIFY(!store->appendSamples(u"r"_s, {more}));
    // Other tags, and other runs, go on.
    QVERIFY(store->appendSamples(u"r"_s, {histogram(u"h"_s, 0)}).ok());
    QVERIFY(store->appendSamples(u"s"_s, {more}).ok());
}

QTEST_GUILESS_MAIN(TestSampleStore)
#include "tst_samplestore.moc"
