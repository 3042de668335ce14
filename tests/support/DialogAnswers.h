#pragma once

// Answers modal dialogs told in advance, the moment each is shown, instead of a timer that
// guesses when it comes. While one of these lives, a modal dialog nobody expected fails the
// test and is rejected (a dialog left waiting would hang the test until ctest's timeout), an
// answer that leaves its dialog open fails the test and closes it, and answered() fails the
// test naming the expected dialogs that never came.
#include <QApplication>
#include <QDialog>
#include <QMessageBox>
#include <QPointer>
#include <QTest>
#include <QTimer>

#include <deque>
#include <functional>

class DialogAnswers : public QObject {
public:
    using Answer = std::function<void(QDialog *)>;

    // `closeWithinMs`: how long an answer's dialog may stay open after the answer returns.
    explicit DialogAnswers(int closeWithinMs = 30000)
        : m_closeWithinMs(closeWithinMs) {
        qApp->installEventFilter(this);
    }
    ~DialogAnswers() override { qApp->removeEventFilter(this); }
    DialogAnswers(const DialogAnswers &) = delete;
    DialogAnswers &operator=(const DialogAnswers &) = delete;

    // The next modal dialog shown gets `answer`, run in the dialog's own event loop;
    // `what` names it in a failure.
    void expect(const QString &what, Answer answer) {
        m_expected.push_back({what, std::move(answer)});
    }
    // True once every expected dialog came and was answered (waiting up to `waitMs` for late
    // ones); otherwise fails the test naming those that never came, and forgets them.
    bool answered(int waitMs = 0) {
        const bool came =
            m_expected.empty() ||
            (waitMs > 0 && QTest::qWaitFor([this] { return m_expected.empty(); }, waitMs));
        if (came)
            return m_failures == 0;
        QStringList missing;
        for (const Expected &expected : m_expected)
            missing << expected.what;
        m_expected.clear();
        fail(QStringLiteral("expected dialogs never came: ") + missing.join(QStringLiteral(", ")));
        return false;
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override {
        if (event->type() != QEvent::Show)
            return false;
        auto *dialog = qobject_cast<QDialog *>(watched);
        if (!dialog || !dialog->isWindow() || !dialog->isModal())
            return false;
        if (m_expected.empty()) {
            fail(QStringLiteral("a dialog nobody expected: ") + describe(dialog));
            QMetaObject::invokeMethod(dialog, &QDialog::reject, Qt::QueuedConnection);
            return false;
        }
        Expected expected = std::move(m_expected.front());
        m_expected.pop_front();
        QPointer<QDialog> guarded(dialog);
        // Queued: the answer runs once the dialog's event loop turns, as a person's click would.
        QTimer::singleShot(0, this, [this, guarded, expected] {
            if (!guarded)
                return fail(expected.what + QStringLiteral(" went before it was answered"));
            expected.answer(guarded);
            if (guarded && guarded->isVisible())
                closeIfStillOpen(guarded, expected.what);
        });
        return false;
    }

private:
    struct Expected {
        QString what;
        Answer answer;
    };

    // The answer may close its dialog a little later (a check off the GUI thread); one that is
    // still open after the bound would hang the test.
    void closeIfStillOpen(const QPointer<QDialog> &dialog, const QString &what) {
        QTimer::singleShot(m_closeWithinMs, this, [this, dialog, what] {
            if (!dialog || !dialog->isVisible())
                return;
            fail(QStringLiteral("the answer to %1 left it open: %2").arg(what, describe(dialog)));
            dialog->reject();
        });
    }
    static QString describe(QDialog *dialog) {
        QString text = QString::fromLatin1(dialog->metaObject()->className());
        if (!dialog->objectName().isEmpty())
            text += u" \"" + dialog->objectName() + u'"';
        if (!dialog->windowTitle().isEmpty())
            text += QStringLiteral(" titled \"") + dialog->windowTitle() + u'"';
        if (auto *box = qobject_cast<QMessageBox *>(dialog))
            text += QStringLiteral(" saying \"") + box->text() + u'"';
        return text;
    }
    void fail(const QString &message) {
        ++m_failures;
        QTest::qFail(qPrintable(message), __FILE__, __LINE__);
    }

    int m_closeWithinMs;
    int m_failures = 0;
    std::deque<Expected> m_expected;
};
