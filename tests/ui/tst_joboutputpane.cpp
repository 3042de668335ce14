// The jobs view's output pane (issue 29, finding 7): a real job prints among its metric lines;
// the pane shows its own prints, says how many metric lines it hides and shows them on request,
// live and when the log is read back after a restart; what it printed is text, never markup,
// and its control characters are shown, not obeyed.
#include "JobsView.h"
#include "jobs/local/LocalBackend.h"

#include <QApplication>
#include <QCheckBox>
#include <QFile>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

class TestJobOutputPane final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void metricLinesHiddenLiveAndAfterARestart();
};

namespace {

struct Pane {
    sb::LocalBackend local;
    sb::BackendRegistry registry;
    sb::JobsModel jobs{&registry};
    sb::JobsView view;
    explicit Pane(const QString &dir)
        : local({.dataDir = dir, .followMs = 50})
        , view(&jobs) {
        registry.add(&local);
        view.resize(900, 700);
        view.show();
    }
    QString text() const { return view.findChild<QPlainTextEdit *>()->toPlainText(); }
    QCheckBox *toggle() const { return view.findChild<QCheckBox *>(u"metricLines"_s); }
};

} // namespace

void TestJobOutputPane::metricLinesHiddenLiveAndAfterARestart() {
    QTemporaryDir dir;
    const QString go = dir.filePath(u"go"_s);
    const QString script =
        u"echo hello; i=0; while [ $i -lt 300 ]; do echo \"@signalbox {\\\"step\\\": $i}\"; "
        "i=$((i+1)); done; printf 'title\\033]0;retitled\\007\\033[2J \\342\\200\\256evil "
        "<b>bold</b>\\n'; while [ ! -e \"$0\" ]; do sleep 0.05; done; i=0; while [ $i -lt 300 ]; "
        "do echo \"@signalbox {\\\"step\\\": $i}\"; i=$((i+1)); done; echo bye"_s;
    QString id;
    {
        Pane pane(dir.filePath(u"data"_s));
        const auto submitted =
            pane.local.submit({.name = u"prints"_s, .command = {u"sh"_s, u"-c"_s, script, go}});
        QVERIFY2(submitted, qPrintable(submitted.error()));
        id = *submitted;
        QVERIFY(pane.view.selectRun(id));
        QTRY_VERIFY_WITH_TIMEOUT(pane.text().contains(u"<b>bold</b>"_s), 20000);
        QCOMPARE(pane.text(), u"hello\ntitle\u241b]0;retitled\u2407\u241b[2J evil <b>bold</b>\n"_s);
        QVERIFY(pane.toggle()->isVisible());
        QCOMPARE(pane.toggle()->text(), u"Metric lines hidden: 300 (stored as metrics)"_s);
        // Live: the rest comes as it is printed.
        QFile(go).open(QIODevice::WriteOnly);
        QTRY_VERIFY_WITH_TIMEOUT(pane.text().endsWith(u"bye\n"_s), 20000);
        QVERIFY2(!pane.text().contains(u"@signalbox"_s), qPrintable(pane.text()));
        QCOMPARE(pane.toggle()->text(), u"Metric lines hidden: 600 (stored as metrics)"_s);
        // On request, among the output, in their places.
        pane.toggle()->setChecked(true);
        QVERIFY(pane.text().contains(u"hello\n@signalbox {\"step\": 0}\n"_s));
        QVERIFY(pane.text().contains(u"\n@signalbox {\"step\": 299}\nbye\n"_s));
        QCOMPARE(pane.toggle()->text(), u"Metric lines shown: 600"_s);
        pane.toggle()->setChecked(false);
        QTRY_COMPARE_WITH_TIMEOUT(pane.local.jobs().front().state, sb::JobState::Succeeded, 20000);
    } // the app quits

    Pane again(dir.filePath(u"data"_s));
    QVERIFY(again.view.selectRun(id));
    QCOMPARE(again.text(),
             u"hello\ntitle\u241b]0;retitled\u2407\u241b[2J evil <b>bold</b>\nbye\n"_s);
    QCOMPARE(again.toggle()->text(), u"Metric lines hidden: 600 (stored as metrics)"_s);
    again.view.grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) +
                           u"/screenshots/job-output-pane.png"_s);
}

QTEST_MAIN(TestJobOutputPane)
#include "tst_joboutputpane.moc"
