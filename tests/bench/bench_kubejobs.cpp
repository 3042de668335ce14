// How the jobs table copes with a busy namespace: 5,000 Jobs on a real kube-apiserver
// (tests/harness/k8scluster.py; suspended, so no pods), shown by Signalbox's Kubernetes backend
// in the jobs table (drawn offscreen), side by side with kubectl from the same build:
//  - time to a full table: Signalbox from adding the cluster until all rows are in the drawn
//    table, against `kubectl get jobs` printing its table;
//  - events: every Job modified once, as fast as the API server takes the patches; the time until
//    Signalbox has applied all of them to its rows, against `kubectl get jobs --watch-only`
//    printing all of them; and the GUI thread's CPU time per event, its capacity.
// Prints figures; asserts nothing about time.
#include "../support/K8sCluster.h"
#include "BenchUtil.h"
#include "JobsView.h"
#include "jobs/JobsModel.h"
#include "jobs/kubernetes/KubeBackend.h"
#include "jobs/kubernetes/KubeJobs.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QSet>
#include <QThread>

#include <algorithm>

#include <ctime>

using namespace Qt::StringLiterals;

namespace {

using bench::threadCpuSeconds;

// Sends `count` requests made by `make`, at most `window` at a time; the first refusal, if any.
QString sendAll(sb::KubeClient &client, int count, int window,
                const std::function<sb::KubeRequest(int)> &make) {
    QEventLoop loop;
    int next = 0;
    int pending = 0;
    QString firstError;
    std::function<void()> pump = [&] {
        while (pending < window && next < count) {
            ++pending;
            client.send(make(next++), &loop, [&](const sb::KubeReply &reply) {
                --pending;
                if (!reply.ok() && firstError.isEmpty())
                    firstError = reply.error;
                if (next == count && pending == 0)
                    loop.quit();
                else
                    pump();
            });
        }
    };
    pump();
    loop.exec();
    return firstError;
}

// The longest the GUI thread went without turning its event loop (a 10 ms timer's lateness).
class PauseMeter {
public:
    PauseMeter() {
        m_clock.start();
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const qint64 now = m_clock.elapsed();
            m_worst = std::max(m_worst, now - m_last);
            m_last = now;
        });
        m_timer.start(10);
    }
    void reset() {
        m_last = m_clock.elapsed();
        m_worst = 0;
    }
    qint64 worstMs() const { return m_worst; }

private:
    QElapsedTimer m_clock;
    QTimer m_timer;
    qint64 m_last = 0;
    qint64 m_worst = 0;
};

// Runs the event loop (sleeping when idle, so CPU figures are the work's) until `condition`.
bool waitFor(const std::function<bool()> &condition, int timeoutMs) {
    QEventLoop loop;
    QTimer check;
    QElapsedTimer clock;
    clock.start();
    bool met = condition();
    QObject::connect(&check, &QTimer::timeout, &loop, [&] {
        met = condition();
        if (met || clock.elapsed() > timeoutMs)
            loop.quit();
    });
    check.start(2);
    if (!met)
        loop.exec();
    return met;
}

} // namespace

int main(int argc, char **argv) {
    QApplication app(argc, argv);
    const int count = qEnvironmentVariableIntValue("SIGNALBOX_BENCH_JOBS") > 0
                          ? qEnvironmentVariableIntValue("SIGNALBOX_BENCH_JOBS")
                          : bench::scaled(5000, 500);
    K8sCluster cluster(1);
    auto context = cluster.context(u"cert"_s);
    if (!context) {
        std::fprintf(stderr, "bench_kubejobs: %s\n", qPrintable(context.error()));
        return 1;
    }
    const QString kubectl = cluster.binary(u"kubectl"_s);
    const QStringList kubectlArgs{u"--kubeconfig"_s, cluster.kubeconfig(u"cert"_s),
                                  u"get"_s,          u"jobs"_s,
                                  u"-l"_s,           u"signalbox.dev/managed=true"_s};

    // The namespace: `count` suspended Jobs as Signalbox submits them.
    sb::KubeClient admin(*context);
    QElapsedTimer clock;
    clock.start();
    auto specOf = [](const QString &name) {
        sb::JobSpec spec;
        spec.name = name;
        spec.kube.image = u"pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime"_s;
        spec.command = {u"torchrun"_s, u"train.py"_s, u"--lr"_s, u"3e-4"_s};
        spec.gpus = 8;
        return spec;
    };
    const QString created = sendAll(admin, count, 64, [&](int i) {
        QJsonObject job =
            sb::jobManifest(specOf(u"trial %1"_s.arg(i)),
                            u"bench-%1"_s.arg(i, 5, 10, QLatin1Char('0')), u"default"_s);
        QJsonObject spec = job[u"spec"_s].toObject();
        spec[u"suspend"_s] = true;
        job[u"spec"_s] = spec;
        sb::KubeRequest request;
        request.method = "POST";
        request.path = u"/apis/batch/v1/namespaces/default/jobs"_s;
        request.body = QJsonDocument(job).toJson(QJsonDocument::Compact);
        return request;
    });
    if (!created.isEmpty()) {
        std::fprintf(stderr, "bench_kubejobs: creating the jobs: %s\n", qPrintable(created));
        return 1;
    }
    const double createSeconds = static_cast<double>(clock.elapsed()) / 1000;
    QThread::sleep(3); // the Job controller marks them suspended meanwhile

    // Time to a full table.
    PauseMeter pauses;
    double cpu0 = threadCpuSeconds();
    clock.restart();
    sb::KubeBackend kube({});
    sb::BackendRegistry registry;
    sb::JobsModel model{&registry};
    registry.add(&kube);
    sb::JobsView view(&model);
    view.resize(1400, 800);
    view.show();
    kube.addCluster(*context);
    if (!waitFor([&] { return model.rowCount() == count; }, 600000)) {
        std::fprintf(stderr, "bench_kubejobs: only %d of %d rows\n", model.rowCount(), count);
        return 1;
    }
    QCoreApplication::processEvents(); // the view catches up
    view.grab();                       // and is drawn
    const double tableSeconds = static_cast<double>(clock.elapsed()) / 1000;
    const double tableCpu = threadCpuSeconds() - cpu0;
    const qint64 tablePause = pauses.worstMs();

    QProcess peer;
    clock.restart();
    peer.start(kubectl, kubectlArgs);
    peer.waitForFinished(600000);
    const double kubectlSeconds = static_cast<double>(clock.elapsed()) / 1000;
    const qsizetype kubectlRows = peer.readAllStandardOutput().count('\n') - 1;

    // Events: every Job renamed once (its spec annotation), so that every row changes.
    QProcess watcher;
    QSet<QByteArray> watched; // Jobs kubectl printed renamed
    double watcherSeconds = 0;
    QElapsedTimer events;
    bool watching = false; // kubectl printed a change: its watch is open
    QObject::connect(&watcher, &QProcess::readyReadStandardOutput, [&] {
        while (watcher.canReadLine()) {
            const QByteArray line = watcher.readLine();
            watching = true;
            if (line.contains("renamed"))
                watched.insert(line.left(line.indexOf(' ')));
        }
        if (watched.size() >= count && watcherSeconds == 0)
            watcherSeconds = static_cast<double>(events.elapsed()) / 1000;
    });
    watcher.start(kubectl,
                  kubectlArgs +
                      QStringList{u"--watch-only"_s, u"-o"_s,
                                  uR"(jsonpath={.metadata.name} )"
                                  uR"({.metadata.annotations.signalbox\.dev/spec}{"\n"})"_s});
    // Its watch is open once it prints a change: a probe annotation on the first Job, sent
    // every second until it does (kubectl's start takes longer on a loaded machine).
    for (int probe = 0; probe < 60 && !watching; ++probe) {
        const QString sent = sendAll(admin, 1, 1, [probe](int) {
            sb::KubeRequest request;
            request.method = "PATCH";
            request.contentType = "application/merge-patch+json";
            request.path = u"/apis/batch/v1/namespaces/default/jobs/bench-00000"_s;
            request.body =
                QJsonDocument(
                    QJsonObject{
                        {u"metadata"_s,
                         QJsonObject{{u"annotations"_s,
                                      QJsonObject{{u"bench-probe"_s, QString::number(probe)}}}}}})
                    .toJson(QJsonDocument::Compact);
            return request;
        });
        if (!sent.isEmpty()) {
            std::fprintf(stderr, "bench_kubejobs: probing kubectl's watch: %s\n", qPrintable(sent));
            return 1;
        }
        waitFor([&] { return watching; }, 1000);
    }
    QSet<QString> renamed;
    double signalboxSeconds = 0;
    QObject::connect(&kube, &sb::JobBackend::jobChanged, [&](const sb::Job &job) {
        if (!job.spec.name.startsWith(u"renamed"_s))
            return;
        renamed.insert(job.id);
        if (renamed.size() == count && signalboxSeconds == 0)
            signalboxSeconds = static_cast<double>(events.elapsed()) / 1000;
    });
    pauses.reset();
    cpu0 = threadCpuSeconds();
    events.start();
    const QString patched = sendAll(admin, count, 64, [&](int i) {
        const QString spec = QString::fromUtf8(
            QJsonDocument(specOf(u"renamed %1"_s.arg(i)).toJson()).toJson(QJsonDocument::Compact));
        sb::KubeRequest request;
        request.method = "PATCH";
        request.contentType = "application/merge-patch+json";
        request.path =
            u"/apis/batch/v1/namespaces/default/jobs/bench-%1"_s.arg(i, 5, 10, QLatin1Char('0'));
        request.body =
            QJsonDocument(
                QJsonObject{
                    {u"metadata"_s,
                     QJsonObject{{u"annotations"_s,
                                  QJsonObject{{QString::fromLatin1(sb::kSpecAnnotation), spec}}}}}})
                .toJson(QJsonDocument::Compact);
        return request;
    });
    const double patchSeconds = static_cast<double>(events.elapsed()) / 1000;
    if (!patched.isEmpty()) {
        std::fprintf(stderr, "bench_kubejobs: patching the jobs: %s\n", qPrintable(patched));
        return 1;
    }
    // kubectl's watch at most ten times Signalbox's time (10 s at least): one that missed
    // events never completes, and is said so below instead of holding the run for long.
    waitFor([&] { return signalboxSeconds > 0; }, 120000);
    const int peerWaitMs = std::max(10000, static_cast<int>(10000 * signalboxSeconds));
    waitFor([&] { return watcherSeconds > 0; }, peerWaitMs);
    const double eventsCpu = threadCpuSeconds() - cpu0;
    const qint64 eventsPause = pauses.worstMs();
    watcher.kill();
    watcher.waitForFinished();

    std::printf("bench_kubejobs: %d Jobs in one namespace of a real kube-apiserver on loopback "
                "(created in %.1f s)\n",
                count, createSeconds);
    std::printf("  time to a full table: Signalbox %.2f s (list, watch, rows, drawn table; GUI "
                "thread %.2f s CPU, longest pause %lld ms), kubectl get jobs %.2f s (%lld rows): "
                "%.2fx kubectl's time\n",
                tableSeconds, tableCpu, static_cast<long long>(tablePause), kubectlSeconds,
                static_cast<long long>(kubectlRows), tableSeconds / kubectlSeconds);
    if (watcherSeconds > 0)
        std::printf("  events: %d modifications sent in %.2f s; all applied to Signalbox's rows "
                    "after %.2f s (%.0f events/s), all printed by kubectl --watch after %.2f s "
                    "(%.0f events/s): %.2fx kubectl's rate\n",
                    count, patchSeconds, signalboxSeconds, count / signalboxSeconds, watcherSeconds,
                    count / watcherSeconds, watcherSeconds / signalboxSeconds);
    else
        std::printf("  events: %d modifications sent in %.2f s; all applied to Signalbox's rows "
                    "after %.2f s (%.0f events/s); kubectl --watch printed %lld of them in %d s "
                    "(it missed some): no ratio this run\n",
                    count, patchSeconds, signalboxSeconds, count / signalboxSeconds,
                    static_cast<long long>(watched.size()), peerWaitMs / 1000);
    std::printf("  GUI thread while they came: %.0f us CPU per event (capacity %.0f events/s), "
                "longest pause %lld ms\n",
                eventsCpu / count * 1e6, count / eventsCpu, static_cast<long long>(eventsPause));
    return 0;
}
