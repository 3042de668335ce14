// libFuzzer target: every text parser of the metrics, monitor and config code (metric lines,
// CSV, /proc, ps, nvidia-smi (query, compute apps, pmon), sampler frames, the YAML config,
// ~/.ssh/config) on arbitrary bytes. A bad input may only produce an error value: no crash, no
// sanitizer report, no hang.
#include "config/Config.h"
#include "metrics/MetricLineParser.h"
#include "monitor/NvidiaSmiParser.h"
#include "monitor/ProcParsers.h"
#include "monitor/SampleScript.h"

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
    return 0;
}
