#include "ProcParsers.h"

#include <QList>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace sb {

using namespace Qt::StringLiterals;

Result<std::vector<CpuTimes>> parseProcStat(QByteArrayView text) {
    std::vector<CpuTimes> cpus;
    for (const QByteArray &line : text.toByteArray().split('\n')) {
        if (!line.startsWith("cpu"))
            continue;
        const QList<QByteArray> fields = line.simplified().split(' ');
        if (fields.size() < 5)
            return fail(
                u"/proc/stat: a cpu line has %1 fields, expected at least 5"_s.arg(fields.size()));
        CpuTimes t;
        quint64 *slots[] = {&t.user,   &t.nice, &t.system,  &t.idle,
                            &t.iowait, &t.irq,  &t.softirq, &t.steal};
        for (qsizetype i = 1; i < fields.size() && i <= 8; ++i) {
            bool ok = false;
            *slots[i - 1] = fields[i].toULongLong(&ok);
            if (!ok)
                return fail(
                    u"/proc/stat: \"%1\" is not a number"_s.arg(QString::fromUtf8(fields[i])));
        }
        cpus.push_back(t);
    }
    if (cpus.empty())
        return fail(u"/proc/stat has no cpu lines"_s);
    return cpus;
}

Result<MemInfo> parseMemInfo(QByteArrayView text) {
    MemInfo info;
    bool haveTotal = false;
    bool haveAvailable = false;
    for (const QByteArray &line : text.toByteArray().split('\n')) {
        const QList<QByteArray> fields = line.simplified().split(' ');
        if (fields.size() < 2)
            continue;
        const quint64 value = fields[1].toULongLong();
        if (fields[0] == "MemTotal:") {
            info.totalKiB = value;
            haveTotal = true;
        } else if (fields[0] == "MemAvailable:") {
            info.availableKiB = value;
            haveAvailable = true;
        } else if (fields[0] == "SwapTotal:") {
            info.swapTotalKiB = value;
        } else if (fields[0] == "SwapFree:") {
            info.swapFreeKiB = value;
        }
    }
    if (!haveTotal || !haveAvailable)
        return fail(u"/proc/meminfo lacks MemTotal or MemAvailable"_s);
    return info;
}

Result<LoadAverage> parseLoadAvg(QByteArrayView text) {
    const QList<QByteArray> fields = text.toByteArray().simplified().split(' ');
    if (fields.size() < 4)
        return fail(u"/proc/loadavg: expected 5 fields"_s);
    LoadAverage load;
    bool ok1 = false, ok2 = false, ok3 = false;
    load.one = fields[0].toDouble(&ok1);
    load.five = fields[1].toDouble(&ok2);
    load.fifteen = fields[2].toDouble(&ok3);
    const QList<QByteArray> tasks = fields[3].split('/');
    if (!ok1 || !ok2 || !ok3 || tasks.size() != 2)
        return fail(
            u"/proc/loadavg: malformed \"%1\""_s.arg(QString::fromUtf8(text.toByteArray())));
    load.running = tasks[0].toInt();
    load.tasks = tasks[1].toInt();
    return load;
}

namespace {

// Splits off `count` whitespace-separated words; the rest of the line (spaces kept) is last.
QList<QByteArray> splitWords(const QByteArray &line, int count) {
    QList<QByteArray> words;
    qsizetype at = 0;
    while (words.size() < count) {
        while (at < line.size() && (line[at] == ' ' || line[at] == '\t'))
            ++at;
        const qsizetype start = at;
        while (at < line.size() && line[at] != ' ' && line[at] != '\t')
            ++at;
        if (start == at)
            return {};
        words << line.mid(start, at - start);
    }
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t'))
        ++at;
    words << line.mid(at);
    return words;
}

} // namespace

std::vector<ProcessRow> parsePsRows(QByteArrayView text, int *skipped) {
    std::vector<ProcessRow> rows;
    int bad = 0;
    for (const QByteArray &line : text.toByteArray().split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        const QList<QByteArray> w = splitWords(line, 6);
        bool pidOk = false, cpuOk = false, memOk = false, rssOk = false;
        ProcessRow row;
        if (w.size() == 7) {
            row.pid = w[0].toLongLong(&pidOk);
            row.cpuPercent = w[2].toDouble(&cpuOk);
            row.memoryPercent = w[3].toDouble(&memOk);
            row.rssKiB = w[4].toULongLong(&rssOk);
        }
        if (!pidOk || !cpuOk || !memOk || !rssOk) {
            ++bad;
            continue;
        }
        row.user = QString::fromUtf8(w[1]);
        row.cpuTime = QString::fromUtf8(w[5]);
        row.command = QString::fromUtf8(w[6]);
        rows.push_back(std::move(row));
    }
    if (skipped)
        *skipped = bad;
    return rows;
}

std::vector<ProcessRow> parsePsOwners(QByteArrayView text) {
    std::vector<ProcessRow> rows;
    for (const QByteArray &line : text.toByteArray().split('\n')) {
        const QList<QByteArray> w = splitWords(line, 5);
        bool ok[4] = {};
        ProcessRow row;
        if (w.size() == 6) {
            row.pid = w[0].toLongLong(&ok[0]);
            row.processGroup = w[1].toLongLong(&ok[1]);
            row.elapsedSeconds = w[2].toLongLong(&ok[2]);
            row.rssKiB = w[3].toULongLong(&ok[3]);
        }
        if (!std::all_of(std::begin(ok), std::end(ok), [](bool b) { return b; }))
            continue;
        row.user = QString::fromUtf8(w[4]);
        row.command = QString::fromUtf8(w[5]);
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<ProcessTicks> parseProcessTicks(QByteArrayView text, double *ticksPerSecond) {
    const QList<QByteArray> lines = text.toByteArray().split('\n');
    bool rateOk = false;
    const double rate = lines.value(0).trimmed().toDouble(&rateOk);
    *ticksPerSecond = rateOk && rate > 0 && std::isfinite(rate) ? rate : 0;
    std::vector<ProcessTicks> ticks;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so fields count
        // from the last ')'; utime and stime are the 12th and 13th after it.
        const QByteArray &line = lines[i];
        const qsizetype close = line.lastIndexOf(')');
        if (close < 0)
            continue;
        bool pidOk = false;
        ProcessTicks row;
        row.pid = line.left(line.indexOf(' ')).toLongLong(&pidOk);
        const QList<QByteArray> fields = line.mid(close + 1).simplified().split(' ');
        bool userOk = false;
        bool systemOk = false;
        if (fields.size() > 12)
            row.ticks = fields[11].toULongLong(&userOk) + fields[12].toULongLong(&systemOk);
        if (pidOk && userOk && systemOk)
            ticks.push_back(row);
    }
    return ticks;
}

std::vector<double> cpuUsagePercent(const std::vector<CpuTimes> &before,
                                    const std::vector<CpuTimes> &after) {
    std::vector<double> usage;
    if (before.size() != after.size())
        return usage; // CPUs came or went (hotplug): wait for the next pair
    for (std::size_t i = 0; i < after.size(); ++i) {
        const double total = static_cast<double>(after[i].total()) - before[i].total();
        const double idle = static_cast<double>(after[i].idleAll()) - before[i].idleAll();
        usage.push_back(total > 0 ? std::clamp(100.0 * (total - idle) / total, 0.0, 100.0) : 0.0);
    }
    return usage;
}

} // namespace sb
