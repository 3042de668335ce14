#pragma once

#include "Downsampler.h"
#include "MetricPoint.h"
#include "RunGroups.h"
#include "RunInfo.h"
#include "Samples.h"
#include "util/Result.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QMap>
#include <QStringList>

#include <vector>

namespace sb {

// The collector's HTTP API (version 1): its paths and the types of its answers, shared by the
// server (collector/CollectorHttpApi) and the client (CollectorClient). JSON is only the wire:
// both sides convert here, and callers get these types.
namespace CollectorApi {
inline constexpr char kHealth[] = "/api/v1/health";
inline constexpr char kPush[] = "/api/v1/push";
// The same push as little-endian f64 columns (see Collector::decodeColumns): no number is
// printed or parsed, so it costs about a copy.
inline constexpr char kPushColumns[] = "/api/v1/push/columns";
inline constexpr char kColumnsMagic[] = "SBC1"; // the format's version is its last byte
inline constexpr char kLines[] = "/api/v1/lines";
inline constexpr char kRuns[] = "/api/v1/runs";
inline constexpr char kMetrics[] = "/api/v1/metrics";
inline constexpr char kSeries[] = "/api/v1/series";
inline constexpr char kGroups[] = "/api/v1/groups";
inline constexpr char kExport[] = "/api/v1/export";
inline constexpr char kAcknowledgeRecovery[] = "/api/v1/recovery/acknowledge";
// POST {"rewind": ID}: a run's rewind undone, what it hid shown again (/runs lists rewinds).
inline constexpr char kRestoreRewind[] = "/api/v1/rewinds/restore";
// POST {"runs": [NAME...]}: those runs deleted for good, their points, samples and metadata;
// answers {"deleted": [NAME...], "points": N, "samples": M}. A name not held: 404, none deleted.
inline constexpr char kDeleteRuns[] = "/api/v1/runs/delete";
// Samples (images, histograms, text, audio): pushed as a header and their bytes (see
// Collector::decodeSamples), listed by run and tag, and each item's bytes fetched by digest.
inline constexpr char kPushSamples[] = "/api/v1/push/samples";
inline constexpr char kSamplesMagic[] = "SBS1"; // the format's version is its last byte
inline constexpr char kSamples[] = "/api/v1/samples";
inline constexpr char kBlobs[] = "/api/v1/blobs/"; // then the blob's digest in hex
// The project a request is for (a lab's collector serves several); without it, the collector's
// own. A user's right on it (read, write) decides what the request may do.
inline constexpr char kProjectHeader[] = "X-Signalbox-Project";
// Project names: 1 to 64 of letters, digits, '.', '_' and '-', not starting with '.' (they
// travel in that header and name ClickHouse rows).
bool validProject(QStringView name);
// The same, as a refusal that says what a project name is.
Status checkProject(const QString &name);
// What one request may ask for (more is refused with 400 and a message saying what to ask
// instead): every request's work and answer are bounded, whatever it names.
inline constexpr int kMostColumns = 10'000;             // width of /series and /groups
inline constexpr int kMostRunsPerRequest = 10'000;      // distinct runs named by /series, /metrics
inline constexpr qint64 kMostSeriesColumns = 1'000'000; // /series: runs × width (× 2 with raw)
inline constexpr int kMostGroups = 1'000;               // groups in one /groups request
inline constexpr qint64 kMostGroupColumns = 1'000'000;  // /groups: groups × width
inline constexpr qint64 kMostGroupMembers = 100'000;    // /groups: members of all groups together
inline constexpr qint64 kMostSamplesPerPush = 10'000;
inline constexpr qint64 kMostSamplesPerPage = 1'000;  // /samples: items in one answer
inline constexpr qsizetype kMostListedTags = 100'000; // /samples?run=...: tags in one answer
// /samples: what one answer carries inline (histograms' buckets, texts' bytes); an answer stops
// early (but never before its first item) rather than pass it, and says where to go on.
inline constexpr qint64 kMostInlineBuckets = 1'000'000;
inline constexpr qint64 kMostInlineBytes = qint64(8) << 20;
inline constexpr qint64 kMostInlineText = 65'536; // bytes of one text; the rest is in its blob
} // namespace CollectorApi

// A metric of a run, as /runs lists it: how many points, the last one, and the smallest and
// largest finite values (once the collector has read the series; absent before).
// Which value of a metric a table shows or a query reads: Best is the smallest where lower is
// better (lowerIsBetter), the largest otherwise.
enum class MetricStatistic { Last, Min, Max, Best };

// Whether a smaller value of this metric is the better one: losses, errors, perplexities,
// distances, times; otherwise (accuracy, BLEU, reward, F1…) larger is.
bool lowerIsBetter(QStringView metric);

struct MetricSummary {
    qint64 count = 0;
    MetricPoint last;
    std::optional<std::pair<double, double>> range;
    bool operator==(const MetricSummary &) const = default;
    // The statistic of the metric named `metric`; min, max and best are unset until the range
    // is known.
    std::optional<double> value(MetricStatistic statistic, QStringView metric) const;
};

// A run, as /runs lists it: its metadata and every metric's summary.
// A run resumed from a checkpoint: what its rewind hides until restored (MetricStore::Rewind).
struct RewindSummary {
    quint32 id = 0;
    double step = 0;
    bool inclusive = false;
    double time = 0;
    qint64 points = 0;
    qint64 samples = 0;
    bool operator==(const RewindSummary &) const = default;
};

struct RunSummary {
    RunInfo info;
    QMap<QString, MetricSummary> metrics;
    std::vector<RewindSummary> rewinds; // in the order they came
    bool operator==(const RunSummary &) const = default;
    QJsonObject toJson() const;
    static RunSummary fromJson(const QJsonObject &json);
};
QJsonArray toJson(const QList<RunSummary> &runs);
QList<RunSummary> runSummariesFromJson(const QJsonArray &json);
// /runs as text, written and read directly as /series is: a thousand runs with ten metrics each
// took most of an answer's time as Qt's JSON objects.
QByteArray runSummariesJsonText(const QList<RunSummary> &runs);
Result<QList<RunSummary>> runSummariesFromJsonText(const QByteArray &text);

// One run's curve of one metric in /series, downsampled: NaN where a value is not finite (JSON
// null).
struct SeriesReply {
    QString run;
    QString metric;
    QString error; // the run has no such metric; nothing else is set
    qint64 total = 0;
    qint64 inRange = 0;
    std::vector<double> x;
    std::vector<double> y;
    std::vector<double> rawX; // with smoothing: the raw curve as well
    std::vector<double> rawY;
};
// The answer to /series: each asked-for metric's curve of each asked-for run, metric by metric;
// `metric` is the first asked for.
struct SeriesReplies {
    QString metric;
    std::vector<SeriesReply> series;
    // Written and read as text directly: an answer is mostly numbers, which Qt's JSON objects
    // take several times as long to build, write and read.
    QByteArray toJsonText() const;
    static Result<SeriesReplies> fromJsonText(const QByteArray &text);
    static SeriesReplies fromJson(const QJsonObject &json); // as a cluster's API server parsed it
};

// The body of POST /groups: one metric, and runs put in groups, each drawn as one centre line
// with a band. Every group is computed on the same columns: the window's from..to, or where all
// members' points lie, in `window.width` columns.
struct GroupRequest {
    struct Group {
        QString name;
        QStringList runs;
    };
    QString metric;
    SeriesWindow window;
    GroupCenter center = GroupCenter::Mean;
    GroupBand band = GroupBand::StdDev;
    std::vector<Group> groups;
    QJsonObject toJson() const;
    // A clear refusal for a body that is not one (unknown x axis, centre or band, no metric).
    static Result<GroupRequest> fromJson(const QJsonObject &json);
};

// One group's curve in the answer to /groups, and which of its runs have the metric.
struct GroupReply {
    QString name;
    QStringList runs;    // members with points of the metric
    QStringList missing; // members without
    GroupCurve curve;
};
struct GroupReplies {
    QString metric;
    std::vector<GroupReply> groups;
    QJsonObject toJson() const;
    static GroupReplies fromJson(const QJsonObject &json);
};

// The answer to /lines: what was stored, what was a batch stored before, and each bad line.
struct LinesReply {
    qint64 accepted = 0;
    qint64 duplicates = 0;
    QStringList errors;
    QJsonObject toJson() const;
    static LinesReply fromJson(const QJsonObject &json);
};

// A run's tag of samples, as /samples?run=R lists them.
struct SampleTagSummary {
    QString run;
    QString tag;
    SampleKind kind = SampleKind::Image;
    qint64 points = 0;
    double firstStep = 0;
    double lastStep = 0;
    bool operator==(const SampleTagSummary &) const = default;
    QJsonObject toJson() const;
    static SampleTagSummary fromJson(const QJsonObject &json);
};

// One item in /samples?run=R&tag=T: its step, its kind's facts, its blob, and what is small
// enough to come inline: a text (its first kMostInlineText bytes), a histogram's buckets.
struct SampleItem {
    double step = 0;
    double wall = 0;
    quint32 index = 0;
    SampleFacts facts{};
    QString blob; // the SHA-256 of its bytes, in hex: GET /api/v1/blobs/<blob>
    qint64 bytes = 0;
    std::optional<QString> text;
    bool textCut = false; // the text goes on in its blob
    std::vector<HistogramBucket> buckets;
};
struct SamplesReply {
    QString run;
    QString tag;
    SampleKind kind = SampleKind::Image;
    qint64 total = 0;  // items in the asked step range
    qint64 offset = 0; // of the first item here among them
    std::vector<SampleItem> samples;
    QJsonObject toJson() const;
    static Result<SamplesReply> fromJson(const QJsonObject &json);
};

// Samples as one or more pushes (POST /api/v1/push/samples, the format Collector::decodeSamples
// reads), each at most kSamplesPushBytes of items (an item larger alone) and kMostSamplesPerPush
// items.
inline constexpr qint64 kSamplesPushBytes = qint64(32) << 20;
QList<QByteArray> samplesPushes(const QString &run, const std::vector<Sample> &samples);

// The answer to /health.
struct Health {
    QString service;
    QString version;
    qint64 runs = 0;
    qint64 points = 0;
    QStringList recovery; // what opening the store repaired, until acknowledged
    QJsonArray sources;   // watched files and their errors (as DirectoryIngestor reports them)
    QJsonObject lab;      // shipping to a lab's ClickHouse (LabForwarder::state); empty: none
    // The request's: the project asked for, the user that asked (empty with one token for all)
    // and what they may do there ("read", "write" or "none").
    QString project;
    QString user;
    QString access;
    QJsonObject toJson() const;
    static Health fromJson(const QJsonObject &json);
};

} // namespace sb
