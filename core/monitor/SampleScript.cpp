#include "SampleScript.h"

#include <QDateTime>

namespace sb {

using namespace Qt::StringLiterals;

namespace SampleScript {

QStringList basicGpuFields() {
    return {u"index"_s,
            u"name"_s,
            u"uuid"_s,
            u"pci.bus_id"_s,
            u"pstate"_s,
            u"utilization.gpu"_s,
            u"utilization.memory"_s,
            u"memory.used"_s,
            u"memory.total"_s,
            u"temperature.gpu"_s,
            u"power.draw"_s,
            u"power.limit"_s,
            u"clocks.sm"_s,
            u"clocks.mem"_s,
            u"fan.speed"_s};
}

QStringList gpuFields() {
    // The throttle names are the ones every driver accepts; the parser renames them.
    return basicGpuFields() + QStringList{u"mig.mode.current"_s,
                                          u"ecc.errors.uncorrected.volatile.total"_s,
                                          u"clocks_throttle_reasons.sw_power_cap"_s,
                                          u"clocks_throttle_reasons.hw_slowdown"_s,
                                          u"clocks_throttle_reasons.hw_thermal_slowdown"_s,
                                          u"clocks_throttle_reasons.hw_power_brake_slowdown"_s,
                                          u"clocks_throttle_reasons.sw_thermal_slowdown"_s};
}

QString text() {
    // Every section marker is echoed before its command runs, so a node that answers at all
    // sends bytes at least every few seconds: silence longer than that means a hung node.
    static const QString script = uR"sh(I=$1 S=$2 P=$3
F='%1'
B='%2'
A='gpu_uuid,pid,process_name,used_gpu_memory'
PS='pid=,user:32=,pcpu=,pmem=,rss=,time=,args='
frame() {
  echo "@sb:frame $(date +%s.%N)"
  echo @sb:stat; grep '^cpu' "$P/stat"
  echo @sb:meminfo; grep -E '^(MemTotal|MemAvailable|SwapTotal|SwapFree):' "$P/meminfo"
  echo @sb:loadavg; cat "$P/loadavg"
  echo @sb:top-cpu; ps -eo "$PS" --sort=-pcpu 2>&1 | head -n 12
  echo @sb:top-memory; ps -eo "$PS" --sort=-rss 2>&1 | head -n 12
  if command -v "$S" >/dev/null 2>&1; then
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
    echo @sb:app-owners
    [ -n "$pids" ] && ps -o pid=,pgid=,user:32=,args= -p "$pids" 2>/dev/null
  else
    echo @sb:no-gpu
  fi
  echo @sb:end
}
if [ "$I" = 0 ]; then frame; else while frame; do sleep "$I"; done; fi
)sh"_s.arg(gpuFields().join(u','), basicGpuFields().join(u','));
    return script;
}

QStringList command(double intervalSeconds, const QString &nvidiaSmi, const QString &procRoot) {
    return {u"sh"_s,   u"-c"_s, text(), u"signalbox-sampler"_s, QString::number(intervalSeconds),
            nvidiaSmi, procRoot};
}

} // namespace SampleScript

void SampleFrameReader::feed(QByteArrayView bytes) {
    m_pending.append(bytes);
    if (m_pending.size() > kMaxPending) // garbage without frame ends: keep only the newest part
        m_pending.remove(0, m_pending.size() - kMaxPending / 2);
}

std::optional<SampleFrame> SampleFrameReader::next() {
    static constexpr QByteArrayView kFrame = "@sb:frame ";
    static constexpr QByteArrayView kEnd = "\n@sb:end\n";
    const qsizetype start =
        m_pending.startsWith(kFrame) ? 0 : m_pending.indexOf(QByteArray("\n").append(kFrame));
    if (start < 0)
        return std::nullopt;
    const qsizetype end = m_pending.indexOf(kEnd, start);
    if (end < 0)
        return std::nullopt;
    const QByteArray body = m_pending.mid(start, end + 1 - start);
    m_pending.remove(0, end + kEnd.size());

    SampleFrame frame;
    QByteArray *section = nullptr;
    for (const QByteArray &line : body.split('\n')) {
        if (line.startsWith("@sb:")) {
            if (line.startsWith(kFrame))
                frame.time = line.mid(kFrame.size()).trimmed().toDouble();
            section = &frame.sections[line.mid(4).trimmed()];
            continue;
        }
        if (section)
            section->append(line).append('\n');
    }
    if (frame.time <= 0) // a node whose date(1) lacks %N or prints garbage
        frame.time = static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    return frame;
}

NodeSample NodeSampleBuilder::build(const SampleFrame &frame) {
    NodeSample sample;
    sample.time = frame.time;
    auto cpus = parseProcStat(frame.sections.value("stat"));
    auto memory = parseMemInfo(frame.sections.value("meminfo"));
    auto load = parseLoadAvg(frame.sections.value("loadavg"));
    if (!cpus || !memory || !load) {
        // cat's own message ("No such file") is more telling than the parser's, when present.
        const QString error = !cpus ? cpus.error() : !memory ? memory.error() : load.error();
        sample.error = error;
        return sample;
    }
    const std::vector<double> usage = m_previous.empty() ? std::vector<double>(cpus->size(), 0.0)
                                                         : cpuUsagePercent(m_previous, *cpus);
    if (!usage.empty()) {
        sample.cpuPercent = usage.front();
        sample.corePercent.assign(usage.begin() + 1, usage.end());
    }
    m_previous = std::move(cpus).value();
    sample.memory = *memory;
    sample.load = *load;
    sample.topCpu = parsePsRows(frame.sections.value("top-cpu"));
    sample.topMemory = parsePsRows(frame.sections.value("top-memory"));

    if (frame.sections.contains("no-gpu"))
        return sample; // a CPU-only node
    sample.hasNvidiaSmi = true;
    const QByteArray gpuText = frame.sections.value("gpu");
    if (frame.sections.value("gpu-exit").trimmed() == "124") {
        sample.gpuError = u"nvidia-smi did not answer within 3 s"_s;
        return sample;
    }
    auto gpus = NvidiaSmi::parseQueryGpu(gpuText);
    if (!gpus) {
        sample.gpuError = gpus.error();
        return sample;
    }
    sample.gpus = std::move(gpus).value();
    // Compute processes are extra: a node that cannot list them still shows its GPUs.
    if (auto apps = NvidiaSmi::parseComputeApps(frame.sections.value("apps")); apps) {
        const std::vector<ProcessRow> owners = parsePsOwners(frame.sections.value("app-owners"));
        for (GpuProcess &process : apps.value()) {
            const auto owner = std::find_if(owners.begin(), owners.end(), [&](const auto &row) {
                return row.pid == process.pid;
            });
            if (owner != owners.end()) {
                process.user = owner->user;
                process.processGroup = owner->processGroup;
                process.command = owner->command;
            }
        }
        sample.gpuProcesses = std::move(apps).value();
    }
    return sample;
}

} // namespace sb
