// Runs on SSH nodes, against real sshd instances: detached runs, reattach after a restart, stop,
// GPU choice, code copies and hostile arguments.
#include "../support/SshNodes.h"
#include "code/CodeSync.h"
#include "jobs/ssh/SshBackend.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <csignal>

using namespace Qt::StringLiterals;

namespace {

const QString kFreeH100 = u"gpu=linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt@free"_s;

// A monitor connected to the harness's nodes and an SSH backend on it, as in the app.
struct App {
    sb::NodeMonitor monitor;
    sb::SshBackend backend;
    App(const SshNodes &nodes, const QString &dataDir)
        : monitor({nodes.knownHostsFile()})
        , backend(&monitor, {dataDir, 2000, 300, {}}) {
        QList<sb::NodeConfig> configs;
        for (const auto &n : nodes.nodes())
            configs << nodes.config(n.name);
        monitor.setNodes(configs);
    }
    std::optional<sb::Job> job(const QString &id) const {
        for (const sb::Job &j : backend.jobs()) {
            if (j.id == id)
                return j;
        }
        return std::nullopt;
    }
    QString log(const QString &id) const { return QString::fromUtf8(backend.log(id).value()); }
};

bool processGroupAlive(qint64 group) {
    return ::kill(-static_cast<pid_t>(group), 0) == 0;
}

} // namespace

class TestSshBackend : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void runsWithGpusAndExitCodes();
    void survivesRestartAndConnectionLoss();
    void stopEndsTheWholeProcessGroup();
    void hostileArgumentsStayLiteral();
    void copiesCodeIncrementally();
    void launchedRunsImportTheClient();
    void aHugeCodeDirectoryLeavesTheEventLoopTurning();

private:
    std::unique_ptr<SshNodes> m_nodes;
};

void TestSshBackend::initTestCase() {
    m_nodes = std::make_unique<SshNodes>(QStringList{u"box"_s, kFreeH100});
    QVERIFY2(m_nodes->error().isEmpty(), qPrintable(m_nodes->error()));
    QVERIFY(m_nodes->trustAll());
}

void TestSshBackend::runsWithGpusAndExitCodes() {
    QTemporaryDir data;
    App app(*m_nodes, data.path());
    // One GPU on the node with a free H100; the second job waits for it.
    sb::JobSpec first{.name = u"first"_s,
                      .command = {u"sh"_s, u"-c"_s,
                                  u"echo \"gpus=$CUDA_VISIBLE_DEVICES order=$CUDA_DEVICE_ORDER "
                                  "run=$SIGNALBOX_RUN\"; sleep 2; exit 3"_s},
                      .backend = u"ssh"_s,
                      .target = u"*"_s,
                      .gpus = 1};
    sb::JobSpec second = first;
    second.name = u"second"_s;
    const auto a = app.backend.submit(first);
    QVERIFY2(a, qPrintable(a.error()));
    QTRY_COMPARE_WITH_TIMEOUT(app.job(*a)->state, sb::JobState::Running, 20000);
    QCOMPARE(app.job(*a)->node, u"gpu"_s);
    QCOMPARE(app.job(*a)->gpuIds, u"0"_s);
    // What the New-run dialog says beside each node, by the scheduler's own rule.
    QCOMPARE(app.backend.availability(u"gpu"_s), u"0 of 1 GPUs free"_s);
    // "box" connects on its own schedule; it may still be connecting here.
    QTRY_COMPARE_WITH_TIMEOUT(app.backend.availability(u"box"_s), u"no GPUs"_s, 20000);
    QCOMPARE(app.backend.availability(u"elsewhere"_s), u"connecting"_s);
    const auto b = app.backend.submit(second);
    QVERIFY(b);
    QTRY_VERIFY_WITH_TIMEOUT(
        app.job(*b)->message.contains(u"waiting for a node with 1 free GPUs"_s), 5000);
    QCOMPARE(app.job(*b)->state, sb::JobState::Queued);
    QTRY_COMPARE_WITH_TIMEOUT(app.job(*a)->state, sb::JobState::Failed, 20000);
    QCOMPARE(app.job(*a)->exitCode.value(), 3);
    QVERIFY2(app.log(*a).contains(u"gpus=0 order=PCI_BUS_ID run=%1"_s.arg(*a)),
             qPrintable(app.log(*a)));
    // The GPU is free again: the queued job starts and succeeds... with exit 3 too.
    QTRY_COMPARE_WITH_TIMEOUT(app.job(*b)->state, sb::JobState::Failed, 30000);
    QCOMPARE(app.job(*b)->gpuIds, u"0"_s);
    // A CPU-only node cannot give GPUs; a plain run there succeeds.
    const auto ok = app.backend.submit(
        {.name = u"ok"_s, .command = {u"true"_s}, .backend = u"ssh"_s, .target = u"box"_s});
    QVERIFY(ok);
    QTRY_COMPARE_WITH_TIMEOUT(app.job(*ok)->state, sb::JobState::Succeeded, 20000);
    QVERIFY(!app.backend.submit(
        {.name = u"x"_s, .command = {u"true"_s}, .backend = u"ssh"_s, .target = u"nowhere"_s}));
    // A working directory that does not exist: a clear failure, not a hang.
    const auto lost = app.backend.submit({.name = u"lost"_s,
                                          .command = {u"true"_s},
                                          .workingDirectory = u"/no/such/dir"_s,
                                          .backend = u"ssh"_s,
                                          .target = u"box"_s});
    QTRY_COMPARE_WITH_TIMEOUT(app.job(*lost)->state, sb::JobState::Failed, 20000);
    QVERIFY(app.log(*lost).contains(u"cannot enter the working directory /no/such/dir"_s));
}

void TestSshBackend::survivesRestartAndConnectionLoss() {
    QTemporaryDir data;
    const QString counter =
        u"i=0; while [ $i -lt 12 ]; do i=$((i+1)); echo line $i; sleep 0.5; done"_s;
    QString id;
    qint64 group = 0;
    {
        App app(*m_nodes, data.path());
        const auto submitted = app.backend.submit({.name = u"counter"_s,
                                                   .command = {u"sh"_s, u"-c"_s, counter},
                                                   .backend = u"ssh"_s,
                                                   .target = u"box"_s});
        QVERIFY(submitted);
        id = *submitted;
        QTRY_VERIFY_WITH_TIMEOUT(app.log(id).contains(u"line 2\n"_s), 20000);
        group = app.job(id)->processGroup;
        QVERIFY(group > 0);
    } // Signalbox quits while the run goes on
    QVERIFY(processGroupAlive(group));
    // The node's sshd dies and comes back: the run was never its child.
    QVERIFY(m_nodes->command(u"kill box"_s));
    QTest::qWait(500);
    QVERIFY(processGroupAlive(group));
    QVERIFY(m_nodes->command(u"start box"_s));

    App again(*m_nodes, data.path());
    QCOMPARE(again.job(id)->state, sb::JobState::Running);
    QTRY_COMPARE_WITH_TIMEOUT(again.job(id)->state, sb::JobState::Succeeded, 30000);
    QCOMPARE(again.job(id)->exitCode.value(), 0);
    // Every line once, in order: nothing lost across the restart, nothing repeated.
    QStringList expected;
    for (int i = 1; i <= 12; ++i)
        expected << u"line %1"_s.arg(i);
    QCOMPARE(again.log(id).trimmed().split(u'\n'), expected);
}

void TestSshBackend::stopEndsTheWholeProcessGroup() {
    QTemporaryDir data;
    App app(*m_nodes, data.path());
    // A run whose processes all ignore SIGTERM: the grace period ends with SIGKILL.
    const auto id = app.backend.submit(
        {.name = u"stubborn"_s,
         .command = {u"sh"_s, u"-c"_s,
                     u"trap '' TERM; echo started; while :; do sleep 0.2; done"_s},
         .backend = u"ssh"_s,
         .target = u"box"_s});
    QVERIFY(id);
    QTRY_VERIFY_WITH_TIMEOUT(app.log(*id).contains(u"started"_s), 20000);
    const qint64 group = app.job(*id)->processGroup;
    QVERIFY(processGroupAlive(group));
    QVERIFY(app.backend.stop(*id));
    QTRY_COMPARE_WITH_TIMEOUT(app.job(*id)->state, sb::JobState::Stopped, 20000);
    QCOMPARE(app.job(*id)->exitCode.value(), 137); // it took the SIGKILL
    QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(group), 5000);
    QVERIFY(!app.backend.stop(*id)); // already finished
}

void TestSshBackend::hostileArgumentsStayLiteral() {
    QTemporaryDir data;
    App app(*m_nodes, data.path());
    const QString marker = m_nodes->dir() + u"/pwned"_s;
    const QStringList hostile{u"; touch %1"_s.arg(marker),     u"$(touch %1)"_s.arg(marker),
                              u"`touch %1`"_s.arg(marker),     u"a'b\"c"_s,
                              u"x\ny; touch %1"_s.arg(marker), u"A=B"_s};
    const auto id = app.backend.submit({.name = u"hostile ; name"_s,
                                        .command = QStringList{u"printf"_s, u"[%s]\\n"_s} + hostile,
                                        .environment = {{u"LR"_s, u"$(touch %1)"_s.arg(marker)}},
                                        .backend = u"ssh"_s,
                                        .target = u"box"_s});
    QVERIFY(id);
    QVERIFY(!id->contains(u' ') && !id->contains(u';'));
    QTRY_COMPARE_WITH_TIMEOUT(app.job(*id)->state, sb::JobState::Succeeded, 20000);
    QString expected;
    for (const QString &h : hostile)
        expected += u'[' + h + u"]\n"_s;
    QCOMPARE(app.log(*id), expected);
    QVERIFY(!QFile::exists(marker));
}

void TestSshBackend::copiesCodeIncrementally() {
    QTemporaryDir project;
    auto write = [&](const QString &path, const QByteArray &text) {
        QDir().mkpath(QFileInfo(project.path() + u'/' + path).path());
        QFile f(project.path() + u'/' + path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
    };
    write(u"train.py"_s, "print('train')\n");
    write(u"pkg/model.py"_s, "version = 1\n");
    write(u"data/big.bin"_s, QByteArray(1 << 20, 'x'));
    write(u"notes.log"_s, "scratch\n");
    write(u".gitignore"_s, "data/\n*.log\n");
    const auto files = sb::projectFiles(project.path());
    QVERIFY2(files, qPrintable(files.error()));
    QCOMPARE(*files, (QStringList{u".gitignore"_s, u"pkg/model.py"_s, u"train.py"_s}));

    QTemporaryDir data;
    App app(*m_nodes, data.path());
    const auto first = app.backend.submit({.name = u"code"_s,
                                           .command = {u"sh"_s, u"-c"_s, u"cat pkg/model.py; ls"_s},
                                           .backend = u"ssh"_s,
                                           .target = u"box"_s,
                                           .codeDirectory = project.path()});
    QVERIFY(first);
    QTRY_VERIFY_WITH_TIMEOUT(app.job(*first)->finishedState(), 30000);
    QVERIFY2(app.job(*first)->state == sb::JobState::Succeeded,
             qPrintable(app.job(*first)->message + u'\n' + app.log(*first)));
    QVERIFY(app.log(*first).contains(u"version = 1"_s));
    QVERIFY(!app.log(*first).contains(u"data"_s));
    QVERIFY(!app.log(*first).contains(u"notes.log"_s));

    // Edit the node's copy of train.py: an incremental copy leaves unchanged files alone.
    const QString remoteDir =
        m_nodes->node(u"box"_s).home + u"/"_s + app.job(*first)->spec.workingDirectory.mid(2);
    {
        QFile remote(remoteDir + u"/train.py"_s);
        QVERIFY(remote.open(QIODevice::Append));
        remote.write("# touched on the node\n");
    }
    QTest::qWait(20); // a distinct modification time
    write(u"pkg/model.py"_s, "version = 2\n");
    const auto second =
        app.backend.submit({.name = u"code"_s,
                            .command = {u"sh"_s, u"-c"_s, u"cat pkg/model.py train.py"_s},
                            .backend = u"ssh"_s,
                            .target = u"box"_s,
                            .codeDirectory = project.path()});
    QTRY_COMPARE_WITH_TIMEOUT(app.job(*second)->state, sb::JobState::Succeeded, 30000);
    QVERIFY(app.log(*second).contains(u"version = 2"_s));
    QVERIFY(app.log(*second).contains(u"# touched on the node"_s));
}

// Issue 29, finding 6: a run on a node imports Signalbox's client with no help (lr-grid-nodes.yaml
// copies examples/ to the node, where no clients/ lies beside it), its arguments still literal.
void TestSshBackend::launchedRunsImportTheClient() {
    QTemporaryDir project;
    {
        QFile train(project.path() + u"/train.py"_s);
        QVERIFY(train.open(QIODevice::WriteOnly));
        train.write("import sys\nimport signalbox, signalbox.tensorboard\n"
                    "print('client at', signalbox.__file__)\n"
                    "print('args', sys.argv[1:])\n");
    }
    QTemporaryDir data;
    App app(*m_nodes, data.path());
    const auto id = app.backend.submit({.name = u"client"_s,
                                        .command = {u"python3"_s, u"train.py"_s, u"--x=$HOME"_s},
                                        .backend = u"ssh"_s,
                                        .target = u"box"_s,
                                        .codeDirectory = project.path()});
    QVERIFY2(id, qPrintable(id.error()));
    QTRY_VERIFY_WITH_TIMEOUT(app.job(*id)->finishedState(), 30000);
    QVERIFY2(app.job(*id)->state == sb::JobState::Succeeded,
             qPrintable(app.job(*id)->message + u'\n' + app.log(*id)));
    // The package, adapters and all, from the one file it travels as.
    QVERIFY2(app.log(*id).contains(u"/.signalbox/client/"_s) &&
                 app.log(*id).contains(u"/signalbox.zip/signalbox/__init__.py"_s),
             qPrintable(app.log(*id)));
    QVERIFY2(app.log(*id).contains(u"args ['--x=$HOME']"_s), qPrintable(app.log(*id)));
}

// Issue 30: a job whose code directory holds 100,000 files is listed (a walk of every file, then a
// stat of each that travels) off the GUI thread. A 10 ms timer on this thread keeps ticking while
// the job copies its code; the longest gap between its ticks is printed, not asserted.
void TestSshBackend::aHugeCodeDirectoryLeavesTheEventLoopTurning() {
    QTemporaryDir project; // outside any git repository: the walk, not git ls-files
    constexpr int kFiles = 100000;
    constexpr int kShipped = 200; // the rest lie in an ignored folder: walked, never sent
    QVERIFY(QDir(project.path()).mkpath(u"src"_s));
    for (int i = 0; i < kFiles - 1; ++i) {
        const QString folder = i < kShipped ? u"src"_s : u"cache/%1"_s.arg(i / 1000);
        if (i == kShipped || i % 1000 == 0)
            QVERIFY(QDir(project.path()).mkpath(folder));
        QFile file(u"%1/%2/f%3.py"_s.arg(project.path(), folder).arg(i));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("x = 1\n");
    }
    {
        QFile ignore(project.path() + u"/.gitignore"_s); // the 100,000th file
        QVERIFY(ignore.open(QIODevice::WriteOnly));
        ignore.write("cache/\n");
    }
    QTemporaryDir data;
    App app(*m_nodes, data.path());
    QTRY_COMPARE_WITH_TIMEOUT(app.backend.availability(u"box"_s), u"no GPUs"_s, 20000);

    QElapsedTimer sinceTick;
    qint64 longestGap = 0;
    int ticks = 0;
    int ticksWhileCopying = 0;
    bool copying = false;
    QTimer ticker;
    ticker.setInterval(10);
    connect(&ticker, &QTimer::timeout, this, [&] {
        longestGap = std::max(longestGap, sinceTick.restart());
        ++ticks;
        ticksWhileCopying += copying ? 1 : 0;
    });
    connect(&app.backend, &sb::JobBackend::jobChanged, this,
            [&](const sb::Job &job) { copying = job.message == u"copying the code"_s; });
    sinceTick.start();
    ticker.start();
    const auto id = app.backend.submit(
        {.name = u"huge"_s,
         .command = {u"sh"_s, u"-c"_s,
                     u"echo files=$(ls src | wc -l); [ -e cache ] || echo no-cache"_s},
         .backend = u"ssh"_s,
         .target = u"box"_s,
         .codeDirectory = project.path()});
    QVERIFY2(id, qPrintable(id.error()));
    QTRY_VERIFY_WITH_TIMEOUT(app.job(*id)->finishedState(), 120000);
    ticker.stop();
    qInfo("longest gap between 10 ms ticks while a %d-file code directory was submitted: %lld ms "
          "(%d ticks, %d while copying the code)",
          kFiles, static_cast<long long>(longestGap), ticks, ticksWhileCopying);
    QVERIFY2(app.job(*id)->state == sb::JobState::Succeeded,
             qPrintable(app.job(*id)->message + u'\n' + app.log(*id)));
    QVERIFY2(app.log(*id).contains(u"files=%1\n"_s.arg(kShipped)), qPrintable(app.log(*id)));
    QVERIFY(app.log(*id).contains(u"no-cache"_s));
    QVERIFY(ticksWhileCopying > 0); // the event loop kept turning while the code was listed
    // For comparison: the listing alone, on this thread, is what the window used to wait for.
    QElapsedTimer listing;
    listing.start();
    const auto listed = sb::projectFiles(project.path());
    qInfo("the same listing on the calling thread blocks it for %lld ms",
          static_cast<long long>(listing.elapsed()));
    QVERIFY(listed);
    QCOMPARE(listed->size(), kShipped + 1); // and .gitignore
}

QTEST_GUILESS_MAIN(TestSshBackend)
#include "tst_sshbackend.moc"
