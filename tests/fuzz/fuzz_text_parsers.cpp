// libFuzzer target: every text parser of the metrics, monitor and config code (metric lines,
// CSV, /proc, ps, nvidia-smi (query, compute apps, pmon), sampler frames, the YAML config,
// ~/.ssh/config, a query over runs, a collector's /series answer) on arbitrary bytes. A bad input
// may only produce an error value: no crash, no sanitizer report, no hang.
#include "config/Config.h"
#include "lab/ClickHouse.h"
#include "metrics/CollectorApi.h"
#include "metrics/MetricLineParser.h"
#include "metrics/RunQuery.h"
#include "monitor/NvidiaSmiParser.h"
#include "monitor/ProcParsers.h"
#include "monitor/SampleScript.h"

#include <QJsonDocument>

#include <cmath>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const QByteArrayView input(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    (void)sb::MetricLines::parseLogLine(input);
    (void)sb::MetricLines::parseJsonObject(input);
    sb::CsvMetricReader csv;
    for (QByteArrayView line : input.toByteArray().split('\n'))
        (void)csv.readLine(line);
    (void)sb::parseProcStat(input);
    (void)sb::parseMemInfo(input);
    (void)sb::parseLoadAvg(input);
    (void)sb::NvidiaSmi::parseQueryGpu(input);
    (void)sb::NvidiaSmi::parseComputeApps(input);
    (void)sb::parsePsRows(input);
    (void)sb::parsePsOwners(input);
    (void)sb::NvidiaSmi::parsePmon(input);
    double ticksPerSecond = 0;
    (void)sb::parseProcessTicks(input, &ticksPerSecond);
    // The input as a node's sampler stream, in two pieces, with a frame start in front.
    sb::SampleFrameReader reader;
    sb::NodeSampleBuilder builder;
    reader.feed(QByteArrayView("@sb:frame 1\n"));
    reader.feed(input.first(input.size() / 2));
    reader.feed(input.sliced(input.size() / 2));
    reader.feed(QByteArrayView("\n@sb:end\n"));
    while (const auto frame = reader.next())
        (void)builder.build(*frame);
    (void)sb::Config::parse(input.toByteArray(), QStringLiteral("fuzz.yaml"));
    (void)sb::importSshConfig(input.toByteArray());
    // As a /series answer read by the app, and what it reads written again.
    if (const auto answer = sb::SeriesReplies::fromJsonText(input.toByteArray()))
        (void)answer->toJsonText();
    // As what ClickHouse answers in RowBinary: strings and numbers until it ends or fails.
    for (sb::RowBinaryReader rows(input); !rows.atEnd() && !rows.failed();) {
        (void)rows.string();
        (void)rows.float64();
    }
    // As a /runs answer read by the app, and what it reads written again.
    if (const auto runs = sb::runSummariesFromJsonText(input.toByteArray()))
        (void)sb::runSummariesJsonText(*runs);
    // As a query over runs: read, and asked of a run with every kind of field.
    if (const auto query = sb::RunQuery::parse(QString::fromUtf8(input))) {
        static const sb::RunSummary run = [] {
            sb::RunSummary r;
            r.info = sb::RunInfo::fromJson(
                QStringLiteral("r"),
                QJsonDocument::fromJson(R"({"status": "running", "start": 1.7e9, "tags": ["a"],
                    "note": "n", "config": {"lr": 0.1, "m": {"k": [1, "x", null]}, "s": "1e-3"}})")
                    .object());
            r.metrics.insert(QStringLiteral("loss"), {3, {2, std::nan(""), 1.7e9}, {{0.5, 1.5}}});
            return r;
        }();
        (void)query->matches(run, 1.8e9);
    }
    return 0;
}
