#pragma once

#include "EventParser.h"
#include "metrics/Samples.h"
#include "util/Result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QLatin1StringView>
#include <QStringList>

#include <initializer_list>
#include <optional>
#include <variant>
#include <vector>

namespace sb {

// The kinds TensorBoard's dashboards show. A value's kind is the plugin named in the metadata
// its tag's first value carried; TF1 values carry none and are filed by the field that holds
// them, as TensorBoard's data_compat migrates them.
enum class SummaryKind : std::uint8_t { Scalar, Image, Histogram, Text, Audio, Hparams, Other };

// The kind of `value`, given the kind its tag already has (nullopt: the tag is new). Where
// `remember` is set, the value names its tag's kind for the values after it.
SummaryKind summaryKind(const TfEvent::Value &value, std::optional<SummaryKind> known,
                        bool *remember);
QLatin1StringView summaryKindName(SummaryKind kind); // "image", "histogram", "text", ...
// A set of kinds, as a mask of (1 << kind).
using SummaryKinds = std::uint32_t;
constexpr SummaryKinds summaryKinds(std::initializer_list<SummaryKind> kinds) {
    SummaryKinds mask = 0;
    for (const SummaryKind kind : kinds)
        mask |= SummaryKinds{1} << static_cast<unsigned>(kind);
    return mask;
}
inline constexpr SummaryKinds kEverySampleKind =
    summaryKinds({SummaryKind::Image, SummaryKind::Histogram, SummaryKind::Text, SummaryKind::Audio,
                  SummaryKind::Hparams});

// One step of an image tag: one image, or a batch (TF2 writers put several in one value).
struct ImageSample {
    qint64 width = 0; // of the first image, from its own header
    qint64 height = 0;
    QLatin1StringView format; // "png", "jpeg", "gif" or "webp"
    std::vector<QByteArray> images;
};

// Buckets as TensorBoard's histograms plugin keeps them: [left, right) and a count.
struct HistogramSample {
    using Bucket = HistogramBucket;
    double min = 0;
    double max = 0;
    double num = 0; // the values counted
    double sum = 0; // NaN where the writer gave none (TF2 tensors)
    std::vector<Bucket> buckets;
};

// A string, or a table of them (TensorBoard's text plugin renders rank 1 and 2 as tables).
struct TextSample {
    std::vector<qint64> shape; // empty for one string
    QStringList cells;         // row-major
};

struct AudioSample {
    double sampleRate = 0;
    qint64 channels = 0;
    qint64 frames = 0; // of the first clip
    QString contentType;
    std::vector<QByteArray> clips; // as written (WAV)
    QStringList labels;            // one per clip, empty where the writer gave none
};

// A session's hyperparameters (TensorBoard's hparams plugin, session_start_info).
struct HparamsSample {
    QJsonObject hparams;
};

using SampleData =
    std::variant<ImageSample, HistogramSample, TextSample, AudioSample, HparamsSample>;
SummaryKind sampleKind(const SampleData &data);

// Decodes a value of `kind` (an image, histogram, text, audio or hparams kind). The error says
// in words why the value was refused. An hparams value that is not a session's start (the
// experiment, a session's end) decodes to nothing.
Result<std::optional<SampleData>> decodeSample(const TfEvent::Value &value, SummaryKind kind);

// The items a decoded value holds, as the store keeps them (each image and clip of a batch its
// own item, by index), checked (checkSample); hparams hold none. The error names the first item
// refused.
Result<std::vector<Sample>> storedSamples(const QString &tag, double step, double wallTime,
                                          const SampleData &data);

} // namespace sb
