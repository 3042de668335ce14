#include "Swatches.h"

#include "metrics/RunColors.h"
#include "util/PlainText.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QHash>
#include <QPainter>

namespace sb {

QIcon swatchIcon(const QColor &color, SwatchShape shape) {
    static QHash<QPair<QRgb, int>, QIcon> icons;
    const QPair<QRgb, int> key{color.rgba(), static_cast<int>(shape)};
    auto it = icons.find(key);
    if (it == icons.end()) {
        const qreal scale = qApp->devicePixelRatio();
        QPixmap pixmap(QSize(20, 20) * scale);
        pixmap.setDevicePixelRatio(scale);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setBrush(color);
        painter.setPen(Qt::NoPen);
        if (shape == SwatchShape::Dot)
            painter.drawEllipse(2, 2, 16, 16);
        else
            painter.drawRoundedRect(1, 1, 18, 18, 3, 3);
        it = icons.insert(key, QIcon(pixmap));
    }
    return *it;
}

QColor runColor(const QString &run) {
    return QColor(RunColors::shared().colorOf(run));
}

void addSwatch(QStyleOptionViewItem *option, const QColor &color, SwatchShape shape) {
    option->features |= QStyleOptionViewItem::HasDecoration;
    option->icon = swatchIcon(color, shape);
    option->decorationSize = QSize(10, 10);
}

void addRunSwatch(QStyleOptionViewItem *option, const QString &run) {
    if (run.isEmpty())
        return;
    // A run without a colour yet keeps the swatch's room, so that a column sized to its names
    // still shows them whole once colours come (a name that fitted became "…").
    const auto color = RunColors::shared().existing(run);
    addSwatch(option, color ? QColor(*color) : QColor(Qt::transparent), SwatchShape::Square);
}

RunSwatchDelegate::RunSwatchDelegate(QAbstractItemView *view,
                                     std::function<QString(const QModelIndex &)> runOf)
    : QStyledItemDelegate(view)
    , m_runOf(std::move(runOf)) {
    // The view, and the views within it that paint with its delegates (a frozen name column).
    const auto repaint = [view] {
        view->viewport()->update();
        for (QAbstractItemView *inner : view->findChildren<QAbstractItemView *>())
            inner->viewport()->update();
    };
    connect(&RunColors::shared(), &RunColors::changed, view, repaint);
    connect(&RunColors::shared(), &RunColors::handedOut, view, repaint);
}

void RunSwatchDelegate::initStyleOption(QStyleOptionViewItem *option,
                                        const QModelIndex &index) const {
    QStyledItemDelegate::initStyleOption(option, index);
    option->text = oneLine(option->text); // a name from outside: one line, controls shown
    addRunSwatch(option, m_runOf(index));
}

} // namespace sb
