#pragma once

#include "AxisTicks.h"

#include <QColor>
#include <QSet>
#include <QWidget>

#include <vector>

namespace sb {

// Runs as points: one value of each against another (a config value, a metric), each point in
// its run's colour, with round ticks; optionally the Pareto front of the two, ringed and joined.
// A click on a point names its run; runs selected elsewhere are drawn larger.
class RunScatter final : public QWidget {
    Q_OBJECT
public:
    struct Point {
        QString run;
        double x = 0;
        double y = 0;
        QColor color;
    };
    explicit RunScatter(QWidget *parent = nullptr);

    // Points with a non-finite coordinate are left out. `logX`/`logY`: log axes (where every
    // value is above zero).
    void setPoints(const QList<Point> &points, const QString &xTitle, const QString &yTitle,
                   bool logX, bool logY);
    // The runs of the front, joined in order (empty: none drawn).
    void setFront(const QStringList &runs);
    void setHighlighted(const QStringList &runs);
    qsizetype pointCount() const { return m_points.size(); }
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

    QList<Point> m_points;
    QString m_xTitle;
    QString m_yTitle;
    bool m_logX = false;
    bool m_logY = false;
    double m_x0 = 0, m_x1 = 1, m_y0 = 0, m_y1 = 1; // in axis units (log10 on a log axis)
    QStringList m_front;
    QSet<QString> m_highlighted;
};

} // namespace sb
