#pragma once

#include <QTableView>

namespace sb {

// A table whose first column stays in place while the others scroll sideways: a second view of
// the same model and selection, showing that column alone, lies over it (as Qt's frozen-column
// example does). Its sorting, context menu, double-click and delegate are the table's.
class FrozenColumnTable final : public QTableView {
    Q_OBJECT
public:
    explicit FrozenColumnTable(QWidget *parent = nullptr);

    void setModel(QAbstractItemModel *model) override;
    void setSelectionModel(QItemSelectionModel *selectionModel) override;
    // The view over the first column (for tests, and for its delegate).
    QTableView *frozen() const { return m_frozen; }
    // The frozen column takes the table's manners (delegate, elision, selection) and shows the
    // first column alone; done on each reset, and once after they are set.
    void syncFrozen();

protected:
    void resizeEvent(QResizeEvent *event) override;
    QModelIndex moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers modifiers) override;
    void scrollTo(const QModelIndex &index, ScrollHint hint = EnsureVisible) override;
    void actionEvent(QActionEvent *event) override;

private:
    void placeFrozen();

    QTableView *m_frozen;
};

} // namespace sb
