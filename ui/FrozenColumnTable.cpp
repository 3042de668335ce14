#include "FrozenColumnTable.h"

#include <QActionEvent>
#include <QHeaderView>
#include <QScrollBar>

namespace sb {

FrozenColumnTable::FrozenColumnTable(QWidget *parent)
    : QTableView(parent)
    , m_frozen(new QTableView(this)) {
    m_frozen->setObjectName(QStringLiteral("frozenColumn"));
    m_frozen->setFocusPolicy(Qt::NoFocus);
    m_frozen->verticalHeader()->hide();
    m_frozen->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_frozen->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_frozen->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_frozen->setVerticalScrollMode(ScrollPerPixel);
    m_frozen->setFrameShape(QFrame::NoFrame);
    m_frozen->setContextMenuPolicy(Qt::ActionsContextMenu);
    viewport()->stackUnder(m_frozen);
    setHorizontalScrollMode(ScrollPerPixel);
    setVerticalScrollMode(ScrollPerPixel);
    // One scroll for both; one width and height for the column and its rows.
    connect(verticalScrollBar(), &QAbstractSlider::valueChanged, m_frozen->verticalScrollBar(),
            &QAbstractSlider::setValue);
    connect(m_frozen->verticalScrollBar(), &QAbstractSlider::valueChanged, verticalScrollBar(),
            &QAbstractSlider::setValue);
    connect(horizontalHeader(), &QHeaderView::sectionResized, this,
            [this](int section, int, int size) {
                if (section == 0) {
                    m_frozen->setColumnWidth(0, size);
                    placeFrozen();
                }
            });
    connect(verticalHeader(), &QHeaderView::sectionResized, m_frozen,
            [this](int row, int, int size) { m_frozen->setRowHeight(row, size); });
    // The frozen header sorts as the table's does, and shows the table's sort.
    connect(m_frozen->horizontalHeader(), &QHeaderView::sectionClicked, this, [this] {
        const bool ascending = horizontalHeader()->sortIndicatorSection() != 0 ||
                               horizontalHeader()->sortIndicatorOrder() == Qt::DescendingOrder;
        sortByColumn(0, ascending ? Qt::AscendingOrder : Qt::DescendingOrder);
    });
    connect(horizontalHeader(), &QHeaderView::sortIndicatorChanged, m_frozen,
            [this](int section, Qt::SortOrder order) {
                m_frozen->horizontalHeader()->setSortIndicatorShown(section == 0);
                m_frozen->horizontalHeader()->setSortIndicator(section, order);
            });
    connect(m_frozen, &QTableView::doubleClicked, this, &QTableView::doubleClicked);
    // A click on a name focuses the table, so its keys (arrows, Delete) work from there.
    connect(m_frozen, &QTableView::pressed, this, [this] { setFocus(Qt::MouseFocusReason); });
    connect(m_frozen, &QTableView::clicked, this, &QTableView::clicked);
    m_frozen->show();
}

void FrozenColumnTable::setModel(QAbstractItemModel *model) {
    m_frozen->setModel(model); // first: the table's selection model is passed on as it is made
    QTableView::setModel(model);
    m_frozen->setSelectionModel(selectionModel());
    if (!model)
        return;
    for (const auto signal :
         {&QAbstractItemModel::columnsInserted, &QAbstractItemModel::columnsRemoved})
        connect(model, signal, this, &FrozenColumnTable::syncFrozen);
    connect(model, &QAbstractItemModel::modelReset, this, &FrozenColumnTable::syncFrozen);
    connect(model, &QAbstractItemModel::layoutChanged, this, &FrozenColumnTable::syncFrozen);
    syncFrozen();
}

void FrozenColumnTable::setSelectionModel(QItemSelectionModel *selectionModel) {
    QTableView::setSelectionModel(selectionModel);
    if (m_frozen->model() == selectionModel->model())
        m_frozen->setSelectionModel(selectionModel);
}

void FrozenColumnTable::syncFrozen() {
    // Only what changed: a table of 20,000 metrics' columns is synced on every sort.
    const int columns = model() ? model()->columnCount() : 0;
    for (int column = 0; column < columns; ++column) {
        if (m_frozen->isColumnHidden(column) != (column != 0))
            m_frozen->setColumnHidden(column, column != 0);
    }
    m_frozen->setItemDelegateForColumn(0, itemDelegateForColumn(0));
    m_frozen->setColumnWidth(0, columnWidth(0));
    m_frozen->setWordWrap(wordWrap());
    m_frozen->setTextElideMode(textElideMode());
    m_frozen->setAlternatingRowColors(alternatingRowColors());
    m_frozen->setSelectionBehavior(selectionBehavior());
    m_frozen->setSelectionMode(selectionMode());
    placeFrozen();
}

void FrozenColumnTable::placeFrozen() {
    m_frozen->horizontalHeader()->setFixedHeight(horizontalHeader()->height());
    m_frozen->setGeometry(verticalHeader()->width() + frameWidth(), frameWidth(), columnWidth(0),
                          viewport()->height() + horizontalHeader()->height());
}

void FrozenColumnTable::resizeEvent(QResizeEvent *event) {
    QTableView::resizeEvent(event);
    placeFrozen();
}

void FrozenColumnTable::actionEvent(QActionEvent *event) {
    QTableView::actionEvent(event);
    // The same context menu over the frozen column.
    if (event->type() == QEvent::ActionAdded)
        m_frozen->insertAction(nullptr, event->action());
    else if (event->type() == QEvent::ActionRemoved)
        m_frozen->removeAction(event->action());
}

QModelIndex FrozenColumnTable::moveCursor(CursorAction cursorAction,
                                          Qt::KeyboardModifiers modifiers) {
    QModelIndex current = QTableView::moveCursor(cursorAction, modifiers);
    // Moving left onto a column hidden under the frozen one scrolls it out from beneath.
    if (cursorAction == MoveLeft && current.column() > 0 &&
        visualRect(current).topLeft().x() < m_frozen->columnWidth(0)) {
        const int newValue = horizontalScrollBar()->value() + visualRect(current).topLeft().x() -
                             m_frozen->columnWidth(0);
        horizontalScrollBar()->setValue(newValue);
    }
    return current;
}

void FrozenColumnTable::scrollTo(const QModelIndex &index, ScrollHint hint) {
    if (index.column() > 0)
        QTableView::scrollTo(index, hint);
    else // the first column is always in sight: only the rows scroll
        QTableView::scrollTo(index.siblingAtColumn(std::max(0, columnAt(m_frozen->columnWidth(0)))),
                             hint);
}

} // namespace sb
