// What keeping GPU history costs: 50 nodes of 8 GPUs sampled at 1 Hz for a simulated day,
// downsampled by SystemSeries and stored by a real collector (in process): the app's CPU per
// second of sampling, the collector's, and the store's bytes per day. Then a week of one node's
// history drawn in the history window, warm, through the embedded collector's HTTP API.
// Prints figures; asserts nothing about time. SIGNALBOX_BENCH_SCALE=0.1 simulates 2.4 hours.
#include "BenchUtil.h"
#include "NodeHistory.h"
#include "charts/CurveChart.h"
#include "client/CollectorClient.h"
#include "collector/Collector.h"
#include "collector/EmbeddedCollector.h"
#include "monitor/SystemSeries.h"

#include <QApplication>
#include <QDirIterator>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <cmath>
#include <cstdio>
#include <ctime>

using namespace Qt::StringLiterals;

namespace {

qint64 bytesUnder(const QString &dir) {
    qint64 total = 0;
    QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        total += it.nextFileInfo().size();
    return total;
}

sb::NodeSample eightGpus() {
    sb::NodeSample s;
    s.cpuPercent = 40;
    s.memory = {.totalKiB = 512ull << 20, .availableKiB = 300ull << 20};
    for (int i = 0; i < 8; ++i) {
        sb::GpuReading gpu;
        gpu.index = i;
        gpu.uuid = u"GPU-%1"_s.arg(i);
        gpu.memoryTotalMiB = 81559;
        s.gpus.push_back(gpu);
    }
    return s;
}

// Stores what the buckets closed: one ingest per run, as the app's pushes are.
void store(sb::Collector &collector, const sb::SystemSeries::Points &points) {
    for (const auto &[run, metrics] : points) {
        std::vector<sb::SeriesPoints> series;
        for (const auto &[metric, values] : metrics) {
            sb::SeriesPoints s{metric, {}};
            for (const auto &p : values)
                s.points.push_back({p.step, p.value, p.step});
            series.push_back(std::move(s));
        }
        if (const sb::Status stored = collector.ingestSeries(run, series); !stored)
            std::fprintf(stderr, "bench_system_history: %s\n", qPrintable(stored.error()));
    }
}

} // namespace

int main(int argc, char **argv) {
    QApplication app(argc, argv);
    const double scale = bench::scale();
    const int nodes = 50;
    const auto seconds = static_cast<qint64>(86400 * scale);
    QTemporaryDir dir;
    sb::Collector::Options options;
    options.dataDir = dir.path() + u"/day"_s;
    options.listen = false;
    auto started = sb::Collector::start(options);
    if (!started) {
        std::fprintf(stderr, "bench_system_history: %s\n", qPrintable(started.error()));
        return 1;
    }
    std::unique_ptr<sb::Collector> collector = std::move(started).value();
    sb::SystemSeries series;
    sb::NodeSample sample = eightGpus();
    QStringList names;
    for (int n = 0; n < nodes; ++n)
        names << u"node%1"_s.arg(n, 2, 10, QChar(u'0'));
    const double start = 1.7e9;
    double appCpu = 0;
    double collectorCpu = 0;
    qint64 points = 0;
    for (qint64 t = 0; t < seconds; ++t) {
        const double cpu0 = bench::threadCpuSeconds();
        for (int n = 0; n < nodes; ++n) {
            sample.time = start + static_cast<double>(t) + n * 0.013;
            for (sb::GpuReading &gpu : sample.gpus) {
                const double phase = static_cast<double>(t + n * 7 + *gpu.index * 3);
                gpu.utilizationGpu = 50 + 45 * std::sin(phase / 300);
                gpu.memoryUsedMiB = 40000 + 100 * (static_cast<int>(phase) % 50);
                gpu.powerDrawW = 300 + 3 * *gpu.utilizationGpu;
                gpu.temperatureC = 40 + *gpu.utilizationGpu / 3;
            }
            series.add(names[n], sample, {});
        }
        if (t % 15 != 14) { // the app flushes twice a bucket
            appCpu += bench::threadCpuSeconds() - cpu0;
            continue;
        }
        const auto closed = series.takeClosed(start + static_cast<double>(t));
        const double cpu1 = bench::threadCpuSeconds();
        appCpu += cpu1 - cpu0;
        for (const auto &[run, metrics] : closed)
            for (const auto &[metric, values] : metrics)
                points += static_cast<qint64>(values.size());
        store(*collector, closed);
        collectorCpu += bench::threadCpuSeconds() - cpu1;
    }
    collector.reset(); // closes the store
    const double days = static_cast<double>(seconds) / 86400;
    const double bytes = static_cast<double>(bytesUnder(options.dataDir));
    std::printf("bench_system_history: %d nodes x 8 GPUs at 1 Hz for %.1f h simulated, kept at "
                "%.0f s: %lld points, store %.1f MB = %.1f MB a day (%.1f bytes a point)\n",
                nodes, static_cast<double>(seconds) / 3600, series.resolution(),
                static_cast<long long>(points), bytes / 1e6, bytes / 1e6 / days,
                points ? bytes / static_cast<double>(points) : 0.0);
    std::printf("bench_system_history: CPU per second of sampling: app (downsampling) %.3f%% of "
                "one core, collector (storing) %.3f%%\n",
                100.0 * appCpu / static_cast<double>(seconds),
                100.0 * collectorCpu / static_cast<double>(seconds));

    // A week of one node, as the collector holds it, drawn in the history window.
    options.dataDir = dir.path() + u"/week"_s;
    options.listen = true;
    {
        auto week = sb::Collector::start(options);
        if (!week)
            return 1;
        sb::SystemSeries weekSeries;
        const double now = static_cast<double>(QDateTime::currentSecsSinceEpoch());
        const qint64 span = 7 * 86400;
        for (qint64 t = -span; t <= 0; t += 1) {
            sample.time = now + static_cast<double>(t);
            for (sb::GpuReading &gpu : sample.gpus)
                gpu.utilizationGpu = 50 + 45 * std::sin(static_cast<double>(t + *gpu.index) / 600);
            weekSeries.add(u"gpu-a"_s, sample, {});
            if (t % 3600 == 0)
                store(**week, weekSeries.takeClosed(now + static_cast<double>(t)));
        }
    }
    auto embedded = sb::EmbeddedCollector::start(options);
    if (!embedded)
        return 1;
    sb::CollectorClient client((*embedded)->url(), (*embedded)->token());
    sb::NodeHistory window(&client, u"gpu-a"_s);
    window.setSpan(604800);
    window.resize(1400, 800);
    window.show();
    int refreshed = 0;
    QObject::connect(&window, &sb::NodeHistory::refreshed, [&] { ++refreshed; });
    auto drawOnce = [&] {
        const int before = refreshed;
        window.refresh();
        while (refreshed == before)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        // What the answer set going (layouts, the scene's updates, the window's paint) runs, and
        // anything left unpainted is painted: the refresh until its pixels are there.
        QCoreApplication::sendPostedEvents();
        window.repaint();
    };
    drawOnce(); // cold: the store's first reads
    qsizetype drawn = 0;
    for (const sb::CurveChart *chart : window.charts())
        drawn += chart->drawnPoints();
    const double warm = bench::medianMs(9, drawOnce);
    // Its fetch alone, in one request, against its peer: a request per series, as the window
    // asked before.
    QStringList metrics;
    bool listed = false;
    client.metrics(
        {sb::nodeHistoryRun(u"gpu-a"_s)}, &window, [&](const sb::Result<QStringList> &stored) {
            static const QRegularExpression shown(u"^(gpu\\d+/(utilization|memory)|cpu|memory)$"_s);
            if (stored)
                metrics = stored->filter(shown); // what the window draws
            listed = true;
        });
    while (!listed)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    sb::SeriesWindow span;
    span.axis = sb::XAxis::WallTime;
    span.to = static_cast<double>(QDateTime::currentSecsSinceEpoch());
    span.from = *span.to - 604800;
    span.width = std::max(200, window.charts().front()->plotWidth());
    const QString run = sb::nodeHistoryRun(u"gpu-a"_s);
    auto oneRequest = [&] {
        bool answered = false;
        client.seriesOfMetrics(run, metrics, span, &window,
                               [&](const sb::Result<sb::SeriesReplies> &) { answered = true; });
        while (!answered)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    };
    auto requestEach = [&] {
        qsizetype waiting = metrics.size();
        for (const QString &metric : metrics)
            client.series({run}, metric, span, false, &window,
                          [&](const sb::Result<sb::SeriesReplies> &) { --waiting; });
        while (waiting > 0)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    };
    const double together = bench::medianMs(9, oneRequest);
    const double each = bench::medianMs(9, requestEach);
    std::printf("bench_system_history: a week of one 8-GPU node (%lld series of %lld points) in "
                "the history window, warm, median of 9: %.1f ms from refresh to painted (%lld "
                "points drawn); its series fetched in one request %.1f ms, a request per series "
                "%.1f ms (%.2fx)\n",
                static_cast<long long>(metrics.size()),
                static_cast<long long>(7 * 86400 / sb::SystemSeries::kDefaultResolution), warm,
                static_cast<long long>(drawn), together, each, together / each);
    return 0;
}
