#include "LogdirsDialog.h"

#include "OutsideText.h"
#include "Theme.h"

#include "tensorboard/LogdirFeeds.h"

#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sb {

using namespace Qt::StringLiterals;

LogdirsDialog::LogdirsDialog(LogdirFeeds *feeds, QWidget *parent)
    : QDialog(parent)
    , m_feeds(feeds)
    , m_source(new QLineEdit)
    , m_message(plainLabel())
    , m_table(new QTableWidget(0, 6)) {
    setWindowTitle(tr("TensorBoard logdirs"));
    m_source->setPlaceholderText(tr("~/runs on this computer, or gpu-box:/data/runs on a node"));
    auto *browse = new QPushButton(tr("Browse…"));
    auto *followButton = new QPushButton(tr("Follow"));
    followButton->setDefault(true); // Return in the field follows
    m_message->setObjectName(u"message"_s);
    m_message->setWordWrap(true);
    m_message->setStyleSheet(u"color:%1;"_s.arg(problemColor(palette()).name()));
    m_message->hide();

    m_table->setHorizontalHeaderLabels(
        {tr("Logdir"), tr("Runs named"), tr("Files"), tr("Points"), tr("Skipped"), tr("Status")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    auto *stop = new QPushButton(tr("Stop following"));
    auto *close = new QPushButton(tr("Close"));

    auto *top = new QHBoxLayout;
    top->addWidget(m_source, 1);
    top->addWidget(browse);
    top->addWidget(followButton);
    auto *bottom = new QHBoxLayout;
    bottom->addWidget(new QLabel(tr("Every directory holding event files is a run; its scalars "
                                    "join the curves as they are written.")),
                      1);
    bottom->addWidget(stop);
    bottom->addWidget(close);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_message);
    layout->addWidget(m_table, 1);
    layout->addLayout(bottom);
    resize(900, 360);

    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("TensorBoard logdir"));
        if (!dir.isEmpty())
            m_source->setText(dir);
    });
    connect(followButton, &QPushButton::clicked, this, [this] { follow(m_source->text()); });
    connect(stop, &QPushButton::clicked, this, [this] {
        for (const QModelIndex &row : m_table->selectionModel()->selectedRows())
            m_feeds->unfollow(m_table->item(row.row(), 0)->text());
    });
    connect(close, &QPushButton::clicked, this, &QDialog::accept);
    connect(m_feeds, &LogdirFeeds::changed, this, &LogdirsDialog::refresh);
    refresh();
}

bool LogdirsDialog::follow(const QString &source) {
    QString expanded = source.trimmed();
    if (expanded.startsWith(u"~/"_s)) // this computer's home; a node's "~/" is the node's
        expanded = QDir::homePath() + expanded.mid(1);
    const Status followed = m_feeds->follow(expanded);
    m_message->setText(followed.error());
    m_message->setVisible(!followed);
    if (followed)
        m_source->clear();
    return followed.ok();
}

void LogdirsDialog::refresh() {
    const auto feeds = m_feeds->feeds();
    m_table->setRowCount(static_cast<int>(feeds.size()));
    for (int row = 0; row < feeds.size(); ++row) {
        const auto &feed = feeds[row];
        const QString status =
            !feed.error.isEmpty() ? feed.error
            : feed.lastRead.isValid()
                ? tr("read at %1").arg(feed.lastRead.toLocalTime().toString(u"HH:mm:ss"_s))
                : tr("reading…");
        const QStringList cells{feed.source,
                                feed.runPrefix + u"/…"_s,
                                QString::number(feed.files),
                                QLocale().toString(feed.points),
                                QString::number(feed.corrupt),
                                status};
        for (int column = 0; column < cells.size(); ++column) {
            auto *item = new QTableWidgetItem(cells[column]);
            if (column == 5 && !feed.error.isEmpty())
                item->setForeground(problemColor(palette()));
            if (column >= 2 && column <= 4)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(row, column, item);
        }
    }
    m_table->resizeColumnsToContents();
}

} // namespace sb
