// libFuzzer target: arbitrary bytes as a sweep file. Either a clear error at file:line, or a
// spec whose first trials (grid, random, or bayes fed with made-up results), command lines and
// hyperband bands all come out without a crash; and as a Job's completed-index ranges.
#include "jobs/kubernetes/KubeJobs.h"
#include "sweeps/Hyperband.h"
#include "sweeps/SweepSearch.h"
#include "sweeps/TrialCommand.h"

#include <cstddef>
#include <cstdint>

using namespace Qt::StringLiterals;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const QByteArray bytes(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    (void)sb::parseIndexes(QString::fromUtf8(bytes.left(64)));
    const auto spec = sb::SweepSpec::parse(bytes, u"/fuzz/sweep.yaml"_s);
    if (!spec)
        return 0;
    QList<sb::Observation> seen;
    QList<sb::TrialCurve> curves;
    for (int n = 0; n < sb::kBayesStartupTrials + 2; ++n) {
        if (spec->method == sb::SweepSpec::Method::Grid && n >= sb::gridSize(*spec))
            break;
        const QJsonObject trial = sb::nextTrial(*spec, 7, n, seen);
        (void)sb::trialCommand(*spec, trial, u"/tmp/p.json"_s);
        seen << sb::Observation{trial, static_cast<double>(n % 5)};
        curves << sb::TrialCurve{
            QString::number(n), n % 2 == 0, {3.0, 2.0, static_cast<double>(n)}};
    }
    (void)sb::hyperbandStops(spec->earlyTerminate, spec->maximize, curves);
    return 0;
}
