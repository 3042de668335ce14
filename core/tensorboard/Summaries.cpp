#include "Summaries.h"

#include "ProtoWire.h"
#include "util/MediaHeaders.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>
#include <cstring>
#include <limits>

namespace sb {

using namespace Qt::StringLiterals;
using namespace proto;

namespace {

// TensorFlow's DataType numbers for the tensors these plugins write.
enum DataType : std::uint64_t {
    DtFloat = 1,
    DtDouble = 2,
    DtInt32 = 3,
    DtString = 7,
    DtInt64 = 9,
    DtHalf = 19,
};

// More numbers than any histogram may hold ([buckets, 3]), more strings than a table or batch
// of this many cells, more dimensions or hyperparameter values than these are never read into
// memory: a record of empty entries would otherwise grow tenfold in it.
constexpr qsizetype kMostNumbers = 3 * kMostHistogramBuckets;
constexpr qsizetype kMostStrings = 1 << 16;
constexpr qsizetype kMostDimensions = 8;
constexpr int kMostHparamsValues = 10'000;
constexpr int kMostHparamsDepth = 8;

// Calls `field(number, type, wire)` for each field of a message; false if it is malformed.
template <typename F> bool forEachField(QByteArrayView message, F &&field) {
    Wire wire(message);
    std::uint32_t number = 0;
    WireType type{};
    while (wire.next(&number, &type)) {
        if (!field(number, type, wire))
            wire.skip(type);
    }
    return wire.ok();
}

// A TensorProto's shape and contents (views into the record).
struct Tensor {
    std::uint64_t dtype = 0;
    std::vector<qint64> shape;
    QByteArrayView content;              // tensor_content: the values packed, little-endian
    std::vector<QByteArrayView> strings; // string_val
    std::vector<double> values;          // float_val, double_val, half_val, int_val, int64_val
    bool tooMany = false;                // more values than kMostNumbers

    // -1 for a shape with an unknown dimension; saturates rather than overflows.
    qint64 elements() const {
        qint64 count = 1;
        for (const qint64 dim : shape) {
            if (dim < 0)
                return -1;
            count = dim == 0 || count <= std::numeric_limits<qint64>::max() / dim
                        ? count * dim
                        : std::numeric_limits<qint64>::max();
        }
        return count;
    }
};

double halfToDouble(std::uint32_t bits) {
    const int exponent = static_cast<int>((bits >> 10) & 0x1F);
    const double mantissa = bits & 0x3FF;
    const double sign = (bits & 0x8000) ? -1.0 : 1.0;
    if (exponent == 0)
        return sign * std::ldexp(mantissa, -24);
    if (exponent == 31)
        return mantissa ? std::numeric_limits<double>::quiet_NaN()
                        : sign * std::numeric_limits<double>::infinity();
    return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

Result<Tensor> readTensor(QByteArrayView bytes) {
    Tensor tensor;
    bool malformed = false;
    auto add = [&tensor](double value) {
        if (std::ssize(tensor.values) < kMostNumbers)
            tensor.values.push_back(value);
        else
            tensor.tooMany = true;
    };
    // Repeated numbers come packed (one bytes field) from proto3 writers, or one by one.
    auto repeated = [&](Wire &wire, WireType type, WireType one, auto readOne) {
        if (type == one) {
            add(readOne(wire));
            return true;
        }
        if (type != Bytes)
            return false;
        Wire values(wire.bytes());
        while (!values.atEnd() && values.ok()) {
            const double value = readOne(values);
            if (values.ok())
                add(value);
        }
        malformed = malformed || !values.ok();
        return true;
    };
    const bool ok = forEachField(bytes, [&](std::uint32_t field, WireType type, Wire &wire) {
        switch (field) {
        case 1:
            if (type != Varint)
                return false;
            tensor.dtype = wire.varint();
            return true;
        case 2: // TensorShapeProto { repeated Dim dim = 2 { int64 size = 1; } }
            if (type != Bytes)
                return false;
            malformed =
                malformed || !forEachField(wire.bytes(), [&](std::uint32_t shapeField,
                                                             WireType shapeType, Wire &shape) {
                    if (shapeField != 2 || shapeType != Bytes)
                        return false;
                    qint64 size = 0; // proto3 leaves a size of 0 out
                    malformed =
                        malformed || !forEachField(shape.bytes(), [&](std::uint32_t dimField,
                                                                      WireType dimType, Wire &dim) {
                            if (dimField != 1 || dimType != Varint)
                                return false;
                            size = static_cast<qint64>(dim.varint());
                            return true;
                        });
                    if (std::ssize(tensor.shape) < kMostDimensions)
                        tensor.shape.push_back(size);
                    else
                        tensor.tooMany = true;
                    return true;
                });
            return true;
        case 4:
            if (type != Bytes)
                return false;
            tensor.content = wire.bytes();
            return true;
        case 5:
            return repeated(wire, type, Fixed32, [](Wire &w) { return double{w.fixed<float>()}; });
        case 6:
            return repeated(wire, type, Fixed64, [](Wire &w) { return w.fixed<double>(); });
        case 7:
        case 10:
            return repeated(wire, type, Varint, [](Wire &w) {
                return static_cast<double>(static_cast<qint64>(w.varint()));
            });
        case 13:
            return repeated(wire, type, Varint, [](Wire &w) {
                return halfToDouble(static_cast<std::uint32_t>(w.varint()));
            });
        case 8:
            if (type != Bytes)
                return false;
            if (const QByteArrayView string = wire.bytes();
                std::ssize(tensor.strings) < kMostStrings)
                tensor.strings.push_back(string);
            else
                tensor.tooMany = true;
            return true;
        default:
            return false;
        }
    });
    if (!ok || malformed)
        return fail(u"a malformed tensor"_s);
    if (tensor.tooMany)
        return fail(
            u"a tensor of more than %1 numbers, %2 strings or %3 dimensions"_s.arg(kMostNumbers)
                .arg(kMostStrings)
                .arg(kMostDimensions));
    return tensor;
}

// The tensor's values as numbers: from its packed content, or its *_val fields (one value
// standing for all, as TensorFlow allows).
Result<std::vector<double>> numbers(const Tensor &tensor) {
    const qint64 elements = tensor.elements();
    if (elements < 0)
        return fail(u"a tensor of unknown shape"_s);
    if (elements > kMostNumbers || tensor.tooMany)
        return fail(u"a tensor of more than %1 numbers"_s.arg(kMostNumbers));
    std::vector<double> out;
    if (!tensor.content.empty()) {
        const int size = tensor.dtype == DtFloat || tensor.dtype == DtInt32    ? 4
                         : tensor.dtype == DtHalf                              ? 2
                         : tensor.dtype == DtDouble || tensor.dtype == DtInt64 ? 8
                                                                               : 0;
        if (size == 0 || tensor.content.size() != elements * size)
            return fail(u"a tensor whose contents do not match its type and shape"_s);
        out.reserve(static_cast<std::size_t>(elements));
        for (qint64 i = 0; i < elements; ++i) {
            const char *p = tensor.content.data() + i * size;
            if (tensor.dtype == DtFloat) {
                float f = 0;
                std::memcpy(&f, p, 4);
                out.push_back(f);
            } else if (tensor.dtype == DtDouble) {
                double d = 0;
                std::memcpy(&d, p, 8);
                out.push_back(d);
            } else if (tensor.dtype == DtHalf) {
                std::uint16_t half = 0;
                std::memcpy(&half, p, 2);
                out.push_back(halfToDouble(half));
            } else if (tensor.dtype == DtInt32) {
                std::int32_t i32 = 0;
                std::memcpy(&i32, p, 4);
                out.push_back(i32);
            } else {
                qint64 v = 0;
                std::memcpy(&v, p, 8);
                out.push_back(static_cast<double>(v));
            }
        }
        return out;
    }
    if (std::ssize(tensor.values) == elements)
        return tensor.values;
    if (tensor.values.size() == 1)
        return std::vector<double>(static_cast<std::size_t>(elements), tensor.values.front());
    if (elements == 0 && tensor.values.empty())
        return out;
    return fail(u"a tensor whose values do not match its shape"_s);
}

Result<ImageSample> images(const std::vector<QByteArrayView> &encoded) {
    ImageSample sample;
    for (const QByteArrayView image : encoded) {
        const auto header = imageHeader(image, kMostImagePixels);
        if (!header)
            return fail(header.error());
        if (sample.images.empty()) {
            sample.width = header->width;
            sample.height = header->height;
            sample.format = header->format;
        }
        sample.images.emplace_back(image.toByteArray());
    }
    return sample;
}

Result<std::optional<SampleData>> decodeImage(const TfEvent::Value &value) {
    std::vector<QByteArrayView> encoded;
    if (!value.image.isNull()) { // Image { int32 height = 1; int32 width = 2; bytes encoded = 4; }
        if (!forEachField(value.image, [&](std::uint32_t field, WireType type, Wire &wire) {
                if (field != 4 || type != Bytes)
                    return false;
                encoded.push_back(wire.bytes());
                return true;
            }))
            return fail(u"a malformed image summary"_s);
    } else {
        auto tensor = readTensor(value.tensor);
        if (!tensor)
            return fail(tensor.error());
        if (tensor->dtype != DtString || tensor->strings.size() < 2)
            return fail(u"an image tensor that is not [width, height, image...]"_s);
        encoded.assign(tensor->strings.begin() + 2, tensor->strings.end());
    }
    if (encoded.empty())
        return std::optional<SampleData>{};
    auto sample = images(encoded);
    if (!sample)
        return fail(sample.error());
    return std::optional<SampleData>{std::move(sample).value()};
}

Result<HistogramSample> checkedBuckets(HistogramSample sample) {
    if (std::ssize(sample.buckets) > kMostHistogramBuckets)
        return fail(u"a histogram of %1 buckets: the most is %2"_s.arg(sample.buckets.size())
                        .arg(kMostHistogramBuckets));
    for (const HistogramSample::Bucket &bucket : sample.buckets) {
        if (!std::isfinite(bucket.left) || !std::isfinite(bucket.right) ||
            !std::isfinite(bucket.count) || bucket.count < 0)
            return fail(u"a histogram whose bucket edges or counts are not finite numbers"_s);
    }
    return sample;
}

// HistogramProto { double min = 1, max = 2, num = 3, sum = 4, sum_squares = 5;
//                  repeated double bucket_limit = 6, bucket = 7; }, migrated as TensorBoard's
// data_compat does: empty buckets at both ends dropped, min and max as the outer edges.
Result<HistogramSample> tf1Histogram(QByteArrayView histo) {
    HistogramSample sample;
    std::vector<double> limits;
    std::vector<double> counts;
    bool tooMany = false;
    bool malformed = false;
    auto repeated = [&tooMany, &malformed](std::vector<double> &into, Wire &wire, WireType type) {
        auto add = [&](double v) {
            if (std::ssize(into) <= kMostHistogramBuckets)
                into.push_back(v);
            else
                tooMany = true;
        };
        if (type == Fixed64) {
            add(wire.fixed<double>());
            return true;
        }
        if (type != Bytes)
            return false;
        const QByteArrayView packed = wire.bytes();
        into.reserve(into.size() + std::size_t(std::min<qsizetype>(packed.size() / 8,
                                                                   kMostHistogramBuckets + 1)));
        Wire values(packed);
        while (!values.atEnd() && values.ok()) {
            const double v = values.fixed<double>();
            if (values.ok())
                add(v);
        }
        malformed = malformed || !values.ok();
        return true;
    };
    const bool ok = forEachField(histo, [&](std::uint32_t field, WireType type, Wire &wire) {
        if (field >= 1 && field <= 4 && type == Fixed64) {
            const double v = wire.fixed<double>();
            (field == 1   ? sample.min
             : field == 2 ? sample.max
             : field == 3 ? sample.num
                          : sample.sum) = v;
            return true;
        }
        if (field == 6)
            return repeated(limits, wire, type);
        if (field == 7)
            return repeated(counts, wire, type);
        return false;
    });
    if (!ok || malformed)
        return fail(u"a malformed histogram"_s);
    if (tooMany)
        return fail(u"a histogram of more than %1 buckets"_s.arg(kMostHistogramBuckets));
    if (limits.size() != counts.size())
        return fail(u"a histogram with %1 bucket limits for %2 buckets"_s.arg(limits.size())
                        .arg(counts.size()));
    const auto n = static_cast<qsizetype>(counts.size());
    qsizetype first = 0;
    while (first < n && !(counts[first] > 0))
        ++first;
    qsizetype last = n - 1;
    while (last >= first && !(counts[last] > 0))
        --last;
    sample.buckets.reserve(std::size_t(std::max<qsizetype>(0, last - first + 1)));
    for (qsizetype i = first; i <= last; ++i)
        sample.buckets.push_back({i == first ? sample.min : limits[i - 1],
                                  i == last ? sample.max : limits[i], counts[i]});
    return checkedBuckets(std::move(sample));
}

Result<std::optional<SampleData>> decodeHistogram(const TfEvent::Value &value) {
    if (!value.histo.isNull()) {
        auto sample = tf1Histogram(value.histo);
        if (!sample)
            return fail(sample.error());
        return std::optional<SampleData>{std::move(sample).value()};
    }
    auto tensor = readTensor(value.tensor);
    if (!tensor)
        return fail(tensor.error());
    if (tensor->shape.size() != 2 || tensor->shape[1] != 3 || tensor->shape[0] < 0)
        return fail(u"a histogram tensor that is not [buckets, 3]"_s);
    if (tensor->shape[0] > kMostHistogramBuckets)
        return fail(u"a histogram of %1 buckets: the most is %2"_s.arg(tensor->shape[0])
                        .arg(kMostHistogramBuckets));
    auto values = numbers(*tensor);
    if (!values)
        return fail(values.error());
    HistogramSample sample;
    sample.sum = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t i = 0; i + 2 < values->size(); i += 3) {
        sample.buckets.push_back({(*values)[i], (*values)[i + 1], (*values)[i + 2]});
        sample.num += (*values)[i + 2];
    }
    if (!sample.buckets.empty()) {
        sample.min = sample.buckets.front().left;
        sample.max = sample.buckets.back().right;
    }
    auto checked = checkedBuckets(std::move(sample));
    if (!checked)
        return fail(checked.error());
    return std::optional<SampleData>{std::move(checked).value()};
}

Result<std::optional<SampleData>> decodeText(const TfEvent::Value &value) {
    auto tensor = readTensor(value.tensor);
    if (!tensor)
        return fail(tensor.error());
    if (tensor->dtype != DtString || std::ssize(tensor->strings) != tensor->elements())
        return fail(u"a text tensor whose strings do not match its shape"_s);
    TextSample sample;
    sample.shape = tensor->shape;
    qsizetype bytes = 0;
    for (const QByteArrayView cell : tensor->strings) {
        bytes += cell.size();
        if (bytes > kMostTextBytes)
            return fail(u"a text of more than %1 bytes"_s.arg(kMostTextBytes));
        sample.cells.append(QString::fromUtf8(cell));
    }
    return std::optional<SampleData>{std::move(sample)};
}

Result<std::optional<SampleData>> decodeAudio(const TfEvent::Value &value) {
    AudioSample sample;
    std::vector<QByteArrayView> clips;
    if (!value.audio.isNull()) { // Audio { float sample_rate = 1; ...; bytes encoded = 4;
                                 //         string content_type = 5; }
        if (!forEachField(value.audio, [&](std::uint32_t field, WireType type, Wire &wire) {
                if (field == 4 && type == Bytes)
                    clips.push_back(wire.bytes());
                else if (field == 5 && type == Bytes)
                    sample.contentType = QString::fromUtf8(wire.bytes());
                else
                    return false;
                return true;
            }))
            return fail(u"a malformed audio summary"_s);
    } else {
        auto tensor = readTensor(value.tensor);
        if (!tensor)
            return fail(tensor.error());
        // [clips, 2]: each clip and its label; [clips]: clips alone.
        const bool labelled = tensor->shape.size() == 2 && tensor->shape[1] == 2;
        if (tensor->dtype != DtString || std::ssize(tensor->strings) != tensor->elements() ||
            (!labelled && tensor->shape.size() != 1))
            return fail(u"an audio tensor that is not [clips, 2] of clip and label"_s);
        for (std::size_t i = 0; i < tensor->strings.size(); i += labelled ? 2 : 1) {
            clips.push_back(tensor->strings[i]);
            if (labelled)
                sample.labels.append(QString::fromUtf8(tensor->strings[i + 1]));
        }
    }
    if (clips.empty())
        return std::optional<SampleData>{};
    for (const QByteArrayView clip : clips) {
        const auto header = wavHeader(clip);
        if (!header)
            return fail(header.error());
        if (sample.clips.empty()) {
            sample.sampleRate = header->sampleRate;
            sample.channels = header->channels;
            sample.frames = header->frames;
        }
        sample.clips.emplace_back(clip.toByteArray());
    }
    if (sample.contentType.isEmpty())
        sample.contentType = u"audio/wav"_s;
    return std::optional<SampleData>{std::move(sample)};
}

// google.protobuf.Value { NullValue null_value = 1; double number_value = 2; string
// string_value = 3; bool bool_value = 4; Struct struct_value = 5; ListValue list_value = 6; }
// `left`: how many more values the whole may hold.
Result<QJsonValue> protobufValue(QByteArrayView bytes, int depth, int *left);

Result<QJsonObject> protobufStruct(QByteArrayView bytes, int depth, int *left) {
    QJsonObject object;
    QString problem;
    // map<string, Value> fields = 1: entries { string key = 1; Value value = 2; }
    const bool ok = forEachField(bytes, [&](std::uint32_t field, WireType type, Wire &wire) {
        if (field != 1 || type != Bytes)
            return false;
        QString key;
        QJsonValue value;
        const bool entryOk = forEachField(
            wire.bytes(), [&](std::uint32_t entryField, WireType entryType, Wire &entry) {
                if (entryType != Bytes)
                    return false;
                if (entryField == 1) {
                    key = QString::fromUtf8(entry.bytes());
                } else if (entryField == 2) {
                    auto decoded = protobufValue(entry.bytes(), depth + 1, left);
                    if (decoded)
                        value = *decoded;
                    else
                        problem = decoded.error();
                } else {
                    return false;
                }
                return true;
            });
        if (!entryOk)
            problem = u"malformed hyperparameters"_s;
        object.insert(key, value);
        return true;
    });
    if (!problem.isEmpty())
        return fail(problem);
    if (!ok)
        return fail(u"malformed hyperparameters"_s);
    return object;
}

Result<QJsonValue> protobufValue(QByteArrayView bytes, int depth, int *left) {
    if (depth > kMostHparamsDepth)
        return fail(u"hyperparameters nested more than %1 deep"_s.arg(kMostHparamsDepth));
    if (--*left < 0)
        return fail(u"more than %1 hyperparameter values"_s.arg(kMostHparamsValues));
    QJsonValue value;
    QString problem;
    const bool ok = forEachField(bytes, [&](std::uint32_t field, WireType type, Wire &wire) {
        if (field == 2 && type == Fixed64) {
            const double number = wire.fixed<double>();
            value =
                std::isfinite(number) ? QJsonValue(number) : QJsonValue(QString::number(number));
        } else if (field == 3 && type == Bytes) {
            value = QString::fromUtf8(wire.bytes());
        } else if (field == 4 && type == Varint) {
            value = wire.varint() != 0;
        } else if (field == 5 && type == Bytes) {
            if (auto object = protobufStruct(wire.bytes(), depth + 1, left))
                value = *object;
            else
                problem = object.error();
        } else if (field == 6 && type == Bytes) { // ListValue { repeated Value values = 1; }
            QJsonArray list;
            if (!forEachField(wire.bytes(),
                              [&](std::uint32_t listField, WireType listType, Wire &item) {
                                  if (listField != 1 || listType != Bytes)
                                      return false;
                                  if (auto decoded = protobufValue(item.bytes(), depth + 1, left))
                                      list.append(*decoded);
                                  else
                                      problem = decoded.error();
                                  return true;
                              }))
                problem = u"malformed hyperparameters"_s;
            value = list;
        } else {
            return false; // null_value, or unknown: null
        }
        return true;
    });
    if (!problem.isEmpty())
        return fail(problem);
    if (!ok)
        return fail(u"malformed hyperparameters"_s);
    return value;
}

// HParamsPluginData { int32 version = 1; Experiment experiment = 2; SessionStartInfo
// session_start_info = 3; SessionEndInfo session_end_info = 4; } and SessionStartInfo
// { map<string, google.protobuf.Value> hparams = 1; ... }: the same map shape as a Struct.
Result<std::optional<SampleData>> decodeHparams(const TfEvent::Value &value) {
    QByteArrayView start;
    const bool ok =
        forEachField(value.pluginContent, [&](std::uint32_t field, WireType type, Wire &wire) {
            if (field != 3 || type != Bytes)
                return false;
            start = wire.bytes();
            return true;
        });
    if (!ok)
        return fail(u"malformed hyperparameters"_s);
    if (start.isNull())
        return std::optional<SampleData>{};
    int left = kMostHparamsValues;
    auto hparams = protobufStruct(start, 0, &left); // its map is field 1, as a Struct's
    if (!hparams)
        return fail(hparams.error());
    return std::optional<SampleData>{HparamsSample{std::move(hparams).value()}};
}

SummaryKind kindOfPlugin(QByteArrayView plugin) {
    if (plugin == "scalars")
        return SummaryKind::Scalar;
    if (plugin == "images")
        return SummaryKind::Image;
    if (plugin == "histograms")
        return SummaryKind::Histogram;
    if (plugin == "text")
        return SummaryKind::Text;
    if (plugin == "audio")
        return SummaryKind::Audio;
    if (plugin == "hparams")
        return SummaryKind::Hparams;
    return SummaryKind::Other;
}

} // namespace

SummaryKind summaryKind(const TfEvent::Value &value, std::optional<SummaryKind> known,
                        bool *remember) {
    *remember = false;
    // TF1 fields are migrated by the field that holds them, whatever the metadata says; the
    // field names the value's kind alone (a later simple_value of the tag stays a scalar).
    if (!value.image.isNull() || !value.histo.isNull() || !value.audio.isNull()) {
        return !value.image.isNull()   ? SummaryKind::Image
               : !value.histo.isNull() ? SummaryKind::Histogram
                                       : SummaryKind::Audio;
    }
    std::optional<SummaryKind> kind = known;
    if (!value.plugin.empty() || value.scalarClass) {
        kind = value.plugin == "scalars" || value.scalarClass ? SummaryKind::Scalar
                                                              : kindOfPlugin(value.plugin);
        // A tag whose first scalar could not be read stays unread, as it always has.
        if (*kind == SummaryKind::Scalar && !value.isScalar)
            kind = SummaryKind::Other;
        *remember = true;
    }
    if (!kind)
        return value.isScalar ? SummaryKind::Scalar : SummaryKind::Other;
    if (*kind == SummaryKind::Scalar && !value.isScalar)
        return SummaryKind::Other;
    return *kind;
}

QLatin1StringView summaryKindName(SummaryKind kind) {
    switch (kind) {
    case SummaryKind::Scalar:
        return "scalar"_L1;
    case SummaryKind::Image:
        return sampleKindName(SampleKind::Image);
    case SummaryKind::Histogram:
        return sampleKindName(SampleKind::Histogram);
    case SummaryKind::Text:
        return sampleKindName(SampleKind::Text);
    case SummaryKind::Audio:
        return sampleKindName(SampleKind::Audio);
    case SummaryKind::Hparams:
        return "hparams"_L1;
    case SummaryKind::Other:
        break;
    }
    return "other"_L1;
}

SummaryKind sampleKind(const SampleData &data) {
    // In SampleData's order.
    static constexpr SummaryKind kinds[] = {SummaryKind::Image, SummaryKind::Histogram,
                                            SummaryKind::Text, SummaryKind::Audio,
                                            SummaryKind::Hparams};
    return kinds[data.index()];
}

Result<std::optional<SampleData>> decodeSample(const TfEvent::Value &value, SummaryKind kind) {
    switch (kind) {
    case SummaryKind::Image:
        return decodeImage(value);
    case SummaryKind::Histogram:
        return decodeHistogram(value);
    case SummaryKind::Text:
        return decodeText(value);
    case SummaryKind::Audio:
        return decodeAudio(value);
    case SummaryKind::Hparams:
        return decodeHparams(value);
    case SummaryKind::Scalar:
    case SummaryKind::Other:
        break;
    }
    return std::optional<SampleData>{};
}

Result<std::vector<Sample>> storedSamples(const QString &tag, double step, double wallTime,
                                          const SampleData &data) {
    std::vector<Sample> items;
    auto item = [&](SampleKind kind, QByteArray bytes, SampleFacts facts = {}) {
        items.push_back(
            {tag, kind, step, wallTime, quint32(items.size()), facts, std::move(bytes), {}});
    };
    if (const auto *image = std::get_if<ImageSample>(&data)) {
        for (const QByteArray &bytes : image->images)
            item(SampleKind::Image, bytes);
    } else if (const auto *audio = std::get_if<AudioSample>(&data)) {
        for (const QByteArray &bytes : audio->clips)
            item(SampleKind::Audio, bytes);
    } else if (const auto *histogram = std::get_if<HistogramSample>(&data)) {
        item(SampleKind::Histogram, encodeBuckets(histogram->buckets),
             {histogram->min, histogram->max, histogram->num, histogram->sum});
    } else if (const auto *text = std::get_if<TextSample>(&data)) {
        if (text->shape.empty() || text->cells.isEmpty()) {
            item(SampleKind::Text, text->cells.value(0).toUtf8());
        } else {
            // Rows of the first dimension, the rest of each row's cells in order.
            const qint64 rows = std::max<qint64>(1, text->shape.front());
            const qint64 columns = std::max<qint64>(1, qint64(text->cells.size()) / rows);
            QJsonArray table;
            for (qint64 r = 0; r < rows; ++r)
                table.append(QJsonArray::fromStringList(text->cells.mid(r * columns, columns)));
            item(SampleKind::Text, QJsonDocument(table).toJson(QJsonDocument::Compact),
                 {double(rows), double(columns), 0, 0});
        }
    }
    for (Sample &sample : items) {
        if (Status checked = checkSample(&sample); !checked)
            return checked.failure();
    }
    return items;
}

} // namespace sb
