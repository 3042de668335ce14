#pragma once

#include "AxisTicks.h"

#include <QColor>
#include <QSet>
#include <QWidget>

#include <optional>
#include <vector>

namespace sb {

// Runs as points: one value of each against another (a config value, a metric), each point in
// its run's colour, with round ticks; optionally the Pareto front of the two, ringed and joined.
// An axis may hold categories (a config key with words for values, an optimizer's name): each
// run in its category's band, spread across it so that runs of one category do not hide each
// other. A click on a point names its run; runs selected elsewhere are drawn larger.
class RunScatter final : public QWidget {
    Q_OBJECT
public:
    struct Point {
        QString run;
        double x = 0;
        double y = 0;
        QColor color;
    };
    struct Axis {
        QString title;
        // Where no value is below zero: zeros (a learning rate or weight decay of 0 among 1e-5
        // to 1e-1) sit in a band of their own beneath the smallest value, labelled 0.
        bool log = false;
        // Of an axis of categories: their names, in order; a point's coordinate is the index of
        // its category.
        QStringList categories;
    };
    explicit RunScatter(QWidget *parent = nullptr);

    // Points with a non-finite coordinate, or no category of the axis, are left out.
    void setPoints(const QList<Point> &points, const Axis &x, const Axis &y);
    // The runs of the front, joined in order (empty: none drawn).
    void setFront(const QStringList &runs);
    void setHighlighted(const QStringList &runs);
    qsizetype pointCount() const { return m_points.size(); }
    const Axis &xAxis() const { return m_x; }
    const Axis &yAxis() const { return m_y; }
    // Where a run's point is drawn; unset when it has none.
    std::optional<QPointF> positionOf(const QString &run) const;
    QStringList front() const { return m_front; }
    // The run drawn nearest a widget position (within a few pixels), or empty.
    QString runAt(QPointF position) const;
    QSize sizeHint() const override { return {420, 320}; }

Q_SIGNALS:
    void runClicked(const QString &run);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    QRectF plotRect() const;
    QPointF place(const Point &point) const;
    // A coordinate in axis units: log10 on a log axis (its zero band for 0), the spread of its
    // band on an axis of categories.
    static double unitsOf(const Axis &axis, double zeroAt, double value, const QString &run);

    // What a coordinate reads as: its category's name, or the number.
    static QString label(const Axis &axis, double value);

    QList<Point> m_points;
    Axis m_x;
    Axis m_y;
    double m_x0 = 0, m_x1 = 1, m_y0 = 0, m_y1 = 1; // in axis units (log10 on a log axis)
    double m_xZero = qQNaN(), m_yZero = qQNaN();   // where a log axis draws zero; NaN: no zeros
    QStringList m_front;
    QSet<QString> m_highlighted;
};

} // namespace sb
