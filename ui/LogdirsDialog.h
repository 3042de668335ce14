#pragma once

#include <QDialog>

class QLabel;
class QLineEdit;
class QTableWidget;

namespace sb {

class LogdirFeeds;

// "Open TensorBoard logdir…": follow a directory on this computer or NODE:PATH on a node, and
// see each followed logdir's files, points, skipped records and trouble.
class LogdirsDialog final : public QDialog {
    Q_OBJECT
public:
    explicit LogdirsDialog(LogdirFeeds *feeds, QWidget *parent = nullptr);
    // Follows what the field holds; a refusal shows under it. For tests and the menu.
    bool follow(const QString &source);

private:
    void refresh();

    LogdirFeeds *m_feeds;
    QLineEdit *m_source;
    QLabel *m_message;
    QTableWidget *m_table;
};

} // namespace sb
