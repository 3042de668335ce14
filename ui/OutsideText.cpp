#include "OutsideText.h"

#include "util/PlainText.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QHeaderView>
#include <QHelpEvent>
#include <QLabel>
#include <QToolTip>

namespace sb {

void PlainTips::install(QCoreApplication *app) {
    if (app->findChild<PlainTips *>(QString(), Qt::FindDirectChildrenOnly))
        return;
    app->installEventFilter(new PlainTips(app));
}

bool PlainTips::eventFilter(QObject *watched, QEvent *event) {
    if (event->type() != QEvent::ToolTip || !watched->isWidgetType())
        return false;
    auto *viewport = static_cast<QWidget *>(watched);
    auto *view = qobject_cast<QAbstractItemView *>(viewport->parentWidget());
    if (!view || view->viewport() != viewport || !view->model())
        return false;
    const auto *help = static_cast<QHelpEvent *>(event);
    QString tip;
    QRect area;
    if (const auto *header = qobject_cast<QHeaderView *>(view)) {
        const int section = header->logicalIndexAt(help->pos());
        if (section >= 0) {
            tip = view->model()
                      ->headerData(section, header->orientation(), Qt::ToolTipRole)
                      .toString();
            area = header->orientation() == Qt::Horizontal
                       ? QRect(header->sectionViewportPosition(section), 0,
                               header->sectionSize(section), header->height())
                       : QRect(0, header->sectionViewportPosition(section), header->width(),
                               header->sectionSize(section));
        }
    } else {
        const QModelIndex index = view->indexAt(help->pos());
        tip = index.data(Qt::ToolTipRole).toString();
        area = view->visualRect(index);
    }
    if (tip.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(help->globalPos(), richTextOf(tip), viewport, area);
    return true;
}

QLabel *plainLabel(const QString &text, QWidget *parent) {
    auto *label = new QLabel(text, parent);
    label->setTextFormat(Qt::PlainText);
    return label;
}

} // namespace sb
