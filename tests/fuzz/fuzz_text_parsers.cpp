// libFuzzer target: every text parser of the metrics and monitor code (metric lines, CSV, /proc,
// nvidia-smi) on arbitrary bytes.
// A bad input may only produce an error value: no crash, no sanitizer report, no hang.
#include "metrics/MetricLineParser.h"
#include "monitor/NvidiaSmiParser.h"
#include "monitor/ProcParsers.h"

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
    return 0;
}
