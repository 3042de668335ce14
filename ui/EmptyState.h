#pragma once

#include <QLabel>

#include <functional>

class QAbstractItemView;

namespace sb {

// The next step, said over a list while it has no rows: "no runs yet: New run… starts one".
// Links are reported by linkActivated(href). Hidden as soon as the list has a row.
class EmptyState final : public QLabel {
    Q_OBJECT
public:
    // hint(): the HTML to show while the view's model is empty (empty text: nothing to say).
    EmptyState(QAbstractItemView *view, std::function<QString()> hint);
    // Says it again, for a hint that depends on more than the model (a filter's text).
    void refresh();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QAbstractItemView *m_view;
    std::function<QString()> m_hint;
};

} // namespace sb
