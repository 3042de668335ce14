#include "EmptyState.h"

#include <QAbstractItemView>
#include <QEvent>

namespace sb {

using namespace Qt::StringLiterals;

EmptyState::EmptyState(QAbstractItemView *view, std::function<QString()> hint)
    : QLabel(view->viewport())
    , m_view(view)
    , m_hint(std::move(hint)) {
    setObjectName(u"emptyState"_s);
    setAlignment(Qt::AlignCenter);
    setWordWrap(true);
    setTextFormat(Qt::RichText);
    setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    setForegroundRole(QPalette::PlaceholderText);
    setContentsMargins(24, 24, 24, 24);
    view->viewport()->installEventFilter(this);
    QAbstractItemModel *model = view->model();
    for (const auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(model, signal, this, &EmptyState::refresh);
    connect(model, &QAbstractItemModel::modelReset, this, &EmptyState::refresh);
    connect(model, &QAbstractItemModel::layoutChanged, this, &EmptyState::refresh);
    refresh();
}

void EmptyState::refresh() {
    const QString hint = m_view->model()->rowCount() == 0 ? m_hint() : QString();
    if (hint != text())
        setText(hint);
    setGeometry(m_view->viewport()->rect());
    setVisible(!hint.isEmpty());
}

bool EmptyState::eventFilter(QObject *watched, QEvent *event) {
    if (event->type() == QEvent::Resize)
        setGeometry(m_view->viewport()->rect());
    return QLabel::eventFilter(watched, event);
}

} // namespace sb
