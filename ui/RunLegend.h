#pragma once

#include <QColor>
#include <QImage>
#include <QListWidget>

namespace sb {

// One legend for every chart: the runs and groups drawn, each with its colour (and its shape,
// past the palette), in a list of a few rows that scrolls. Each name stays on one line (elided
// in the middle, whole in its tooltip), however many there are. A group's entry unfolds it into
// its runs; an unfolded group's entry folds it back.
class RunLegend final : public QListWidget {
    Q_OBJECT
public:
    static constexpr int kMostRows = 3; // then it scrolls

    struct Entry {
        QString text; // what shows: a run's name, a group's with its size
        QColor color;
        int marker = 0;
        QString group; // set: a click folds or unfolds this group
    };

    explicit RunLegend(QWidget *parent = nullptr);
    // `more`: entries left out (said last).
    void setEntries(const QList<Entry> &entries, qsizetype more = 0);
    // The entries' texts as given, in order.
    QStringList texts() const;
    // Every entry, in rows as wide as `width`, on the window's colour: for a picture of the
    // charts (the list itself shows a few rows and scrolls).
    QImage image(int width) const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return {0, 0}; }

Q_SIGNALS:
    void groupToggled(const QString &group);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void fitHeight();
    QList<Entry> m_entries;
    qsizetype m_more = 0;
};

} // namespace sb
