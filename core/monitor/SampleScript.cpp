#include "SampleScript.h"

#include "GpuSource.h"

#include <QDateTime>

#include <algorithm>

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
    // sends bytes at least every few seconds: silence longer than that means a hung node. A
    // frame's own time is taken off the wait, so samples keep their interval.
    static const QString script = [] {
        QString gpu;
        for (const GpuSource *source : gpuSources())
            gpu += source->shellText();
        return uR"sh(I=$1 S=$2 P=$3
F='%1'
B='%2'
A='gpu_uuid,pid,process_name,used_gpu_memory'
PS='pid=,user:32=,pcpu=,pmem=,rss=,time=,args='
T=$(getconf CLK_TCK 2>/dev/null || echo 100)
frame() {
  t0=$(date +%s.%N)
  echo "@sb:frame $t0"
  echo @sb:stat; grep '^cpu' "$P/stat"
  echo @sb:meminfo; grep -E '^(MemTotal|MemAvailable|SwapTotal|SwapFree):' "$P/meminfo"
  echo @sb:loadavg; cat "$P/loadavg"
  echo @sb:top-cpu; ps -eo "$PS" --sort=-pcpu 2>&1 | head -n 12
  echo @sb:top-memory; ps -eo "$PS" --sort=-rss 2>&1 | head -n 12
  found= pids=
  %3
  if [ -z "$found" ]; then echo @sb:no-gpu; fi
  if [ -n "$pids" ]; then
    echo @sb:app-owners
    ps -o pid=,pgid=,etimes=,rss=,user:32=,args= -p "$pids" 2>/dev/null
    echo @sb:app-cpu; echo "$T"
    for p in $(printf '%s' "$pids" | tr , ' '); do cat "$P/$p/stat" 2>/dev/null; done
  fi
  echo @sb:end
}
if [ "$I" = 0 ]; then frame; else while frame; do
  sleep "$(date +%s.%N | awk -v i="$I" -v t="$t0" '{ w = i - ($1 - t); print (w > 0 ? w : 0) }')"
done; fi
)sh"_s.arg(gpuFields().join(u','), basicGpuFields().join(u','), gpu);
    }();
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

void NodeSampleBuilder::joinProcessDetail(const SampleFrame &frame, NodeSample &sample) {
    if (sample.gpuProcesses.empty())
        return;
    const std::vector<ProcessRow> owners = parsePsOwners(frame.sections.value("app-owners"));
    double ticksPerSecond = 0;
    const std::vector<ProcessTicks> ticks =
        parseProcessTicks(frame.sections.value("app-cpu"), &ticksPerSecond);
    QHash<qint64, std::pair<quint64, double>> seen;
    for (GpuProcess &process : sample.gpuProcesses) {
        const auto owner = std::find_if(owners.begin(), owners.end(),
                                        [&](const auto &row) { return row.pid == process.pid; });
        if (owner != owners.end()) {
            process.user = owner->user;
            process.processGroup = owner->processGroup;
            process.command = owner->command;
            process.rssKiB = owner->rssKiB;
            process.elapsedSeconds = owner->elapsedSeconds;
        }
        const auto now = std::find_if(ticks.begin(), ticks.end(),
                                      [&](const auto &row) { return row.pid == process.pid; });
        if (now == ticks.end() || ticksPerSecond <= 0)
            continue;
        seen.insert(process.pid, {now->ticks, sample.time});
        // CPU now: ticks used since the last sample that saw this process (a reused pid whose
        // count went back is read afresh).
        const auto before = m_processTicks.constFind(process.pid);
        if (before != m_processTicks.constEnd() && now->ticks >= before->first &&
            sample.time > before->second)
            process.cpuPercent = 100.0 * static_cast<double>(now->ticks - before->first) /
                                 ticksPerSecond / (sample.time - before->second);
    }
    m_processTicks = std::move(seen);
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

    for (const GpuSource *source : gpuSources())
        source->read(frame, sample);
    joinProcessDetail(frame, sample);
    return sample;
}

} // namespace sb
