#pragma once
// Small helpers shared by the benchmarks: timing, medians, and process memory from /proc.

#include <QElapsedTimer>
#include <QFile>
#include <QString>
#include <QtGlobal>

#include <unistd.h>

#include <ctime>

#include <algorithm>
#include <functional>
#include <vector>

namespace bench {

// SIGNALBOX_BENCH_SCALE: how much of each benchmark's full size to run (scripts/test runs a
// quarter; 1, the default, gives the figures the README quotes).
inline double scale() {
    const double s = qEnvironmentVariable("SIGNALBOX_BENCH_SCALE").toDouble();
    return s > 0 ? s : 1;
}

// A count scaled by scale(), never below `least`.
inline int scaled(int full, int least) {
    return std::max(least, static_cast<int>(full * scale()));
}

// CPU seconds the calling thread has used.
inline double threadCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

inline double medianMs(int repeats, const std::function<void()> &work) {
    std::vector<double> times;
    for (int i = 0; i < repeats; ++i) {
        QElapsedTimer timer;
        timer.start();
        work();
        times.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// A field of /proc/PID/status in kB (VmRSS, VmHWM).
inline long statusKb(qint64 pid, const char *field) {
    QFile file(QStringLiteral("/proc/%1/status").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (line.startsWith(field))
            return line.mid(static_cast<int>(qstrlen(field)) + 1)
                .trimmed()
                .split(' ')
                .front()
                .toLong();
    }
    return -1;
}

// User + system CPU seconds a process has used.
inline double cpuSeconds(qint64 pid) {
    QFile file(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray stat = file.readAll();
    const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    return (fields[11].toDouble() + fields[12].toDouble()) /
           static_cast<double>(sysconf(_SC_CLK_TCK));
}

} // namespace bench
