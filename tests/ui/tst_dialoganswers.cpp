// Dialogs answered in advance (tests/support/DialogAnswers.h): a dialog nobody expected, or one
// that never comes, fails the test at once instead of leaving it hanging until ctest's timeout.
#include "../support/DialogAnswers.h"

#include <QAbstractButton>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QTest>

using namespace Qt::StringLiterals;

class TestDialogAnswers : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void anExpectedDialogIsAnswered();
    void anUnexpectedDialogFailsAndCloses();
    void aDialogThatNeverComesFails();
    void anAnswerThatLeavesItsDialogOpenFails();
};

namespace {

// A question as the app asks one: exec() until someone answers.
int ask(const QString &text) {
    QMessageBox box(QMessageBox::Question, u"Signalbox"_s, text,
                    QMessageBox::Yes | QMessageBox::No);
    return box.exec();
}

} // namespace

void TestDialogAnswers::anExpectedDialogIsAnswered() {
    DialogAnswers dialogs;
    dialogs.expect(u"the question"_s, [](QDialog *dialog) {
        auto *box = qobject_cast<QMessageBox *>(dialog);
        QVERIFY(box);
        QCOMPARE(box->text(), u"Go on?"_s);
        box->button(QMessageBox::Yes)->click();
    });
    QCOMPARE(ask(u"Go on?"_s), int(QMessageBox::Yes));
    QVERIFY(dialogs.answered());
}

void TestDialogAnswers::anUnexpectedDialogFailsAndCloses() {
    DialogAnswers dialogs;
    QElapsedTimer took;
    took.start();
    QEXPECT_FAIL("", "a dialog nobody expected fails the test", Continue);
    const int answer = ask(u"Surprise?"_s); // rejected: exec() returns
    QVERIFY(answer != int(QMessageBox::Yes));
    qInfo("the unexpected dialog was closed after %lld ms", took.elapsed());
}

void TestDialogAnswers::aDialogThatNeverComesFails() {
    DialogAnswers dialogs;
    dialogs.expect(u"a question never asked"_s, [](QDialog *dialog) { dialog->accept(); });
    QEXPECT_FAIL("", "an expected dialog that never came fails the test", Continue);
    QVERIFY(!dialogs.answered(100));
}

void TestDialogAnswers::anAnswerThatLeavesItsDialogOpenFails() {
    DialogAnswers dialogs(200);
    dialogs.expect(u"the question"_s, [](QDialog *) {}); // answers nothing
    QEXPECT_FAIL("", "an answer that leaves its dialog open fails the test", Continue);
    const int answer = ask(u"Anyone?"_s); // closed once the bound passes
    QVERIFY(answer != int(QMessageBox::Yes));
}

QTEST_MAIN(TestDialogAnswers)
#include "tst_dialoganswers.moc"
