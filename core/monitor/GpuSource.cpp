#include "GpuSource.h"

#include "SampleScript.h"

#include <algorithm>

namespace sb {

using namespace Qt::StringLiterals;

QString NvidiaSmiSource::shellText() const {
    static const QString text = uR"sh(if command -v "$S" >/dev/null 2>&1; then
    found=1
    echo @sb:gpu
    out=$(timeout 3 "$S" --query-gpu="$F" --format=csv 2>&1); rc=$?
    case $out in *"is not a valid field"*)
      out=$(timeout 3 "$S" --query-gpu="$B" --format=csv 2>&1); rc=$? ;;
    esac
    printf '%s\n' "$out"
    echo "@sb:gpu-exit"; echo $rc
    echo @sb:apps
    apps=$(timeout 3 "$S" --query-compute-apps="$A" --format=csv 2>&1)
    printf '%s\n' "$apps"
    pids=$(printf '%s\n' "$apps" | awk -F', *' '
      NR == 1 { for (i = 1; i <= NF; i++) if ($i == "pid") c = i }
      NR > 1 && c && $c ~ /^[0-9]+$/ { printf "%s%s", s, $c; s = "," }')
    if [ -n "$pids" ]; then echo @sb:pmon; timeout 3 "$S" pmon -c 1 2>&1; fi
  fi
)sh"_s;
    return text;
}

void NvidiaSmiSource::read(const SampleFrame &frame, NodeSample &sample) const {
    if (!frame.sections.contains("gpu"))
        return;
    sample.hasNvidiaSmi = true;
    if (frame.sections.value("gpu-exit").trimmed() == "124") {
        sample.gpuError = u"nvidia-smi did not answer within 3 s"_s;
        return;
    }
    auto gpus = NvidiaSmi::parseQueryGpu(frame.sections.value("gpu"));
    if (!gpus) {
        sample.gpuError = gpus.error();
        return;
    }
    sample.gpus = std::move(gpus).value();
    // Compute processes and pmon are extra: a node that cannot list them still shows its GPUs.
    auto apps = NvidiaSmi::parseComputeApps(frame.sections.value("apps"));
    if (!apps)
        return;
    sample.gpuProcesses = std::move(apps).value();
    const auto pmon = NvidiaSmi::parsePmon(frame.sections.value("pmon"));
    if (!pmon)
        return;
    for (GpuProcess &process : sample.gpuProcesses) {
        const auto gpu = std::find_if(sample.gpus.begin(), sample.gpus.end(),
                                      [&](const auto &g) { return g.uuid == process.gpuUuid; });
        const auto row = std::find_if(pmon->begin(), pmon->end(), [&](const PmonRow &r) {
            return r.pid == process.pid && gpu != sample.gpus.end() && gpu->index == r.gpuIndex;
        });
        if (row != pmon->end()) {
            process.smPercent = row->smPercent;
            process.memoryBandwidthPercent = row->memoryPercent;
        }
    }
}

const std::vector<const GpuSource *> &gpuSources() {
    static const NvidiaSmiSource nvidia;
    static const std::vector<const GpuSource *> sources{&nvidia};
    return sources;
}

} // namespace sb
