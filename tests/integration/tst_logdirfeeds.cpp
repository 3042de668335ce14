// TensorBoard logdirs followed by the app into its collector: on a real sshd node over SFTP and
// on this computer, growing, surviving an app restart without reading twice, and a node that
// stops answering.
#include "../support/SshNodes.h"
#include "client/CollectorClient.h"
#include "collector/EmbeddedCollector.h"
#include "monitor/NodeConnection.h"
#include "monitor/NodeMonitor.h"
#include "tensorboard/LogdirFeeds.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

// The event file of a checked-in directory (tests/data/tfevents/...).
QByteArray eventsOf(const QString &dir) {
    QFile file(
        QDir(dir).entryInfoList({u"*tfevents*"_s}, QDir::Files, QDir::Name).first().filePath());
    if (!file.open(QIODevice::ReadOnly))
        qFatal("no test event file");
    return file.readAll();
}
QByteArray simpleEvents() {
    return eventsOf(QStringLiteral(SIGNALBOX_TEST_DATA "/tfevents/logdir/simple"));
}
// tensorboardX's add_hparams: a session of its own, with lr, batch_size, optimizer and augment.
QByteArray hparamsEvents() {
    return eventsOf(QStringLiteral(SIGNALBOX_TEST_DATA "/tfevents/hparams-session"));
}

void append(const QString &path, const QByteArray &bytes) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::Append) || file.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(path));
}

// The runs as the collector lists them.
QList<sb::RunSummary> runs(sb::CollectorClient &client) {
    QList<sb::RunSummary> out;
    bool done = false;
    client.runs({}, &client, [&](const sb::Result<QList<sb::RunSummary>> &listed) {
        if (listed)
            out = *listed;
        done = true;
    });
    QDeadlineTimer deadline(10000);
    while (!done && !deadline.hasExpired())
        QTest::qWait(10);
    return out;
}

// run -> metric -> point count, as the collector has them.
QMap<QString, QMap<QString, qint64>> counts(sb::CollectorClient &client) {
    QMap<QString, QMap<QString, qint64>> out;
    for (const sb::RunSummary &run : runs(client)) {
        for (auto it = run.metrics.begin(); it != run.metrics.end(); ++it)
            out[run.info.name][it.key()] = it->count;
    }
    return out;
}

QJsonObject configOf(sb::CollectorClient &client, const QString &name) {
    for (const sb::RunSummary &run : runs(client)) {
        if (run.info.name == name)
            return run.info.config;
    }
    return {};
}

} // namespace

class TestLogdirFeeds : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void readsByOffsetOverSftp();
    void followsANodesLogdirOverSftp();
    void followsALocalLogdir();
    void refusesWhatCannotBeFollowed();
    void unreachableNodeShowsAndRecovers();

private:
    std::unique_ptr<SshNodes> m_nodes;
    std::unique_ptr<sb::EmbeddedCollector> m_collector;
    QTemporaryDir m_data;
};

void TestLogdirFeeds::initTestCase() {
    m_nodes = std::make_unique<SshNodes>(QStringList{u"box"_s});
    QVERIFY2(m_nodes->error().isEmpty(), qPrintable(m_nodes->error()));
    QVERIFY(m_nodes->trustAll());
    sb::Collector::Options options;
    options.dataDir = m_data.filePath(u"collector"_s);
    auto collector = sb::EmbeddedCollector::start(options);
    QVERIFY2(collector, qPrintable(collector.error()));
    m_collector = std::move(collector).value();
}

// SshSession::readFile keeps many reads in flight: the bytes still come back whole and in order,
// from any offset, and a file shorter than asked for gives what it has.
void TestLogdirFeeds::readsByOffsetOverSftp() {
    sb::NodeMonitor monitor({m_nodes->knownHostsFile()});
    monitor.setNodes({m_nodes->config(u"box"_s)});
    QTemporaryDir remote;
    QByteArray content(5 * 1024 * 1024 + 123, Qt::Uninitialized);
    for (qsizetype i = 0; i < content.size(); ++i)
        content[i] = static_cast<char>((i * 2654435761U) >> 13);
    const QString path = remote.filePath(u"big.bin"_s);
    append(path, content);
    auto read = [&](qint64 offset, qint64 size) {
        std::optional<sb::Result<QByteArray>> got;
        sb::NodeConnection *connection = monitor.connection(u"box"_s);
        connection->withSession<QByteArray>(
            [=](sb::SshSession &session) { return session.readFile(path, offset, size); }, this,
            [&](const sb::Result<QByteArray> &result) { got = result; });
        QDeadlineTimer deadline(20000);
        while (!got && !deadline.hasExpired())
            QTest::qWait(10);
        return got.value_or(sb::fail(u"no answer"_s));
    };
    for (const auto &[offset, size] : std::vector<std::pair<qint64, qint64>>{
             {0, content.size()}, {70000, 3 * 65536 + 17}, {content.size() - 1000, 1 << 20}}) {
        const auto bytes = read(offset, size);
        QVERIFY2(bytes, qPrintable(bytes.error()));
        QCOMPARE(bytes->size(), std::min(size, content.size() - offset));
        QVERIFY(*bytes == content.mid(offset, size));
    }
    // No answer owed to the short read is left queued to be taken for another.
    const auto again = read(10, 10);
    QVERIFY2(again, qPrintable(again.error()));
    QCOMPARE(*again, content.mid(10, 10));
}

void TestLogdirFeeds::followsANodesLogdirOverSftp() {
    sb::CollectorClient client(m_collector->url(), m_collector->token());
    sb::NodeMonitor monitor({m_nodes->knownHostsFile()});
    monitor.setNodes({m_nodes->config(u"box"_s)});
    const QByteArray events = simpleEvents();
    // The node's files, by absolute path (the harness's sshd shares this file system).
    QTemporaryDir remote;
    const QString logdir = remote.filePath(u"runs"_s);
    const QString file = logdir + u"/exp1/events.out.tfevents.1.box"_s;
    append(file, events.left(events.size() / 2));
    const QString state = m_data.filePath(u"logdirs.json"_s);
    {
        sb::LogdirFeeds feeds(&client, &monitor, state);
        const sb::Status followed = feeds.follow(u"box:"_s + logdir);
        QVERIFY2(followed, qPrintable(followed.error()));
        // Runs are named after the node and the logdir: box:runs/exp1.
        QTRY_VERIFY_WITH_TIMEOUT(counts(client).contains(u"box:runs/exp1"_s), 20000);
        const qint64 half = counts(client)[u"box:runs/exp1"_s][u"train/loss"_s];
        QVERIFY(half > 0 && half < 64);
        // The file grows while training runs: the rest arrives, nothing twice.
        append(file, events.mid(events.size() / 2));
        QTRY_COMPARE_WITH_TIMEOUT(counts(client)[u"box:runs/exp1"_s][u"train/loss"_s], 64, 20000);
        QCOMPARE(counts(client)[u"box:runs/exp1"_s][u"train/accuracy"_s], 64);
        QCOMPARE(feeds.feeds().size(), 1);
        QCOMPARE(feeds.feeds().first().files, 1);
        QCOMPARE(feeds.feeds().first().points, 128);
        QVERIFY(feeds.feeds().first().error.isEmpty());
    }
    // Signalbox restarts: the logdir is followed again from where it was; a rotated file joins.
    append(logdir + u"/exp1/events.out.tfevents.2.box"_s, events);
    sb::LogdirFeeds feeds(&client, &monitor, state);
    QCOMPARE(feeds.feeds().size(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(counts(client)[u"box:runs/exp1"_s][u"train/loss"_s], 128, 20000);
    QTest::qWait(4500); // two more polls find nothing new
    QCOMPARE(counts(client)[u"box:runs/exp1"_s][u"train/loss"_s], 128);
    feeds.unfollow(u"box:"_s + logdir);
    QVERIFY(feeds.feeds().isEmpty());
}

void TestLogdirFeeds::followsALocalLogdir() {
    sb::CollectorClient client(m_collector->url(), m_collector->token());
    sb::NodeMonitor monitor;
    QTemporaryDir dir;
    const QString logdir = dir.filePath(u"local-runs"_s);
    append(logdir + u"/events.out.tfevents.1.here"_s, simpleEvents());
    append(logdir + u"/session/events.out.tfevents.1.here"_s, hparamsEvents());
    sb::LogdirFeeds feeds(&client, &monitor, dir.filePath(u"logdirs.json"_s));
    QVERIFY(feeds.follow(logdir));
    // Events directly in the logdir are its own run, named after it.
    QTRY_COMPARE_WITH_TIMEOUT(counts(client)[u"local-runs"_s][u"train/loss"_s], 64, 20000);
    // A TensorBoard hparams session gives its run's config.
    QTRY_COMPARE_WITH_TIMEOUT(configOf(client, u"local-runs/session"_s),
                              (QJsonObject{{u"lr"_s, 0.01},
                                           {u"batch_size"_s, 32},
                                           {u"optimizer"_s, u"adam"_s},
                                           {u"augment"_s, true}}),
                              20000);
    QVERIFY(configOf(client, u"local-runs"_s).isEmpty());
}

void TestLogdirFeeds::refusesWhatCannotBeFollowed() {
    sb::CollectorClient client(m_collector->url(), m_collector->token());
    sb::NodeMonitor monitor({m_nodes->knownHostsFile()});
    monitor.setNodes({m_nodes->config(u"box"_s)});
    QTemporaryDir dir;
    sb::LogdirFeeds feeds(&client, &monitor, dir.filePath(u"logdirs.json"_s));
    QVERIFY(feeds.follow(u"nowhere:/runs"_s).error().contains(u"no node is named \"nowhere\""_s));
    QVERIFY(feeds.follow(dir.filePath(u"missing"_s)).error().contains(u"no such directory"_s));
    QVERIFY(feeds.follow(u"  "_s).error().contains(u"say which logdir"_s));
    QVERIFY(feeds.follow(dir.path()));
    QVERIFY(feeds.follow(dir.path()).error().contains(u"followed already"_s));
    // A logdir missing on the node is followed, and says why nothing comes.
    QVERIFY(feeds.follow(u"box:/no/such/logdir"_s));
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            for (const auto &feed : feeds.feeds())
                if (feed.source == u"box:/no/such/logdir"_s)
                    return feed.error.contains(u"cannot list /no/such/logdir"_s);
            return false;
        }(),
        20000);
}

void TestLogdirFeeds::unreachableNodeShowsAndRecovers() {
    sb::CollectorClient client(m_collector->url(), m_collector->token());
    sb::NodeMonitor monitor({m_nodes->knownHostsFile()});
    monitor.setNodes({m_nodes->config(u"box"_s)});
    QTemporaryDir remote;
    const QString logdir = remote.filePath(u"hung"_s);
    const QByteArray events = simpleEvents();
    const QString file = logdir + u"/events.out.tfevents.1.box"_s;
    append(file, events.left(events.size() / 2));
    sb::LogdirFeeds feeds(&client, &monitor, remote.filePath(u"logdirs.json"_s));
    QVERIFY(feeds.follow(u"box:"_s + logdir));
    QTRY_VERIFY_WITH_TIMEOUT(counts(client).contains(u"box:hung"_s), 20000);
    QVERIFY(m_nodes->command(u"stop box"_s));
    auto resume = qScopeGuard([&] { m_nodes->command(u"cont box"_s); });
    append(file, events.mid(events.size() / 2));
    // The SFTP read blocked on the hung node gives up, and says why.
    QTRY_VERIFY_WITH_TIMEOUT(feeds.feeds().first().error.contains(u"no answer"_s), 20000);
    resume.dismiss();
    QVERIFY(m_nodes->command(u"cont box"_s));
    QTRY_COMPARE_WITH_TIMEOUT(counts(client)[u"box:hung"_s][u"train/loss"_s], 64, 40000);
    QTRY_VERIFY_WITH_TIMEOUT(feeds.feeds().first().error.isEmpty(), 10000);
}

QTEST_GUILESS_MAIN(TestLogdirFeeds)
#include "tst_logdirfeeds.moc"
