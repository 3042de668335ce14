#pragma once

#include "util/Result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QLatin1StringView>
#include <QString>

#include <array>
#include <optional>
#include <vector>

namespace sb {

// What a run logs besides scalars, one item at a step: an image, a histogram, a text or an
// audio clip. The numbers are the store's and the API's: never renumbered.
enum class SampleKind : quint8 { Image = 1, Histogram = 2, Text = 3, Audio = 4 };
QLatin1StringView sampleKindName(SampleKind kind); // "image", "histogram", "text", "audio"
std::optional<SampleKind> parseSampleKind(QStringView name);

// A kind's few numbers beside its bytes, kept in the store's index so that listing samples never
// reads their blobs:
//   image      width, height (from the image's own header)
//   histogram  min, max, num (the values counted), sum (NaN where the writer gave none)
//   text       rows, columns of a table (0 and 0 for one string)
//   audio      sample rate, frames, channels (from the WAV header)
using SampleFacts = std::array<double, 4>;

// One item as the store keeps it: its facts in the index, its bytes a blob named by their
// digest (the same bytes logged twice are stored once):
//   image      PNG, JPEG, GIF or WebP, as written
//   histogram  its buckets, each three little-endian doubles: left edge, right edge, count
//   text       UTF-8; a table as a JSON array of rows, each an array of strings
//   audio      WAV, as written
struct Sample {
    QString tag;
    SampleKind kind = SampleKind::Image;
    double step = 0;
    double wall = 0;   // seconds since the Unix epoch
    quint32 index = 0; // its place among its step's items (a batch of images)
    SampleFacts facts{};
    QByteArray bytes;
    QByteArray digest; // sampleDigest() of the bytes (checkSample sets it, off the store's thread)
};

// What one item may hold; beyond it an item is refused, and nothing else with it.
inline constexpr qint64 kMostImagePixels = qint64{1} << 27; // 16,384 x 8,192
inline constexpr qsizetype kMostHistogramBuckets = 1 << 16;
inline constexpr qsizetype kMostTextBytes = 4 << 20;
inline constexpr qint64 kMostBlobBytes = qint64{16} << 20;
inline constexpr qsizetype kLongestSampleTag = 1024; // characters
inline constexpr qint64 kHistogramBucketBytes = 24;

// What names a blob: the SHA-256 of its bytes (32 bytes; `sha256sum FILE` says the same).
QByteArray sampleDigest(QByteArrayView bytes);

// Checks an item's bytes against its kind, and sets the facts its bytes give (an image's size,
// a clip's rate and length) and its digest: the error says in words why it is refused.
Status checkSample(Sample *sample);

// A histogram's buckets as its blob holds them, and back (empty with an error for bytes that
// are not whole buckets of finite numbers).
struct HistogramBucket {
    double left = 0;
    double right = 0;
    double count = 0;
};
QByteArray encodeBuckets(const std::vector<HistogramBucket> &buckets);
Status checkBuckets(QByteArrayView bytes);
Result<std::vector<HistogramBucket>> decodeBuckets(QByteArrayView bytes);

// Where a histogram's values reach each of kPercentiles of its count, the count spread evenly
// across each bucket: the lines of TensorBoard's distributions (the normal distribution's
// -inf, -1.5σ, -1σ, -0.5σ, median, +0.5σ, +1σ, +1.5σ, +inf). NaN for a histogram of no count.
inline constexpr std::array<double, 9> kPercentiles{0,      0.0668, 0.1587, 0.3085, 0.5,
                                                    0.6915, 0.8413, 0.9332, 1};
using HistogramPercentiles = std::array<double, 9>;
HistogramPercentiles histogramPercentiles(const std::vector<HistogramBucket> &buckets);

// The kind's facts as JSON fields: {"width", "height"}, {"min", "max", "num", "sum"},
// {"rows", "columns"} or {"sample_rate", "frames", "channels"}; a NaN sum is left out.
QJsonObject sampleFactsJson(SampleKind kind, const SampleFacts &facts);
SampleFacts sampleFactsFromJson(SampleKind kind, const QJsonObject &json);

} // namespace sb
