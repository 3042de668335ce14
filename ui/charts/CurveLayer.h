#pragma once

#include <QGraphicsItem>
#include <QPen>
#include <QPixmap>
#include <QPolygonF>

#include <cmath>

class QChart;

namespace sb {

struct Curve;

// One axis's mapping from values to a fraction of the plot: linear, or even in log10.
struct AxisScale {
    double lo = 0;
    double hi = 1;
    bool log = false;

    // Whether the axis can show v at all (a log axis, nothing at or below zero).
    bool shows(double v) const { return std::isfinite(v) && (!log || v > 0); }
    // 0 at lo, 1 at hi; in halves, so that values near +-1e308 do not overflow.
    double toUnit(double v) const {
        return log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))
                   : (v / 2 - lo / 2) / (hi / 2 - lo / 2);
    }
    double fromUnit(double f) const {
        return log ? std::pow(10.0, std::log10(lo) + f * (std::log10(hi) - std::log10(lo)))
                   : 2 * (lo / 2 + f * (hi / 2 - lo / 2));
    }
    bool valid() const { return hi > lo && (!log || lo > 0); }
};

// The shapes that tell apart runs of one colour (more runs than the palette has colours): none,
// then these; the same glyph names it in the legend and the readout.
inline constexpr int kMarkerShapes = 7;
QString markerGlyph(int marker);
// One shape centred at p, of about radius r (marker 0: a square).
void drawMarker(QPainter *painter, QPointF p, int marker, const QColor &color, double r = 3.5);

// Paints the curves of a chart over its plot area. QtCharts draws the axes, grid and titles;
// its line series build a stroked hit-test shape for every point, which costs far more than
// drawing 50 downsampled curves, so the lines are painted here as pre-mapped polylines.
class CurveLayer final : public QGraphicsItem {
public:
    explicit CurveLayer(QChart *chart);

    void setCurves(const QList<Curve> *curves);
    // Maps the curves to pixels again; call when the axes' ranges or the plot area change.
    void remap(const AxisScale &x, const AxisScale &y);

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
        int marker = 0;        // a shape along the polyline every so often
        int markerOffset = 0;  // where along it the first one is: each line's its own
    };
    struct Band {
        QString run;
        QColor color;
        QPolygonF area; // along the upper edge, back along the lower
    };
    QChart *m_chart;
    const QList<Curve> *m_curves = nullptr;
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
