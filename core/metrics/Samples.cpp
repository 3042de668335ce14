#include "Samples.h"

#include "util/Digest.h"
#include "util/MediaHeaders.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QStringDecoder>
#include <QSysInfo>
#include <QtEndian>

#include <algorithm>
#include <cmath>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

bool isUtf8(QByteArrayView bytes) {
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    (void)QString(utf8(bytes));
    return !utf8.hasError();
}

Status checkBytes(Sample *sample);

// A table as its blob holds it: rows of strings, `rows` x `columns` of them.
Status checkTable(QByteArrayView bytes, double rows, double columns) {
    QJsonParseError error;
    const QJsonDocument table = QJsonDocument::fromJson(bytes.toByteArray(), &error);
    if (!table.isArray())
        return fail(u"a text table must be a JSON array of rows: %1"_s.arg(error.errorString()));
    if (table.array().size() != rows)
        return fail(u"a text table of %1 rows holds %2"_s.arg(rows).arg(table.array().size()));
    for (const QJsonValue row : table.array()) {
        const QJsonArray cells = row.toArray();
        if (!row.isArray() || cells.size() != columns ||
            !std::all_of(cells.begin(), cells.end(),
                         [](const QJsonValue &c) { return c.isString(); }))
            return fail(u"each row of a text table must be an array of %1 strings"_s.arg(columns));
    }
    return success();
}

} // namespace

QByteArray sampleDigest(QByteArrayView bytes) {
    return sha256(bytes);
}

QLatin1StringView sampleKindName(SampleKind kind) {
    switch (kind) {
    case SampleKind::Image:
        return "image"_L1;
    case SampleKind::Histogram:
        return "histogram"_L1;
    case SampleKind::Text:
        return "text"_L1;
    case SampleKind::Audio:
        return "audio"_L1;
    }
    return "unknown"_L1;
}

std::optional<SampleKind> parseSampleKind(QStringView name) {
    for (const SampleKind kind :
         {SampleKind::Image, SampleKind::Histogram, SampleKind::Text, SampleKind::Audio}) {
        if (name == sampleKindName(kind))
            return kind;
    }
    return std::nullopt;
}

Status checkSample(Sample *sample) {
    if (Status checked = checkBytes(sample); !checked)
        return checked;
    sample->digest = sampleDigest(sample->bytes);
    if (sample->digest.size() != 32)
        return fail(u"the item's SHA-256 could not be computed (out of memory?)"_s);
    return success();
}

namespace {
Status checkBytes(Sample *sample) {
    if (sample->tag.isEmpty() || sample->tag.size() > kLongestSampleTag)
        return fail(u"a sample's tag must have 1 to %1 characters"_s.arg(kLongestSampleTag));
    if (!(std::abs(sample->step) <= 9007199254740992.0) ||
        !(std::abs(sample->wall) <= 9007199254740992.0))
        return fail(
            u"tag \"%1\": a sample's step and time must be finite numbers within ±2^53"_s.arg(
                sample->tag));
    if (sample->bytes.size() > kMostBlobBytes)
        return fail(u"tag \"%1\": %2 bytes, more than one item may hold (%3)"_s.arg(sample->tag)
                        .arg(sample->bytes.size())
                        .arg(kMostBlobBytes));
    const QString where = u"tag \"%1\", step %2: "_s.arg(sample->tag).arg(sample->step);
    SampleFacts &facts = sample->facts;
    switch (sample->kind) {
    case SampleKind::Image: {
        const auto header = imageHeader(sample->bytes, kMostImagePixels);
        if (!header)
            return fail(where + header.error());
        facts = {double(header->width), double(header->height), 0, 0};
        return success();
    }
    case SampleKind::Audio: {
        const auto header = wavHeader(sample->bytes);
        if (!header)
            return fail(where + header.error());
        facts = {header->sampleRate, double(header->frames), double(header->channels), 0};
        return success();
    }
    case SampleKind::Text: {
        if (sample->bytes.size() > kMostTextBytes)
            return fail(where + u"a text of more than %1 bytes"_s.arg(kMostTextBytes));
        if (!isUtf8(sample->bytes))
            return fail(where + u"a text must be UTF-8"_s);
        const double rows = facts[0];
        const double columns = facts[1];
        if (rows == 0 && columns == 0)
            return success();
        if (!(rows >= 1 && columns >= 1 && rows * columns <= 65536 && rows == std::floor(rows) &&
              columns == std::floor(columns)))
            return fail(where + u"a text table must have 1 to 65,536 cells"_s);
        if (Status table = checkTable(sample->bytes, rows, columns); !table)
            return fail(where + table.error());
        return success();
    }
    case SampleKind::Histogram: {
        if (Status buckets = checkBuckets(sample->bytes); !buckets)
            return fail(where + buckets.error());
        const auto [min, max, num, sum] = facts;
        if (!std::isfinite(num) || num < 0 || (num > 0 && !(min <= max)) || std::isinf(sum) ||
            (num > 0 && (!std::isfinite(min) || !std::isfinite(max))))
            return fail(where + u"a histogram's min, max and count must be finite numbers (min "
                                "no larger than max), and its sum finite or NaN"_s);
        return success();
    }
    }
    return fail(where + u"not a kind of sample"_s);
}
} // namespace

QByteArray encodeBuckets(const std::vector<HistogramBucket> &buckets) {
    static_assert(sizeof(HistogramBucket) == kHistogramBucketBytes);
    if constexpr (QSysInfo::ByteOrder == QSysInfo::LittleEndian) // as the blob lays them out
        return QByteArray(reinterpret_cast<const char *>(buckets.data()),
                          qsizetype(buckets.size()) * kHistogramBucketBytes);
    QByteArray bytes(qsizetype(buckets.size()) * kHistogramBucketBytes, Qt::Uninitialized);
    char *at = bytes.data();
    for (const HistogramBucket &bucket : buckets) {
        for (const double number : {bucket.left, bucket.right, bucket.count}) {
            qToLittleEndian(number, at);
            at += sizeof number;
        }
    }
    return bytes;
}

Status checkBuckets(QByteArrayView bytes) {
    if (bytes.size() % kHistogramBucketBytes != 0)
        return fail(u"a histogram's buckets must be whole (24 bytes each)"_s);
    if (bytes.size() / kHistogramBucketBytes > kMostHistogramBuckets)
        return fail(
            u"a histogram of %1 buckets: the most is %2"_s.arg(bytes.size() / kHistogramBucketBytes)
                .arg(kMostHistogramBuckets));
    for (const char *at = bytes.data(); at < bytes.data() + bytes.size();
         at += kHistogramBucketBytes) {
        const auto left = qFromLittleEndian<double>(at);
        const auto right = qFromLittleEndian<double>(at + 8);
        const auto count = qFromLittleEndian<double>(at + 16);
        if (!std::isfinite(left) || !std::isfinite(right) || !std::isfinite(count) || count < 0 ||
            left > right)
            return fail(u"a histogram's bucket edges and counts must be finite numbers, each "
                        "bucket's left edge no larger than its right and its count not "
                        "negative"_s);
    }
    return success();
}

Result<std::vector<HistogramBucket>> decodeBuckets(QByteArrayView bytes) {
    if (Status checked = checkBuckets(bytes); !checked)
        return checked.failure();
    std::vector<HistogramBucket> buckets(std::size_t(bytes.size() / kHistogramBucketBytes));
    const char *at = bytes.data();
    for (HistogramBucket &bucket : buckets) {
        bucket = {qFromLittleEndian<double>(at), qFromLittleEndian<double>(at + 8),
                  qFromLittleEndian<double>(at + 16)};
        at += kHistogramBucketBytes;
    }
    return buckets;
}

HistogramPercentiles histogramPercentiles(const std::vector<HistogramBucket> &buckets) {
    HistogramPercentiles out;
    out.fill(qQNaN());
    double total = 0;
    for (const HistogramBucket &bucket : buckets)
        total += bucket.count;
    if (!(total > 0))
        return out;
    std::size_t b = 0;
    double before = 0; // the count below bucket b
    for (std::size_t p = 0; p < kPercentiles.size(); ++p) {
        const double target = kPercentiles[p] * total;
        // The first bucket whose end reaches the target (a bucket of no count holds none).
        while (b + 1 < buckets.size() &&
               (before + buckets[b].count < target || buckets[b].count == 0)) {
            before += buckets[b].count;
            ++b;
        }
        const HistogramBucket &at = buckets[b];
        const double within = at.count > 0 ? std::clamp((target - before) / at.count, 0.0, 1.0) : 0;
        out[p] = at.left + within * (at.right - at.left);
    }
    return out;
}

namespace {
// The fields of each kind's facts, in their order; "sum" may be absent (NaN).
std::array<QLatin1StringView, 4> factNames(SampleKind kind) {
    switch (kind) {
    case SampleKind::Image:
        return {"width"_L1, "height"_L1, {}, {}};
    case SampleKind::Histogram:
        return {"min"_L1, "max"_L1, "num"_L1, "sum"_L1};
    case SampleKind::Text:
        return {"rows"_L1, "columns"_L1, {}, {}};
    case SampleKind::Audio:
        return {"sample_rate"_L1, "frames"_L1, "channels"_L1, {}};
    }
    return {};
}
} // namespace

QJsonObject sampleFactsJson(SampleKind kind, const SampleFacts &facts) {
    QJsonObject json;
    const auto names = factNames(kind);
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!names[i].isEmpty() && !std::isnan(facts[i]))
            json.insert(names[i], facts[i]);
    }
    return json;
}

SampleFacts sampleFactsFromJson(SampleKind kind, const QJsonObject &json) {
    SampleFacts facts{};
    const auto names = factNames(kind);
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!names[i].isEmpty())
            facts[i] = json.value(names[i]).toDouble(qQNaN());
    }
    return facts;
}

} // namespace sb
