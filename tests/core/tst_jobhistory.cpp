// A backend's job history: the file format as before, changes written off the calling thread,
// coalesced, the newest version last, and what is pending written when the history goes.
#include "jobs/JobHistory.h"
#include "util/Files.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

using namespace Qt::StringLiterals;

namespace {

QList<sb::Job> jobsNamed(const QString &prefix, int count) {
    QList<sb::Job> jobs;
    for (int i = 0; i < count; ++i) {
        sb::Job job;
        job.id = u"%1-%2"_s.arg(prefix).arg(i);
        job.backend = u"local"_s;
        job.spec.command = {u"true"_s};
        job.state = i % 2 ? sb::JobState::Succeeded : sb::JobState::Running;
        jobs << job;
    }
    return jobs;
}

QStringList ids(const QList<sb::Job> &jobs) {
    QStringList list;
    for (const sb::Job &job : jobs)
        list << job.id;
    return list;
}

// The ids the file holds now, as the next start reads them.
QStringList idsInFile(const QString &path) {
    QString problem;
    return ids(sb::loadJobs(path, &problem));
}

} // namespace

class TestJobHistory : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsTheFilesWrittenBefore();
    void writesLaterAndOnlyTheNewest();
    void writesWhatIsPendingWhenItGoes();
    void aBrokenFileIsKeptAside();
    void tellsWhenAVersionHasLanded();
    void aChangeIsWrittenWithinTheFirstsDelay();
};

void TestJobHistory::readsTheFilesWrittenBefore() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"jobs.json"_s);
    const QList<sb::Job> before = jobsNamed(u"old"_s, 3);
    QVERIFY(sb::saveJobs(path, before)); // as every backend wrote its history until now
    sb::JobHistory history(path);
    QString problem;
    const QList<sb::Job> read = history.load(&problem);
    QVERIFY(problem.isEmpty());
    QCOMPARE(ids(read), ids(before));
    QCOMPARE(read[1].state, sb::JobState::Succeeded);
    // No file yet: no jobs, no problem.
    QCOMPARE(sb::JobHistory(dir.filePath(u"none.json"_s)).load(&problem).size(), 0);
    QVERIFY(problem.isEmpty());
}

void TestJobHistory::writesLaterAndOnlyTheNewest() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"jobs.json"_s);
    sb::JobHistory history(path);
    // A burst of changes, as a sweep's trials make: nothing is written on this thread...
    for (int i = 1; i <= 500; ++i)
        history.save(jobsNamed(u"burst"_s, i));
    QVERIFY(!QFileInfo::exists(path));
    // ...and the file soon holds the last version, readable by the owner only.
    QTRY_COMPARE(idsInFile(path).size(), 500);
    QCOMPARE(QFileInfo(path).permissions() & (QFile::ReadOther | QFile::ReadGroup),
             QFile::Permissions());
    // Changes while a write may be in flight: the newest one is what stays.
    history.save(jobsNamed(u"a"_s, 2));
    QTest::qWait(1);
    history.save(jobsNamed(u"b"_s, 1));
    QTRY_COMPARE(idsInFile(path), QStringList{u"b-0"_s});
    QTest::qWait(400); // a write still in flight would have landed by now
    QCOMPARE(idsInFile(path), QStringList{u"b-0"_s});
}

void TestJobHistory::writesWhatIsPendingWhenItGoes() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"jobs.json"_s);
    {
        sb::JobHistory history(path, nullptr, 60000); // no timer fires in this test
        history.save(jobsNamed(u"first"_s, 1));
        history.save(jobsNamed(u"last"_s, 2));
        QVERIFY(!QFileInfo::exists(path));
    }
    QCOMPARE(idsInFile(path), (QStringList{u"last-0"_s, u"last-1"_s}));
    // flush() writes at once, for those who must know it is on disk.
    sb::JobHistory history(path, nullptr, 60000);
    history.save({});
    QVERIFY(history.flush());
    QCOMPARE(idsInFile(path), QStringList());
}

void TestJobHistory::aBrokenFileIsKeptAside() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"jobs.json"_s);
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"([{"id": "a", "state": "succ)");
    }
    sb::JobHistory history(path);
    QString problem;
    QVERIFY(history.load(&problem).isEmpty());
    QVERIFY2(problem.contains(u"kept"_s), qPrintable(problem));
    history.save(jobsNamed(u"new"_s, 1));
    QTRY_COMPARE(idsInFile(path), QStringList{u"new-0"_s});
}

void TestJobHistory::tellsWhenAVersionHasLanded() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"jobs.json"_s);
    sb::JobHistory history(path);
    std::optional<bool> first, second;
    QStringList inFileThen;
    history.save(jobsNamed(u"a"_s, 1), [&](const sb::Status &saved) {
        first = bool(saved);
        inFileThen = idsInFile(path); // told only once the file holds it (or newer)
    });
    history.save(jobsNamed(u"b"_s, 2), [&](const sb::Status &saved) { second = bool(saved); });
    QVERIFY(!first && !second);
    QTRY_VERIFY(first && second);
    QVERIFY(*first && *second);
    QCOMPARE(inFileThen, (QStringList{u"b-0"_s, u"b-1"_s}));
    // A write that fails says so.
    sb::JobHistory nowhere(dir.filePath(u"missing/dir/jobs.json"_s));
    QFile blocker(dir.filePath(u"missing"_s));
    QVERIFY(blocker.open(QIODevice::WriteOnly)); // a file where the folder would be
    blocker.close();
    std::optional<bool> failed;
    nowhere.save(jobsNamed(u"c"_s, 1), [&](const sb::Status &saved) { failed = bool(saved); });
    QTRY_VERIFY(failed.has_value());
    QVERIFY(!*failed);
}

void TestJobHistory::aChangeIsWrittenWithinTheFirstsDelay() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"jobs.json"_s);
    sb::JobHistory history(path, nullptr, 300);
    bool firstLanded = false;
    history.save(jobsNamed(u"a"_s, 1), [&](const sb::Status &) { firstLanded = true; });
    QTRY_VERIFY(firstLanded);
    // Changes a while apart: the second is written with the first's delay, not one of its own.
    history.save(jobsNamed(u"b"_s, 1));
    QTest::qWait(200);
    QElapsedTimer sinceSecond;
    sinceSecond.start();
    bool secondLanded = false;
    history.save(jobsNamed(u"c"_s, 1), [&](const sb::Status &) { secondLanded = true; });
    QTRY_VERIFY(secondLanded);
    qInfo() << "second change written after" << sinceSecond.elapsed() << "ms";
    QCOMPARE(idsInFile(path), QStringList{u"c-0"_s});
}

QTEST_GUILESS_MAIN(TestJobHistory)
#include "tst_jobhistory.moc"
