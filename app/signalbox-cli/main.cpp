// signalbox-cli: scripting and diagnostics against a collector, and offline parsers.
#include "client/CollectorClient.h"
#include "collector/EmbeddedCollector.h"
#include "config/Config.h"
#include "jobs/Backends.h"
#include "metrics/MetricLineParser.h"
#include "metrics/RunQuery.h"
#include "monitor/NvidiaSmiParser.h"
#include "net/TrustedCertificates.h"
#include "ssh/ShellQuote.h"
#include "sweeps/SweepRegistry.h"
#include "sweeps/SweepSearch.h"
#include "sweeps/TrialCommand.h"
#include "tensorboard/LogdirFollower.h"
#include "util/Files.h"
#include "util/Log.h"
#include "util/Paths.h"
#include "util/PlainText.h"
#include "util/QuitOnSignal.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QMap>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSet>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace {

constexpr const char *kUsage =
    R"(Usage: signalbox-cli [--collector URL] [--token-file FILE] [--project NAME] COMMAND ...

Commands:
  runs [FILTER] [--where EXPR]
                              list runs, their status and last values: those whose metadata
                              mentions FILTER, and that pass EXPR, a query over their fields
                              ('config.lr < 1e-3 and best(val/loss) < 0.5 and tags has
                              "baseline"'; README, "Finding runs")
  delete RUN...               delete runs for good: their points, samples and metadata (asks
                              first when standard input is a terminal)
  metrics [RUN...]            list metric names (of these runs, or of all)
  series RUN METRIC [WIDTH]   print a downsampled series as JSON
  export RUN METRIC           print every point of a series as CSV
  samples RUN [TAG] [--from STEP] [--to STEP]
                              without TAG: one JSON object per tag of samples (images,
                              histograms, text, audio) of RUN: kind, points, first and last
                              step; with TAG: one per item, in step order: step, wall_time, blob
                              (its digest), its facts, and texts and histograms' buckets inline
  blob DIGEST [FILE]          write an item's bytes (image, audio, text...) to FILE, or to
                              standard output when that is not a terminal
  health                      the collector's state and any repairs made on start
  parse metric-lines FILE     check a log for metric lines; prints one JSON object per record
  parse nvidia-smi FILE       read `nvidia-smi --query-gpu=FIELDS --format=csv` output (header
                              line first, any fields, any order); prints one JSON object per GPU
  parse tfevents PATH         read a TensorBoard event file or logdir; prints one JSON object per
                              run and scalar tag: its number of points, first and last (step,
                              value); then one per run and tag of the other kinds ("kind":
                              image, histogram, text or audio): its points and its last step;
                              then one per run with hyperparameters ("kind": "hparams")
  sweep plan FILE [--seed N] [--count K]
                              read a sweep (W&B sweep YAML); print the trials it would run, one
                              JSON object per line: parameters, argument vector, shell line.
                              Bayes trials after the first 10 depend on results: not printed
  sweep run FILE [--seed N] [--config FILE]
                              run a sweep to its end, headless, with the app's controller and
                              backends (this computer, the config's SSH nodes, the kubeconfig's
                              cluster); prints its progress, then the best trial. Without
                              --collector and none listening, an embedded one stores the metrics
  version                     print the version

The collector defaults to $SIGNALBOX_COLLECTOR, else the one the Signalbox app published (in
$XDG_RUNTIME_DIR/signalbox, else /tmp/signalbox-UID), else http://127.0.0.1:7410. Its bearer token
comes from --token-file FILE (first line), else $SIGNALBOX_TOKEN, else (for the app's collector)
the secret the app published beside its address; --token TOKEN works too, but shows the token to
every user in the process list. On a lab's collector, --project NAME (else $SIGNALBOX_PROJECT)
names the project asked for; without it, the collector's own.
)";

// Text from outside (names, statuses, messages, paths, hosts) as it reaches a terminal:
// printable(), so no escape sequence retitles or clears it and no newline forges a line.
QByteArray shown(const QString &text) {
    return sb::printable(text).toUtf8();
}

int failWith(const QString &message, const char *usage = nullptr) {
    std::fprintf(stderr, "signalbox-cli: %s\n%s", shown(message).constData(), usage ? usage : "");
    return 1;
}

// The CLI may block: it has no window to keep alive.
template <typename T, typename Call> sb::Result<T> await(Call call) {
    QEventLoop loop;
    std::optional<sb::Result<T>> result;
    call(&loop, [&](sb::Result<T> r) {
        result.emplace(std::move(r));
        loop.quit();
    });
    if (!result)
        loop.exec();
    return std::move(*result);
}

void printJson(const QJsonDocument &document) {
    // Qt escapes C0 controls in strings; DEL, C1 and bidi marks go out as \u escapes too: the
    // same strings to a JSON reader, inert on a terminal.
    const QString json = QString::fromUtf8(document.toJson(QJsonDocument::Compact));
    QString safe;
    safe.reserve(json.size());
    for (const QChar c : json) {
        if (sb::isControlOrBidi(c.unicode()))
            safe += u"\\u%1"_s.arg(static_cast<uint>(c.unicode()), 4, 16, QChar(u'0'));
        else
            safe += c;
    }
    std::fputs(safe.toUtf8().constData(), stdout);
    std::fputc('\n', stdout);
}

int parseMetricLines(const QString &path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return failWith(u"cannot read %1: %2"_s.arg(path, file.errorString()));
    int lineNumber = 0;
    int errors = 0;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine();
        ++lineNumber;
        const auto parsed = sb::MetricLines::parseLogLine(line);
        if (!parsed)
            continue;
        if (!*parsed) {
            ++errors;
            std::fprintf(stderr, "%s:%d: %s\n", shown(path).constData(), lineNumber,
                         shown(parsed->error()).constData());
            continue;
        }
        QJsonObject values;
        for (const auto &[name, value] : parsed->value().values)
            values[name] = value;
        QJsonObject json{{u"line"_s, lineNumber}, {u"values"_s, values}};
        if (parsed->value().step)
            json[u"step"_s] = *parsed->value().step;
        printJson(QJsonDocument(json));
    }
    return errors == 0 ? 0 : 1;
}

int parseNvidiaSmi(const QString &path) {
    const auto bytes = sb::readRegularFile(path, 64 << 20);
    if (!bytes)
        return failWith(bytes.error());
    const auto gpus = sb::NvidiaSmi::parseQueryGpu(*bytes);
    if (!gpus)
        return failWith(u"%1: %2"_s.arg(path, gpus.error()));
    for (const sb::GpuReading &gpu : *gpus)
        printJson(QJsonDocument(gpu.toJson()));
    return 0;
}

// The last step of a tag of another kind, as `parse tfevents` prints it.
QJsonObject lastSample(const sb::LogdirFollower::Sample &sample) {
    QJsonObject last{{u"step"_s, sample.step}, {u"wall_time"_s, sample.wallTime}};
    if (const auto *image = std::get_if<sb::ImageSample>(&sample.data)) {
        last[u"width"_s] = image->width;
        last[u"height"_s] = image->height;
        last[u"format"_s] = QString(image->format);
        last[u"images"_s] = static_cast<qint64>(image->images.size());
    } else if (const auto *histogram = std::get_if<sb::HistogramSample>(&sample.data)) {
        last[u"min"_s] = histogram->min;
        last[u"max"_s] = histogram->max;
        last[u"num"_s] = histogram->num;
        last[u"buckets"_s] = static_cast<qint64>(histogram->buckets.size());
    } else if (const auto *text = std::get_if<sb::TextSample>(&sample.data)) {
        // One string as it is; a table as rows of tab-separated cells.
        const qint64 columns =
            text->shape.size() >= 2 ? std::max<qint64>(text->shape.back(), 1) : 1;
        QStringList rows;
        for (qsizetype i = 0; i < text->cells.size(); i += columns)
            rows.append(text->cells.mid(i, columns).join(u'\t'));
        last[u"text"_s] = rows.join(u'\n');
        if (!text->shape.empty()) {
            QJsonArray shape;
            for (const qint64 dim : text->shape)
                shape.append(dim);
            last[u"shape"_s] = shape;
        }
    } else if (const auto *audio = std::get_if<sb::AudioSample>(&sample.data)) {
        last[u"sample_rate"_s] = audio->sampleRate;
        last[u"channels"_s] = audio->channels;
        last[u"frames"_s] = audio->frames;
        last[u"clips"_s] = static_cast<qint64>(audio->clips.size());
    }
    return last;
}

int parseTfEvents(const QString &path) {
    struct Tag {
        qint64 points = 0;
        sb::MetricPoint first;
        sb::MetricPoint last;
    };
    QMap<std::pair<QString, QString>, Tag> tags; // sorted by run, then tag
    struct SampledTag {
        qint64 points = 0;
        std::optional<sb::LogdirFollower::Sample> last;
    };
    QMap<std::pair<QString, QString>, SampledTag> sampled;
    QMap<QString, QJsonObject> hparams; // a run's last session's
    sb::LocalLogdir source(path);
    sb::LogdirFollower follower;
    for (bool more = true; more;) {
        const auto progress = follower.poll(
            source,
            [&](const QString &run, std::vector<sb::SeriesPoints> &&series) -> sb::Status {
                for (const sb::SeriesPoints &s : series) {
                    Tag &tag = tags[{run, s.metric}];
                    if (tag.points == 0)
                        tag.first = s.points.front();
                    tag.last = s.points.back();
                    tag.points += static_cast<qint64>(s.points.size());
                }
                return sb::success();
            },
            sb::LogdirFollower::kBudget,
            [&](const QString &run,
                std::vector<sb::LogdirFollower::Sample> &&samples) -> sb::Status {
                for (sb::LogdirFollower::Sample &sample : samples) {
                    if (const auto *session = std::get_if<sb::HparamsSample>(&sample.data)) {
                        hparams[run] = session->hparams;
                        continue;
                    }
                    SampledTag &tag = sampled[{run, sample.tag}];
                    ++tag.points;
                    tag.last = std::move(sample); // only the last is kept: images stay few
                }
                return sb::success();
            });
        if (!progress)
            return failWith(progress.error());
        more = progress->more;
    }
    for (auto it = tags.begin(); it != tags.end(); ++it) {
        auto point = [](const sb::MetricPoint &p) {
            return QJsonObject{{u"step"_s, p.step}, {u"value"_s, p.value}};
        };
        printJson(QJsonDocument(QJsonObject{{u"run"_s, it.key().first},
                                            {u"tag"_s, it.key().second},
                                            {u"points"_s, it->points},
                                            {u"first"_s, point(it->first)},
                                            {u"last"_s, point(it->last)}}));
    }
    for (auto it = sampled.begin(); it != sampled.end(); ++it) {
        const sb::SummaryKind kind = sb::sampleKind(it->last->data);
        printJson(QJsonDocument(QJsonObject{{u"run"_s, it.key().first},
                                            {u"tag"_s, it.key().second},
                                            {u"kind"_s, QString(sb::summaryKindName(kind))},
                                            {u"points"_s, it->points},
                                            {u"last"_s, lastSample(*it->last)}}));
    }
    for (auto it = hparams.begin(); it != hparams.end(); ++it)
        printJson(QJsonDocument(
            QJsonObject{{u"run"_s, it.key()}, {u"kind"_s, u"hparams"_s}, {u"hparams"_s, *it}}));
    // What was passed over goes to stderr, so stdout stays one object per tag.
    qint64 records = 0;
    bool unread = false;
    QHash<QString, qint64> sizes;
    if (const auto listed = source.eventFiles()) {
        for (const auto &file : *listed)
            sizes.insert(file.path, file.size);
    }
    for (auto it = follower.files().begin(); it != follower.files().end(); ++it) {
        records += it->records;
        if (const qint64 tail = sizes.value(it.key(), it->offset) - it->offset; tail > 0)
            std::fprintf(stderr,
                         "%s: the last %lld bytes are not a whole record (a writer still going, "
                         "or a cut file): not read\n",
                         shown(it.key()).constData(), static_cast<long long>(tail));
        if (it->corrupt > 0)
            std::fprintf(stderr, "%s: %lld corrupt records skipped\n", shown(it.key()).constData(),
                         static_cast<long long>(it->corrupt));
        if (it->skipped > 0)
            std::fprintf(stderr, "%s: %lld records of over 64 MiB passed over\n",
                         shown(it.key()).constData(), static_cast<long long>(it->skipped));
        if (it->refused > 0)
            std::fprintf(stderr, "%s: %lld samples refused; the last: %s\n",
                         shown(it.key()).constData(), static_cast<long long>(it->refused),
                         shown(it->lastRefusal).constData());
        unread = unread || !it->lastError.isEmpty();
        if (!it->lastError.isEmpty())
            std::fprintf(stderr, "%s: %s\n", shown(it.key()).constData(),
                         shown(it->lastError).constData());
    }
    if (follower.files().isEmpty())
        return failWith(u"%1: no TensorBoard event files (names holding \"tfevents\")"_s.arg(path));
    std::fprintf(stderr, "%lld files, %lld records, %lld scalar tags, %lld of other kinds\n",
                 static_cast<long long>(follower.files().size()), static_cast<long long>(records),
                 static_cast<long long>(tags.size()), static_cast<long long>(sampled.size()));
    return unread ? 1 : 0;
}

// A sweep run headless to its end: the app's controller, registry and backends, progress on
// stdout (a line when the status changes, one per finished trial), the best trial at the end.
int runSweep(const QString &path, quint64 seed, const QString &collectorAddress,
             const QString &token, const QString &tokenFile, const QString &project,
             const QString &configPath) {
    const auto bearer = sb::bearerToken(tokenFile, token);
    if (!bearer)
        return failWith(bearer.error());
    const QString data = sb::defaultDataDir();
    QUrl url = collectorAddress.isEmpty() ? sb::defaultCollectorUrl()
                                          : QUrl::fromUserInput(collectorAddress);
    std::unique_ptr<sb::EmbeddedCollector> embedded;
    QString secret = bearer.value().isEmpty() ? sb::publishedCollectorToken(url) : bearer.value();
    auto client = std::make_unique<sb::CollectorClient>(url, secret);
    client->setProject(project);
    if (collectorAddress.isEmpty() &&
        !await<sb::Health>([&](QObject *ctx, auto done) { client->health(ctx, done); })) {
        // Nobody listens at the usual address: keep the metrics where the app would.
        sb::Collector::Options options;
        options.dataDir = data + u"/collector"_s;
        options.port = 0;
        auto started = sb::EmbeddedCollector::start(options);
        if (!started)
            return failWith(started.error());
        embedded = std::move(started).value();
        url = embedded->url();
        secret = embedded->token();
        client = std::make_unique<sb::CollectorClient>(url, secret);
        std::printf("collector: embedded, at %s (data: %s/collector)\n",
                    shown(url.toString()).constData(), shown(data).constData());
    }
    sb::Backends backends(client.get(), {data, configPath, {}, url.toString(), false, secret});
    for (const QString &problem : backends.problems())
        std::fprintf(stderr, "signalbox-cli: %s\n", shown(problem).constData());
    sb::SweepRegistry registry(&backends.jobs(), client.get(), data + u"/sweeps"_s);
    QObject::connect(&registry, &sb::SweepRegistry::problem, &registry, [](const QString &text) {
        std::fprintf(stderr, "signalbox-cli: %s\n", shown(text).constData());
    });
    const auto opened = registry.open(path, seed ? seed : QRandomGenerator::global()->generate64());
    if (!opened)
        return failWith(opened.error());
    sb::Sweep *sweep = *opened;
    std::printf("sweep %s (%s): state in %s\n", shown(sweep->spec().name).constData(),
                shown(sweep->id()).constData(), shown(sweep->statePath()).constData());
    QString lastStatus;
    QSet<int> reported;
    auto progress = [&] {
        const bool over = sweep->state() != sb::Sweep::State::Running;
        for (const sb::Trial &trial : sweep->trials()) {
            // Once its metric has been read (a moment after it ends), or at the end.
            const auto best = trial.best(sweep->spec().maximize);
            if (!trial.finishedState() || (!best && !over) || reported.contains(trial.number))
                continue;
            reported.insert(trial.number);
            std::printf("trial %d %s: %s %s\n", trial.number,
                        shown(sb::jobStateName(trial.state)).constData(),
                        shown(sweep->spec().metric).constData(),
                        best ? shown(QString::number(*best, 'g', 6)).constData() : "(none)");
        }
        if (const QString status = sweep->statusText(); status != lastStatus) {
            lastStatus = status;
            std::printf("%s\n", shown(status).constData());
        }
        std::fflush(stdout);
        if (over)
            QCoreApplication::quit();
    };
    QObject::connect(sweep, &sb::Sweep::changed, sweep, progress);
    sb::quitOnTerminationSignals();
    progress();
    if (sweep->state() == sb::Sweep::State::Running)
        QCoreApplication::exec();
    if (sweep->state() == sb::Sweep::State::Running) { // a signal: no trial is left behind
        sweep->stop();
        // Stopping a trial on a node or a cluster takes a round trip: wait for it, a while.
        auto running = [sweep] {
            return std::any_of(sweep->trials().begin(), sweep->trials().end(),
                               [](const sb::Trial &trial) { return !trial.finishedState(); });
        };
        const QDeadlineTimer deadline(30000);
        QEventLoop wait;
        QTimer poll;
        QObject::connect(&poll, &QTimer::timeout, &wait, [&] {
            if (!running() || deadline.hasExpired())
                wait.quit();
        });
        poll.start(100);
        if (running())
            wait.exec();
        std::printf("stopped: %s\n", shown(sweep->statusText()).constData());
        return 1;
    }
    if (!sweep->stopReason().isEmpty()) // its trials kept failing: said as a problem already
        return 1;
    if (const int best = sweep->bestTrial(); best >= 0) {
        const sb::Trial &trial = sweep->trials()[best];
        printJson(
            QJsonDocument(QJsonObject{{u"best"_s, best},
                                      {u"run"_s, trial.run},
                                      {sweep->spec().metric, *trial.best(sweep->spec().maximize)},
                                      {u"parameters"_s, trial.parameters}}));
    }
    return 0;
}

int planSweep(const QString &path, quint64 seed, int count) {
    const auto spec = sb::SweepSpec::load(path);
    if (!spec)
        return failWith(spec.error());
    // What the sweep would run (or --count of it); a sweep without an end shows its first 10.
    qsizetype trials = count > 0 ? count : sb::trialLimit(*spec);
    if (trials == 0)
        trials = 10;
    if (spec->method == sb::SweepSpec::Method::Grid)
        trials = std::min(trials, sb::gridSize(*spec));
    if (spec->method == sb::SweepSpec::Method::Bayes && trials > sb::kBayesStartupTrials) {
        std::fprintf(stderr, "signalbox-cli: bayes: trials after the first %d follow results\n",
                     sb::kBayesStartupTrials);
        trials = sb::kBayesStartupTrials;
    }
    for (qsizetype n = 0; n < trials; ++n) {
        const QJsonObject parameters = sb::nextTrial(*spec, seed, n, {});
        const QStringList argv =
            sb::trialCommand(*spec, parameters, sb::trialParametersFile(u"TRIAL"_s));
        printJson(QJsonDocument(QJsonObject{{u"trial"_s, n},
                                            {u"parameters"_s, parameters},
                                            {u"command"_s, QJsonArray::fromStringList(argv)},
                                            {u"shell"_s, sb::shellCommand(argv)}}));
    }
    return 0;
}

// `samples RUN [TAG]`: a run's tags, or a tag's items page by page, a JSON object a line.
int printSamples(sb::CollectorClient &client, const QString &run, const QString &tag,
                 std::optional<double> from, std::optional<double> to) {
    if (tag.isEmpty()) {
        const auto tags = await<QList<sb::SampleTagSummary>>(
            [&](QObject *ctx, auto done) { client.sampleTags({run}, ctx, done); });
        if (!tags)
            return failWith(tags.error());
        for (const sb::SampleTagSummary &summary : *tags)
            printJson(QJsonDocument(summary.toJson()));
        return 0;
    }
    for (qint64 offset = 0;;) {
        const auto page = await<sb::SamplesReply>([&](QObject *ctx, auto done) {
            client.samples(run, tag, from, to, offset, sb::CollectorApi::kMostSamplesPerPage, ctx,
                           done);
        });
        if (!page)
            return failWith(page.error());
        const QJsonArray items = page->toJson().value(u"samples"_s).toArray();
        for (const QJsonValue item : items)
            printJson(QJsonDocument(item.toObject()));
        offset += qint64(page->samples.size());
        if (page->samples.empty() || offset >= page->total)
            return 0;
    }
}

// `blob DIGEST [FILE]`: an item's bytes, never onto a terminal (an image is not text).
int writeBlob(sb::CollectorClient &client, const QString &digest, const QString &path) {
    static const QRegularExpression hex(u"^[0-9a-f]{64}$"_s);
    if (!hex.match(digest).hasMatch())
        return failWith(u"a blob is named by its digest in hex (64 digits), as `samples` "
                        "prints it"_s);
    if (path.isEmpty() && ::isatty(STDOUT_FILENO))
        return failWith(u"the blob's bytes are not for a terminal: name a FILE, or redirect "
                        "standard output"_s);
    const auto bytes =
        await<QByteArray>([&](QObject *ctx, auto done) { client.blob(digest, ctx, done); });
    if (!bytes)
        return failWith(bytes.error());
    if (path.isEmpty()) {
        if (std::fwrite(bytes->constData(), 1, bytes->size(), stdout) != std::size_t(bytes->size()))
            return failWith(u"cannot write the blob to standard output"_s);
        return 0;
    }
    if (sb::Status written = sb::writeFileAtomically(path, *bytes); !written)
        return failWith(written.error());
    return 0;
}

} // namespace

int main(int argc, char *argv[]) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(u"signalbox-cli"_s);
    sb::LogFile::escapeStderr(); // core's warnings carry names and remote messages
    // Its output is for scripts: only warnings unless QT_LOGGING_RULES asks for more.
    QLoggingCategory::setFilterRules(u"signalbox.*.info=false"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(SIGNALBOX_VERSION));

    QCommandLineParser parser;
    parser.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsOptions);
    const QCommandLineOption help(QStringList{u"h"_s, u"help"_s});
    const QCommandLineOption version(u"version"_s);
    const QCommandLineOption collectorUrl(u"collector"_s, {}, u"url"_s);
    const QCommandLineOption token(u"token"_s, {}, u"token"_s);
    const QCommandLineOption tokenFile(u"token-file"_s, {}, u"file"_s);
    const QCommandLineOption project(u"project"_s, {}, u"name"_s);
    const QCommandLineOption config(u"config"_s, {}, u"file"_s);
    const QCommandLineOption seed(u"seed"_s, {}, u"n"_s, u"0"_s);
    const QCommandLineOption count(u"count"_s, {}, u"k"_s, u"0"_s);
    const QCommandLineOption fromStep(u"from"_s, {}, u"step"_s);
    const QCommandLineOption toStep(u"to"_s, {}, u"step"_s);
    const QCommandLineOption where(u"where"_s, {}, u"expr"_s);
    parser.addOptions({help, version, collectorUrl, token, tokenFile, project, config, seed, count,
                       fromStep, toStep, where});
    if (!parser.parse(app.arguments()))
        return failWith(parser.errorText(), kUsage);
    if (const sb::Status trusted = sb::trustCertificatesFromEnvironment(); !trusted)
        return failWith(trusted.error());
    const QStringList args = parser.positionalArguments();
    if (parser.isSet(help) || (args.isEmpty() && !parser.isSet(version))) {
        std::fputs(kUsage, parser.isSet(help) ? stdout : stderr);
        return parser.isSet(help) ? 0 : 2;
    }
    if (parser.isSet(version) || args.front() == u"version"_s) {
        std::printf("signalbox-cli %s\n", SIGNALBOX_VERSION);
        return 0;
    }

    const QString command = args.front();
    const auto projectName = sb::collectorProject(parser.value(project));
    if (!projectName)
        return failWith(projectName.error());
    if (command == u"parse"_s) {
        if (args.size() == 3 && args[1] == u"metric-lines"_s)
            return parseMetricLines(args[2]);
        if (args.size() == 3 && args[1] == u"nvidia-smi"_s)
            return parseNvidiaSmi(args[2]);
        if (args.size() == 3 && args[1] == u"tfevents"_s)
            return parseTfEvents(args[2]);
        return failWith(u"usage: signalbox-cli parse metric-lines|nvidia-smi|tfevents PATH"_s);
    }

    if (command == u"sweep"_s) {
        bool seedOk = false;
        bool countOk = false;
        const quint64 seedValue = parser.value(seed).toULongLong(&seedOk);
        const int countValue = parser.value(count).toInt(&countOk);
        if (args.size() == 3 && args[1] == u"run"_s && seedOk)
            return runSweep(args[2], parser.isSet(seed) ? seedValue : 0,
                            parser.isSet(collectorUrl) ? parser.value(collectorUrl) : QString(),
                            parser.value(token), parser.value(tokenFile), *projectName,
                            parser.isSet(config) ? parser.value(config)
                                                 : sb::Config::defaultPath());
        if (args.size() != 3 || args[1] != u"plan"_s || !seedOk || !countOk || countValue < 0)
            return failWith(u"usage: signalbox-cli sweep plan|run FILE [--seed N] [--count K]"_s);
        return planSweep(args[2], seedValue, countValue);
    }

    const QUrl url = parser.isSet(collectorUrl) ? QUrl::fromUserInput(parser.value(collectorUrl))
                                                : sb::defaultCollectorUrl();
    const auto bearer = sb::bearerToken(parser.value(tokenFile), parser.value(token));
    if (!bearer)
        return failWith(bearer.error());
    sb::CollectorClient client(url, bearer.value().isEmpty() ? sb::publishedCollectorToken(url)
                                                             : bearer.value());
    client.setProject(*projectName);
    if (command == u"health"_s) {
        const auto health =
            await<sb::Health>([&](QObject *ctx, auto done) { client.health(ctx, done); });
        if (!health)
            return failWith(health.error());
        printJson(QJsonDocument(health->toJson()));
        return 0;
    }
    if (command == u"runs"_s && args.size() <= 2) {
        // A query that cannot be read is said here, before asking the collector.
        if (const auto query = sb::RunQuery::parse(parser.value(where));
            parser.isSet(where) && !query)
            return failWith(u"--where: %1\n  %2"_s.arg(query.error(), parser.value(where)));
        const auto runs = await<QList<sb::RunSummary>>([&](QObject *ctx, auto done) {
            client.runs({args.value(1), parser.value(where), 0, -1}, ctx, done);
        });
        if (!runs)
            return failWith(runs.error());
        for (const sb::RunSummary &run : *runs) {
            QStringList last;
            for (auto it = run.metrics.begin(); it != run.metrics.end(); ++it)
                last << u"%1=%2"_s.arg(it.key(), QString::number(it->last.value));
            std::printf("%-32s %-10s %s\n", shown(run.info.name).constData(),
                        shown(run.info.status).constData(), shown(last.join(u' ')).constData());
        }
        return 0;
    }
    if (command == u"delete"_s && args.size() >= 2) {
        const QStringList runs = args.mid(1);
        if (::isatty(STDIN_FILENO)) {
            QStringList named;
            for (const QString &run : runs)
                named << QString::fromUtf8(shown(run));
            std::fprintf(stderr, "Delete %lld runs for good (%s)? Nothing brings them back. [y/N] ",
                         qlonglong(runs.size()), named.join(u", "_s).toUtf8().constData());
            char answer[16] = {};
            if (!std::fgets(answer, sizeof answer, stdin) || (answer[0] != 'y' && answer[0] != 'Y'))
                return failWith(u"nothing deleted"_s);
        }
        const auto deleted = await<sb::CollectorClient::Deleted>(
            [&](QObject *ctx, auto done) { client.deleteRuns(runs, ctx, done); });
        if (!deleted)
            return failWith(deleted.error());
        for (const QString &run : deleted->runs)
            std::printf("deleted %s\n", shown(run).constData());
        std::printf("%lld points and %lld samples deleted\n", qlonglong(deleted->points),
                    qlonglong(deleted->samples));
        return 0;
    }
    if (command == u"metrics"_s) {
        const auto metrics = await<QStringList>(
            [&](QObject *ctx, auto done) { client.metrics(args.mid(1), ctx, done); });
        if (!metrics)
            return failWith(metrics.error());
        for (const QString &name : *metrics)
            std::printf("%s\n", shown(name).constData());
        return 0;
    }
    if (command == u"series"_s && args.size() >= 3) {
        sb::SeriesWindow window;
        window.width = args.value(3, u"1000"_s).toInt();
        const auto series = await<sb::SeriesReplies>([&](QObject *ctx, auto done) {
            client.series({args[1]}, args[2], window, false, ctx, done);
        });
        if (!series)
            return failWith(series.error());
        printJson(QJsonDocument::fromJson(series->toJsonText()));
        return 0;
    }
    if (command == u"samples"_s && (args.size() == 2 || args.size() == 3)) {
        std::optional<double> range[2];
        for (int end = 0; end < 2; ++end) {
            const QCommandLineOption &option = end == 0 ? fromStep : toStep;
            bool ok = true;
            if (parser.isSet(option))
                range[end] = parser.value(option).toDouble(&ok);
            if (!ok || (range[end] && !std::isfinite(*range[end])))
                return failWith(u"--%1 takes a step (a number)"_s.arg(option.names().first()));
        }
        return printSamples(client, args[1], args.value(2), range[0], range[1]);
    }
    if (command == u"blob"_s && (args.size() == 2 || args.size() == 3))
        return writeBlob(client, args[1], args.value(2));
    if (command == u"export"_s && args.size() == 3) {
        const auto csv = await<QByteArray>(
            [&](QObject *ctx, auto done) { client.exportCsv(args[1], args[2], ctx, done); });
        if (!csv)
            return failWith(csv.error());
        // Numbers, unless the collector is not what it seems: its controls and bidi marks go out
        // escaped, its lines as they are.
        const bool plain = std::all_of(csv->begin(), csv->end(), [](char c) {
            return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\r';
        });
        QByteArray text = plain ? *csv : QByteArray();
        if (!plain) {
            QStringList lines = QString::fromUtf8(*csv).split(u'\n');
            for (QString &line : lines)
                line = sb::printable(line);
            text = lines.join(u'\n').toUtf8();
        }
        std::fwrite(text.constData(), 1, text.size(), stdout);
        return 0;
    }
    return failWith(u"unknown command or missing arguments: %1"_s.arg(args.join(u' ')), kUsage);
}
