#include "FlowLayout.h"

#include <QStyle>
#include <QWidget>

#include <algorithm>

namespace sb {

FlowLayout::FlowLayout(QWidget *parent)
    : QLayout(parent) {
}

FlowLayout::~FlowLayout() {
    while (QLayoutItem *item = takeAt(0))
        delete item;
}

void FlowLayout::addItem(QLayoutItem *item) {
    m_items.append(item);
}

QLayoutItem *FlowLayout::takeAt(int index) {
    return index >= 0 && index < m_items.size() ? m_items.takeAt(index) : nullptr;
}

int FlowLayout::heightForWidth(int width) const {
    return arrange(QRect(0, 0, width, 0), false);
}

QSize FlowLayout::minimumSize() const {
    QSize least;
    for (const QLayoutItem *item : m_items)
        if (!item->isEmpty())
            least = least.expandedTo(item->minimumSize());
    const QMargins margins = contentsMargins();
    return least + QSize(margins.left() + margins.right(), margins.top() + margins.bottom());
}

int FlowLayout::gap() const {
    if (spacing() >= 0)
        return spacing();
    const QWidget *owner = parentWidget();
    const int styled =
        owner ? owner->style()->pixelMetric(QStyle::PM_LayoutHorizontalSpacing, nullptr, owner)
              : -1;
    return styled >= 0 ? styled : 6; // a style that leaves it to each pair of widgets
}

QSize FlowLayout::sizeHint() const {
    int width = 0;
    int height = 0;
    for (const QLayoutItem *item : m_items) {
        if (item->isEmpty())
            continue;
        width += (width > 0 ? gap() : 0) + item->sizeHint().width();
        height = std::max(height, item->sizeHint().height());
    }
    const QMargins margins = contentsMargins();
    return {width + margins.left() + margins.right(), height + margins.top() + margins.bottom()};
}

void FlowLayout::setGeometry(const QRect &rect) {
    QLayout::setGeometry(rect);
    arrange(rect, true);
}

int FlowLayout::arrange(const QRect &rect, bool place) const {
    const QRect area = rect.marginsRemoved(contentsMargins());
    const int space = gap();
    int y = area.y();
    QList<QLayoutItem *> line;
    int lineWidth = 0;
    int lineHeight = 0;
    const auto endLine = [&] {
        int x = area.x();
        for (QLayoutItem *item : std::as_const(line)) {
            // No wider than the row: an item wider still is squeezed, not cut off.
            const QSize size(std::min(item->sizeHint().width(), area.width()),
                             item->sizeHint().height());
            if (place)
                item->setGeometry(QRect(QPoint(x, y + (lineHeight - size.height()) / 2), size));
            x += size.width() + space;
        }
        if (!line.isEmpty())
            y += lineHeight + space;
        line.clear();
        lineWidth = 0;
        lineHeight = 0;
    };
    for (QLayoutItem *item : m_items) {
        if (item->isEmpty())
            continue;
        const QSize size = item->sizeHint();
        if (!line.isEmpty() && lineWidth + space + size.width() > area.width())
            endLine();
        lineWidth += (line.isEmpty() ? 0 : space) + size.width();
        lineHeight = std::max(lineHeight, size.height());
        line.append(item);
    }
    endLine();
    const int used = y - area.y() - (y > area.y() ? space : 0);
    return used + contentsMargins().top() + contentsMargins().bottom();
}

} // namespace sb
