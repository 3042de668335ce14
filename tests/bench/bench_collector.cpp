// Collector figures: ingest rate over HTTP on one core, query time for a 10M-point series, its
// export's memory, health while a large push is decoded, memory while serving 100 runs of 1M
// points from disk, and a group of 100 such runs as one band. Prints figures; asserts nothing.
//
// usage: bench_collector PATH/TO/signalbox-collector [SECTION...]
//        sections: ingest query export memory groups appends runs (all when none is named)
//        (SIGNALBOX_BENCH_SCALE=0.1 for a quick run)
#include "BenchUtil.h"
#include "collector/Collector.h"
#include "metrics/CollectorApi.h"
#include "metrics/RunQuery.h"
#include "metrics/store/MetricStore.h"

#include <QCoreApplication>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QUrl>
#include <QtEndian>

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace Qt::StringLiterals;

namespace {

quint16 freePort() {
    QTcpServer server;
    server.listen(QHostAddress::LocalHost, 0);
    return server.serverPort();
}

// A collector process, pinned to one core when taskset is there.
struct CollectorProcess {
    QProcess process;
    quint16 port = 0;

    CollectorProcess(const QString &binary, const QString &dataDir) {
        port = freePort();
        QStringList args{u"--listen"_s, u"127.0.0.1:%1"_s.arg(port), u"--data-dir"_s, dataDir};
        const QString taskset = QStandardPaths::findExecutable(u"taskset"_s);
        if (!taskset.isEmpty()) {
            process.start(taskset, QStringList{u"-c"_s, u"1"_s, binary} + args);
        } else {
            process.start(binary, args);
        }
        process.waitForReadyRead(30000);
        const QByteArray line = process.readLine();
        if (!line.contains("listening"))
            qFatal("collector did not start: %s %s", line.constData(),
                   process.readAllStandardError().constData());
    }
    ~CollectorProcess() {
        process.terminate();
        process.waitForFinished(10000);
    }
    qint64 pid() const {
        // Under taskset the collector replaces taskset itself (exec), so the pid is the same.
        return process.processId();
    }
};

// A minimal blocking HTTP/1.1 client on one kept-alive connection: the benchmark's load generator.
class HttpClient {
public:
    explicit HttpClient(quint16 port) {
        m_socket.connectToHost(QHostAddress::LocalHost, port);
        if (!m_socket.waitForConnected(10000))
            qFatal("cannot connect to the collector");
    }
    QByteArray request(const QByteArray &method, const QByteArray &path,
                       const QByteArray &body = {}) {
        QByteArray head = method + ' ' + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        if (!body.isEmpty())
            head += "Content-Type: application/json\r\nContent-Length: " +
                    QByteArray::number(body.size()) + "\r\n";
        head += "\r\n";
        m_socket.write(head);
        m_socket.write(body);
        QByteArray response;
        qsizetype headerEnd = -1;
        qsizetype length = -1;
        while (true) {
            if (m_socket.bytesAvailable() == 0 && !m_socket.waitForReadyRead(60000))
                qFatal("no answer from the collector");
            response += m_socket.readAll();
            if (headerEnd < 0 && (headerEnd = response.indexOf("\r\n\r\n")) >= 0) {
                const qsizetype at = response.toLower().indexOf("content-length:");
                length = response.mid(at + 15, response.indexOf('\r', at) - at - 15)
                             .trimmed()
                             .toLongLong();
            }
            if (headerEnd >= 0 && response.size() >= headerEnd + 4 + length)
                break;
        }
        if (!response.startsWith("HTTP/1.1 200"))
            qFatal("collector answered: %s", response.left(300).constData());
        return response.mid(headerEnd + 4);
    }

private:
    QTcpSocket m_socket;
};

QByteArray pushBody(const QString &run, int metrics, int points, int firstStep) {
    QJsonObject series;
    QRandomGenerator rng(firstStep + 1);
    for (int m = 0; m < metrics; ++m) {
        QJsonArray steps, values, times;
        for (int i = 0; i < points; ++i) {
            steps.append(firstStep + i);
            values.append(std::exp(-(firstStep + i) / 1e5) + rng.generateDouble() * 0.01);
            times.append(1.7e9 + (firstStep + i) * 0.05);
        }
        series[u"metric%1"_s.arg(m)] =
            QJsonObject{{u"step"_s, steps}, {u"value"_s, values}, {u"time"_s, times}};
    }
    return QJsonDocument(QJsonObject{{u"run"_s, run}, {u"series"_s, series}})
        .toJson(QJsonDocument::Compact);
}

// The same points as a columnar push: one group of `points` rows, `metrics` value columns.
QByteArray columnsBody(const QString &run, int metrics, int points, int firstStep) {
    QJsonArray names;
    for (int m = 0; m < metrics; ++m)
        names.append(u"metric%1"_s.arg(m));
    const QByteArray header =
        QJsonDocument(QJsonObject{{u"run"_s, run},
                                  {u"groups"_s, QJsonArray{QJsonObject{{u"rows"_s, points},
                                                                       {u"metrics"_s, names},
                                                                       {u"time"_s, true}}}}})
            .toJson(QJsonDocument::Compact);
    QByteArray body = "SBC1";
    char size[4];
    qToLittleEndian<quint32>(quint32(header.size()), size);
    body.append(size, 4).append(header);
    body.append(QByteArray((8 - body.size() % 8) % 8, '\0'));
    auto column = [&](auto valueAt) {
        for (int i = 0; i < points; ++i) {
            char value[8];
            qToLittleEndian<double>(valueAt(i), value);
            body.append(value, 8);
        }
    };
    QRandomGenerator rng(firstStep + 1);
    column([&](int i) { return double(firstStep + i); });
    column([&](int i) { return 1.7e9 + (firstStep + i) * 0.05; });
    for (int m = 0; m < metrics; ++m)
        column(
            [&](int i) { return std::exp(-(firstStep + i) / 1e5) + rng.generateDouble() * 0.01; });
    return body;
}

void ingest(const QString &binary, const QString &dir) {
    const int batches = std::max(10, static_cast<int>(200 * bench::scale()));
    constexpr int distinct = 10, metrics = 10, points = 5000; // 50,000 points a batch
    std::vector<QByteArray> bodies(distinct), columns(distinct);
    for (int b = 0; b < distinct; ++b) {
        bodies[b] = pushBody(u"ingest-%1"_s.arg(b), metrics, points, b * points);
        columns[b] = columnsBody(u"columns-%1"_s.arg(b), metrics, points, b * points);
    }
    const double totalPoints = double(batches) * metrics * points;

    // Decoding alone, in this process: Qt's JSON reader (the collector's before simdjson) beside
    // the collector's own decoder.
    auto decodeRate = [&](auto decode) {
        return totalPoints / (bench::medianMs(1,
                                              [&] {
                                                  for (int b = 0; b < batches; ++b)
                                                      decode(bodies[b % distinct]);
                                              }) /
                              1000);
    };
    const double qtRate = decodeRate([](const QByteArray &body) {
        (void)sb::Collector::decodePush(QJsonDocument::fromJson(body).object());
    });
    const double simdRate =
        decodeRate([](const QByteArray &body) { (void)sb::Collector::decodePush(body); });

    CollectorProcess collector(binary, dir);
    HttpClient client(collector.port);
    // Each format into a run of its own: points per collector CPU-second, and per wall second.
    auto push = [&](const char *path, const std::vector<QByteArray> &sent) {
        const double before = bench::cpuSeconds(collector.pid());
        const double elapsed = bench::medianMs(1, [&] {
            for (int b = 0; b < batches; ++b)
                client.request("POST", path, sent[b % distinct]);
        });
        return std::pair(totalPoints / (bench::cpuSeconds(collector.pid()) - before),
                         totalPoints / (elapsed / 1000));
    };
    const auto [cpuRate, wallRate] = push(sb::CollectorApi::kPush, bodies);
    const auto [columnsCpuRate, columnsWallRate] = push(sb::CollectorApi::kPushColumns, columns);
    std::printf("ingest: %.0f points in %d batched pushes of %d points (%.1f MB of JSON each)\n",
                totalPoints, batches, metrics * points, bodies[0].size() / 1e6);
    std::printf("  collector pinned to one core: %.2f M points/s wall, %.2f M points per collector "
                "CPU-second\n",
                wallRate / 1e6, cpuRate / 1e6);
    std::printf(
        "  decoding alone in this process: %.2f M points/s with simdjson, %.2f M/s with Qt's "
        "JSON reader (the collector's before): %.2fx\n",
        simdRate / 1e6, qtRate / 1e6, simdRate / qtRate);
    std::printf("  columnar push (%.1f MB each): %.2f M points/s wall, %.2f M points per collector "
                "CPU-second (%.1fx JSON; target 20 M: ratio %.2f)\n",
                columns[0].size() / 1e6, columnsWallRate / 1e6, columnsCpuRate / 1e6,
                columnsCpuRate / cpuRate, columnsCpuRate / 20e6);
}

void query(const QString &dir) {
    const qint64 total = static_cast<qint64>(10'000'000 * bench::scale());
    std::unique_ptr<sb::MetricStore> owned = sb::MetricStore::open(dir).value();
    auto &store = *owned;
    QRandomGenerator rng(7);
    QElapsedTimer timer;
    timer.start();
    constexpr qint64 batch = 100'000;
    for (qint64 first = 0; first < total; first += batch) {
        sb::SeriesPoints points{u"loss"_s, {}};
        points.points.resize(batch);
        for (qint64 i = 0; i < batch; ++i)
            points.points[i] = {double(first + i),
                                std::exp(-(first + i) / 3e6) + rng.generateDouble() * 0.05,
                                1.7e9 + (first + i) * 0.01};
        (void)store.append(u"big"_s, {points});
    }
    const double writeMs = static_cast<double>(timer.elapsed());
    sb::SeriesWindow window;
    window.width = 2000;
    timer.restart();
    (void)store.query(u"big"_s, u"loss"_s, window); // first query builds the block summary
    const double coldMs = static_cast<double>(timer.elapsed());
    std::size_t out = 0;
    const double warm =
        bench::medianMs(21, [&] { out = store.query(u"big"_s, u"loss"_s, window)->x.size(); });
    sb::SeriesWindow zoom = window;
    zoom.from = total * 0.45;
    zoom.to = total * 0.55;
    const double zoomed =
        bench::medianMs(21, [&] { (void)store.query(u"big"_s, u"loss"_s, zoom); });
    sb::SeriesWindow everyPoint = window;
    everyPoint.smoothing =
        1e-12; // the smoothed path reads every point: the naive M4 for comparison
    const double scan =
        bench::medianMs(5, [&] { (void)store.query(u"big"_s, u"loss"_s, everyPoint); });
    std::printf(
        "query: %.1f M-point series written in %.0f ms; to %d px: first query %.1f ms (builds the "
        "summary, %.1f MB)\n",
        total / 1e6, writeMs, window.width, coldMs, store.summaryBytes() / 1e6);
    std::printf(
        "  warm: %.2f ms (%zu points out; target <= 20 ms: ratio %.2f); zoomed to 10%%: %.2f ms\n",
        warm, out, warm / 20.0, zoomed);
    std::printf("  reading every point instead (smoothed path): %.1f ms, %.1fx slower than the "
                "summary path\n",
                scan, scan / warm);

    // A restart: the first query with the summaries the store saved, and without them.
    (void)store.saveSummaries();
    owned.reset();
    auto firstAfterRestart = [&](bool saved) {
        if (!saved)
            QFile::remove(dir + u"/summaries"_s);
        std::unique_ptr<sb::MetricStore> reopened = sb::MetricStore::open(dir).value();
        QElapsedTimer first;
        first.start();
        (void)reopened->query(u"big"_s, u"loss"_s, window);
        return double(first.nsecsElapsed()) / 1e6;
    };
    const double restored = firstAfterRestart(true);
    const double rebuilt = firstAfterRestart(false);
    std::printf("  first query after a restart: %.2f ms with the saved summaries (%.2fx warm; "
                "target <= 2), %.1f ms reading the series instead\n",
                restored, restored / warm, rebuilt);
}

void memory(const QString &binary, const QString &dir) {
    const int runs = 100;
    const qint64 perRun = static_cast<qint64>(1'000'000 * bench::scale());
    {
        auto opened = sb::MetricStore::open(dir);
        auto &store = *opened.value();
        for (int r = 0; r < runs; ++r) {
            sb::SeriesPoints points{u"loss"_s, {}};
            points.points.resize(perRun);
            for (qint64 i = 0; i < perRun; ++i)
                points.points[i] = {double(i), std::sin(i * 0.001 + r) + r, 1.7e9 + i};
            (void)store.append(u"run-%1"_s.arg(r, 3, 10, QLatin1Char('0')), {points});
        }
    }
    CollectorProcess collector(binary, dir);
    HttpClient client(collector.port);
    const long startKb = bench::statusKb(collector.pid(), "VmRSS:");
    double ms = 0;
    for (int pass = 0; pass < 2; ++pass) {
        QElapsedTimer timer;
        timer.start();
        for (int r = 0; r < runs; ++r)
            client.request("GET", u"/api/v1/series?run=run-%1&metric=loss&width=2000"_s
                                      .arg(r, 3, 10, QLatin1Char('0'))
                                      .toUtf8());
        ms = static_cast<double>(timer.elapsed());
    }
    const long rssKb = bench::statusKb(collector.pid(), "VmRSS:");
    const long peakKb = bench::statusKb(collector.pid(), "VmHWM:");
    std::printf("memory: collector serving %d runs x %.1f M points from disk (%.1f GB): RSS at "
                "start %.1f MB, "
                "after querying every run twice %.1f MB, peak %.1f MB\n",
                runs, perRun / 1e6, runs * perRun * 24 / 1e9, startKb / 1024.0, rssKb / 1024.0,
                peakKb / 1024.0);
    std::printf(
        "  target <= 50 MB: ratio %.2f; %d queries at 2000 px over HTTP took %.0f ms (warm pass)\n",
        peakKb / 1024.0 / 50.0, runs, ms);
}

// A group of 100 runs x 1M points whose steps never line up (each its own start and stride; a
// quarter end early) drawn as one mean with a band at 2000 px, against fetching the 100
// downsampled curves the chart would otherwise draw; both over HTTP from one collector process.
void groups(const QString &binary, const QString &dir) {
    const int runs = 100;
    const qint64 perRun = static_cast<qint64>(1'000'000 * bench::scale());
    QStringList names;
    {
        auto opened = sb::MetricStore::open(dir);
        auto &store = *opened.value();
        QRandomGenerator rng(3);
        for (int r = 0; r < runs; ++r) {
            const double start = r * 0.37;
            const double stride = 1 + r * 0.001;
            const qint64 count = r % 4 == 3 ? perRun * 3 / 4 : perRun;
            sb::SeriesPoints points{u"loss"_s, {}};
            points.points.resize(count);
            for (qint64 i = 0; i < count; ++i)
                points.points[i] = {start + stride * i,
                                    std::exp(-i / 3e5) + rng.generateDouble() * 0.05,
                                    1.7e9 + i * 0.01};
            names << u"seed-%1"_s.arg(r, 3, 10, QLatin1Char('0'));
            (void)store.append(names.last(), {points});
        }
    }
    CollectorProcess collector(binary, dir);
    HttpClient client(collector.port);
    QByteArray seriesPath = "/api/v1/series?metric=loss&width=2000";
    for (const QString &name : std::as_const(names))
        seriesPath += "&run=" + name.toUtf8();
    sb::GroupRequest request;
    request.metric = u"loss"_s;
    request.window.width = 2000;
    request.groups.push_back({u"seeds"_s, names});
    const QByteArray body = QJsonDocument(request.toJson()).toJson(QJsonDocument::Compact);
    QElapsedTimer timer;
    timer.start();
    client.request("POST", "/api/v1/groups", body); // builds every run's summary
    const double coldMs = static_cast<double>(timer.elapsed());
    QByteArray answer;
    const double groupMs =
        bench::medianMs(9, [&] { answer = client.request("POST", "/api/v1/groups", body); });
    const double seriesMs = bench::medianMs(9, [&] { client.request("GET", seriesPath); });
    const sb::GroupReplies reply =
        sb::GroupReplies::fromJson(QJsonDocument::fromJson(answer).object());
    std::printf("groups: %d runs x %.1f M points (steps not aligned, a quarter ending early) as "
                "one mean +- std at 2000 px, over HTTP:\n",
                runs, perRun / 1e6);
    std::printf("  group %.1f ms warm (%zu columns; first, building summaries: %.0f ms); the 100 "
                "downsampled curves %.1f ms: ratio %.2f (target <= 2); target <= 50 ms: ratio "
                "%.2f\n",
                groupMs, reply.groups.empty() ? std::size_t(0) : reply.groups[0].curve.x.size(),
                coldMs, seriesMs, groupMs / seriesMs, groupMs / 50.0);
}

// Export of the 10M-point series over HTTP, read by a client at full speed: the collector's RSS
// stays flat (streamed), against the size of the CSV a whole-body answer would hold. Then health
// round trips while a 60 MB push is decoded: a long request does not stop other clients.
void exportAndHealth(const QString &binary, const QString &dir) {
    CollectorProcess collector(binary, dir);
    const long beforeKb = bench::statusKb(collector.pid(), "VmRSS:");
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, collector.port);
    if (!socket.waitForConnected(10000))
        qFatal("cannot connect to the collector");
    socket.write("GET /api/v1/export?run=big&metric=loss HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    QElapsedTimer timer;
    timer.start();
    qint64 bytes = 0;
    long peakKb = beforeKb;
    qint64 nextSample = 0;
    QByteArray tail;
    while (true) {
        if (socket.bytesAvailable() == 0 && !socket.waitForReadyRead(60000))
            qFatal("the export stalled");
        const QByteArray piece = socket.readAll();
        bytes += piece.size();
        tail = QByteArray(tail + piece).right(5);
        if (bytes >= nextSample) {
            peakKb = std::max(peakKb, bench::statusKb(collector.pid(), "VmRSS:"));
            nextSample = bytes + (4 << 20);
        }
        if (tail == "0\r\n\r\n")
            break;
    }
    const double seconds = static_cast<double>(timer.elapsed()) / 1000.0;
    std::printf("export: %.0f MB of CSV streamed in %.1f s (%.0f MB/s); collector RSS %.1f MB "
                "before, at most %.1f MB while streaming (a whole-body answer holds the %.0f MB)\n",
                bytes / 1e6, seconds, bytes / 1e6 / seconds, beforeKb / 1024.0, peakKb / 1024.0,
                bytes / 1e6);

    // Health while a large push is decoded on a worker thread.
    const int bigPoints = 1'500'000; // about 62 MB: under the 64 MiB body limit
    const QByteArray big = pushBody(u"large"_s, 1, bigPoints, 0);
    QTcpSocket pusher;
    pusher.connectToHost(QHostAddress::LocalHost, collector.port);
    if (!pusher.waitForConnected(10000))
        qFatal("cannot connect to the collector");
    pusher.write("POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
                 QByteArray::number(big.size()) + "\r\n\r\n" + big);
    while (pusher.bytesToWrite() > 0)
        pusher.waitForBytesWritten(10000);
    HttpClient health(collector.port);
    std::vector<double> latencies;
    timer.restart();
    while (pusher.bytesAvailable() == 0 && timer.elapsed() < 60000) {
        QElapsedTimer one;
        one.start();
        health.request("GET", "/api/v1/health");
        latencies.push_back(static_cast<double>(one.nsecsElapsed()) / 1e6);
        pusher.waitForReadyRead(1);
    }
    const double pushMs = static_cast<double>(timer.elapsed());
    pusher.waitForReadyRead(60000);
    if (!pusher.readAll().startsWith("HTTP/1.1 200"))
        qFatal("the large push was refused");
    std::sort(latencies.begin(), latencies.end());
    std::printf("  while a %.0f MB push (%.1f M points) was decoded and stored (%.0f ms): %zu "
                "health answers, median %.2f ms, slowest %.2f ms\n",
                big.size() / 1e6, bigPoints / 1e6, pushMs, latencies.size(),
                latencies.empty() ? 0.0 : latencies[latencies.size() / 2],
                latencies.empty() ? 0.0 : latencies.back());
}

} // namespace

// Bytes this process has passed to write(2) so far (/proc/self/io's wchar).
qint64 bytesWritten() {
    QFile io(u"/proc/self/io"_s);
    if (!io.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : io.readAll().split('\n')) {
        if (line.startsWith("wchar:"))
            return line.mid(6).trimmed().toLongLong();
    }
    return 0;
}

// A 1-point append to a store holding 1k, 100k and 1M runs: latency and bytes written per append
// stay flat as the metadata grows (compaction happens only once the journal doubled).
void appendsAtScale(const QString &dir) {
    auto store = std::move(sb::MetricStore::open(dir)).value();
    std::printf("\n-- one-point appends as the store's runs grow (1,000 appends at each size)\n");
    std::printf("%10s %14s %14s %16s\n", "runs", "mean us", "max us", "bytes/append");
    qint64 runs = 0;
    for (const qint64 target : {qint64(1000), qint64(100'000), qint64(1'000'000)}) {
        const qint64 wanted = std::max<qint64>(1000, static_cast<qint64>(target * bench::scale()));
        for (; runs < wanted; ++runs) {
            sb::RunInfo info{u"run-%1"_s.arg(runs), {}, {}, {}, {}, {}};
            info.config = QJsonObject{{u"lr"_s, 0.001 * double(runs % 97)}};
            (void)store->updateRun(info);
        }
        const qint64 before = bytesWritten();
        double total = 0;
        double worst = 0;
        for (int i = 0; i < 1000; ++i) {
            QElapsedTimer timer;
            timer.start();
            (void)store->append(u"probe"_s, {{u"loss"_s, {{double(runs + i), 0.5, 1.7e9}}}});
            const double us = static_cast<double>(timer.nsecsElapsed()) / 1000.0;
            total += us;
            worst = std::max(worst, us);
        }
        std::printf("%10lld %14.1f %14.1f %16.0f\n", static_cast<long long>(runs), total / 1000,
                    worst, static_cast<double>(bytesWritten() - before) / 1000.0);
    }
}

// A run restarted from a checkpoint halfway through a series of N points: the rewind (hiding
// N/2), a fork (copying N/2 into a new run) and the first chart after each, against appending
// the same N/2 points (what logging them anew costs) and a chart of an untouched series.
void restarts(const QString &dir) {
    auto store = std::move(sb::MetricStore::open(dir)).value();
    const qint64 n = bench::scaled(10'000'000, 100'000);
    const qint64 half = n / 2;
    const double checkpoint = static_cast<double>(half - 1); // steps 0..half-1 kept
    auto points = [](qint64 first, qint64 count) {
        sb::SeriesPoints series{u"loss"_s, {}};
        series.points.reserve(std::size_t(count));
        for (qint64 i = first; i < first + count; ++i)
            series.points.push_back({double(i), 1.0 / double(i + 1), 1.7e9 + double(i)});
        return series;
    };
    for (const QString &run : {u"restarted"_s, u"untouched"_s})
        (void)store->append(run, {points(0, n)});
    sb::SeriesWindow window;
    window.width = 1000;
    auto timed = [](const std::function<bool()> &work) {
        QElapsedTimer timer;
        timer.start();
        if (!work())
            qFatal("a restart failed");
        return static_cast<double>(timer.nsecsElapsed()) / 1e6;
    };
    std::printf("\n-- a run restarted at step %lld of %lld (ms)\n", static_cast<long long>(half),
                static_cast<long long>(n));
    (void)store->query(u"untouched"_s, u"loss"_s, window); // its summary built
    const double chart =
        bench::medianMs(5, [&] { (void)store->query(u"untouched"_s, u"loss"_s, window); });
    const sb::SeriesPoints later = points(half, half);
    const double append = timed([&] { return store->append(u"appended"_s, {later}).ok(); });
    const sb::Resume rewind{sb::Resume::Mode::Rewind, checkpoint, false, {}};
    const double rewound = timed([&] {
        return store
            ->append(u"restarted"_s, {}, nullptr, u"r"_s, sb::MetricStore::Batch::Whole, &rewind)
            .ok();
    });
    const double firstChart =
        timed([&] { return store->query(u"restarted"_s, u"loss"_s, window).ok(); });
    const double rewoundChart =
        bench::medianMs(5, [&] { (void)store->query(u"restarted"_s, u"loss"_s, window); });
    const sb::Resume fork{sb::Resume::Mode::Fork, checkpoint, false, u"untouched"_s};
    const double forked = timed([&] {
        return store->append(u"forked"_s, {}, nullptr, u"f"_s, sb::MetricStore::Batch::Whole, &fork)
            .ok();
    });
    std::printf("%-44s %10.1f\n", "append N/2 points (logging them anew)", append);
    std::printf("%-44s %10.1f  (%.0fx faster than appending them)\n", "rewind: hide N/2 points",
                rewound, append / rewound);
    std::printf("%-44s %10.1f  (%.2fx the append)\n", "fork: copy N/2 points into a new run",
                forked, forked / append);
    std::printf("%-44s %10.1f\n", "first chart after the rewind (summary built)", firstChart);
    std::printf("%-44s %10.2f  (%.2fx an untouched series' %.2f)\n",
                "chart of the rewound series, again", rewoundChart, rewoundChart / chart, chart);
}

// 100,000 runs x 10 metrics in one store (1 M series): its size on disk, the collector's start,
// a filtered page of /runs, and queries over the runs' fields (/runs?where=).
void manyRuns(const QString &binary, const QString &dir) {
    const int runs = std::max(1000, static_cast<int>(100'000 * bench::scale()));
    constexpr int metrics = 10, points = 10;
    QElapsedTimer timer;
    timer.start();
    {
        auto store = std::move(sb::MetricStore::open(dir)).value();
        std::vector<sb::SeriesPoints> batch(metrics);
        for (int r = 0; r < runs; ++r) {
            for (int m = 0; m < metrics; ++m) {
                batch[m].metric = u"metric/%1"_s.arg(m);
                batch[m].points.resize(points);
                for (int i = 0; i < points; ++i)
                    batch[m].points[i] = {double(i), r * 1e-3 + m + i * 0.1, 1.7e9 + i};
            }
            sb::RunInfo info{u"run-%1"_s.arg(r, 6, 10, QLatin1Char('0')), {}, {}, {}, {}, {}};
            info.config = QJsonObject{{u"lr"_s, 0.001 * (r % 97)}, {u"seed"_s, r % 5}};
            (void)store->append(info.name, batch, &info);
        }
        (void)store->sync();
    }
    const double writeS = double(timer.elapsed()) / 1000;
    qint64 bytes = 0;
    int files = 0;
    for (QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories); it.hasNext();) {
        bytes += QFileInfo(it.next()).size();
        ++files;
    }
    timer.restart();
    CollectorProcess collector(binary, dir);
    const double startS = double(timer.elapsed()) / 1000;
    HttpClient client(collector.port);
    // Each answer read as the app reads it, into its runs.
    const auto runsAt = [&client](const QByteArray &path) {
        auto read = sb::runSummariesFromJsonText(client.request("GET", path));
        if (!read)
            qFatal("%s", qPrintable(read.error()));
        return *std::move(read);
    };
    qsizetype listed = 0;
    const double filtered =
        bench::medianMs(11, [&] { listed = runsAt("/api/v1/runs?filter=run-00042").size(); });
    qsizetype paged = 0;
    const double page =
        bench::medianMs(11, [&] { paged = runsAt("/api/v1/runs?limit=100&offset=5000").size(); });
    std::printf("\n-- %d runs x %d metrics x %d points (%d M series) in one store\n", runs, metrics,
                points, runs * metrics / 1'000'000);
    std::printf("  written in %.1f s: %d files, %.0f MB; the collector started in %.2f s\n", writeS,
                files, bytes / 1e6, startS);
    std::printf(
        "  /runs?filter=run-00042: %.1f ms for %lld runs; a page of %lld (limit=100): %.1f ms "
        "(target <= 100 ms: ratio %.2f)\n",
        filtered, static_cast<long long>(listed), static_cast<long long>(paged), page,
        std::max(filtered, page) / 100);

    // Queries over the runs' fields, against what a script does without them: the whole listing
    // fetched and filtered on its side (here the same test on the parsed JSON).
    const auto where = [](const char *query) -> QByteArray {
        return QByteArray("/api/v1/runs?where=") +
               QUrl::toPercentEncoding(QString::fromUtf8(query));
    };
    std::printf("  /runs?where= over the %d runs, read into the app's runs (median of 11; the "
                "first ask of a range reads the series' summaries):\n",
                runs);
    for (const char *query :
         {"config.lr < 0.005 and config.seed = 3", "metric/0 > 99.5 or metric/9 < 9.001",
          "best(metric/3) < 3.05 and config.seed in (1, 2)",
          "name ~ \"7{3}$\" and not config.seed = 0"}) {
        QElapsedTimer first;
        first.start();
        (void)client.request("GET", where(query));
        const double firstMs = double(first.nsecsElapsed()) / 1e6;
        qsizetype matched = 0;
        const double answered = bench::medianMs(11, [&] { matched = runsAt(where(query)).size(); });
        std::printf("    %-52s %7.1f ms (first %.1f) for %lld runs (target <= 50 ms: ratio %.2f)\n",
                    query, answered, firstMs, static_cast<long long>(matched), answered / 50);
    }
    const auto query = sb::RunQuery::parse(u"config.lr < 0.005 and config.seed = 3"_s);
    std::size_t kept = 0;
    const double wholeListing = bench::medianMs(3, [&] {
        kept = 0;
        for (const sb::RunSummary &run : runsAt("/api/v1/runs"))
            kept += query->matches(run, 0);
    });
    std::printf("    the whole listing, filtered by the client: %.0f ms for %zu runs (where= is "
                "%.0fx faster)\n",
                wholeListing, kept,
                wholeListing / bench::medianMs(11, [&] {
                    (void)runsAt(where("config.lr < 0.005 and config.seed = 3"));
                }));
}

// The same queries in process, on the store manyRuns() left: the scan alone, and the listing of
// what passed (each run's metrics' summaries), without HTTP and JSON.
void whereInProcess(const QString &dir) {
    sb::Collector::Options options;
    options.dataDir = dir;
    auto collector = std::move(sb::Collector::start(options)).value();
    std::printf("  in process (median of 11):\n");
    for (const char *text :
         {"config.lr < 0.005 and config.seed = 3", "metric/0 > 99.5 or metric/9 < 9.001",
          "best(metric/3) < 3.05 and config.seed in (1, 2)",
          "name ~ \"7{3}$\" and not config.seed = 0"}) {
        const auto query = sb::RunQuery::parse(QString::fromUtf8(text));
        qsizetype matched = 0;
        const double listed =
            bench::medianMs(11, [&] { matched = collector->runs({}, 0, -1, &*query)->size(); });
        const double paged =
            bench::medianMs(11, [&] { (void)collector->runs({}, 0, 100, &*query); });
        std::printf("    %-52s %7.1f ms for %lld runs, %.1f ms for the first 100\n", text, listed,
                    qlonglong(matched), paged);
    }
}

int main(int argc, char *argv[]) {
    QCoreApplication app(argc, argv);
    if (argc < 2)
        qFatal("usage: bench_collector PATH/TO/signalbox-collector");
    const QString binary = QString::fromLocal8Bit(argv[1]);
    QTemporaryDir dir;
    std::printf("== signalbox-collector benchmark (scale %.2f)\n", bench::scale());

    QStringList sections;
    for (int i = 2; i < argc; ++i)
        sections << QString::fromLocal8Bit(argv[i]);
    auto wanted = [&sections](const QString &section) {
        return sections.isEmpty() || sections.contains(section);
    };
    if (wanted(u"ingest"_s))
        ingest(binary, dir.path() + u"/ingest"_s);
    if (wanted(u"query"_s) || wanted(u"export"_s))
        query(dir.path() + u"/query"_s);
    if (wanted(u"export"_s))
        exportAndHealth(binary, dir.path() + u"/query"_s);
    if (wanted(u"memory"_s))
        memory(binary, dir.path() + u"/memory"_s);
    if (wanted(u"groups"_s))
        groups(binary, dir.path() + u"/groups"_s);
    if (wanted(u"appends"_s)) // the store's metadata growth
        appendsAtScale(dir.path() + u"/scale"_s);
    if (wanted(u"runs"_s)) {
        manyRuns(binary, dir.path() + u"/runs"_s);
        whereInProcess(dir.path() + u"/runs"_s);
    }
    if (wanted(u"restarts"_s))
        restarts(dir.path() + u"/restarts"_s);
    return 0;
}
