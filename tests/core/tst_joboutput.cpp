// A job's output pane: metric lines hidden and counted (live, cut anywhere, and read back after a
// restart), the script's own prints as they are, control characters shown, not obeyed.
#include "jobs/JobOutput.h"

#include <QTest>

using namespace Qt::StringLiterals;

class TestJobOutput final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void metricLinesHiddenAndCounted();
    void cutAnywhereReadsTheSame();
    void controlsShownNotObeyed();
    void shownOnRequest();
    void heldOnlyWhileItMayBeAMetricLine();
    void aLongLogKeepsItsTail();
};

namespace {

// A training script's output, as a log keeps it: prints among metric lines, a progress bar
// redrawn with '\r', Windows line ends, a sweep's trial lines, a line that only mentions one.
const QByteArray kLog = "epoch 1\n"
                        "@signalbox {\"step\": 1, \"loss\": 0.5}\n"
                        "  @signalbox {\"step\": 2, \"loss\": 0.4}\r\n"
                        "10%|#   |\r50%|##  |\r@signalbox {\"step\": 3}\n"
                        "[3] @signalbox {\"step\": 4}\n"
                        "[3] trial says hi\n"
                        "see @signalbox lines above\n"
                        "@signalboxer is not one\n"
                        "done ✓ 训练\n";
const QString kShown = u"epoch 1\n10%|#   |\n50%|##  |\n[3] trial says hi\n"
                       "see @signalbox lines above\n@signalboxer is not one\ndone ✓ 训练\n"_s;

} // namespace

void TestJobOutput::metricLinesHiddenAndCounted() {
    sb::JobOutput output;
    QString shown = output.feed(kLog);
    shown += output.flush();
    QCOMPARE(shown, kShown);
    QCOMPARE(output.hiddenLines(), 4);
}

void TestJobOutput::cutAnywhereReadsTheSame() {
    // Live, the log comes in pieces of any size: one byte at a time (UTF-8 characters cut too).
    sb::JobOutput live;
    QString shown;
    for (const char byte : kLog)
        shown += live.feed(QByteArrayView(&byte, 1));
    QCOMPARE(shown, kShown);
    QCOMPARE(live.hiddenLines(), 4);
    // Read back after a restart, then followed: the line the log ended in goes on.
    sb::JobOutput again; // each call a statement of its own: the order matters
    QString read = again.feed("old line\n@signalbox {\"step\": 9}\npartial");
    read += again.flush();
    QCOMPARE(read, u"old line\npartial"_s);
    QString followed = again.feed(" rest\n@signal");
    followed += again.feed("box {}\n");
    QCOMPARE(followed, u" rest\n"_s);
    QCOMPARE(again.hiddenLines(), 2);
}

void TestJobOutput::controlsShownNotObeyed() {
    sb::JobOutput output;
    const QString shown =
        output.feed("\x1b]0;retitled\x07\x1b[2Jcleared\ttab\x7f \xc2\x9b\xe2\x80\xae"
                    "evil\n");
    QCOMPARE(shown, u"\u241b]0;retitled\u2407\u241b[2Jcleared\ttab\u2421 \ufffdevil\n"_s);
    QVERIFY(!shown.contains(QChar(0x202E)) && !shown.contains(QChar(0x1b)));
    // Markup is text: a QPlainTextEdit shows it as written.
    QCOMPARE(output.feed("<img src=\"/dev/zero\"><b>x</b>\n"),
             u"<img src=\"/dev/zero\"><b>x</b>\n"_s);
}

void TestJobOutput::shownOnRequest() {
    sb::JobOutput output(true);
    QString shown = output.feed(kLog);
    shown += output.flush();
    QVERIFY(shown.contains(u"@signalbox {\"step\": 1, \"loss\": 0.5}\n"_s));
    QVERIFY(shown.contains(u"[3] @signalbox {\"step\": 4}\n"_s));
    QCOMPARE(output.hiddenLines(), 4); // counted all the same: "4 metric lines"
}

void TestJobOutput::heldOnlyWhileItMayBeAMetricLine() {
    sb::JobOutput output;
    QCOMPARE(output.feed("Epoch 1/3: "), u"Epoch 1/3: "_s); // a prompt shows at once
    QCOMPARE(output.feed("ok\n"), u"ok\n"_s);
    QCOMPARE(output.feed("  [12"), QString()); // may be a trial's metric line
    QCOMPARE(output.feed("] x"), u"  [12] x"_s);
    QCOMPARE(output.feed(QByteArray(QByteArray("\n") + QByteArray(300, ' '))).size(),
             1 + 300); // blanks end the wait
}

void TestJobOutput::aLongLogKeepsItsTail() {
    const QByteArray notice = "[dropped]\n";
    // Within the bound: untouched.
    QByteArray log = "short\n";
    sb::keepLogTail(log, 64, notice);
    QCOMPARE(log, QByteArray("short\n"));
    // Lines: from the first line start in the last half.
    log = QByteArray(40, 'a') + '\n' + QByteArray(20, 'b') + '\n' + QByteArray(40, 'c') + '\n';
    sb::keepLogTail(log, 100, notice);
    QCOMPARE(log, notice + QByteArray(40, 'c') + '\n');
    // One long line of two-byte characters: from a character's start, never inside one.
    log.clear();
    for (int i = 0; i < 100; ++i)
        log += "é";
    sb::keepLogTail(log, 101, notice);
    QVERIFY(log.startsWith(notice));
    const QByteArray tail = log.sliced(notice.size());
    QVERIFY(tail.size() >= 50);
    QCOMPARE(QString::fromUtf8(tail), QString(tail.size() / 2, u'é'));
    // A line start that would leave too little (under a sixteenth of the bound): a raw cut.
    log = QByteArray(200, 'x') + '\n' + "y";
    sb::keepLogTail(log, 160, notice);
    QCOMPARE(log, notice + QByteArray(78, 'x') + '\n' + "y");
}

QTEST_GUILESS_MAIN(TestJobOutput)
#include "tst_joboutput.moc"
