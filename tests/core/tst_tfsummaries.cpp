// TensorBoard's other kinds (images, histograms, text, audio, hparams), decoded from messages
// built here field by field; real writers' files are compared with TensorBoard's own reader in
// tests/integration/test_tensorboard_compat.py.
#include "../support/MediaBytes.h"
#include "tensorboard/EventParser.h"
#include "tensorboard/Summaries.h"
#include "util/MediaHeaders.h"

#include <QJsonArray>
#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>

using namespace Qt::StringLiterals;
using media_bytes::jpeg;
using media_bytes::png;
using media_bytes::wav;

namespace {

// Protocol buffers' wire format, written.
QByteArray varint(quint64 value) {
    QByteArray out;
    do {
        out.append(static_cast<char>((value & 0x7F) | (value > 0x7F ? 0x80 : 0)));
        value >>= 7;
    } while (value);
    return out;
}
QByteArray bytesField(int field, const QByteArray &bytes) {
    return varint(static_cast<quint64>(field) << 3 | 2) + varint(bytes.size()) + bytes;
}
QByteArray varintField(int field, quint64 value) {
    return varint(static_cast<quint64>(field) << 3) + varint(value);
}
QByteArray doubleField(int field, double value) {
    QByteArray out = varint(static_cast<quint64>(field) << 3 | 1);
    out.append(reinterpret_cast<const char *>(&value), 8);
    return out;
}
QByteArray packedDoubles(int field, const std::vector<double> &values) {
    QByteArray packed;
    for (const double v : values)
        packed.append(reinterpret_cast<const char *>(&v), 8);
    return bytesField(field, packed);
}
QByteArray shape(const std::vector<qint64> &dims) {
    QByteArray out;
    for (const qint64 d : dims)
        out += bytesField(2, varintField(1, static_cast<quint64>(d)));
    return bytesField(2, out);
}
QByteArray stringTensor(const std::vector<qint64> &dims, const QList<QByteArray> &strings) {
    QByteArray tensor = varintField(1, 7) + shape(dims);
    for (const QByteArray &s : strings)
        tensor += bytesField(8, s);
    return tensor;
}
QByteArray doubleTensor(const std::vector<qint64> &dims, const std::vector<double> &values) {
    QByteArray content;
    for (const double v : values)
        content.append(reinterpret_cast<const char *>(&v), 8);
    return varintField(1, 2) + shape(dims) + bytesField(4, content);
}

// A value with its plugin's metadata, decoded the way the follower does.
sb::TfEvent::Value parsed(const QByteArray &valueFields, QByteArray *keep) {
    *keep = varintField(2, 7) + bytesField(5, bytesField(1, valueFields));
    sb::TfEvent event;
    if (!sb::parseEvent(*keep, &event) || event.values.size() != 1)
        return {};
    return event.values.front();
}
QByteArray plugin(const char *name, const QByteArray &content = {}) {
    QByteArray data = bytesField(1, name);
    if (!content.isEmpty())
        data += bytesField(2, content);
    return bytesField(9, bytesField(1, data));
}

sb::Result<std::optional<sb::SampleData>> decode(const QByteArray &valueFields,
                                                 sb::SummaryKind *kind = nullptr) {
    QByteArray record;
    const sb::TfEvent::Value value = parsed(valueFields, &record);
    bool remember = false;
    const sb::SummaryKind k = sb::summaryKind(value, std::nullopt, &remember);
    if (kind)
        *kind = k;
    return sb::decodeSample(value, k);
}

template <typename T> T sampleOf(const sb::Result<std::optional<sb::SampleData>> &decoded) {
    if (!decoded || !*decoded || !std::holds_alternative<T>(**decoded))
        return {};
    return std::get<T>(**decoded);
}

} // namespace

class TestTfSummaries : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void kindsFollowPluginsAndTf1Fields();
    void imagesTf1AndTf2();
    void imageHeadersAreCheckedBeforeAnyDecoding();
    void histogramsTf1MigratedAsTensorBoardDoes();
    void histogramsTf2AndTheirBounds();
    void textAndTables();
    void audioAndLyingWavHeaders();
    void hparamsOfASessionStart();
};

void TestTfSummaries::kindsFollowPluginsAndTf1Fields() {
    QByteArray keep;
    bool remember = false;
    // The first value of a tag names its plugin; later values carry no metadata.
    const auto first = parsed(
        bytesField(1, "t") + bytesField(8, stringTensor({1}, {"x"})) + plugin("text"), &keep);
    QCOMPARE(sb::summaryKind(first, std::nullopt, &remember), sb::SummaryKind::Text);
    QVERIFY(remember);
    QByteArray keep2;
    const auto later = parsed(bytesField(1, "t") + bytesField(8, stringTensor({1}, {"y"})), &keep2);
    QCOMPARE(sb::summaryKind(later, sb::SummaryKind::Text, &remember), sb::SummaryKind::Text);
    QVERIFY(!remember);
    QCOMPARE(sb::summaryKind(later, std::nullopt, &remember), sb::SummaryKind::Other);
    // TF1 fields are filed by the field, whatever the tag was before.
    QByteArray keep3;
    const auto histo = parsed(bytesField(1, "h") + bytesField(5, doubleField(3, 0)), &keep3);
    QCOMPARE(sb::summaryKind(histo, sb::SummaryKind::Scalar, &remember),
             sb::SummaryKind::Histogram);
    // A plugin nobody here shows is other, and a scalar stays a scalar.
    QByteArray keep4;
    const auto pr =
        parsed(bytesField(1, "pr") + bytesField(8, stringTensor({1}, {"x"})) + plugin("pr_curves"),
               &keep4);
    QCOMPARE(sb::summaryKind(pr, std::nullopt, &remember), sb::SummaryKind::Other);
    QCOMPARE(sb::summaryKindName(sb::SummaryKind::Histogram), "histogram"_L1);
}

void TestTfSummaries::imagesTf1AndTf2() {
    // TF1: Summary.Image { height = 1; width = 2; encoded = 4 }; the header's size is believed.
    const QByteArray image = png(640, 480);
    auto tf1 = sampleOf<sb::ImageSample>(
        decode(bytesField(1, "img") +
               bytesField(4, varintField(1, 1) + varintField(2, 1) + bytesField(4, image))));
    QCOMPARE(tf1.width, 640);
    QCOMPARE(tf1.height, 480);
    QCOMPARE(tf1.format, "png"_L1);
    QCOMPARE(tf1.images.size(), 1u);
    QCOMPARE(tf1.images.front(), image);
    // TF2: a string tensor [width, height, image...]: a batch of a PNG and a JPEG.
    sb::SummaryKind kind{};
    auto tf2 = sampleOf<sb::ImageSample>(
        decode(bytesField(1, "batch") +
                   bytesField(8, stringTensor({4}, {"64", "32", png(64, 32), jpeg(64, 32)})) +
                   plugin("images"),
               &kind));
    QCOMPARE(kind, sb::SummaryKind::Image);
    QCOMPARE(tf2.images.size(), 2u);
    QCOMPARE(tf2.width, 64);
    QCOMPARE(tf2.height, 32);
    // No images in the batch: nothing to show, not an error.
    const auto empty = decode(bytesField(1, "none") + bytesField(8, stringTensor({2}, {"1", "1"})) +
                              plugin("images"));
    QVERIFY(empty && !*empty);
}

void TestTfSummaries::imageHeadersAreCheckedBeforeAnyDecoding() {
    const auto huge = sb::imageHeader(png(100000, 100000), sb::kMostImagePixels);
    QVERIFY(!huge);
    QVERIFY2(huge.error().contains(u"100000 × 100000 pixels"_s), qPrintable(huge.error()));
    QByteArray cut = jpeg(10, 10);
    cut.chop(2);
    const auto truncated = sb::imageHeader(cut, sb::kMostImagePixels);
    QVERIFY(!truncated);
    QVERIFY(truncated.error().contains(u"truncated JPEG"_s));
    QByteArray cutPng = png(10, 10);
    cutPng.chop(5);
    QVERIFY(!sb::imageHeader(cutPng, sb::kMostImagePixels));
    QVERIFY(!sb::imageHeader("GIF89a", sb::kMostImagePixels));
    QVERIFY(!sb::imageHeader("not an image at all", sb::kMostImagePixels));
    QVERIFY(!sb::imageHeader(png(0, 10), sb::kMostImagePixels));
    QVERIFY(!sb::imageHeader(png(0xFFFFFFFF, 0xFFFFFFFF), sb::kMostImagePixels)); // no overflow
    QCOMPARE(sb::imageHeader(jpeg(300, 200), sb::kMostImagePixels)->width, 300);
    // A batch with one bad image is refused whole, with the reason.
    const auto refused =
        decode(bytesField(1, "b") + bytesField(8, stringTensor({4}, {"1", "1", png(1, 1), cut})) +
               plugin("images"));
    QVERIFY(!refused);
    QVERIFY(refused.error().contains(u"truncated JPEG"_s));
}

void TestTfSummaries::histogramsTf1MigratedAsTensorBoardDoes() {
    // Limits [-DBL_MAX..] with empty buckets at both ends: dropped, min and max as outer edges.
    const double big = std::numeric_limits<double>::max();
    const QByteArray histo = doubleField(1, -0.5) + doubleField(2, 2.5) + doubleField(3, 6) +
                             doubleField(4, 7) + packedDoubles(6, {-1, 0, 1, 2, 3, big}) +
                             packedDoubles(7, {0, 1, 2, 3, 0, 0});
    const auto sample =
        sampleOf<sb::HistogramSample>(decode(bytesField(1, "w") + bytesField(5, histo)));
    QCOMPARE(sample.buckets.size(), 3u);
    QCOMPARE(sample.buckets[0].left, -0.5);
    QCOMPARE(sample.buckets[0].right, 0.0);
    QCOMPARE(sample.buckets[2].left, 1.0);
    QCOMPARE(sample.buckets[2].right, 2.5);
    QCOMPARE(sample.buckets[1].count, 2.0);
    QCOMPARE(sample.num, 6.0);
    QCOMPARE(sample.sum, 7.0);
    // All empty: no buckets, as TensorBoard's [0, 3].
    const auto none = sampleOf<sb::HistogramSample>(decode(
        bytesField(1, "w") + bytesField(5, packedDoubles(6, {1, big}) + packedDoubles(7, {0, 0}))));
    QVERIFY(none.buckets.empty());
    // Limits and counts that disagree are refused.
    QVERIFY(!decode(bytesField(1, "w") +
                    bytesField(5, packedDoubles(6, {1, 2}) + packedDoubles(7, {1}))));
}

void TestTfSummaries::histogramsTf2AndTheirBounds() {
    const auto sample = sampleOf<sb::HistogramSample>(
        decode(bytesField(1, "h") + bytesField(8, doubleTensor({2, 3}, {0, 1, 4, 1, 3, 6})) +
               plugin("histograms")));
    QCOMPARE(sample.buckets.size(), 2u);
    QCOMPARE(sample.min, 0.0);
    QCOMPARE(sample.max, 3.0);
    QCOMPARE(sample.num, 10.0);
    QVERIFY(std::isnan(sample.sum));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto nanEdges =
        decode(bytesField(1, "h") + bytesField(8, doubleTensor({1, 3}, {nan, 1, 4})) +
               plugin("histograms"));
    QVERIFY(!nanEdges);
    QVERIFY(nanEdges.error().contains(u"not finite"_s));
    // Ten million buckets, claimed by the shape with one value standing for all: refused
    // before anything of that size is made.
    const auto many =
        decode(bytesField(1, "h") +
               bytesField(8, varintField(1, 2) + shape({10'000'000, 3}) + doubleField(6, 1)) +
               plugin("histograms"));
    QVERIFY(!many);
    QVERIFY2(many.error().contains(u"10000000 buckets"_s), qPrintable(many.error()));
    QVERIFY(!decode(bytesField(1, "h") + bytesField(8, doubleTensor({2, 2}, {0, 1, 2, 3})) +
                    plugin("histograms")));
    QVERIFY(!decode(bytesField(1, "h") + bytesField(8, doubleTensor({2, 3}, {0, 1, 2})) +
                    plugin("histograms")));
}

void TestTfSummaries::textAndTables() {
    const auto one = sampleOf<sb::TextSample>(decode(
        bytesField(1, "t") + bytesField(8, stringTensor({}, {"héllo <b>"})) + plugin("text")));
    QCOMPARE(one.cells, QStringList{u"héllo <b>"_s});
    QVERIFY(one.shape.empty());
    const auto table = sampleOf<sb::TextSample>(
        decode(bytesField(1, "t") + bytesField(8, stringTensor({2, 2}, {"a", "b", "c", "d"})) +
               plugin("text")));
    QCOMPARE(table.cells, (QStringList{u"a"_s, u"b"_s, u"c"_s, u"d"_s}));
    QCOMPARE(table.shape, (std::vector<qint64>{2, 2}));
    QVERIFY(!decode(bytesField(1, "t") + bytesField(8, stringTensor({3}, {"a"})) + plugin("text")));
    // Empty entries cost two bytes each on the wire: more than 65,536 cells or 8 dimensions are
    // refused before they are kept.
    const QList<QByteArray> cells(70'000, QByteArray());
    const auto many =
        decode(bytesField(1, "t") + bytesField(8, stringTensor({70'000}, cells)) + plugin("text"));
    QVERIFY(!many);
    QVERIFY2(many.error().contains(u"65536 strings"_s), qPrintable(many.error()));
    QVERIFY(!decode(bytesField(1, "t") +
                    bytesField(8, stringTensor(std::vector<qint64>(9, 1), {"a"})) +
                    plugin("text")));
    const auto huge =
        decode(bytesField(1, "t") + bytesField(8, stringTensor({}, {QByteArray(5 << 20, 'x')})) +
               plugin("text"));
    QVERIFY(!huge);
    QVERIFY(huge.error().contains(u"bytes"_s));
}

void TestTfSummaries::audioAndLyingWavHeaders() {
    const QByteArray clip = wav(16000, 1, 3200, 3200);
    // TF1: Summary.Audio; the rate and length are the WAV's own.
    const auto tf1 = sampleOf<sb::AudioSample>(decode(
        bytesField(1, "a") + bytesField(6, bytesField(4, clip) + bytesField(5, "audio/wav"))));
    QCOMPARE(tf1.sampleRate, 16000.0);
    QCOMPARE(tf1.channels, 1);
    QCOMPARE(tf1.frames, 1600);
    QCOMPARE(tf1.contentType, u"audio/wav"_s);
    // TF2: [clips, 2] of clip and label.
    const auto tf2 = sampleOf<sb::AudioSample>(
        decode(bytesField(1, "a") +
               bytesField(8, stringTensor({2, 2}, {clip, "first", wav(8000, 2, 8, 8), "second"})) +
               plugin("audio")));
    QCOMPARE(tf2.clips.size(), 2u);
    QCOMPARE(tf2.labels, (QStringList{u"first"_s, u"second"_s}));
    // A header that promises more samples than the file holds, or an impossible format.
    const auto lying = sb::wavHeader(wav(16000, 1, 1 << 30, 100));
    QVERIFY(!lying);
    QVERIFY(lying.error().contains(u"header says"_s));
    QVERIFY(!sb::wavHeader(wav(0, 1, 10, 10)));
    QVERIFY(!sb::wavHeader(wav(16000, 0, 10, 10)));
    QVERIFY(!sb::wavHeader("RIFF....WAVE"));
    QVERIFY(!decode(bytesField(1, "a") + bytesField(6, bytesField(4, "ID3 an mp3"))));
}

void TestTfSummaries::hparamsOfASessionStart() {
    auto entry = [](const char *key, const QByteArray &value) {
        return bytesField(1, bytesField(1, key) + bytesField(2, value));
    };
    const QByteArray start =
        entry("lr", doubleField(2, 0.001)) + entry("optimizer", bytesField(3, "adam")) +
        entry("augment", varintField(4, 1)) +
        entry("layers",
              bytesField(6, bytesField(1, doubleField(2, 4)) + bytesField(1, doubleField(2, 8)))) +
        bytesField(4, "group") + doubleField(5, 1.7e9);
    const auto session = sampleOf<sb::HparamsSample>(
        decode(bytesField(1, "_hparams_/session_start_info") + bytesField(8, varintField(1, 7)) +
               plugin("hparams", varintField(1, 0) + bytesField(3, start))));
    QCOMPARE(session.hparams.value(u"lr"_s).toDouble(), 0.001);
    QCOMPARE(session.hparams.value(u"optimizer"_s).toString(), u"adam"_s);
    QCOMPARE(session.hparams.value(u"augment"_s).toBool(), true);
    QCOMPARE(session.hparams.value(u"layers"_s).toArray().size(), 2);
    QCOMPARE(session.hparams.size(), 4);
    // The experiment's description and a session's end carry no hyperparameters of a run.
    const auto experiment = decode(bytesField(1, "_hparams_/experiment") +
                                   plugin("hparams", bytesField(2, bytesField(6, "x"))));
    QVERIFY(experiment && !*experiment);
    // Nested past any reason: refused.
    QByteArray deep = doubleField(2, 1);
    for (int i = 0; i < 20; ++i)
        deep = bytesField(6, bytesField(1, deep));
    const auto refused = decode(bytesField(1, "_hparams_/session_start_info") +
                                plugin("hparams", bytesField(3, entry("x", deep))));
    QVERIFY(!refused);
    QVERIFY(refused.error().contains(u"deep"_s));
    // A list of 20,000 empty values: refused, not kept.
    QByteArray items;
    for (int i = 0; i < 20'000; ++i)
        items += bytesField(1, {});
    const auto wide = decode(bytesField(1, "_hparams_/session_start_info") +
                             plugin("hparams", bytesField(3, entry("x", bytesField(6, items)))));
    QVERIFY(!wide);
    QVERIFY2(wide.error().contains(u"10000"_s), qPrintable(wide.error()));
}

QTEST_GUILESS_MAIN(TestTfSummaries)
#include "tst_tfsummaries.moc"
