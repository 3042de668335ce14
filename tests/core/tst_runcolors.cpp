#include "metrics/RunColors.h"

#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace Qt::StringLiterals;

class TestRunColors final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void firstRunsGetTheMostDistinctColours();
    void coloursSurviveARestartAndTheUsersChoiceStays();
    void brokenFilesLoseOnlyWhatIsBroken();
};

void TestRunColors::firstRunsGetTheMostDistinctColours() {
    QTemporaryDir dir;
    sb::RunColors &colors = sb::RunColors::shared();
    QVERIFY(colors.load(dir.filePath(u"colors.json"_s)));
    const QStringList &palette = sb::RunColors::palette();
    QCOMPARE(palette.size(), 12);
    // In the palette's order: blue, red, green, yellow... never two reds for the first runs.
    for (int i = 0; i < palette.size(); ++i)
        QCOMPARE(colors.colorOf(u"run-%1"_s.arg(i)), palette[i]);
    QCOMPARE(colors.colorOf(u"run-0"_s), palette[0]); // asked again: the same
    // The thirteenth takes the least used, the first again: a second round, in the same order.
    QCOMPARE(colors.colorOf(u"run-12"_s), palette[0]);
    QCOMPARE(colors.colorOf(u"run-13"_s), palette[1]);
    QVERIFY(!colors.existing(u"never-drawn"_s));
}

void TestRunColors::coloursSurviveARestartAndTheUsersChoiceStays() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"colors.json"_s);
    sb::RunColors &colors = sb::RunColors::shared();
    QVERIFY(colors.load(path));
    QCOMPARE(colors.colorOf(u"b"_s), sb::RunColors::palette()[0]);
    QSignalSpy changed(&colors, &sb::RunColors::changed);
    QVERIFY(colors.setColor(u"a"_s, u"#FF00AA"_s));
    QCOMPARE(changed.size(), 1);
    QCOMPARE(colors.existing(u"a"_s).value(), u"#ff00aa"_s);
    for (const QString &bad : {u"red"_s, u"#12345"_s, u"#1234567"_s, u"#gg0000"_s, QString()})
        QVERIFY(!colors.setColor(u"a"_s, bad));
    QVERIFY(colors.flush());
    // Another start, in another order: each run keeps its colour.
    QVERIFY(colors.load(path));
    QCOMPARE(colors.existing(u"a"_s).value(), u"#ff00aa"_s);
    QCOMPARE(colors.colorOf(u"b"_s), sb::RunColors::palette()[0]);
    QCOMPARE(colors.colorOf(u"c"_s), sb::RunColors::palette()[1]); // the next, not b's again
}

void TestRunColors::brokenFilesLoseOnlyWhatIsBroken() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"colors.json"_s);
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"good": "#228833", "bad": "javascript:", "worse": 7, "": "#000000"})");
    }
    sb::RunColors &colors = sb::RunColors::shared();
    QVERIFY(colors.load(path));
    QCOMPARE(colors.existing(u"good"_s).value(), u"#228833"_s);
    QVERIFY(!colors.existing(u"bad"_s));
    QVERIFY(!colors.existing(u"worse"_s));
    // Not JSON at all: set aside, said, and runs get colours anew.
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write("\x00\xff{{{", 6);
    }
    const sb::Status broken = colors.load(path);
    QVERIFY(!broken);
    QVERIFY2(broken.error().contains(u".broken"_s), qPrintable(broken.error()));
    QVERIFY(QFile::exists(path + u".broken"_s));
    QCOMPARE(colors.colorOf(u"fresh"_s), sb::RunColors::palette()[0]);
    // A directory or a FIFO where the file should be: said, and left where it is.
    QTemporaryDir other;
    QVERIFY(!colors.load(other.path()));
    QVERIFY(QFileInfo(other.path()).isDir());
    const QString fifo = dir.filePath(u"fifo"_s);
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    QVERIFY(!colors.load(fifo)); // not opened for reading: that would wait for a writer forever
    QVERIFY(QFileInfo::exists(fifo));
}

QTEST_GUILESS_MAIN(TestRunColors)
#include "tst_runcolors.moc"
