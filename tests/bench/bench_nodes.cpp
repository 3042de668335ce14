// What watching many SSH nodes costs the app: 50 real sshd nodes on loopback (half of them with
// eight GPUs) sampled at 1 Hz, with the dashboard drawing them (offscreen), then recording their
// GPU history too, against the per-sample approach of tools that
// open a new SSH connection for every sample (`ssh host nvidia-smi ...`, as gpustat-web does).
// Prints figures; asserts nothing about time.
#include "../support/SshNodes.h"
#include "BenchUtil.h"
#include "NodesView.h"
#include "client/CollectorClient.h"
#include "collector/EmbeddedCollector.h"
#include "fleet/SystemHistory.h"
#include "monitor/NodeMonitor.h"
#include "monitor/SampleScript.h"
#include "ssh/ShellQuote.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>

#include <sys/resource.h>

#include <cstdio>

using namespace Qt::StringLiterals;

namespace {

double cpuSeconds(int who) {
    rusage usage{};
    getrusage(who, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

void runFor(double seconds) {
    QEventLoop loop;
    QTimer::singleShot(static_cast<int>(seconds * 1000), &loop, &QEventLoop::quit);
    loop.exec();
}

} // namespace

int main(int argc, char **argv) {
    QApplication app(argc, argv);
    const int count = qEnvironmentVariableIntValue("SIGNALBOX_BENCH_NODES") > 0
                          ? qEnvironmentVariableIntValue("SIGNALBOX_BENCH_NODES")
                          : bench::scaled(50, 10);
    const double seconds = bench::scaled(20, 5);
    QStringList specs;
    for (int i = 0; i < count; ++i)
        specs << (i % 2 ? u"node%1=linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt*8"_s.arg(i)
                        : u"node%1"_s.arg(i));
    SshNodes nodes(specs);
    if (!nodes.error().isEmpty() || !nodes.trustAll()) {
        std::fprintf(stderr, "bench_nodes: %s\n", qPrintable(nodes.error()));
        return 1;
    }
    QList<sb::NodeConfig> configs;
    for (const auto &n : nodes.nodes())
        configs << nodes.config(n.name);

    // Signalbox: one session and one streaming channel per node; first with the dashboard
    // hidden (sessions, parsing, the node models), then drawing it (offscreen).
    sb::NodeMonitor monitor({nodes.knownHostsFile()});
    sb::NodesView view(&monitor, nodes.dir() + u"/signalbox.yaml"_s);
    view.resize(1800, 1200);
    int samples = 0;
    int connected = 0;
    QObject::connect(&monitor, &sb::NodeMonitor::sampled, &view,
                     [&](const QString &, const sb::NodeSample &) { ++samples; });
    QObject::connect(&monitor, &sb::NodeMonitor::statusChanged, &view,
                     [&](const QString &, const sb::NodeStatus &s) {
                         connected += s.state == sb::NodeStatus::State::Connected;
                     });
    QElapsedTimer connecting;
    connecting.start();
    monitor.setNodes(configs);
    while (connected < count && connecting.elapsed() < 120000)
        runFor(0.2);
    std::printf("bench_nodes: %d nodes connected in %.1f s\n", connected,
                connecting.elapsed() / 1000.0);
    runFor(3); // past the first samples
    struct Phase {
        double cpu, seconds;
        int samples;
    };
    auto measure = [&] {
        samples = 0;
        const double cpu0 = cpuSeconds(RUSAGE_SELF);
        QElapsedTimer wall;
        wall.start();
        runFor(seconds);
        return Phase{cpuSeconds(RUSAGE_SELF) - cpu0, wall.elapsed() / 1000.0, samples};
    };
    const Phase hidden = measure();
    view.show();
    runFor(2);
    const Phase shown = measure();
    // The sampling costs per node-sample; drawing costs per second whatever the node count
    // (only cards on screen lay out), so the estimate for 50 nodes at 1 Hz adds the two.
    const double perSampleMs = hidden.samples ? 1000.0 * hidden.cpu / hidden.samples : 0;
    const double drawingPercent =
        100.0 * std::max(0.0, shown.cpu - perSampleMs / 1000.0 * shown.samples) / shown.seconds;
    const double percentAt50Hz = perSampleMs * 50 / 10.0 + drawingPercent;
    std::printf(
        "bench_nodes: sampling (dashboard hidden): %d samples in %.0f s (%.1f/s; this "
        "machine runs all %d nodes' scripts too), %.2f CPU-s: %.3f ms CPU per node-sample\n",
        hidden.samples, hidden.seconds, hidden.samples / hidden.seconds, count, hidden.cpu,
        perSampleMs);
    std::printf("bench_nodes: with the dashboard drawn: %d samples, %.2f CPU-s = %.1f%% of one "
                "core; drawing alone %.1f%% of one core\n",
                shown.samples, shown.cpu, 100.0 * shown.cpu / shown.seconds, drawingPercent);
    std::printf("bench_nodes: Signalbox, 50 nodes at 1 Hz with the dashboard: %.1f%% of one core "
                "(sampling %.1f%% + drawing %.1f%%)\n",
                percentAt50Hz, perSampleMs * 5, drawingPercent);

    // The same, with every node's GPU history recorded into an embedded collector (its thread
    // is this process's too), kept at 10 s: three times the points of the default 30 s.
    QTemporaryDir store;
    sb::Collector::Options collectorOptions;
    collectorOptions.dataDir = store.path();
    auto collector = sb::EmbeddedCollector::start(collectorOptions);
    if (!collector) {
        std::fprintf(stderr, "bench_nodes: %s\n", qPrintable(collector.error()));
        return 1;
    }
    sb::CollectorClient client((*collector)->url(), (*collector)->token());
    sb::SystemHistory history(&client, &monitor, {}, 10);
    runFor(12); // past the first pushes, which create every series in the store
    const Phase recorded = measure();
    std::printf("bench_nodes: with GPU history recorded (10 s buckets, embedded collector): %d "
                "samples, %.1f%% of one core against %.1f%% without, in one run: recording "
                "adds %.3f ms CPU per node-sample\n",
                recorded.samples, 100.0 * recorded.cpu / recorded.seconds,
                100.0 * shown.cpu / shown.seconds,
                recorded.samples && shown.samples
                    ? 1000.0 * (recorded.cpu / recorded.samples - shown.cpu / shown.samples)
                    : 0.0);
    monitor.setNodes({});
    view.hide();

    // The peer: a fresh `ssh` per sample running the same script once (handshake each time).
    const int peerNodes = std::min(count, 10);
    int peerSamples = 0;
    const double children0 = cpuSeconds(RUSAGE_CHILDREN);
    const double self0 = cpuSeconds(RUSAGE_SELF);
    QElapsedTimer wall;
    wall.start();
    QTimer tick;
    QObject::connect(&tick, &QTimer::timeout, &view, [&] {
        for (int i = 0; i < peerNodes; ++i) {
            const auto node = nodes.nodes()[i];
            auto *ssh = new QProcess;
            ssh->start(u"ssh"_s, {u"-i"_s, nodes.dir() + u"/id_ed25519"_s, u"-p"_s,
                                  QString::number(node.port), u"-o"_s,
                                  u"UserKnownHostsFile="_s + nodes.knownHostsFile(), u"-o"_s,
                                  u"BatchMode=yes"_s, u"root@"_s + node.host,
                                  sb::shellCommand(sb::SampleScript::command(0))});
            QObject::connect(ssh, &QProcess::finished, ssh, [&, ssh] {
                peerSamples += ssh->exitCode() == 0;
                ssh->deleteLater();
            });
        }
    });
    tick.start(1000);
    runFor(seconds / 2);
    tick.stop();
    runFor(3); // let the last ones finish
    const double peerCpu =
        cpuSeconds(RUSAGE_CHILDREN) - children0 + cpuSeconds(RUSAGE_SELF) - self0;
    const double peerPerSampleMs = peerSamples ? 1000.0 * peerCpu / peerSamples : 0;
    std::printf("bench_nodes: peer (new ssh connection per sample, %d nodes): %d samples, "
                "%.3f ms CPU per node-sample on this side, so 50 nodes at 1 Hz would cost "
                "%.1f%% of one core\n",
                peerNodes, peerSamples, peerPerSampleMs, peerPerSampleMs * 50 / 10.0);
    std::printf("bench_nodes: ratio, per-sample connection / Signalbox = %.1fx the CPU\n",
                perSampleMs > 0 ? peerPerSampleMs / perSampleMs : 0);
    return connected == count ? 0 : 1;
}
