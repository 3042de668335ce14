#pragma once

#include <QLayout>
#include <QList>

namespace sb {

// Items left to right, going on in a new line where the width ends (a toolbar that wraps rather
// than holding its window, and the splitter beside it, at its full width). Hidden items take no
// room; each line's items are centred on it.
class FlowLayout final : public QLayout {
public:
    explicit FlowLayout(QWidget *parent = nullptr);
    ~FlowLayout() override;

    void addItem(QLayoutItem *item) override;
    int count() const override { return int(m_items.size()); }
    QLayoutItem *itemAt(int index) const override { return m_items.value(index); }
    QLayoutItem *takeAt(int index) override;
    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize minimumSize() const override;
    QSize sizeHint() const override;
    void setGeometry(const QRect &rect) override;

private:
    // Between two items: the layout's spacing, else the style's.
    int gap() const;
    // Lays the items out in `rect` (placing them when `place`); the height they take.
    int arrange(const QRect &rect, bool place) const;

    QList<QLayoutItem *> m_items;
};

} // namespace sb
