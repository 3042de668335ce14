// What following a Slurm cluster costs: 5,000 queued jobs on a real slurmctld
// (tests/harness/slurmcluster.py) shown in the jobs table through the login node's sshd, side by
// side with `ssh login squeue` in a terminal; then the load on slurmctld (RPCs counted by sdiag)
// of one Signalbox following the queue for 30 s, side by side with `watch -n 2 squeue`, what
// terminal tools such as turm do; then the same two figures through slurmrestd (as root, where
// the harness can run it). Prints figures; asserts nothing about time.
#include "../support/SshNodes.h"
#include "BenchUtil.h"
#include "jobs/JobsModel.h"
#include "jobs/slurm/SlurmBackend.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTimer>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

using namespace Qt::StringLiterals;

namespace {

const int kJobs = bench::scaled(5000, 500);
const int kWindowSeconds = bench::scaled(30, 10);

double cpuSeconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

void runFor(int ms) {
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

QByteArray run(const QString &program, const QStringList &args, const QString &slurmConf) {
    QProcess process;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(u"SLURM_CONF"_s, slurmConf);
    process.setProcessEnvironment(env);
    process.start(program, args);
    process.waitForFinished(600000);
    return process.readAllStandardOutput();
}

// RPCs slurmctld served since the last reset, all message types together.
long long rpcs(const QString &slurmConf) {
    static const QRegularExpression count(u"\\) count:(\\d+)"_s);
    long long total = 0;
    const QString out = QString::fromUtf8(run(u"sdiag"_s, {}, slurmConf));
    const QString byType = out.section(u"by message type"_s, 1).section(u"by user"_s, 0, 0);
    for (auto it = count.globalMatch(byType); it.hasNext();)
        total += it.next().captured(1).toLongLong();
    return total;
}

} // namespace

int main(int argc, char **argv) {
    QCoreApplication app(argc, argv);
    SshNodes cluster(geteuid() == 0 ? QStringList{u"--rest"_s} : QStringList{},
                     u"slurmcluster.py"_s);
    if (!cluster.error().isEmpty() || !cluster.trustAll()) {
        std::fprintf(stderr, "bench_slurm: %s\n", qPrintable(cluster.error()));
        return 1;
    }
    const QString conf = cluster.description().value(u"slurmConf"_s).toString();
    QElapsedTimer clock;
    clock.start();
    run(u"sh"_s,
        {u"-c"_s,
         u"i=0; while [ $i -lt %1 ]; do sbatch --hold --job-name=queued-$i "
         "--output=/dev/null --wrap=true >/dev/null || exit 1; i=$((i+1)); done"_s.arg(kJobs)},
        conf);
    std::printf("bench_slurm: %d held jobs submitted with sbatch in %.1f s\n", kJobs,
                clock.elapsed() / 1000.0);

    // A fresh Signalbox: connect to the login node, poll, fill the table.
    QTemporaryDir data;
    sb::NodeMonitor monitor({cluster.knownHostsFile()});
    sb::SlurmBackend backend(&monitor, {data.path(), 2000});
    sb::BackendRegistry registry;
    sb::JobsModel model{&registry};
    registry.add(&backend);
    clock.restart();
    monitor.setNodes({cluster.config(u"login"_s)});
    backend.setClusters({{.name = u"lab"_s, .login = u"login"_s}});
    while (model.rowCount() < kJobs && clock.elapsed() < 120000)
        runFor(5);
    const double signalbox = clock.elapsed() / 1000.0;
    if (model.rowCount() < kJobs) {
        std::fprintf(stderr, "bench_slurm: only %d of %d rows\n", model.rowCount(), kJobs);
        return 1;
    }
    // The peer: the same queue in a terminal, through a new SSH connection.
    const auto login = cluster.node(u"login"_s);
    const QStringList ssh{u"-o"_s,
                          u"UserKnownHostsFile="_s + cluster.knownHostsFile(),
                          u"-o"_s,
                          u"BatchMode=yes"_s,
                          u"-i"_s,
                          cluster.description().value(u"identity"_s).toString(),
                          u"-p"_s,
                          QString::number(login.port),
                          u"root@127.0.0.1"_s};
    clock.restart();
    const qsizetype lines =
        run(u"ssh"_s, ssh + QStringList{u"squeue"_s, u"--me"_s}, conf).count('\n');
    const double terminal = clock.elapsed() / 1000.0;
    std::printf(
        "bench_slurm: %d queued jobs to a full jobs table: Signalbox %.2f s (SSH connection "
        "included) vs `ssh login squeue --me` %.2f s for %lld lines (%.1fx)\n",
        kJobs, signalbox, terminal, static_cast<long long>(lines), signalbox / terminal);

    // The load of following the queue (RPCs are also given per minute).
    run(u"sdiag"_s, {u"--reset"_s}, conf);
    const double cpuBefore = cpuSeconds();
    runFor(kWindowSeconds * 1000);
    const long long ours = rpcs(conf);
    const double cpu = cpuSeconds() - cpuBefore;
    run(u"sdiag"_s, {u"--reset"_s}, conf);
    clock.restart();
    int squeues = 0;
    while (clock.elapsed() < kWindowSeconds * 1000) { // watch -n 2 squeue
        run(u"squeue"_s, {u"--me"_s}, conf);
        ++squeues;
        runFor(2000);
    }
    const long long watch = rpcs(conf);
    std::printf("bench_slurm: following %d jobs for %d s: Signalbox %lld slurmctld RPCs (%.0f per "
                "minute) and %.2f CPU-s of its own, vs `watch -n 2 squeue` %lld RPCs for %d "
                "squeues (%.2fx)\n",
                kJobs, kWindowSeconds, ours, ours * 60.0 / kWindowSeconds, cpu, watch, squeues,
                watch > 0 ? static_cast<double>(ours) / static_cast<double>(watch) : 0.0);

    const QJsonObject harness = cluster.description();
    if (harness.contains(u"rest"_s)) {
        backend.setClusters({}); // it polls no more
        // Everyone's jobs (the queued ones are root's), as "All jobs on the clusters" shows them.
        QTemporaryDir restData;
        sb::NodeMonitor restMonitor({cluster.knownHostsFile()});
        sb::SlurmBackend rest(&restMonitor, {restData.path(), 2000});
        sb::BackendRegistry restModelBackends;
        sb::JobsModel restModel{&restModelBackends};
        restModelBackends.add(&rest);
        sb::NodeConfig restLogin = cluster.config(u"login"_s);
        restLogin.user = harness.value(u"restUser"_s).toString();
        clock.restart();
        restMonitor.setNodes({restLogin});
        rest.setClusters({{.name = u"lab"_s,
                           .login = u"login"_s,
                           .allUsers = true,
                           .restUrl = harness.value(u"rest"_s).toString()}});
        while (restModel.rowCount() < kJobs && clock.elapsed() < 120000)
            runFor(5);
        const double filled = clock.elapsed() / 1000.0;
        run(u"sdiag"_s, {u"--reset"_s}, conf);
        const double restCpuBefore = cpuSeconds();
        runFor(kWindowSeconds * 1000);
        const long long restRpcs = rpcs(conf);
        std::printf("bench_slurm: through slurmrestd: %d rows in %.2f s (token and connection "
                    "included; %.1fx the SSH transport's), following them for %d s: %lld "
                    "slurmctld RPCs (%.0f per minute, %.2fx `watch -n 2 squeue`) and %.2f CPU-s "
                    "of Signalbox's own\n",
                    restModel.rowCount(), filled, filled / signalbox, kWindowSeconds, restRpcs,
                    restRpcs * 60.0 / kWindowSeconds,
                    watch > 0 ? static_cast<double>(restRpcs) / static_cast<double>(watch) : 0.0,
                    cpuSeconds() - restCpuBefore);
    }
    run(u"scancel"_s, {u"--user=root"_s}, conf);
    return 0;
}
