#pragma once

#include "util/Result.h"

#include <QByteArrayView>
#include <QString>

#include <vector>

namespace sb {

// Jiffies a CPU spent in each state, from one line of /proc/stat.
struct CpuTimes {
    quint64 user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    quint64 total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
    quint64 idleAll() const { return idle + iowait; }
};

struct MemInfo {
    quint64 totalKiB = 0;
    quint64 availableKiB = 0;
    quint64 swapTotalKiB = 0;
    quint64 swapFreeKiB = 0;
};

struct LoadAverage {
    double one = 0, five = 0, fifteen = 0;
    int running = 0, tasks = 0;
};

// One process as `ps -eo pid=,user:32=,pcpu=,pmem=,rss=,time=,args=` prints it (htop's columns).
struct ProcessRow {
    qint64 pid = 0;
    QString user;
    double cpuPercent = 0; // ps's: CPU time over the process's lifetime
    double memoryPercent = 0;
    quint64 rssKiB = 0;
    QString cpuTime;            // [dd-]hh:mm:ss
    QString command;            // the full command line
    qint64 processGroup = 0;    // only where asked for (parsePsOwners)
    qint64 elapsedSeconds = -1; // likewise
};

// CPU time a process has used, from /proc/PID/stat, in clock ticks.
struct ProcessTicks {
    qint64 pid = 0;
    quint64 ticks = 0; // user + system
};

// /proc/stat: element 0 is the aggregate "cpu" line, then cpu0, cpu1, ...
Result<std::vector<CpuTimes>> parseProcStat(QByteArrayView text);
Result<MemInfo> parseMemInfo(QByteArrayView text);
Result<LoadAverage> parseLoadAvg(QByteArrayView text);
// The rows of that ps output; a line that does not parse is skipped and counted in `skipped`.
std::vector<ProcessRow> parsePsRows(QByteArrayView text, int *skipped = nullptr);
// `ps -o pid=,pgid=,etimes=,rss=,user:32=,args=`: for joining nvidia-smi's processes with owner,
// run, age and resident set.
std::vector<ProcessRow> parsePsOwners(QByteArrayView text);
// The clock tick rate (`getconf CLK_TCK`) on the first line, then /proc/PID/stat lines. Lines
// that do not parse are skipped; `ticksPerSecond` is 0 when the first line is not a rate.
std::vector<ProcessTicks> parseProcessTicks(QByteArrayView text, double *ticksPerSecond);
// Busy percentage per CPU between two /proc/stat readings with the same CPUs.
std::vector<double> cpuUsagePercent(const std::vector<CpuTimes> &before,
                                    const std::vector<CpuTimes> &after);

} // namespace sb
