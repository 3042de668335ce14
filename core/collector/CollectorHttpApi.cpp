#include "CollectorHttpApi.h"

#include "Collector.h"
#include "util/OffThread.h"

#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStorageInfo>
#include <QStringDecoder>
#include <QTemporaryFile>
#include <QThreadPool>

#include <cmath>
#include <cstring>
#include <variant>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

enum HttpStatus {
    Ok = 200,
    BadRequest = 400,
    Unauthorized = 401,
    Forbidden = 403,
    NotFound = 404,
    Unavailable = 503,
    Storage = 507
};

HttpResponse json(const QJsonValue &value, int status = Ok) {
    const QJsonDocument document =
        value.isArray() ? QJsonDocument(value.toArray()) : QJsonDocument(value.toObject());
    return {status, "application/json", document.toJson(QJsonDocument::Compact), {}};
}

HttpResponse error(const QString &message, int status) {
    return json(QJsonObject{{u"error"_s, message}}, status);
}

// A refusal for its content is the sender's to fix (400); a store that failed is ours (507), and
// the sender should come again.
int failureStatus(ErrorCode code) {
    return code == ErrorCode::StorageFailed  ? Storage
           : code == ErrorCode::InvalidInput ? BadRequest
                                             : 500;
}

// Compares without leaking, through timing, how much of a token matched.
bool constantTimeEqual(const QByteArray &a, const QByteArray &b) {
    if (a.size() != b.size())
        return false;
    unsigned char diff = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

// A request's query parameters, percent-decoded as UTF-8 with '+' read as a space (as HTML forms
// and Python's urlencode send it), so any run or metric name that can be stored can be asked for.
// Bytes that are not UTF-8 are refused, not replaced: "%FF" and "%FE" would both be U+FFFD and
// name the same run.
class Parameters {
public:
    explicit Parameters(const QByteArray &query) {
        for (const QByteArray &item : query.split('&')) {
            if (item.isEmpty())
                continue;
            const qsizetype equals = item.indexOf('=');
            const QByteArray key = equals < 0 ? item : item.first(equals);
            const auto name = decode(key);
            const auto value =
                equals < 0 ? std::optional<QString>(QString()) : decode(item.sliced(equals + 1));
            if (!name || !value) {
                if (m_invalid.isEmpty())
                    m_invalid = name ? *name : QString::fromLatin1(key);
                continue;
            }
            m_items.append({*name, *value});
        }
    }
    // The first parameter whose name or value is not UTF-8; empty when all are.
    const QString &invalid() const { return m_invalid; }
    QStringList values(const QString &key) const {
        QStringList out;
        for (const auto &[name, value] : m_items) {
            if (name == key)
                out << value;
        }
        return out;
    }
    QString value(const QString &key) const { return values(key).value(0); }
    std::optional<double> number(const QString &key) const {
        bool ok = false;
        const double number = value(key).toDouble(&ok);
        return ok && std::isfinite(number) ? std::optional<double>(number) : std::nullopt;
    }

private:
    static std::optional<QString> decode(QByteArray text) {
        text.replace('+', ' ');
        // A leading BOM is kept as U+FEFF: "\uFEFFa" and "a" are different names.
        QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless |
                                                      QStringDecoder::Flag::ConvertInitialBom);
        QString decoded = utf8(QByteArray::fromPercentEncoding(text));
        return utf8.hasError() ? std::nullopt : std::optional<QString>(std::move(decoded));
    }
    QList<std::pair<QString, QString>> m_items;
    QString m_invalid;
};

// The runs a request names, each once (a name given a thousand times is one run's work), or why
// they are too many for one request.
Result<QStringList> namedRuns(const Parameters &query) {
    QStringList runs = query.values(u"run"_s);
    runs.removeDuplicates();
    if (runs.size() > CollectorApi::kMostRunsPerRequest)
        return fail(u"%1 runs in one request, more than %2: ask for them in several requests"_s
                        .arg(runs.size())
                        .arg(CollectorApi::kMostRunsPerRequest),
                    ErrorCode::InvalidInput);
    return runs;
}

// What /series asks: each curve, its window, and whether the raw curves come too.
struct SeriesAsk {
    std::vector<MetricStore::SeriesName> names; // metric by metric, run by run
    SeriesWindow window;
    bool withRaw = false;
    QString firstMetric;
    SeriesWindow rawWindow() const {
        SeriesWindow raw = window;
        raw.smoothing = 0;
        return raw;
    }
};
using Answers = std::vector<Result<Downsampled>>;

// The request read, or the answer that says what is wrong with it.
std::variant<SeriesAsk, HttpResponse> seriesAsk(const Parameters &query) {
    SeriesWindow window;
    if (!parseXAxis(query.value(u"x"_s).isEmpty() ? u"step"_s : query.value(u"x"_s), &window.axis))
        return error(u"x must be step, relative or wall"_s, BadRequest);
    window.xMetric = query.value(u"x_metric"_s); // another metric of each run as x
    window.from = query.number(u"from"_s);
    window.to = query.number(u"to"_s);
    window.logX = query.value(u"log_x"_s) == u"1"_s || query.value(u"log_x"_s) == u"true"_s;
    const double width = query.number(u"width"_s).value_or(1000);
    if (!(width >= 1 && width <= CollectorApi::kMostColumns))
        return error(u"width must be 1 to %1 columns (the chart's width in pixels)"_s.arg(
                         CollectorApi::kMostColumns),
                     BadRequest);
    window.width = static_cast<int>(width);
    window.smoothing = std::clamp(query.number(u"smoothing"_s).value_or(0), 0.0, 0.999);
    if (const QString kind = query.value(u"smoothing_kind"_s);
        !kind.isEmpty() && !parseSmoothingKind(kind, &window.smoothingKind))
        return error(u"smoothing_kind must be ema, average or gaussian"_s, BadRequest);
    const auto runs = namedRuns(query);
    if (!runs)
        return error(runs.error(), BadRequest);
    const bool withRaw = window.smoothing > 0 && query.value(u"raw"_s) != u"0"_s;
    QStringList metrics = query.values(u"metric"_s);
    metrics.removeDuplicates(); // one named thousands of times is answered once
    if (metrics.isEmpty())
        metrics << QString(); // each run answers that it has no such metric
    // Each curve is a look-up, and one the store lacks an answer of its own: their count is
    // bounded as the runs of a request are.
    if (const qint64 curves = qint64(runs->size()) * metrics.size();
        curves > CollectorApi::kMostRunsPerRequest)
        return error(u"%1 runs × %2 metrics is more curves than one answer holds (%3): ask for "
                     "fewer at a time"_s.arg(runs->size())
                         .arg(metrics.size())
                         .arg(CollectorApi::kMostRunsPerRequest),
                     BadRequest);
    // An answer holds up to four points a column (M4), so its columns bound its size.
    if (const qint64 columns =
            qint64(runs->size()) * metrics.size() * window.width * (withRaw ? 2 : 1);
        columns > CollectorApi::kMostSeriesColumns)
        return error(u"%1 curves × %2 columns%3 is more than one answer holds (%4 columns): ask "
                     "for fewer runs or metrics at a time%5 or a smaller width"_s
                         .arg(qint64(runs->size()) * metrics.size())
                         .arg(window.width)
                         .arg(withRaw ? u" × 2 (with the raw curves)"_s : QString())
                         .arg(CollectorApi::kMostSeriesColumns)
                         .arg(withRaw ? u", raw=0"_s : QString()),
                     BadRequest);
    SeriesAsk ask{{}, window, withRaw, metrics.front()};
    for (const QString &metric : metrics) {
        for (const QString &run : *runs)
            ask.names.push_back({run, metric});
    }
    return ask;
}

// The answers (and raw curves, when asked) made into /series' reply.
HttpResponse seriesReply(const SeriesAsk &ask, Answers answers, Answers raws) {
    const auto &names = ask.names;
    const bool withRaw = ask.withRaw;
    SeriesReplies replies{ask.firstMetric, {}};
    for (std::size_t i = 0; i < names.size(); ++i) {
        SeriesReply &reply = replies.series.emplace_back();
        reply.run = names[i].run;
        reply.metric = names[i].metric;
        Result<Downsampled> &answer = answers[i];
        // Stored points that cannot be read fail the answer (500): never a curve of zeros.
        for (const Result<Downsampled> *read : {&answer, withRaw ? &raws[i] : &answer}) {
            if (!*read && read->errorCode() == ErrorCode::StorageFailed)
                return error(read->error(), 500);
        }
        if (!answer) {
            reply.error = answer.error();
            continue;
        }
        reply.total = answer->total;
        reply.inRange = answer->inRange;
        reply.x = std::move(answer.value().x);
        reply.y = std::move(answer.value().y);
        if (withRaw && raws[i]) {
            reply.rawX = std::move(raws[i].value().x);
            reply.rawY = std::move(raws[i].value().y);
        }
    }
    return {Ok, "application/json", replies.toJsonText(), {}};
}

// GET /samples: a run's tags (run=R...), or one tag's items (run=R&tag=T&from=&to=&offset=&limit=).
HttpResponse samplesReply(const MetricStore &store, const Parameters &query) {
    const auto runs = namedRuns(query);
    if (!runs)
        return error(runs.error(), BadRequest);
    const QStringList tags = query.values(u"tag"_s);
    if (tags.isEmpty()) {
        QJsonArray listed;
        for (const QString &run : *runs) {
            if (listed.size() > CollectorApi::kMostListedTags)
                return error(u"more than %1 tags of samples in one answer: ask for fewer runs at "
                             "a time"_s.arg(CollectorApi::kMostListedTags),
                             BadRequest);
            for (const auto &tag : store.sampleTags(run))
                listed.append(
                    SampleTagSummary{run, tag.tag, tag.kind, tag.count, tag.firstStep, tag.lastStep}
                        .toJson());
        }
        return json(QJsonObject{{u"tags"_s, listed}});
    }
    if (runs->size() != 1 || tags.size() != 1)
        return error(u"ask for one run's tag at a time: run=NAME&tag=TAG"_s, BadRequest);
    // Compared as numbers before they become counts: 1e300 is finite, and no qint64.
    const double limit = query.number(u"limit"_s).value_or(100);
    if (!(limit >= 1 && limit <= CollectorApi::kMostSamplesPerPage))
        return error(u"limit must be 1 to %1 samples"_s.arg(CollectorApi::kMostSamplesPerPage),
                     BadRequest);
    const double offset =
        std::clamp(query.number(u"offset"_s).value_or(0), 0.0, double(kMaxCoordinate));
    const auto page = store.samples(runs->front(), tags.front(), query.number(u"from"_s),
                                    query.number(u"to"_s), qint64(offset), qint64(limit));
    if (!page)
        return error(page.error(), NotFound);
    SamplesReply reply{runs->front(), tags.front(), page->kind, page->total, qint64(offset), {}};
    qint64 buckets = 0;
    qint64 inlineBytes = 0;
    for (const MetricStore::FoundSample &found : page->samples) {
        SampleItem item{found.item.step,
                        found.item.wall,
                        found.item.index,
                        found.item.facts,
                        QString::fromLatin1(found.digest.toHex()),
                        found.size,
                        {},
                        false,
                        {}};
        const bool inlined = page->kind == SampleKind::Text || page->kind == SampleKind::Histogram;
        if (inlined) {
            // What one answer carries inline is bounded: it stops early, never empty.
            const qint64 more = std::min(found.size, CollectorApi::kMostInlineText);
            if (!reply.samples.empty() &&
                (inlineBytes + more > CollectorApi::kMostInlineBytes ||
                 buckets + found.size / kHistogramBucketBytes > CollectorApi::kMostInlineBuckets))
                break;
            // A text's first 64 KiB (and a character's worth more, to cut on its start).
            auto bytes = store.readBlob(found.digest, page->kind == SampleKind::Text
                                                          ? CollectorApi::kMostInlineText + 4
                                                          : -1);
            if (!bytes) // stored, yet unreadable: never an answer that hides it
                return error(bytes.error(), 500);
            if (page->kind == SampleKind::Text) {
                // Cut on a character's start: a UTF-8 continuation byte is 10xxxxxx.
                qint64 cut = std::min<qint64>(bytes->size(), CollectorApi::kMostInlineText);
                while (cut < bytes->size() && cut > 0 && (quint8(bytes->at(cut)) & 0xc0) == 0x80)
                    --cut;
                item.text = QString::fromUtf8(bytes->first(cut));
                item.textCut = cut < found.size;
                inlineBytes += cut;
            } else {
                auto decoded = decodeBuckets(*bytes);
                if (!decoded)
                    return error(decoded.error(), 500);
                item.buckets = std::move(decoded).value();
                buckets += qint64(item.buckets.size());
                inlineBytes += bytes->size();
            }
        }
        reply.samples.push_back(std::move(item));
    }
    return json(reply.toJson());
}

// The threads a lab collector's reads run on: charts', and exports' (long).
struct LabPools {
    QThreadPool *reads;
    QThreadPool *exports;
};
const QString kLabExportPrefix = QStringLiteral("lab-export-");

// A series another holds, for as long as a computation reads it.
class BorrowedSource final : public PointSource {
public:
    explicit BorrowedSource(const PointSource &source)
        : m_source(source) {}
    qint64 size() const override { return m_source.size(); }
    void read(qint64 first, qint64 count, MetricPoint *out) const override {
        m_source.read(first, count, out);
    }
    QString failure() const override { return m_source.failure(); }

private:
    const PointSource &m_source;
};

// The Content-Type of a blob's bytes, from their own first bytes (a blob has no kind of its own:
// the same bytes may be two tags' items); anything else is bytes to download.
QByteArray blobType(QByteArrayView bytes) {
    if (bytes.startsWith("\x89PNG\r\n\x1a\n"))
        return "image/png";
    if (bytes.startsWith("\xff\xd8\xff"))
        return "image/jpeg";
    if (bytes.startsWith("GIF87a") || bytes.startsWith("GIF89a"))
        return "image/gif";
    if (bytes.size() >= 12 && bytes.startsWith("RIFF") && bytes.sliced(8, 4) == "WEBP")
        return "image/webp";
    if (bytes.size() >= 12 && bytes.startsWith("RIFF") && bytes.sliced(8, 4) == "WAVE")
        return "audio/wav";
    return "application/octet-stream";
}

HttpResponse blobReply(const MetricStore &store, QByteArrayView hex) {
    const QByteArray digest = QByteArray::fromHex(hex.toByteArray());
    if (hex.size() != 64 || digest.size() != 32 || digest.toHex() != hex.toByteArray().toLower())
        return error(u"a blob is named by its digest in hex (64 digits)"_s, BadRequest);
    auto bytes = store.readBlob(digest);
    if (!bytes)
        return error(bytes.error(), bytes.errorCode() == ErrorCode::StorageFailed ? 500 : NotFound);
    const QByteArray type = blobType(*bytes);
    return {Ok, type, std::move(bytes).value(), {}};
}

std::variant<GroupRequest, HttpResponse> groupsAsk(const QByteArray &body) {
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(body, &parseError);
    if (!document.isObject())
        return error(u"the body must be a JSON object: %1"_s.arg(parseError.errorString()),
                     BadRequest);
    auto request = GroupRequest::fromJson(document.object());
    if (!request)
        return error(request.error(), BadRequest);
    return std::move(request).value();
}

HttpResponse groupsReply(const Result<GroupReplies> &groups) {
    return groups ? json(groups->toJson())
                  : error(groups.error(), failureStatus(groups.errorCode()));
}

// What /runs asks: its page of the runs that mention `filter` and pass `where`.
struct RunsAsk {
    QString filter;
    qsizetype offset = 0;
    qsizetype limit = -1; // all
    std::optional<RunQuery> where;
};

std::variant<RunsAsk, HttpResponse> runsAsk(const Parameters &query) {
    RunsAsk ask;
    bool limited = false;
    const qsizetype limit = query.value(u"limit"_s).toLongLong(&limited);
    ask.limit = limited ? std::max<qsizetype>(0, limit) : -1;
    ask.offset = std::max<qsizetype>(0, query.value(u"offset"_s).toLongLong());
    ask.filter = query.value(u"filter"_s);
    if (const QString text = query.value(u"where"_s); !text.isEmpty()) {
        auto parsed = RunQuery::parse(text);
        if (!parsed)
            return error(u"where: %1"_s.arg(parsed.error()), BadRequest);
        ask.where = std::move(parsed).value();
    }
    return ask;
}

HttpResponse runsReply(const Result<QList<RunSummary>> &listed) {
    return listed ? HttpResponse{Ok, "application/json", runSummariesJsonText(*listed), {}}
                  : error(listed.error(), Unavailable);
}

HttpResponse metricsReply(const Result<QStringList> &names) {
    return names ? json(QJsonArray::fromStringList(*names)) : error(names.error(), Unavailable);
}

// A CSV export streamed piece by piece as the client reads, so memory stays flat whatever the
// series' size. A read failing mid-way aborts the reply: the client sees a cut body, never a
// whole CSV.
HttpResponse csvReply(std::shared_ptr<CsvExport> csv) {
    return {Ok, "text/csv", {}, [csv = std::move(csv)]() -> std::optional<QByteArray> {
                QByteArray piece = csv->next();
                if (piece.isEmpty() && !csv->error().isEmpty())
                    return std::nullopt;
                return piece;
            }};
}

// A read of a lab collector, answered from the lab's ClickHouse on `pools` (its calls block);
// false for what the collector's own store answers (pushes, health, samples, ...).
bool answerFromLab(QObject *context, const LabPools &pools,
                   const std::shared_ptr<const LabReader> &reader, const QString &spool,
                   const QByteArray &path, bool get, bool post, const Parameters &query,
                   const QByteArray &body, const HttpServer::Respond &respond) {
    const auto later = [&](auto work, auto reply, QThreadPool *pool) {
        runOffThread(pool, context, std::move(work),
                     [respond, reply](auto answer) { respond(reply(std::move(answer))); });
    };
    if (path == CollectorApi::kRuns && get) {
        auto ask = runsAsk(query);
        if (auto *refused = std::get_if<HttpResponse>(&ask)) {
            respond(std::move(*refused));
            return true;
        }
        later(
            [reader, runs = std::get<RunsAsk>(std::move(ask))] {
                return reader->runs(runs.filter, runs.offset, runs.limit,
                                    runs.where ? &*runs.where : nullptr,
                                    double(QDateTime::currentMSecsSinceEpoch()) / 1000);
            },
            runsReply, pools.reads);
    } else if (path == CollectorApi::kMetrics && get) {
        const auto named = namedRuns(query);
        if (!named)
            respond(error(named.error(), BadRequest));
        else
            later([reader, runs = *named] { return reader->metrics(runs); }, metricsReply,
                  pools.reads);
    } else if (path == CollectorApi::kSeries && get) {
        auto ask = seriesAsk(query);
        if (auto *refused = std::get_if<HttpResponse>(&ask)) {
            respond(std::move(*refused));
            return true;
        }
        auto series = std::make_shared<const SeriesAsk>(std::get<SeriesAsk>(std::move(ask)));
        later(
            [reader, series]() -> Result<std::pair<Answers, Answers>> {
                auto answers = reader->query(series->names, series->window);
                if (!answers)
                    return answers.failure();
                Answers raws;
                if (series->withRaw) {
                    auto raw = reader->query(series->names, series->rawWindow());
                    if (!raw)
                        return raw.failure();
                    raws = std::move(raw).value();
                }
                return std::pair(std::move(answers).value(), std::move(raws));
            },
            [series](Result<std::pair<Answers, Answers>> answers) {
                if (!answers)
                    return error(answers.error(), answers.errorCode() == ErrorCode::InvalidInput
                                                      ? BadRequest
                                                      : Unavailable);
                auto &[curves, raws] = answers.value();
                return seriesReply(*series, std::move(curves), std::move(raws));
            },
            pools.reads);
    } else if (path == CollectorApi::kGroups && post) {
        auto ask = groupsAsk(body);
        if (auto *refused = std::get_if<HttpResponse>(&ask)) {
            respond(std::move(*refused));
            return true;
        }
        later(
            [reader, request = std::get<GroupRequest>(std::move(ask))]() -> Result<GroupReplies> {
                // Every member read whole at once, then computed on as the store's series.
                std::vector<MetricStore::SeriesName> names;
                QStringList runs;
                for (const GroupRequest::Group &group : request.groups)
                    runs << group.runs;
                runs.removeDuplicates();
                for (const QString &run : std::as_const(runs))
                    names.push_back({run, request.metric});
                auto loaded = reader->load(names, request.window.xMetric);
                if (!loaded)
                    return loaded.failure();
                QHash<QString, const Result<MetricStore::Opened> *> byRun;
                for (qsizetype i = 0; i < runs.size(); ++i)
                    byRun.insert(runs[i], &(*loaded)[std::size_t(i)]);
                return Collector::groupsOf(
                    request, [&byRun](const QString &run) -> Result<MetricStore::Opened> {
                        const Result<MetricStore::Opened> *series = byRun.value(run);
                        if (!*series)
                            return series->failure();
                        return MetricStore::Opened{
                            std::make_unique<BorrowedSource>(*(*series)->points),
                            (*series)->summary, (*series)->origin, nullptr};
                    });
            },
            [](const Result<GroupReplies> &groups) {
                // Failed here is ClickHouse's: the collector is up, its store is not.
                return groups || groups.errorCode() != ErrorCode::Failed
                           ? groupsReply(groups)
                           : error(groups.error(), Unavailable);
            },
            pools.reads);
    } else if (path == CollectorApi::kExport && get) {
        // Written whole to a file in the spool's directory first (ClickHouse is not read on the
        // thread that streams replies), then streamed from there; on a thread of their own, so
        // that a long export holds up no chart.
        later(
            [reader, spool, home = context->thread(), run = query.value(u"run"_s),
             metric = query.value(u"metric"_s)]() -> Result<std::shared_ptr<QFile>> {
                auto source = reader->pages(run, metric);
                if (!source)
                    return source.failure();
                // A point is at most about 80 characters of CSV; pushes need the room left.
                const qint64 needs = (*source)->size() * 80 + (qint64(1) << 30);
                if (const QStorageInfo disk(spool); disk.bytesAvailable() < needs)
                    return fail(
                        u"the collector's disk has %1 MB free, too little to export %2 "
                        "points (it keeps 1 GB for pushes)"_s.arg(disk.bytesAvailable() >> 20)
                            .arg((*source)->size()),
                        ErrorCode::StorageFailed);
                auto file =
                    std::make_shared<QTemporaryFile>(spool + u'/' + kLabExportPrefix + u"XXXXXX"_s);
                const auto cannotWrite = [&file] {
                    return fail(u"cannot write the export: %1"_s.arg(file->errorString()),
                                ErrorCode::StorageFailed);
                };
                if (!file->open())
                    return cannotWrite();
                CsvExport csv(std::move(source).value());
                for (QByteArray piece = csv.next(); !piece.isEmpty(); piece = csv.next()) {
                    if (file->write(piece) != piece.size())
                        return cannotWrite();
                }
                if (!csv.error().isEmpty())
                    return fail(csv.error());
                if (!file->flush() || !file->seek(0))
                    return cannotWrite();
                file->moveToThread(home); // read and deleted there
                return std::shared_ptr<QFile>(std::move(file));
            },
            [](const Result<std::shared_ptr<QFile>> &file) -> HttpResponse {
                if (!file)
                    return error(file.error(),
                                 file.errorCode() == ErrorCode::InvalidInput    ? NotFound
                                 : file.errorCode() == ErrorCode::StorageFailed ? Storage
                                                                                : Unavailable);
                return {Ok, "text/csv", {}, [file = *file]() -> std::optional<QByteArray> {
                            QByteArray piece = file->read(qint64(1) << 20);
                            if (piece.isEmpty() && !file->atEnd())
                                return std::nullopt; // a read error: the client sees a cut body
                            return piece;
                        }};
            },
            pools.exports);
    } else {
        return false;
    }
    return true;
}

} // namespace

CollectorHttpApi::CollectorHttpApi(Collector *collector, Access access, HttpServer::Limits limits)
    : m_collector(collector)
    , m_access(std::move(access))
    , m_server([this](HttpRequest request,
                      const HttpServer::Respond &respond) { handle(std::move(request), respond); },
               limits) {
    m_labReads.setMaxThreadCount(4); // ClickHouse does the work: a few GUIs' reads at once
    m_labExports.setMaxThreadCount(1);
    // Exports a kill left behind.
    if (m_collector->labReader()) {
        QDir spool(m_collector->store().directory());
        for (const QString &name :
             spool.entryList({kLabExportPrefix + u'*'}, QDir::Files | QDir::Hidden))
            spool.remove(name);
    }
    if (!m_access.token.isEmpty())
        m_expectedAuthorization = "Bearer " + m_access.token.toUtf8();
}

CollectorHttpApi::~CollectorHttpApi() {
    m_labReads.clear(); // reads not yet begun are dropped; those under way are waited for
    m_labExports.clear();
}

void CollectorHttpApi::setHostNames(const QStringList &names) {
    m_hostNames.clear();
    for (QString name : names) {
        if (name.endsWith(u'.'))
            name.chop(1);
        m_hostNames << name.toLower().toUtf8();
    }
}

std::variant<CollectorHttpApi::Caller, HttpResponse>
CollectorHttpApi::identify(const HttpRequest &request) const {
    static const QByteArray projectHeader = QByteArray(CollectorApi::kProjectHeader).toLower();
    // A collector of one store and one token (the app's embedded one) has no projects: a
    // script's SIGNALBOX_PROJECT, meant for the lab, must not turn its pushes away.
    const QByteArray asked = m_access.users || m_collector->inLab()
                                 ? request.header(projectHeader).trimmed()
                                 : QByteArray();
    Caller caller{{},
                  asked.isEmpty() ? m_collector->project() : QString::fromUtf8(asked),
                  AccessList::Right::Write};
    const Status validProject = CollectorApi::checkProject(caller.project);
    const auto invalidProject = [&validProject] {
        return error(
            u"%1: %2"_s.arg(QLatin1StringView(CollectorApi::kProjectHeader), validProject.error()),
            BadRequest);
    };
    // Through a Kubernetes API server's service proxy the Authorization header is the API
    // server's own, and is not passed on: the token may come as X-Signalbox-Token instead.
    const std::array<QByteArray, 2> presented{request.header("authorization"),
                                              "Bearer " + request.header("x-signalbox-token")};
    const HttpResponse unauthorized = error(u"a valid bearer token is required"_s, Unauthorized);
    if (!m_access.users) {
        if (!m_expectedAuthorization.isEmpty() &&
            !constantTimeEqual(presented[0], m_expectedAuthorization) &&
            !constantTimeEqual(presented[1], m_expectedAuthorization))
            return unauthorized;
        if (!validProject)
            return invalidProject();
    } else {
        const auto list = m_access.users->current();
        if (!list) // the reason is in the collector's log, not for whoever asks
            return error(u"the collector's users file cannot be read: its log says why"_s,
                         Unavailable);
        std::optional<QString> user;
        for (const QByteArray &authorization : presented) {
            if (!user && authorization.startsWith("Bearer "))
                user = (*list)->userOf(QByteArrayView(authorization).sliced(7));
        }
        if (!user)
            return unauthorized;
        if (!validProject)
            return invalidProject();
        caller.user = *user;
        caller.right = (*list)->rightOf(*user, caller.project);
        caller.readsOwn =
            (*list)->rightOf(*user, m_collector->project()) >= AccessList::Right::Read;
    }
    return caller;
}

void CollectorHttpApi::handle(HttpRequest request, const HttpServer::Respond &respond) {
    if (auto refused = refuseForeignRequest(request, m_loopback, m_hostNames)) {
        respond(std::move(*refused));
        return;
    }
    auto identified = identify(request);
    if (auto *refused = std::get_if<HttpResponse>(&identified)) {
        respond(std::move(*refused));
        return;
    }
    const Caller &caller = std::get<Caller>(identified);
    const QByteArray path = request.path();
    const Parameters query(request.query());
    if (!query.invalid().isEmpty()) {
        respond(
            error(u"the parameter \"%1\" is not valid UTF-8 (percent-encode its UTF-8 bytes)"_s.arg(
                      query.invalid()),
                  BadRequest));
        return;
    }
    const bool get = request.method == "GET" || request.method == "HEAD"; // HEAD: no body sent
    const bool post = request.method == "POST";
    if (path == CollectorApi::kHealth && get) {
        // The collector's own counts, files and lab state are its project's: for its readers.
        Health health;
        if (caller.readsOwn) {
            health = m_collector->health();
        } else {
            const Health own = m_collector->health();
            health.service = own.service;
            health.version = own.version;
            if (m_collector->labReader()) // what it is, not what it holds
                health.lab = QJsonObject{{u"serves"_s, true}};
        }
        health.project = caller.project;
        health.user = caller.user;
        health.access = AccessList::rightName(caller.right);
        respond(json(health.toJson()));
        return;
    }
    // Every POST writes, but /groups, which reads.
    const bool writes = post && path != CollectorApi::kGroups;
    if (caller.right < (writes ? AccessList::Right::Write : AccessList::Right::Read)) {
        respond(error(u"%1 may not %2 project %3"_s.arg(
                          caller.user, writes ? u"write to"_s : u"read"_s, caller.project),
                      Forbidden));
        return;
    }
    const bool own = caller.project == m_collector->project();
    if (auto reader = m_collector->labReader();
        reader && answerFromLab(this, {&m_labReads, &m_labExports},
                                own ? reader : reader->forProject(caller.project),
                                m_collector->store().directory(), path, get, post, query,
                                request.body, respond))
        return;
    if (!own && path == CollectorApi::kSamples && get && query.value(u"tag"_s).isEmpty()) {
        respond(json(QJsonArray())); // samples are not shipped: another project has none here
        return;
    }
    if (!own) {
        respond(error(u"this collector keeps project %1's runs, not %2's%3"_s.arg(
                          m_collector->project(), caller.project,
                          m_collector->labReader()
                              ? u"; from the lab's store it reads any project's runs, metrics, "
                                "series, groups and exports"_s
                              : QString()),
                      writes ? BadRequest : NotFound));
        return;
    }

    if ((path == CollectorApi::kPush || path == CollectorApi::kPushColumns) && post) {
        runOffThread(
            this,
            [body = std::move(request.body), columns = path == CollectorApi::kPushColumns] {
                return columns ? Collector::decodeColumns(body) : Collector::decodePush(body);
            },
            [this, respond](Result<Collector::Push> push) {
                const auto stored =
                    push ? m_collector->storePush(std::move(push).value()) : push.failure();
                respond(stored ? json(QJsonObject{{u"accepted"_s, stored.value()}})
                               : error(stored.error(), failureStatus(stored.errorCode())));
            });
    } else if (path == CollectorApi::kPushSamples && post) {
        runOffThread(
            this, [body = std::move(request.body)] { return Collector::decodeSamples(body); },
            [this, respond](const Result<Collector::SamplesPush> &push) {
                const auto stored =
                    push ? m_collector->storeSamples(push->run, push->samples) : push.failure();
                respond(stored ? json(QJsonObject{{u"accepted"_s, stored.value()}})
                               : error(stored.error(), failureStatus(stored.errorCode())));
            });
    } else if (path == CollectorApi::kLines && post) {
        runOffThread(
            this, [body = std::move(request.body)] { return Collector::decodeLines(body); },
            [this, respond, run = query.value(u"run"_s)](const Collector::Lines &lines) {
                const auto result = m_collector->storeLines(run, lines);
                // Bad lines are reported and skipped; a store that failed asks the sender to
                // come again.
                const LinesReply reply{result.points, result.duplicates, result.errors};
                respond(json(reply.toJson(), result.storageFailed ? Storage : Ok));
            });
    } else if (path == CollectorApi::kAcknowledgeRecovery && post) {
        const qint64 notes = m_collector->store().recoveryNotes().size();
        if (Status done = m_collector->store().acknowledgeRecovery(); !done)
            respond(error(done.error(), failureStatus(done.errorCode())));
        else
            respond(json(QJsonObject{{u"acknowledged"_s, notes}}));
    } else if (path == CollectorApi::kRestoreRewind && post) {
        const QJsonValue id = QJsonDocument::fromJson(request.body).object().value(u"rewind"_s);
        const qint64 number = id.toInteger(-1);
        if (!id.isDouble() || number <= 0 || number > 0xffffffff) {
            respond(error(u"the body must be {\"rewind\": ID} (an id /api/v1/runs lists)"_s,
                          BadRequest));
        } else if (Status restored = m_collector->restoreRewind(quint32(number)); !restored) {
            respond(error(restored.error(), restored.errorCode() == ErrorCode::Failed
                                                ? NotFound
                                                : failureStatus(restored.errorCode())));
        } else {
            respond(json(QJsonObject{{u"restored"_s, number}}));
        }
    } else if (path == CollectorApi::kDeleteRuns && post) {
        QStringList runs;
        const QJsonValue named = QJsonDocument::fromJson(request.body).object().value(u"runs"_s);
        for (const QJsonValue run : named.toArray())
            runs << run.toString();
        if (!named.isArray() || runs.isEmpty() || runs.contains(QString())) {
            respond(error(u"the body must be {\"runs\": [NAME...]}"_s, BadRequest));
        } else if (runs.size() > CollectorApi::kMostRunsPerRequest) {
            respond(error(
                u"%1 runs in one request, more than %2: delete them in several"_s.arg(runs.size())
                    .arg(CollectorApi::kMostRunsPerRequest),
                BadRequest));
        } else if (auto deleted = m_collector->deleteRuns(runs); !deleted) {
            respond(error(deleted.error(), deleted.errorCode() == ErrorCode::Failed
                                               ? NotFound
                                               : failureStatus(deleted.errorCode())));
        } else {
            respond(json(QJsonObject{{u"deleted"_s, QJsonArray::fromStringList(deleted->runs)},
                                     {u"points"_s, deleted->points},
                                     {u"samples"_s, deleted->samples}}));
        }
    } else if (path == CollectorApi::kRuns && get) {
        auto ask = runsAsk(query);
        if (auto *refused = std::get_if<HttpResponse>(&ask)) {
            respond(std::move(*refused));
            return;
        }
        const RunsAsk &runs = std::get<RunsAsk>(ask);
        respond(runsReply(m_collector->runs(runs.filter, runs.offset, runs.limit,
                                            runs.where ? &*runs.where : nullptr)));
    } else if (path == CollectorApi::kMetrics && get) {
        const auto named = namedRuns(query);
        if (!named) {
            respond(error(named.error(), BadRequest));
            return;
        }
        QStringList runs = *named;
        if (runs.isEmpty()) {
            for (const RunInfo &run : m_collector->store().runs())
                runs << run.name;
        }
        QSet<QString> names;
        for (const QString &run : std::as_const(runs)) {
            for (const auto &series : m_collector->store().series(run))
                names.insert(series.metric);
        }
        QStringList sorted(names.begin(), names.end());
        sorted.sort();
        respond(json(QJsonArray::fromStringList(sorted)));
    } else if (path == CollectorApi::kSeries && get) {
        auto ask = seriesAsk(query);
        if (auto *refused = std::get_if<HttpResponse>(&ask)) {
            respond(std::move(*refused));
            return;
        }
        const SeriesAsk &series = std::get<SeriesAsk>(ask);
        MetricStore &store = m_collector->store();
        // Charts draw the raw curve faintly behind the smoothed one: both at once.
        Answers raws = series.withRaw ? store.query(series.names, series.rawWindow()) : Answers{};
        respond(seriesReply(series, store.query(series.names, series.window), std::move(raws)));
    } else if (path == CollectorApi::kSamples && get) {
        respond(samplesReply(m_collector->store(), query));
    } else if (path.startsWith(CollectorApi::kBlobs) && get) {
        respond(blobReply(m_collector->store(), QByteArrayView(path).sliced(
                                                    qsizetype(std::strlen(CollectorApi::kBlobs)))));
    } else if (path == CollectorApi::kGroups && post) {
        auto ask = groupsAsk(request.body);
        if (auto *refused = std::get_if<HttpResponse>(&ask))
            respond(std::move(*refused));
        else
            respond(groupsReply(m_collector->groups(std::get<GroupRequest>(ask))));
    } else if (path == CollectorApi::kExport && get) {
        auto exported =
            m_collector->store().exportCsv(query.value(u"run"_s), query.value(u"metric"_s));
        if (!exported) {
            // A series that is missing is 404; one whose data file was cut short, 500.
            respond(error(exported.error(),
                          exported.errorCode() == ErrorCode::StorageFailed ? 500 : NotFound));
            return;
        }
        respond(csvReply(std::move(exported).value()));
    } else {
        respond(error(u"no such endpoint: %1 %2"_s.arg(QString::fromLatin1(request.method),
                                                       QString::fromUtf8(path)),
                      NotFound));
    }
}

} // namespace sb
