#include "GpuDrawing.h"

#include "util/Duration.h"
#include "util/PlainText.h"

#include <QObject>
#include <QPainter>
#include <QPalette>

#include <algorithm>

namespace sb {

using namespace Qt::StringLiterals;

QColor usageColor(double percent) {
    if (percent > 90)
        return QColor(0xe15759);
    if (percent > 60)
        return QColor(0xf28e2b);
    return QColor(0x59a14f);
}

void drawBar(QPainter &p, const QRect &r, double percent, const QString &text,
             const QPalette &palette) {
    p.fillRect(r, palette.color(QPalette::AlternateBase));
    QRect filled = r;
    filled.setWidth(static_cast<int>(r.width() * std::clamp(percent, 0.0, 100.0) / 100.0));
    p.fillRect(filled, usageColor(percent));
    p.setPen(palette.color(QPalette::Mid));
    p.drawRect(r.adjusted(0, 0, -1, -1));
    p.setPen(palette.color(QPalette::Text));
    p.drawText(r, Qt::AlignCenter, text);
}

namespace {

QString memoryText(const GpuProcess &process) {
    const double mib = process.usedMemoryMiB.value_or(0);
    return mib >= 1024 ? u"%1 GiB"_s.arg(mib / 1024, 0, 'f', 1) : u"%1 MiB"_s.arg(mib, 0, 'f', 0);
}

QString programOf(const GpuProcess &process) {
    const QString command = process.command.isEmpty() ? process.processName : process.command;
    return command.isEmpty() ? u"pid %1"_s.arg(process.pid) : command;
}

} // namespace

QString processLabel(const GpuProcess &process, const QString &run) {
    // Each name isolated: an override in another user's command reverses nothing after it.
    const QString user = process.user.isEmpty() ? u"?"_s : isolated(process.user);
    if (!run.isEmpty())
        return QObject::tr("run %1 (%2) %3").arg(isolated(run), user, memoryText(process));
    // The program without its directory, and as much of its arguments as a glance takes.
    static constexpr qsizetype kShown = 32;
    QString program = programOf(process);
    const qsizetype space = program.indexOf(u' ');
    const qsizetype slash = program.lastIndexOf(u'/', space < 0 ? -1 : space);
    program = program.mid(slash + 1);
    if (program.size() > kShown)
        program = program.left(kShown - 1) + u'…';
    return u"%1:%2 %3"_s.arg(user, isolated(program), memoryText(process));
}

QString processFacts(const GpuProcess &process) {
    QStringList facts;
    if (process.smPercent)
        facts << QObject::tr("SM %1%").arg(*process.smPercent, 0, 'f', 0);
    if (process.cpuPercent)
        facts << QObject::tr("CPU %1%").arg(*process.cpuPercent, 0, 'f', 0);
    if (process.rssKiB)
        facts << QObject::tr("RSS %1 GiB")
                     .arg(static_cast<double>(*process.rssKiB) / (1024.0 * 1024.0), 0, 'f', 1);
    if (process.elapsedSeconds)
        facts << elapsedText(*process.elapsedSeconds);
    return facts.join(u" · "_s);
}

QString processDetail(const GpuProcess &process, const QString &run) {
    QStringList lines;
    if (!run.isEmpty())
        lines << QObject::tr("Signalbox run %1 (click to open its curves)").arg(run);
    lines << QObject::tr("pid %1 · %2")
                 .arg(process.pid)
                 .arg(process.user.isEmpty() ? QObject::tr("owner not visible") : process.user);
    lines << QObject::tr("GPU memory %1").arg(memoryText(process));
    if (process.smPercent || process.memoryBandwidthPercent)
        lines << QObject::tr("SM %1 · memory bandwidth %2")
                     .arg(process.smPercent ? u"%1%"_s.arg(*process.smPercent) : u"–"_s,
                          process.memoryBandwidthPercent
                              ? u"%1%"_s.arg(*process.memoryBandwidthPercent)
                              : u"–"_s);
    if (process.cpuPercent)
        lines << QObject::tr("CPU %1%").arg(*process.cpuPercent, 0, 'f', 0);
    if (process.rssKiB)
        lines << QObject::tr("resident %1 GiB")
                     .arg(static_cast<double>(*process.rssKiB) / (1024.0 * 1024.0), 0, 'f', 1);
    if (process.elapsedSeconds)
        lines << QObject::tr("running for %1").arg(elapsedText(*process.elapsedSeconds));
    lines << programOf(process);
    return lines.join(u'\n');
}

std::vector<const GpuProcess *> processesOn(const NodeSample &sample, const GpuReading &gpu) {
    std::vector<const GpuProcess *> on;
    for (const GpuProcess &process : sample.gpuProcesses)
        if (process.gpuUuid == gpu.uuid || (sample.gpus.size() == 1 && process.gpuUuid.isEmpty()))
            on.push_back(&process);
    return on;
}

QString reservationText(const NodeSample &sample, const GpuReading &gpu) {
    const auto run = sample.reservedGpus.constFind(gpu.index.value_or(-1));
    if (!gpu.index || run == sample.reservedGpus.cend() || !processesOn(sample, gpu).empty())
        return {};
    return QObject::tr("reserved for %1").arg(*run);
}

QString elapsedText(qint64 seconds) {
    return formatDuration(seconds * 1000, DurationStyle::Uptime);
}

} // namespace sb
