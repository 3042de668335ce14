#pragma once

#include <QMenu>
#include <QToolButton>

namespace sb {

// A toolbar button that opens its own menu at a click: the toolbar's Group, Layout, Export and
// Views, the runs table's Columns. The menu is the button's child; fill it, or fill it as it
// shows (aboutToShow).
inline QToolButton *menuButton(const QString &name, const QString &text,
                               const QString &toolTip = {}) {
    auto *button = new QToolButton;
    button->setObjectName(name);
    button->setText(text);
    button->setToolTip(toolTip);
    button->setPopupMode(QToolButton::InstantPopup);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    button->setMenu(new QMenu(button));
    return button;
}

} // namespace sb
