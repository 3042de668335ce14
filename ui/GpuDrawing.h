#pragma once

#include "monitor/NodeSample.h"

#include <QColor>
#include <QHash>
#include <QString>

class QPainter;
class QPalette;
class QRect;

namespace sb {

// What the node card and the compact dashboard draw alike.
QColor usageColor(double percent); // green, orange over 60%, red over 90%
// A percentage bar with its text centred on it.
void drawBar(QPainter &p, const QRect &r, double percent, const QString &text,
             const QPalette &palette);
// "alice:python train.py 20.1 GiB", or "run lr-0.1 (alice) 20.1 GiB" for one of our runs.
QString processLabel(const GpuProcess &process, const QString &run);
// "SM 87% · CPU 150% · RSS 2.0 GiB · 1:02:03": what pmon, /proc and ps told, where they did.
QString processFacts(const GpuProcess &process);
// Every detail of a process on a GPU, one fact a line, for a tooltip: SM and memory-bandwidth
// share, CPU now, resident set, age, owner, run and command line.
QString processDetail(const GpuProcess &process, const QString &run);
// The processes on `gpu` (a single-GPU node's processes may come without a uuid).
std::vector<const GpuProcess *> processesOn(const NodeSample &sample, const GpuReading &gpu);
// "reserved for RUN" while Signalbox holds an idle GPU for a run that has not taken it yet;
// empty otherwise.
QString reservationText(const NodeSample &sample, const GpuReading &gpu);
// "3:25:07", "2 d 4:00:00".
QString elapsedText(qint64 seconds);

} // namespace sb
