#include "util/Log.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <vector>

using namespace Qt::StringLiterals;

class TestLogFile final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void recordsAreOneLineEachWithCategory();
    void hostileMessagesAreEscaped();
    void stderrGetsThemEscapedWithoutAFile();
    void rotatesAtTheLimitKeepingOneOlder();
    void threadsNeverInterleaveRecords();
    void unwritableFolderIsRefusedAndLoggingGoesOn();
    void cleanup() { sb::LogFile::uninstall(); }
};

namespace {
QByteArray read(const QString &path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}
} // namespace

void TestLogFile::recordsAreOneLineEachWithCategory() {
    QTemporaryDir dir;
    QVERIFY(sb::LogFile::install(dir.path() + u"/logs"_s));
    QCOMPARE(sb::LogFile::path(), dir.path() + u"/logs/signalbox.log"_s);
    qCInfo(lcSsh) << "node gpu1 connected";
    qCWarning(lcKube, "watch of %s restarted", "pods");
    qCDebug(lcJobs) << "off by default";
    const QList<QByteArray> lines = read(sb::LogFile::path()).split('\n');
    QCOMPARE(lines.size(), 3); // two records and the empty tail
    QVERIFY2(lines[0].endsWith(" info signalbox.ssh: node gpu1 connected"), lines[0]);
    QVERIFY2(lines[1].endsWith(" warning signalbox.kube: watch of pods restarted"), lines[1]);
    // The time is UTC with milliseconds, readable back.
    const QDateTime when = QDateTime::fromString(
        QString::fromUtf8(lines[0].left(lines[0].indexOf(' '))), Qt::ISODateWithMs);
    QVERIFY(when.isValid());
    QVERIFY(qAbs(when.secsTo(QDateTime::currentDateTimeUtc())) < 3600);
}

void TestLogFile::hostileMessagesAreEscaped() {
    const QDateTime when = QDateTime::fromSecsSinceEpoch(0, Qt::UTC);
    const QByteArray record = sb::LogFile::format(
        QtWarningMsg, "signalbox.ssh",
        u"line1\nline2\x1b[2J\rbell\x07\x7f\ttab ünï\u009b\u202eevil\u2066"_s, when);
    QCOMPARE(record, QByteArray("1970-01-01T00:00:00.000Z warning signalbox.ssh: line1\n    "
                                "line2\\x1b[2J\\rbell\\x07\\x7f\\ttab ünï\\x9b\\u202eevil"
                                "\\u2066\n"));
    QCOMPARE(sb::LogFile::format(QtInfoMsg, nullptr, QString(), when),
             QByteArray("1970-01-01T00:00:00.000Z info default: \n"));
}

// signalbox-cli and signalbox-collector keep no log file: what their messages carry (a run's
// name, a remote message) still reaches the terminal escaped, as the handler before it gets it.
void TestLogFile::stderrGetsThemEscapedWithoutAFile() {
    sb::LogFile::escapeStderr();
    QTest::ignoreMessage(QtWarningMsg, "run \\x1b]0;retitled\\x07\\x1b[2J\n    forged "
                                       "\\u202eevil\\x9b");
    qCWarning(lcSsh).noquote() << u"run \x1b]0;retitled\x07\x1b[2J\nforged \u202eevil\u009b"_s;
}

void TestLogFile::rotatesAtTheLimitKeepingOneOlder() {
    QTemporaryDir dir;
    QVERIFY(sb::LogFile::install(dir.path(), 4096));
    for (int i = 0; i < 300; ++i)
        qCInfo(lcCollector, "record %d of a long-running session", i);
    const QString path = sb::LogFile::path();
    QVERIFY(QFileInfo(path).size() <= 4096);
    QVERIFY(QFileInfo(path + u".1"_s).size() <= 4096);
    QVERIFY(!QFileInfo::exists(path + u".2"_s));
    // The newest record is in the current file, whole.
    QVERIFY(read(path).endsWith("record 299 of a long-running session\n"));
    QVERIFY(read(path + u".1"_s).endsWith(" of a long-running session\n"));
}

void TestLogFile::threadsNeverInterleaveRecords() {
    QTemporaryDir dir;
    QVERIFY(sb::LogFile::install(dir.path()));
    std::vector<std::unique_ptr<QThread>> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back(QThread::create([t] {
            for (int i = 0; i < 500; ++i)
                qCInfo(lcMonitor, "thread %d record %d", t, i);
        }));
        threads.back()->start();
    }
    for (auto &thread : threads)
        QVERIFY(thread->wait(30000));
    const QList<QByteArray> lines = read(sb::LogFile::path()).split('\n');
    QCOMPARE(lines.size(), 4 * 500 + 1);
    for (qsizetype i = 0; i + 1 < lines.size(); ++i)
        QVERIFY2(lines[i].contains(" info signalbox.monitor: thread "), lines[i]);
}

void TestLogFile::unwritableFolderIsRefusedAndLoggingGoesOn() {
    const sb::Status refused = sb::LogFile::install(u"/proc/signalbox-logs"_s);
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(u"/proc/signalbox-logs"_s), qPrintable(refused.error()));
    QVERIFY(sb::LogFile::path().isEmpty());
    qCWarning(lcUi) << "still reaches stderr";
    // A full disk: writes fail, nothing else does.
    if (QFileInfo::exists(u"/dev/full"_s)) {
        QTemporaryDir dir;
        QVERIFY(sb::LogFile::install(dir.path()));
        QFile::remove(sb::LogFile::path());
        QVERIFY(QFile::link(u"/dev/full"_s, dir.path() + u"/signalbox.log"_s));
        QVERIFY(sb::LogFile::install(dir.path()));
        qCWarning(lcUi) << "lost to a full disk";
        QVERIFY(!sb::LogFile::path().isEmpty());
    }
}

QTEST_GUILESS_MAIN(TestLogFile)
#include "tst_logfile.moc"
