#pragma once

#include <QObject>
#include <QStringList>

class QCompleter;
class QLineEdit;
class QStringListModel;

namespace sb {

// Completes the word under a line edit's cursor (a field of a query), not its whole text: a
// popup of the words that begin with what is typed, the chosen one put in place of it.
class WordCompleter final : public QObject {
    Q_OBJECT
public:
    explicit WordCompleter(QLineEdit *edit);
    void setWords(const QStringList &words);
    QCompleter *completer() const { return m_completer; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    // Where the word being typed starts, left of the cursor.
    qsizetype wordStart() const;
    void offer();
    void insert(const QString &word);

    QLineEdit *m_edit;
    QCompleter *m_completer;
    QStringListModel *m_words;
};

} // namespace sb
