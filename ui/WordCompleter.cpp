#include "WordCompleter.h"

#include <QAbstractItemView>
#include <QCompleter>
#include <QCoreApplication>
#include <QKeyEvent>
#include <QLineEdit>
#include <QStringListModel>

namespace sb {

namespace {

// What a field's name is made of (RunQuery's words, a backquoted name's opening quote).
bool isWordChar(QChar c) {
    return c.isLetterOrNumber() || QStringView(u"_./:@#-%`").contains(c);
}

} // namespace

WordCompleter::WordCompleter(QLineEdit *edit)
    : QObject(edit)
    , m_edit(edit)
    , m_completer(new QCompleter(this))
    , m_words(new QStringListModel(this)) {
    m_completer->setModel(m_words);
    m_completer->setWidget(edit);
    m_completer->setCaseSensitivity(Qt::CaseInsensitive);
    m_completer->setFilterMode(Qt::MatchStartsWith);
    m_completer->setCompletionMode(QCompleter::PopupCompletion);
    m_completer->setMaxVisibleItems(12);
    // The popup never takes the keyboard: a popup that grabs it as it opens loses a key typed in
    // that moment (the second letter of a word, typed fast). The edit keeps every key, and hands
    // the popup those that choose in it.
    // (Its focus policy stays as QCompleter set it: setting it here would set the edit's, its
    // focus proxy, and a click would no longer focus the edit.)
    m_completer->popup()->setWindowFlags(Qt::ToolTip | Qt::FramelessWindowHint);
    edit->installEventFilter(this);
    connect(edit, &QLineEdit::textEdited, this, &WordCompleter::offer);
    connect(m_completer, qOverload<const QString &>(&QCompleter::activated), this,
            &WordCompleter::insert);
}

void WordCompleter::setWords(const QStringList &words) {
    if (m_words->stringList() != words)
        m_words->setStringList(words);
}

bool WordCompleter::eventFilter(QObject *watched, QEvent *event) {
    QAbstractItemView *popup = m_completer->popup();
    if (watched != m_edit || !popup->isVisible())
        return false;
    if (event->type() == QEvent::FocusOut) {
        popup->hide();
        return false;
    }
    if (event->type() != QEvent::KeyPress)
        return false;
    switch (static_cast<QKeyEvent *>(event)->key()) {
    case Qt::Key_Up:
    case Qt::Key_Down:
    case Qt::Key_PageUp:
    case Qt::Key_PageDown:
        QCoreApplication::sendEvent(popup, event);
        return true;
    case Qt::Key_Return:
    case Qt::Key_Enter:
    case Qt::Key_Tab:
        if (const QModelIndex chosen = popup->currentIndex(); chosen.isValid()) {
            popup->hide();
            insert(chosen.data().toString());
            return true;
        }
        popup->hide();
        return false;
    case Qt::Key_Escape:
        popup->hide();
        return true;
    default:
        return false; // typed into the edit, which offers again
    }
}

qsizetype WordCompleter::wordStart() const {
    const QString text = m_edit->text();
    qsizetype start = m_edit->cursorPosition();
    while (start > 0 && isWordChar(text[start - 1]))
        --start;
    return start;
}

void WordCompleter::offer() {
    const qsizetype start = wordStart();
    const QString word = m_edit->text().mid(start, m_edit->cursorPosition() - start);
    m_completer->setCompletionPrefix(word);
    // Nothing typed, or the word complete already: no popup in the way.
    if (word.isEmpty() || m_completer->completionCount() == 0 ||
        (m_completer->completionCount() == 1 &&
         m_completer->currentCompletion().compare(word, Qt::CaseInsensitive) == 0)) {
        m_completer->popup()->hide();
        return;
    }
    m_completer->complete();
    // The first one chosen: Enter takes it (arrows choose another; Escape none).
    m_completer->popup()->setCurrentIndex(m_completer->completionModel()->index(0, 0));
}

void WordCompleter::insert(const QString &word) {
    // As a selection replaced by typing: one step of the edit's undo.
    const qsizetype start = wordStart();
    m_edit->setSelection(int(start), int(m_edit->cursorPosition() - start));
    m_edit->insert(word);
}

} // namespace sb
