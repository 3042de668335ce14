#pragma once

#include <QIcon>
#include <QStyledItemDelegate>

#include <functional>

class QAbstractItemView;

namespace sb {

// Small coloured marks before a cell's text: a run's colour is a square, a job state's a dot.
enum class SwatchShape { Square, Dot };
// Cached per colour and shape; sharp on high-DPI screens.
QIcon swatchIcon(const QColor &color, SwatchShape shape);

// A run's colour as a QColor, handed out now if it has none (RunColors).
QColor runColor(const QString &run);
// Puts a swatch before a cell's text.
void addSwatch(QStyleOptionViewItem *option, const QColor &color, SwatchShape shape);
// Puts the run's colour before a cell's text (its room only, while the run has none).
void addRunSwatch(QStyleOptionViewItem *option, const QString &run);

// Shows a run's colour (RunColors) before the cell of its name, in every table that names runs,
// once the run has one (it gets one when first drawn). A colour the user picks repaints at once.
class RunSwatchDelegate final : public QStyledItemDelegate {
    Q_OBJECT
public:
    // runOf: the run a cell names; empty: none.
    RunSwatchDelegate(QAbstractItemView *view, std::function<QString(const QModelIndex &)> runOf);

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;

private:
    std::function<QString(const QModelIndex &)> m_runOf;
};

} // namespace sb
