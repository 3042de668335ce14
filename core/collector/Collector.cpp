#include "Collector.h"

#include "CollectorHttpApi.h"
#include "DirectoryIngestor.h"
#include "PushJson.h"
#include "util/Log.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QtConcurrentMap>
#include <QtEndian>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <span>
#include <tuple>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// A refusal for the input's content: sending it again fails again.
Error invalid(const QString &message) {
    return fail(message, ErrorCode::InvalidInput);
}

double now() {
    return static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
}

Result<std::vector<double>> numbers(const QJsonValue &value, const QString &what) {
    std::vector<double> out;
    if (value.isUndefined() || value.isNull())
        return out;
    if (!value.isArray())
        return fail(u"%1 must be an array of numbers"_s.arg(what));
    const QJsonArray array = value.toArray();
    out.reserve(array.size());
    for (const auto &v : array) {
        if (v.isDouble()) {
            out.push_back(v.toDouble());
        } else {
            const auto special = metricValue(v);
            if (!special)
                return fail(u"%1 holds a value that is not a number"_s.arg(what));
            out.push_back(*special);
        }
    }
    return out;
}

// How deep a JSON value nests (a number: 0, an empty object: 1).
int nesting(const QJsonValue &value) {
    int deepest = 0;
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            deepest = std::max(deepest, nesting(it.value()));
    } else if (value.isArray()) {
        for (const QJsonValue item : value.toArray())
            deepest = std::max(deepest, nesting(item));
    } else {
        return 0;
    }
    return deepest + 1;
}

bool isLoopback(const QHostAddress &address) {
    return address.isLoopback() || address == QHostAddress(QHostAddress::LocalHost);
}

} // namespace

Collector::~Collector() {
    if (m_store) {
        saveLastSeen();
        (void)m_store->sync();
        (void)m_store->saveSummaries();
    }
}

Result<QSslConfiguration> Collector::tlsConfiguration(const QString &certificatePath,
                                                      const QString &keyPath) {
    if (certificatePath.isEmpty() || keyPath.isEmpty())
        return fail(u"TLS needs both a certificate and its key"_s, ErrorCode::InvalidInput);
    QFile certificateFile(certificatePath);
    if (!certificateFile.open(QIODevice::ReadOnly))
        return fail(u"cannot read the TLS certificate %1: %2"_s.arg(certificatePath,
                                                                    certificateFile.errorString()),
                    ErrorCode::InvalidInput);
    // The server's certificate first, then the chain to its CA.
    const QList<QSslCertificate> chain = QSslCertificate::fromData(certificateFile.readAll());
    if (chain.isEmpty())
        return fail(u"%1 holds no PEM certificate"_s.arg(certificatePath), ErrorCode::InvalidInput);
    QFile keyFile(keyPath);
    if (!keyFile.open(QIODevice::ReadOnly))
        return fail(u"cannot read the TLS key %1: %2"_s.arg(keyPath, keyFile.errorString()),
                    ErrorCode::InvalidInput);
    const QByteArray keyBytes = keyFile.readAll();
    QSslKey key;
    for (const QSsl::KeyAlgorithm algorithm : {QSsl::Ec, QSsl::Rsa, QSsl::Dsa}) {
        key = QSslKey(keyBytes, algorithm, QSsl::Pem);
        if (!key.isNull())
            break;
    }
    if (key.isNull())
        return fail(u"%1 holds no unencrypted PEM key (EC, RSA or DSA)"_s.arg(keyPath),
                    ErrorCode::InvalidInput);
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.setLocalCertificateChain(chain);
    tls.setPrivateKey(key);
    tls.setPeerVerifyMode(QSslSocket::VerifyNone); // clients are known by their token
    tls.setProtocol(QSsl::TlsV1_2OrLater);
    return tls;
}

Result<std::unique_ptr<Collector>> Collector::start(const Options &options) {
    if (options.listen && !isLoopback(options.address) && options.token.isEmpty() &&
        options.usersFile.isEmpty())
        return fail(u"refusing to listen on %1 without a token: anyone on the network could read "
                    "and write your metrics (set --token or SIGNALBOX_TOKEN, or --users)"_s.arg(
                        options.address.toString()));
    if (!options.token.isEmpty() && !options.usersFile.isEmpty())
        return fail(u"a token (--token, --token-file or SIGNALBOX_TOKEN) and a users file "
                    "exclude each other: with users, each holds a token of their own"_s,
                    ErrorCode::InvalidInput);
    if (Status project = CollectorApi::checkProject(options.project); !project)
        return project.failure();
    if (!options.usersFile.isEmpty()) {
        // A broken file is said now, not at the first request.
        if (const auto users = AccessList::load(options.usersFile); !users)
            return users.failure();
        else if (users->users().isEmpty())
            qCWarning(lcCollector).noquote()
                << u"no users in"_s << options.usersFile
                << u"yet: every request is refused until `signalbox-collector users add` makes one"_s;
    }
    std::unique_ptr<Collector> collector(new Collector);
    auto store = MetricStore::open(options.dataDir);
    if (!store)
        return fail(store.error());
    collector->m_store = std::move(store).value();
    collector->m_lostAfter = options.lostAfterSeconds;
    collector->m_project = options.project;
    collector->m_startedAt = now();
    for (const RunInfo &info : collector->m_store->runsByName()) {
        if (info.status == u"running"_s)
            collector->m_running.insert(info.name);
    }
    if (options.listen) {
        std::optional<QSslConfiguration> tls;
        if (!options.tlsCertificate.isEmpty() || !options.tlsKey.isEmpty()) {
            auto loaded = tlsConfiguration(options.tlsCertificate, options.tlsKey);
            if (!loaded)
                return loaded.failure();
            tls = std::move(loaded).value();
        }
        auto access =
            options.usersFile.isEmpty()
                ? CollectorHttpApi::Access{options.token}
                : CollectorHttpApi::Access{{}, std::make_shared<AccessFile>(options.usersFile)};
        collector->m_http = std::make_unique<CollectorHttpApi>(collector.get(), std::move(access));
        collector->m_http->setHostNames(options.hostNames);
        if (Status listening = collector->m_http->listen(options.address, options.port, tls);
            !listening)
            return listening.failure();
        QUrl url;
        url.setScheme(tls ? u"https"_s : u"http"_s);
        url.setHost(options.address.toString());
        url.setPort(collector->m_http->port());
        collector->m_url = url;
        qCInfo(lcCollector).noquote()
            << u"listening on"_s << url.toString() << u"with data in"_s << options.dataDir;
    }
    if (options.lab)
        collector->m_lab = std::make_unique<LabForwarder>(collector->m_store.get(), *options.lab);
    if (options.labReads)
        collector->m_labReader = std::make_shared<const LabReader>(*options.labReads);
    if (!options.watchDirs.isEmpty()) {
        collector->m_directories = std::make_unique<DirectoryIngestor>(
            collector.get(), options.watchDirs, options.dataDir + u"/sources.json"_s);
    }
    // Process kills lose nothing already written; this bounds what a power loss can take.
    collector->m_syncTimer.setInterval(1000);
    // Summaries are a cache: every 30 s bounds what a kill makes the next start read again.
    connect(&collector->m_syncTimer, &QTimer::timeout, collector.get(),
            [c = collector.get(), ticks = 0]() mutable {
                (void)c->m_store->sync();
                if (++ticks % 30 == 0) {
                    c->saveLastSeen(); // a restart loses at most this long of last-seen times
                    (void)c->m_store->saveSummaries();
                }
            });
    collector->m_syncTimer.start();
    if (options.lostAfterSeconds > 0) {
        // Often enough that a run is judged within a quarter of the threshold of falling silent.
        collector->m_judgeTimer.setInterval(
            static_cast<int>(std::clamp(options.lostAfterSeconds * 250, 100.0, 15000.0)));
        connect(&collector->m_judgeTimer, &QTimer::timeout, collector.get(),
                &Collector::judgeSilentRuns);
        collector->m_judgeTimer.start();
    }
    return collector;
}

Result<Collector::Push> Collector::decodePush(QByteArrayView body) {
    auto split = splitPush(body, now());
    if (!split)
        return fail(split.error(), ErrorCode::InvalidInput);
    SplitPush parts = std::move(split).value();
    auto decoded = decodePush(parts.fields);
    if (!decoded)
        return decoded;
    Push push = std::move(decoded).value();
    // Added to what decoding the fields gave: a body Qt read whole had its series there.
    push.points += parts.points;
    for (SeriesPoints &series : parts.series)
        push.series.push_back(std::move(series));
    return push;
}

Result<Collector::Push> Collector::decodePush(const QJsonObject &push) {
    Push decoded;
    decoded.run = push.value(u"run"_s).toString();
    if (decoded.run.isEmpty())
        return invalid(u"the push names no \"run\" (a non-empty string)"_s);
    for (const auto &[key, type, name] :
         {std::tuple{u"info"_s, QJsonValue::Object, "an object"},
          std::tuple{u"series"_s, QJsonValue::Object, "an object of metric: {step, value, time}"},
          std::tuple{u"records"_s, QJsonValue::Array, "an array of objects"}}) {
        const QJsonValue value = push.value(key);
        if (!value.isUndefined() && value.type() != type)
            return invalid(u"\"%1\" must be %2"_s.arg(key, QLatin1StringView(name)));
    }
    const QJsonValue batch = push.value(u"batch"_s);
    if (!batch.isUndefined() && (!batch.isString() || batch.toString().size() > 200))
        return invalid(u"\"batch\" must be a string of at most 200 characters (the sender's id "
                       "for this batch)"_s);
    decoded.batch = batch.toString();
    decoded.ifRunning = push.value(u"if_running"_s).toBool();
    if (push.value(u"info"_s).isObject())
        decoded.info = RunInfo::fromJson(decoded.run, push.value(u"info"_s).toObject());
    // A run's words travel with every listing of runs: kept to what a person writes.
    if (decoded.info && decoded.info->note && decoded.info->note->size() > kLongestNote)
        return invalid(u"\"note\" is longer than %1 characters"_s.arg(kLongestNote));
    if (decoded.info && decoded.info->tags &&
        (decoded.info->tags->size() > kMostTags ||
         std::any_of(decoded.info->tags->cbegin(), decoded.info->tags->cend(),
                     [](const QString &tag) { return tag.size() > kLongestTag; })))
        return invalid(
            u"\"tags\" must be at most %1 tags of at most %2 characters each"_s.arg(kMostTags).arg(
                kLongestTag));
    if (decoded.info) {
        if (const QString problem = infoProblem(*decoded.info); !problem.isEmpty())
            return invalid(problem);
        decoded.info->forkedFrom = {}; // the store's word, said by a fork only
    }
    if (const QJsonValue resume = push.value(u"resume"_s); !resume.isUndefined()) {
        auto parsed = Resume::fromJson(resume);
        if (!parsed)
            return parsed.failure();
        decoded.resume = std::move(parsed).value();
    }

    const double wallNow = now();
    const QJsonObject columns = push.value(u"series"_s).toObject();
    for (auto it = columns.begin(); it != columns.end(); ++it) {
        if (!it.value().isObject())
            return invalid(u"series \"%1\" must be an object {step, value, time}"_s.arg(it.key()));
        const QJsonObject column = it.value().toObject();
        auto steps = numbers(column.value(u"step"_s), it.key() + u".step"_s);
        auto values = numbers(column.value(u"value"_s), it.key() + u".value"_s);
        auto walls = numbers(column.value(u"time"_s), it.key() + u".time"_s);
        for (const auto *r : {&steps, &values, &walls}) {
            if (!*r)
                return invalid(r->error());
        }
        const std::size_t n = values->size();
        if (steps->size() != n || (!walls->empty() && walls->size() != n))
            return invalid(
                u"series \"%1\": step, value and time need the same length"_s.arg(it.key()));
        SeriesPoints points{it.key(), {}};
        points.points.resize(n);
        for (std::size_t i = 0; i < n; ++i)
            points.points[i] = {(*steps)[i], (*values)[i], walls->empty() ? wallNow : (*walls)[i]};
        decoded.points += static_cast<qint64>(n);
        decoded.series.push_back(std::move(points));
    }
    const QJsonArray records = push.value(u"records"_s).toArray();
    for (qsizetype i = 0; i < records.size(); ++i) {
        if (!records[i].isObject())
            return invalid(u"record %1 is not an object"_s.arg(i));
        auto parsed = MetricLines::fromJsonObject(records[i].toObject());
        if (!parsed)
            return invalid(u"record %1: %2"_s.arg(i).arg(parsed.error()));
        MetricRecord &record = parsed.value();
        if (!record.run.isEmpty() && record.run != decoded.run)
            return invalid(u"record %1 names run \"%2\" inside a push for \"%3\""_s.arg(i).arg(
                record.run, decoded.run));
        record.wall = record.wall.value_or(wallNow);
        decoded.points += static_cast<qint64>(record.values.size());
        decoded.records.push_back(std::move(record));
    }
    return decoded;
}

QString Collector::infoProblem(const RunInfo &info) {
    for (const auto &[field, text, most] : {std::tuple{"host", &info.host, kLongestHost},
                                            std::tuple{"status", &info.status, kLongestWord},
                                            std::tuple{"sweep", &info.sweep, kLongestHost}}) {
        if (text->size() > most)
            return u"\"%1\" is longer than %2 characters"_s.arg(QLatin1StringView(field)).arg(most);
    }
    // A status is a word: a control character (a NUL, a line break) is no part of one.
    if (std::any_of(info.status.cbegin(), info.status.cend(),
                    [](QChar c) { return c.category() == QChar::Other_Control; }))
        return u"\"status\" holds a control character"_s;
    if (nesting(info.config) > kDeepestConfig)
        return u"\"config\" nests deeper than %1 levels"_s.arg(kDeepestConfig);
    for (const auto &[field, record] :
         {std::pair{"code", &info.code}, std::pair{"environment", &info.environment}}) {
        if (nesting(*record) > kDeepestRecord ||
            QJsonDocument(*record).toJson(QJsonDocument::Compact).size() > kLargestRecord)
            return u"\"%1\" is more than %2 bytes as JSON or nests deeper than %3 levels: the "
                   "diff and the packages go in texts of the run"_s.arg(QLatin1StringView(field))
                       .arg(kLargestRecord)
                       .arg(kDeepestRecord);
    }
    if (const qsizetype bytes = QJsonDocument(info.config).toJson(QJsonDocument::Compact).size();
        bytes > kLargestConfig)
        return u"\"config\" is %1 bytes as JSON, more than %2: keep hyperparameters there, and "
               "larger things in files of the run"_s.arg(bytes)
                   .arg(kLargestConfig);
    return {};
}

namespace {

// A binary push's JSON header: `magic` (its version the last byte), a u32 length, the header,
// zeros to a multiple of 8 bytes. `content` is taken out of its fields; `payload` is where what
// follows the header starts.
struct BinaryHeader {
    QJsonObject fields;
    QJsonValue content;
    qint64 payload = 0;
};
Result<BinaryHeader> binaryHeader(QByteArrayView body, const char *magic, const QString &what,
                                  const QString &content) {
    constexpr qsizetype kPrefix = 8;
    if (body.size() < kPrefix || !body.startsWith(QByteArrayView(magic)))
        return invalid(u"the body is not %1 (it starts with \"%2\", version 1)"_s.arg(
            what, QLatin1StringView(magic)));
    const qint64 headerSize = qFromLittleEndian<quint32>(body.data() + 4);
    if (headerSize > body.size() - kPrefix)
        return invalid(u"the header's length (%1 bytes) runs past the body"_s.arg(headerSize));
    QJsonParseError error{};
    const QJsonDocument header =
        QJsonDocument::fromJson(body.sliced(kPrefix, headerSize).toByteArray(), &error);
    if (error.error != QJsonParseError::NoError || !header.isObject())
        return invalid(u"the header is not a JSON object: %1"_s.arg(error.errorString()));
    BinaryHeader read{header.object(), {}, (kPrefix + headerSize + 7) / 8 * 8};
    read.content = read.fields.take(content);
    return read;
}

} // namespace

Result<Collector::Push> Collector::decodeColumns(QByteArrayView body) {
    auto header =
        binaryHeader(body, CollectorApi::kColumnsMagic, u"a columnar push"_s, u"groups"_s);
    if (!header)
        return header.failure();
    const QJsonObject &fields = header->fields;
    const QJsonValue &groups = header->content;
    qint64 offset = header->payload;
    for (const QString &key : {u"series"_s, u"records"_s}) {
        if (fields.contains(key))
            return invalid(u"a columnar push carries its points in columns, not \"%1\""_s.arg(key));
    }
    auto fromHeader = decodePush(fields); // run, batch and info, checked as for JSON
    if (!fromHeader)
        return fromHeader;
    Push decoded = std::move(fromHeader).value();
    if (!groups.isArray())
        return invalid(u"the header needs \"groups\": [{\"rows\", \"metrics\", \"time\"}]"_s);

    auto column = [&](qint64 rows) {
        const char *at = body.data() + offset;
        offset += rows * 8;
        return at;
    };
    auto f64 = [](const char *at, qint64 i) {
        return qFromLittleEndian<double>(at + 8 * i);
    };
    QHash<QString, std::size_t> byMetric;
    const double wallNow = now();
    const QJsonArray list = groups.toArray();
    for (qsizetype g = 0; g < list.size(); ++g) {
        const QJsonObject group = list[g].toObject();
        const double rowsValue = group.value(u"rows"_s).toDouble(-1);
        const QJsonValue metrics = group.value(u"metrics"_s);
        if (!list[g].isObject() || rowsValue < 0 || rowsValue != std::floor(rowsValue) ||
            !metrics.isArray() || !group.value(u"time"_s).isBool())
            return invalid(u"group %1 needs \"rows\" (a count), \"metrics\" (names) and "
                           "\"time\" (true or false)"_s.arg(g));
        const QJsonArray names = metrics.toArray();
        const bool hasTime = group.value(u"time"_s).toBool();
        const qint64 columns = 1 + (hasTime ? 1 : 0) + names.size();
        // Checked before any multiplication: the body bounds every count.
        if (rowsValue > double(body.size() - offset) / 8 ||
            qint64(rowsValue) * 8 * columns > body.size() - offset)
            return invalid(u"group %1's columns run past the body"_s.arg(g));
        const auto rows = static_cast<qint64>(rowsValue);
        const char *steps = column(rows);
        const char *walls = hasTime ? column(rows) : nullptr;
        QSet<QString> seen;
        for (const QJsonValue name : names) {
            const QString metric = name.toString();
            if (!name.isString() || metric.isEmpty() || seen.contains(metric))
                return invalid(u"group %1: a metric's name is a non-empty string, once per "
                               "group"_s.arg(g));
            seen.insert(metric);
            const char *values = column(rows);
            auto slot = byMetric.constFind(metric);
            if (slot == byMetric.constEnd()) {
                slot = byMetric.insert(metric, decoded.series.size());
                decoded.series.push_back(SeriesPoints{metric, {}});
            }
            std::vector<MetricPoint> &points = decoded.series[*slot].points;
            const std::size_t first = points.size();
            points.resize(first + static_cast<std::size_t>(rows));
            for (qint64 i = 0; i < rows; ++i)
                points[first + i] = {f64(steps, i), f64(values, i),
                                     walls ? f64(walls, i) : wallNow};
            decoded.points += rows;
        }
    }
    if (offset != body.size())
        return invalid(u"the body holds %1 bytes past its last column"_s.arg(body.size() - offset));
    return decoded;
}

Result<Collector::SamplesPush> Collector::decodeSamples(QByteArrayView body) {
    auto header =
        binaryHeader(body, CollectorApi::kSamplesMagic, u"a push of samples"_s, u"samples"_s);
    if (!header)
        return header.failure();
    const QJsonObject &fields = header->fields;
    const QJsonValue &items = header->content;
    qint64 offset = header->payload;
    if (fields.size() != 1 || !fields.contains(u"run"_s))
        return invalid(u"the header holds \"run\" and \"samples\" only (send a run's info with "
                       "/api/v1/push)"_s);
    auto named = decodePush(fields); // the run's name, checked as for every push
    if (!named)
        return named.failure();
    if (!items.isArray())
        return invalid(u"the header needs \"samples\": [{\"tag\", \"kind\", \"step\", "
                       "\"bytes\"}, ...]"_s);
    const QJsonArray list = items.toArray();
    if (list.size() > CollectorApi::kMostSamplesPerPush)
        return invalid(
            u"%1 samples in one push, more than %2: send them in several"_s.arg(list.size())
                .arg(CollectorApi::kMostSamplesPerPush));
    SamplesPush decoded{named->run, {}};
    decoded.samples.reserve(std::size_t(list.size()));
    const double wallNow = now();
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QJsonObject item = list[i].toObject();
        const auto kind = parseSampleKind(item.value(u"kind"_s).toString());
        const double bytes = item.value(u"bytes"_s).toDouble(-1);
        const double index = item.value(u"index"_s).toDouble(0);
        if (!list[i].isObject() || !item.value(u"tag"_s).isString() || !kind ||
            !item.value(u"step"_s).isDouble() || !(bytes >= 0 && bytes == std::floor(bytes)) ||
            !(index >= 0 && index <= 0xffffffff && index == std::floor(index)))
            return invalid(u"sample %1 needs \"tag\", \"kind\" (image, histogram, text or "
                           "audio), \"step\" and \"bytes\" (a count), and an \"index\" that "
                           "is a count"_s.arg(i));
        if (bytes > double(body.size() - offset))
            return invalid(u"sample %1's bytes run past the body"_s.arg(i));
        Sample sample{item.value(u"tag"_s).toString(),
                      *kind,
                      item.value(u"step"_s).toDouble(),
                      item.value(u"time"_s).toDouble(wallNow),
                      quint32(index),
                      sampleFactsFromJson(*kind, item),
                      body.sliced(offset, qint64(bytes)).toByteArray(),
                      {}};
        offset += qint64(bytes);
        if (*kind == SampleKind::Text) // rows and columns: both absent for one string
            for (double &fact : sample.facts)
                fact = std::isnan(fact) ? 0 : fact;
        if (Status checked = checkSample(&sample); !checked)
            return invalid(u"sample %1: %2"_s.arg(i).arg(checked.error()));
        decoded.samples.push_back(std::move(sample));
    }
    if (offset != body.size())
        return invalid(u"the body holds %1 bytes past its last sample"_s.arg(body.size() - offset));
    return decoded;
}

Result<qint64> Collector::storeSamples(const QString &run, const std::vector<Sample> &samples) {
    auto stored = m_store->appendSamples(run, samples);
    if (stored)
        heard(run);
    return stored;
}

Result<qint64> Collector::storePush(Push push) {
    const auto &byName = m_store->runsByName();
    // A lab collector shows every collector's runs but holds only those pushed to it: a word
    // about another's run (tags, a note, archived) made here would become a run of that name
    // with nothing else, shipped over the real one.
    if (m_labReader && push.series.empty() && push.records.empty() && !push.resume && push.info &&
        !byName.contains(push.run))
        return fail(u"run \"%1\" is not held by this lab collector (it shows the lab's runs, but "
                    "another collector shipped this one): change its tags, note or archive at "
                    "that collector"_s.arg(push.run),
                    ErrorCode::InvalidInput);
    if (push.ifRunning) {
        // Signalbox saw the run's process end: its word stands unless the run had its own.
        const auto known = byName.constFind(push.run);
        if (known != byName.constEnd() && known->ended())
            return qint64(0);
        // It ended when it was last heard from, not when Signalbox noticed.
        if (known != byName.constEnd() && push.info && push.info->end) {
            if (const auto seen = lastSeen(*known))
                push.info->end = std::min(*push.info->end, *seen);
        }
    } else if (push.heartbeat() && push.batch.isEmpty()) {
        if (byName.contains(push.run)) // a heartbeat names a run, it makes none
            heard(push.run);
        return qint64(0);
    }
    // Its points came already as metric lines the client printed when this push timed out.
    if (!push.batch.isEmpty() &&
        m_store->storedBatch(push.run, push.batch, MetricStore::Batch::InParts))
        return push.points;
    // Records join the same batch, so a push is stored whole or not at all. Their missing steps
    // follow the run's last one, which only this thread knows.
    double lastStep = push.resume ? push.resume->step - (push.resume->inclusive ? 1 : 0)
                                  : storedLastStep(push.run).value_or(-1);
    SeriesIndex index;
    for (const MetricRecord &record : push.records) {
        lastStep = record.step.value_or(lastStep + 1);
        appendRecord(record, lastStep, *record.wall, &push.series, &index);
    }
    // Config keys merge into the stored ones: bounded as merged, or updates would grow it for ever.
    if (const auto known = byName.constFind(push.run);
        push.info && !push.info->config.isEmpty() && known != byName.constEnd()) {
        RunInfo merged;
        RunInfo update;
        merged.config = known->config;
        update.config = push.info->config;
        merged.merge(update);
        if (const QString problem = infoProblem(merged); !problem.isEmpty())
            return fail(u"merged into run \"%1\"'s config: %2"_s.arg(push.run, problem),
                        ErrorCode::InvalidInput);
    }
    const auto stored =
        m_store->append(push.run, push.series, push.info ? &*push.info : nullptr, push.batch,
                        MetricStore::Batch::Whole, push.resume ? &*push.resume : nullptr);
    if (!stored)
        return stored.failure();
    if (push.resume)
        m_lastStep.remove(push.run); // steps go on from the checkpoint's
    noteLastSteps(push.run, push.series);
    if (push.info)
        noteStatus(push.run);
    if (!push.ifRunning)
        heard(push.run);
    return push.points;
}

void Collector::noteStatus(const QString &run) {
    const auto info = m_store->runsByName().constFind(run);
    if (info != m_store->runsByName().constEnd() && info->status == u"running"_s)
        m_running.insert(run);
    else
        m_running.remove(run);
}

void Collector::heard(const QString &run) {
    const double at = now();
    m_heard[run] = at;
    if (m_running.contains(run))
        return;
    const auto info = m_store->runsByName().constFind(run);
    if (info == m_store->runsByName().constEnd() || info->status != u"lost"_s)
        return;
    // A run judged lost that speaks again was only silent: running, with no end.
    RunInfo revived;
    revived.name = run;
    revived.status = u"running"_s;
    revived.lastSeen = at;
    if (Status updated = m_store->updateRun(revived); !updated)
        qCWarning(lcCollector).noquote() << updated.error();
    noteStatus(run);
}

std::optional<double> Collector::lastSeen(const RunInfo &info) const {
    std::optional<double> seen = info.lastSeen;
    if (const auto heardAt = m_heard.constFind(info.name); heardAt != m_heard.constEnd())
        seen = std::max(seen.value_or(*heardAt), *heardAt);
    if (seen)
        return seen;
    // A store from before last-seen times: its last point, else its start.
    for (const auto &series : m_store->series(info.name)) {
        if (series.count > 0)
            seen = std::max(seen.value_or(series.last.wall), series.last.wall);
    }
    return seen ? seen : info.start;
}

void Collector::saveLastSeen() {
    for (auto it = m_heard.cbegin(); it != m_heard.cend(); ++it) {
        RunInfo update;
        update.name = it.key();
        update.lastSeen = it.value();
        if (Status saved = m_store->updateRun(update); !saved)
            qCWarning(lcCollector).noquote() << saved.error();
    }
    m_heard.clear();
}

void Collector::judgeSilentRuns() {
    if (m_lostAfter <= 0)
        return;
    const double at = now();
    std::vector<std::pair<QString, std::optional<double>>> silent;
    for (const QString &run : std::as_const(m_running)) {
        const auto info = m_store->runsByName().constFind(run);
        if (info == m_store->runsByName().constEnd())
            continue;
        const auto seen = lastSeen(*info);
        if (at - std::max(seen.value_or(m_startedAt), m_startedAt) > m_lostAfter)
            silent.emplace_back(run, seen);
    }
    for (const auto &[run, seen] : silent) {
        RunInfo lost;
        lost.name = run;
        lost.status = u"lost"_s;
        lost.lastSeen = seen;
        lost.end = seen;
        if (Status updated = m_store->updateRun(lost); !updated)
            qCWarning(lcCollector).noquote() << updated.error();
        m_heard.remove(run);
        noteStatus(run);
    }
}

Result<qint64> Collector::ingestPush(const QJsonObject &push) {
    auto decoded = decodePush(push);
    if (!decoded)
        return decoded.failure();
    return storePush(std::move(decoded).value());
}

Status Collector::ingestSeries(const QString &run, const std::vector<SeriesPoints> &series) {
    if (const auto stored = m_store->append(run, series); !stored)
        return stored.failure();
    noteLastSteps(run, series);
    return success();
}

Status Collector::ingestRestart(const QString &run, double step, const QString &key) {
    if (!m_store->run(run))
        return success(); // nothing logged yet: nothing to drop
    const Resume resume{Resume::Mode::Rewind, step, true, {}};
    if (const auto stored =
            m_store->append(run, {}, nullptr, key, MetricStore::Batch::Whole, &resume);
        !stored)
        return stored.failure();
    m_lastStep.remove(run);
    return success();
}

Status Collector::restoreRewind(quint32 id) {
    if (Status restored = m_store->restoreRewind(id); !restored)
        return restored;
    m_lastStep.clear(); // the run's last step shown may be a later one again
    return success();
}

Result<MetricStore::Deleted> Collector::deleteRuns(const QStringList &runs) {
    // The lab hears of it first: a kill between the two must not leave the runs there for good.
    // (A request naming a run the store does not hold is refused whole, below: noted nothing.)
    const bool held = std::all_of(runs.cbegin(), runs.cend(), [this](const QString &run) {
        return m_store->runsByName().contains(run);
    });
    if (m_lab && held && !runs.isEmpty()) {
        if (Status noted = m_lab->noteDeleting(runs); !noted)
            return noted.failure();
    }
    auto deleted = m_store->deleteRuns(runs);
    if (!deleted)
        return deleted;
    for (const QString &run : std::as_const(deleted->runs)) {
        m_lastStep.remove(run);
        m_heard.remove(run);
        m_running.remove(run);
    }
    qCInfo(lcCollector).noquote() << u"deleted %1 runs (%2 points, %3 samples)"_s
                                         .arg(deleted->runs.size())
                                         .arg(deleted->points)
                                         .arg(deleted->samples);
    return deleted;
}

Status Collector::ingestConfig(const QString &run, const QJsonObject &config) {
    RunInfo update;
    update.name = run;
    update.config = config;
    RunInfo merged = m_store->run(run).value_or(RunInfo{});
    merged.merge(update);
    if (const QString problem = infoProblem(merged); !problem.isEmpty())
        return fail(u"%1: %2"_s.arg(run, problem), ErrorCode::InvalidInput);
    return m_store->updateRun(update);
}

std::optional<double> Collector::storedLastStep(const QString &run) {
    if (const auto known = m_lastStep.constFind(run); known != m_lastStep.constEnd())
        return *known;
    std::optional<double> last;
    for (const auto &series : m_store->series(run)) {
        if (series.count > 0)
            last = std::max(last.value_or(series.last.step), series.last.step);
    }
    if (last)
        m_lastStep[run] = *last;
    return last;
}

void Collector::noteLastSteps(const QString &run, const std::vector<SeriesPoints> &series) {
    double last = storedLastStep(run).value_or(-std::numeric_limits<double>::infinity());
    for (const SeriesPoints &s : series) {
        for (const MetricPoint &p : s.points)
            last = std::max(last, p.step);
    }
    if (std::isfinite(last))
        m_lastStep[run] = last;
}

Collector::IngestResult Collector::ingestRecords(const QString &run,
                                                 const std::vector<MetricRecord> &records) {
    IngestResult result;
    // One atomic batch per run and sender's batch id, in the order they came.
    using Group = std::pair<QString, QString>; // run, batch: a pair, so no name makes another's
    struct Points {
        std::vector<SeriesPoints> series;
        SeriesIndex index;
        std::optional<Resume> resume; // the group's first
    };
    std::vector<Group> order;
    QHash<Group, Points> groups;
    QHash<QString, double> lastStep;
    qint64 unnamed = 0; // records that name no run
    const double wallNow = now();
    for (const MetricRecord &record : records) {
        const QString target = record.run.isEmpty() ? run : record.run;
        if (target.isEmpty()) {
            ++unnamed;
            continue;
        }
        const Group key{target, record.batch};
        if (!groups.contains(key))
            order.push_back(key);
        Points &points = groups[key];
        if (record.resume && !points.resume) {
            points.resume = record.resume;
            lastStep[target] = record.resume->step - (record.resume->inclusive ? 1 : 0);
        }
        if (!lastStep.contains(target))
            lastStep[target] = storedLastStep(target).value_or(-1);
        if (record.values.empty())
            continue; // a resume alone
        double &last = lastStep[target];
        const double step = record.step.value_or(last + 1);
        last = std::max(last, step);
        appendRecord(record, step, record.wall.value_or(wallNow), &points.series, &points.index);
    }
    if (unnamed > 0) // said once, however many: the answer stays small
        result.errors << (unnamed == 1 ? u"a metric record names no run"_s
                                       : u"%1 metric records name no run"_s.arg(unnamed));
    for (const auto &[target, batch] : order) {
        const Points &group = groups[{target, batch}];
        const std::vector<SeriesPoints> &series = group.series;
        qint64 points = 0;
        for (const SeriesPoints &s : series)
            points += static_cast<qint64>(s.points.size());
        // Lines a client printed for a batch it had pushed: the push was stored after all.
        if (!batch.isEmpty() && m_store->storedBatch(target, batch, MetricStore::Batch::Whole)) {
            result.duplicates += points;
            heard(target);
            continue;
        }
        const auto stored =
            m_store->append(target, series, nullptr, batch, MetricStore::Batch::InParts,
                            group.resume ? &*group.resume : nullptr);
        if (!stored) {
            result.errors << u"run \"%1\": %2"_s.arg(target, stored.error());
            result.storageFailed |= stored.errorCode() == ErrorCode::StorageFailed;
            continue;
        }
        if (group.resume)
            m_lastStep.remove(target);
        noteLastSteps(target, series);
        heard(target);
        result.points += points;
    }
    return result;
}

Collector::Lines Collector::decodeLines(QByteArrayView text) {
    Lines lines;
    qsizetype start = 0;
    int lineNumber = 0;
    qint64 unreported = 0;
    while (start < text.size()) {
        qsizetype end = text.indexOf('\n', start);
        if (end < 0)
            end = text.size();
        ++lineNumber;
        if (auto parsed = MetricLines::parseLogLine(text.sliced(start, end - start))) {
            if (*parsed)
                lines.records.push_back(std::move(*parsed).value());
            else if (lines.errors.size() < kMostReportedErrors)
                lines.errors << u"line %1: %2"_s.arg(lineNumber).arg(parsed->error());
            else
                ++unreported;
        }
        start = end + 1;
    }
    // A body of bad lines must not make an answer larger than itself: the first few say why.
    if (unreported > 0)
        lines.errors << u"and %1 more malformed lines"_s.arg(unreported);
    return lines;
}

Collector::IngestResult Collector::storeLines(const QString &run, const Lines &lines) {
    IngestResult result = ingestRecords(run, lines.records);
    result.errors = lines.errors + result.errors;
    return result;
}

namespace {

// What a query over every run reads, as columns in MetricStore::runsInOrder's rows: the series
// of the metrics it names, and the values at the keys of the runs' objects it reads.
struct QueryColumns {
    struct Series {
        QString metric;
        MetricStore::SeriesColumn column;
        bool ranged; // the query reads its min, max or best (else its summary is not read)
    };
    std::vector<Series> series;
    std::vector<std::pair<RunQuery::ObjectKey, std::shared_ptr<const std::vector<QJsonValue>>>>
        values;
};

// A run of the store as a query reads it: its metadata (with when it was last heard), and its
// series' summaries and objects' values, from the columns where the runs are all the store's
// (each looked up in the store otherwise).
class StoredRun final : public RunQuery::Run {
public:
    StoredRun(const MetricStore &store, const QHash<QString, double> &heard,
              const QueryColumns *columns)
        : m_store(store)
        , m_heard(heard)
        , m_columns(columns) {}
    void setRow(const RunInfo *info, std::size_t row) {
        m_info = info;
        m_row = row;
        if (const auto heardAt = m_heard.constFind(info->name); heardAt != m_heard.constEnd()) {
            m_withHeard = *info;
            m_withHeard.lastSeen = std::max(info->lastSeen.value_or(*heardAt), *heardAt);
            m_info = &m_withHeard;
        }
    }
    const RunInfo &info() const override { return *m_info; }
    std::optional<MetricSummary> metric(const QString &name) const override {
        for (const auto &[metric, column, ranged] : m_columns ? m_columns->series : kNoSeries) {
            if (metric == name) {
                const StoredSeries *series = (*column)[m_row];
                return series ? MetricStore::metricSummary(*series, ranged) : std::nullopt;
            }
        }
        return m_store.metricSummary(m_info->name, name);
    }
    QJsonValue valueAt(QJsonObject RunInfo::*object, const QString &key) const override {
        for (const auto &[at, column] : m_columns ? m_columns->values : kNoValues) {
            if (at.first == object && at.second == key)
                return (*column)[m_row];
        }
        return RunQuery::lookUp(m_info->*object, key);
    }

private:
    static inline const decltype(QueryColumns::series) kNoSeries;
    static inline const decltype(QueryColumns::values) kNoValues;
    const MetricStore &m_store;
    const QHash<QString, double> &m_heard;
    const QueryColumns *m_columns;
    const RunInfo *m_info = nullptr;
    std::size_t m_row = 0;
    RunInfo m_withHeard;
};

// Which of `runs` pass `where`, on every core. `columns`: where `runs` are
// MetricStore::runsInOrder(), what the query reads of them. Unset past `deadline`.
std::optional<std::vector<char>> passing(std::span<const RunInfo *const> runs, std::size_t firstRow,
                                         const RunQuery &where, const MetricStore &store,
                                         const QHash<QString, double> &heard,
                                         const QueryColumns *columns, QDeadlineTimer deadline) {
    constexpr std::size_t kChunk = 4096;
    std::vector<char> passes(runs.size());
    std::vector<std::size_t> chunks;
    for (std::size_t at = 0; at < runs.size(); at += kChunk)
        chunks.push_back(at);
    const double now = double(QDateTime::currentMSecsSinceEpoch()) / 1000;
    std::atomic<bool> late = false;
    QtConcurrent::blockingMap(chunks, [&](std::size_t first) {
        StoredRun run(store, heard, columns);
        for (std::size_t i = first; i < std::min(first + kChunk, runs.size()); ++i) {
            if (i % 64 == 0 && (late || deadline.hasExpired())) {
                late = true;
                return;
            }
            run.setRow(runs[i], firstRow + i);
            passes[i] = where.matches(run, now);
        }
    });
    return late ? std::nullopt : std::optional(std::move(passes));
}

} // namespace

Collector::ValueColumn Collector::valuesAt(const RunQuery::ObjectKey &key) {
    constexpr std::size_t kMostColumns = 32;
    if (m_valueColumns.generation != m_store->runsGeneration()) {
        m_valueColumns.columns.clear();
        m_valueColumns.generation = m_store->runsGeneration();
    }
    for (const auto &[at, column] : m_valueColumns.columns) {
        if (at == key)
            return column;
    }
    const auto &runs = m_store->runsInOrder();
    auto column = std::make_shared<std::vector<QJsonValue>>(runs.size());
    std::vector<std::size_t> chunks;
    for (std::size_t at = 0; at < runs.size(); at += 4096)
        chunks.push_back(at);
    QtConcurrent::blockingMap(chunks, [&](std::size_t first) {
        for (std::size_t row = first; row < std::min(first + 4096, runs.size()); ++row)
            (*column)[row] = RunQuery::lookUp(runs[row]->*key.first, key.second);
    });
    if (m_valueColumns.columns.size() >= kMostColumns)
        m_valueColumns.columns.clear();
    m_valueColumns.columns.emplace_back(key, column);
    return column;
}

Result<QList<RunSummary>> Collector::runs(const QString &filter, qsizetype offset, qsizetype limit,
                                          const RunQuery *where) {
    if (limit == 0)
        return QList<RunSummary>();
    judgeSilentRuns(); // a listing never shows as running a run already past the threshold
    const auto &byName = m_store->runsByName();
    std::vector<const RunInfo *> filtered;
    if (!filter.isEmpty()) {
        for (const QString &name : m_store->runsMentioning(filter.toLower().toUtf8()))
            filtered.push_back(&*byName.constFind(name));
    }
    const std::vector<const RunInfo *> &candidates =
        filter.isEmpty() ? m_store->runsInOrder() : filtered;
    // min, max and best read the series' ranges: every series gets one (once; kept on disk).
    const QDeadlineTimer budget(kQueryMs);
    const auto tooSlow = [] {
        return fail(
            u"the query took more than %1 s: narrow it (fewer patterns, a filter), or "
            "ask again once the collector has read the series' value ranges"_s.arg(kQueryMs / 1000),
            ErrorCode::StorageFailed);
    };
    if (where && !where->rangedMetrics().isEmpty() && !m_store->summarize(budget))
        return tooSlow();
    // Over every run, a query reads columns: one pass each instead of a look-up a run.
    QueryColumns columns;
    if (where && filter.isEmpty()) {
        const QStringList ranged = where->rangedMetrics();
        for (const QString &metric : where->metrics())
            columns.series.push_back(
                {metric, m_store->seriesOfEachRun(metric), ranged.contains(metric)});
        for (const RunQuery::ObjectKey &key : where->objectKeys())
            columns.values.emplace_back(key, valuesAt(key));
    }
    // Asked of a block of runs at a time, so that a page stops early.
    constexpr std::size_t kBlock = 32768;
    std::vector<const RunInfo *> listed;
    std::vector<char> passes;
    for (std::size_t first = 0; first < candidates.size(); first += kBlock) {
        const std::size_t end = std::min(first + kBlock, candidates.size());
        if (where) {
            auto passed = passing(std::span(candidates).subspan(first, end - first), first, *where,
                                  *m_store, m_heard, filter.isEmpty() ? &columns : nullptr, budget);
            if (!passed)
                return tooSlow();
            passes = std::move(passed).value();
        }
        for (std::size_t i = first; i < end; ++i) {
            if (where && !passes[i - first])
                continue;
            if (offset > 0) {
                --offset;
                continue;
            }
            listed.push_back(candidates[i]);
            if (limit >= 0 && qsizetype(listed.size()) >= limit)
                break;
        }
        if (limit >= 0 && qsizetype(listed.size()) >= limit)
            break;
    }
    // Value ranges come from the series' summaries: the listed runs' are read first, and then,
    // for a listing of everything, the others', for up to 20 ms a call, so that a large store
    // fills the table in over a few polls without holding this thread long.
    const QDeadlineTimer deadline(20);
    for (const RunInfo *info : listed) {
        if (!m_store->summarize(info->name, deadline))
            break;
    }
    if (limit < 0 && filter.isEmpty() && !where)
        m_store->summarize(deadline);
    QList<RunSummary> out;
    out.reserve(qsizetype(listed.size()));
    for (const RunInfo *info : listed) {
        RunSummary run{*info, {}};
        if (const auto heardAt = m_heard.constFind(info->name); heardAt != m_heard.constEnd())
            run.info.lastSeen = std::max(run.info.lastSeen.value_or(*heardAt), *heardAt);
        for (const auto &series : m_store->series(info->name)) { // in name order: each goes last
            if (series.count > 0) // none shown (a rewind hides them all): no last value to say
                run.metrics.insert(run.metrics.cend(), series.metric,
                                   {series.count, series.last, series.range});
        }
        for (const Rewind &rewind : m_store->rewinds(info->name))
            run.rewinds.push_back({rewind.id, rewind.step, rewind.inclusive, rewind.wall,
                                   rewind.points, rewind.samples});
        out.append(std::move(run));
    }
    return out;
}

namespace {

// Where a series lies on a request's x axis.
std::pair<double, double> extentOf(const MetricStore::Opened &series, XAxis axis) {
    const XAxis stored = axis == XAxis::Step ? XAxis::Step : XAxis::WallTime;
    const double shift = axis == XAxis::RelativeTime ? series.origin : 0;
    return {series.summary->minX(stored) - shift, series.summary->maxX(stored) - shift};
}

} // namespace

Result<GroupReplies> Collector::groups(const GroupRequest &request) {
    return groupsOf(request, [this, &request](const QString &run) {
        return m_store->openSeries(run, request.metric, request.window.xMetric);
    });
}

Result<GroupReplies> Collector::groupsOf(const GroupRequest &asked, const OpenSeries &open) {
    GroupRequest request = asked;
    if (!request.window.xMetric.isEmpty())
        request.window.axis = XAxis::Step; // the steps mapped onto the x metric
    GroupReplies replies{request.metric, {}};
    // First where every member lies, for columns shared by all groups; series are opened again
    // to compute, so that thousands of runs never hold thousands of files open at once.
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (const GroupRequest::Group &group : request.groups) {
        GroupReply &reply = replies.groups.emplace_back();
        reply.name = group.name;
        for (const QString &run : group.runs) {
            auto series = open(run);
            // Unreadable points: an error, never zeros. Failed (500), not StorageFailed (507, which
            // tells a writer to send again): a read of damaged data does not succeed later.
            if (!series && series.errorCode() == ErrorCode::StorageFailed)
                return fail(series.error());
            if (!series || series->points->size() == 0) {
                reply.missing << run;
                continue;
            }
            reply.runs << run;
            auto [from, to] = extentOf(*series, request.window.axis);
            if (request.window.logX && !(from > 0)) { // a log axis starts above zero
                SeriesWindow window = request.window;
                window.origin = series->origin; // relative time from this run's start
                from = logAxisStart(*series->points, *series->summary, window)
                           .value_or(std::numeric_limits<double>::infinity());
            }
            lo = std::min(lo, from);
            hi = std::max(hi, to);
        }
    }
    // Each member's columns are computed, and held until its group is combined (a median needs
    // them all): the members of all groups together bound the work.
    qint64 members = 0;
    for (const GroupReply &reply : replies.groups)
        members += reply.runs.size();
    if (members * request.window.width > kMostGroupCells)
        return fail(u"%1 runs × %2 columns in these groups is more than the collector computes "
                    "for one request (%3 values): ask for fewer columns or fewer groups at a "
                    "time"_s.arg(members)
                        .arg(request.window.width)
                        .arg(kMostGroupCells),
                    ErrorCode::InvalidInput);
    double x0 = request.window.from.value_or(lo);
    if (request.window.logX && !(x0 > 0))
        x0 = lo;
    const ColumnGrid grid{x0, request.window.to.value_or(hi), request.window.width,
                          request.window.logX};
    if (!std::isfinite(grid.x0) || !std::isfinite(grid.x1) || grid.x0 > grid.x1)
        return replies; // no member has points there
    // Runs are resampled on worker threads (the series are opened, and their summaries brought
    // up to date, here first: the store is this thread's), a few hundred at a time so that the
    // open files stay few.
    constexpr qsizetype kBatch = 256;
    for (GroupReply &reply : replies.groups) {
        std::vector<std::vector<double>> columns;
        for (qsizetype first = 0; first < reply.runs.size(); first += kBatch) {
            struct Member {
                MetricStore::Opened series;
                std::vector<double> values;
            };
            std::vector<Member> batch;
            for (const QString &run : reply.runs.mid(first, kBatch)) {
                auto series = open(run);
                if (!series && series.errorCode() == ErrorCode::StorageFailed)
                    return fail(series.error()); // 500, not 507: as above
                if (series)
                    batch.push_back({std::move(series).value(), {}});
            }
            QtConcurrent::blockingMap(batch, [&request, &grid](Member &member) {
                SeriesWindow window = request.window;
                window.origin = member.series.origin;
                member.values =
                    resampleOnGrid(*member.series.points, *member.series.summary, window, grid);
            });
            for (Member &member : batch) {
                if (QString failure = member.series.points->failure(); !failure.isEmpty())
                    return fail(std::move(failure)); // 500, not 507: as above
                columns.push_back(std::move(member.values));
            }
        }
        reply.curve = combineRuns(columns, grid, request.center, request.band);
    }
    return replies;
}

Health Collector::health() const {
    Health health;
    health.service = u"signalbox-collector"_s;
    health.version = QStringLiteral(SIGNALBOX_VERSION);
    health.runs = static_cast<qint64>(m_store->runs().size());
    health.points = m_store->totalPoints();
    health.recovery = m_store->recoveryNotes();
    if (m_directories)
        health.sources = m_directories->sourcesJson();
    if (m_lab)
        health.lab = m_lab->state();
    if (m_labReader) { // runs and points above are this collector's own, its spool
        health.lab[u"serves"_s] = true;
        if (const QString error = m_labReader->lastError(); !error.isEmpty())
            health.lab[u"read_error"_s] = error;
    }
    return health;
}

} // namespace sb
