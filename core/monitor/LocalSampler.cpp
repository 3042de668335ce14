#include "LocalSampler.h"

#include <QDateTime>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

Result<QByteArray> readProcFile(const QString &path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(u"cannot read %1: %2"_s.arg(path, file.errorString()));
    return file.readAll(); // proc files report size 0, so read to the end
}

} // namespace

LocalSampler::LocalSampler(QString procRoot, int intervalMs, QString nvidiaSmi)
    : m_procRoot(std::move(procRoot))
    , m_nvidiaSmi(nvidiaSmi.isEmpty() ? QStandardPaths::findExecutable(u"nvidia-smi"_s)
                                      : std::move(nvidiaSmi)) {
    m_timer.setParent(this); // moves to the worker thread with us
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, [this] { Q_EMIT sampled(sampleNow()); });
}

void LocalSampler::start() {
    m_timer.start();
    Q_EMIT sampled(sampleNow());
}

NodeSample LocalSampler::sampleNow() {
    NodeSample sample;
    sample.time = static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    const auto stat = readProcFile(m_procRoot + u"/stat"_s);
    const auto meminfo = readProcFile(m_procRoot + u"/meminfo"_s);
    const auto loadavg = readProcFile(m_procRoot + u"/loadavg"_s);
    for (const auto *file : {&stat, &meminfo, &loadavg}) {
        if (!*file) {
            sample.error = file->error();
            return sample;
        }
    }
    auto cpus = parseProcStat(*stat);
    auto memory = parseMemInfo(*meminfo);
    auto load = parseLoadAvg(*loadavg);
    if (!cpus || !memory || !load) {
        sample.error = !cpus ? cpus.error() : !memory ? memory.error() : load.error();
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
    sampleGpus(&sample);
    return sample;
}

QStringList LocalSampler::gpuFields() {
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

void LocalSampler::sampleGpus(NodeSample *sample) const {
    if (m_nvidiaSmi.isEmpty())
        return; // a CPU-only computer
    QProcess smi;
    smi.start(m_nvidiaSmi, {u"--query-gpu="_s + gpuFields().join(u','), u"--format=csv"_s});
    if (!smi.waitForFinished(5000)) {
        smi.kill();
        smi.waitForFinished(1000);
        sample->gpuError = u"nvidia-smi did not answer within 5 s"_s;
        return;
    }
    // Driver failures are printed on stdout or stderr depending on the version: read both.
    QByteArray output = smi.readAllStandardOutput();
    output.append(smi.readAllStandardError());
    auto gpus = NvidiaSmi::parseQueryGpu(output);
    if (gpus)
        sample->gpus = std::move(gpus).value();
    else
        sample->gpuError = gpus.error();
}

} // namespace sb
