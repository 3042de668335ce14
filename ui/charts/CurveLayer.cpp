#include "CurveLayer.h"

#include "CurveChart.h"

#include <QChart>
#include <QPainter>

#include <cmath>

namespace sb {

CurveLayer::CurveLayer(QChart *chart)
    : QGraphicsItem(chart)
    , m_chart(chart) {
    setZValue(5); // above the grid, below the readout
    setFlag(ItemClipsToShape, false);
}

void CurveLayer::setCurves(const QList<Curve> *curves, bool logY) {
    m_curves = curves;
    m_logY = logY;
}

void CurveLayer::remap(double xMin, double xMax, double yMin, double yMax) {
    prepareGeometryChange();
    m_lines.clear();
    const QRectF plot = m_chart->plotArea();
    if (!m_curves || !(xMax > xMin) || !(yMax > yMin) || plot.isEmpty())
        return;
    auto yOf = [this](double y) {
        return m_logY ? std::log10(y) : y;
    };
    const double y0 = yOf(yMin);
    const double sx = plot.width() / (xMax - xMin);
    const double sy = plot.height() / (yOf(yMax) - y0);
    auto map = [&](const QList<QPointF> &points) {
        QPolygonF pixels;
        pixels.reserve(points.size());
        for (const QPointF &p : points) {
            if (m_logY && p.y() <= 0)
                continue;
            pixels.append(
                QPointF(plot.left() + (p.x() - xMin) * sx, plot.bottom() - (yOf(p.y()) - y0) * sy));
        }
        return pixels;
    };
    // Faint raw curves first, so every solid one is on top. Faint is the colour mixed with the
    // background rather than drawn translucent: opaque lines take the raster engine's fast path.
    const QColor base = m_chart->backgroundBrush().color();
    for (const Curve &curve : *m_curves) {
        if (curve.rawPoints.isEmpty())
            continue;
        const QColor &c = curve.color;
        const QColor faint = QColor::fromRgbF(0.75f * base.redF() + 0.25f * c.redF(),
                                              0.75f * base.greenF() + 0.25f * c.greenF(),
                                              0.75f * base.blueF() + 0.25f * c.blueF());
        m_lines.append({QPen(faint, 0), map(curve.rawPoints)});
    }
    for (const Curve &curve : *m_curves)
        m_lines.append({QPen(curve.color, 0), map(curve.points)});
    update();
}

qsizetype CurveLayer::pointCount() const {
    qsizetype n = 0;
    for (const Line &line : m_lines)
        n += line.pixels.size();
    return n;
}

QRectF CurveLayer::boundingRect() const {
    return m_chart->plotArea();
}

void CurveLayer::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *) {
    painter->save();
    painter->setClipRect(m_chart->plotArea());
    painter->setRenderHint(QPainter::Antialiasing, false); // cosmetic 1 px lines: the fast path
    for (const Line &line : std::as_const(m_lines)) {
        painter->setPen(line.pen);
        painter->drawPolyline(line.pixels);
    }
    painter->restore();
}

} // namespace sb
