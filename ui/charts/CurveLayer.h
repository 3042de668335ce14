#pragma once

#include <QGraphicsItem>
#include <QPen>
#include <QPixmap>
#include <QPolygonF>

class QChart;

namespace sb {

struct Curve;

// Paints the curves of a chart over its plot area. QtCharts draws the axes, grid and titles;
// its line series build a stroked hit-test shape for every point, which costs far more than
// drawing 50 downsampled curves, so the lines are painted here as pre-mapped polylines.
class CurveLayer final : public QGraphicsItem {
public:
    explicit CurveLayer(QChart *chart);

    void setCurves(const QList<Curve> *curves, bool logY);
    // Maps the curves to pixels again; call when the axes' ranges or the plot area change.
    void remap(double xMin, double xMax, double yMin, double yMax);

    // Painting for a file: every curve drawn as lines each time, never from a cached picture.
    void setExporting(bool on) { m_exporting = on; }
    // One run drawn bold and the others dimmed (the hovered one); empty: all as they are.
    void setEmphasis(const QString &run);

    int lineCount() const { return static_cast<int>(m_lines.size()); }
    qsizetype pointCount() const;

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    struct Line {
        QString run;
        QPen pen;
        QPolygonF pixels;      // a polyline, or
        QList<QLineF> columns; // one vertical span per pixel column (the faint raw curves)
    };
    struct Band {
        QString run;
        QColor color;
        QPolygonF area; // along the upper edge, back along the lower
    };
    QChart *m_chart;
    const QList<Curve> *m_curves = nullptr;
    bool m_logY = false;
    // Every band and line, dimmed (a curve is hovered) or as they are.
    void draw(QPainter *painter, bool dimmed) const;

    QList<Line> m_lines;
    QList<Band> m_bands;
    QPixmap m_plain; // what draw() painted, until the curves or the axes change
    QPixmap m_dimmed;
    bool m_exporting = false;
    bool m_paintedOnce = false; // these curves were painted: a paint again is a hover's
    QString m_emphasis;
};

} // namespace sb
