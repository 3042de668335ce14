#include "CurveLayer.h"

#include "CurveChart.h"

#include <QChart>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace sb {

namespace {

// The pixels a polyline through dense points covers, as one vertical span per pixel column:
// each column spans its own points and reaches to where the line left the previous column.
// Vertical spans fill far faster than the up to four short segments a column holds after M4.
// Where points lie columns apart, the segment between them is kept as it is.
QList<QLineF> columnSpans(const QPolygonF &pixels) {
    QList<QLineF> spans;
    if (pixels.isEmpty())
        return spans;
    double column = std::floor(pixels.front().x());
    double top = pixels.front().y();
    double bottom = top;
    QPointF previous = pixels.front();
    for (const QPointF &p : pixels) {
        const double c = std::floor(p.x());
        if (c != column) {
            spans.append(QLineF(column, top, column, bottom));
            if (std::abs(c - column) > 1) {
                spans.append(QLineF(previous, p));
                top = bottom = p.y();
            } else {
                top = bottom = previous.y(); // bridge from the last point of the column before
            }
            column = c;
        }
        top = std::min(top, p.y());
        bottom = std::max(bottom, p.y());
        previous = p;
    }
    spans.append(QLineF(column, top, column, bottom));
    return spans;
}

// The colour behind the curves; a theme's gradient brush has no colour() of its own.
QColor backgroundOf(const QChart *chart) {
    const QBrush brush = chart->isPlotAreaBackgroundVisible() ? chart->plotAreaBackgroundBrush()
                                                              : chart->backgroundBrush();
    if (const QGradient *gradient = brush.gradient(); gradient && !gradient->stops().isEmpty())
        return gradient->stops().front().second;
    return brush.style() == Qt::NoBrush ? QColor(Qt::white) : brush.color();
}

} // namespace

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
    m_bands.clear();
    const QRectF plot = m_chart->plotArea();
    if (!m_curves || !(xMax > xMin) || !(yMax > yMin) || plot.isEmpty())
        return;
    // Halves, so that values near the double range (+-1e308) map without overflowing to inf.
    auto yOf = [this](double y) {
        return m_logY ? std::log10(y) : y / 2;
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
            const QPointF pixel(plot.left() + (p.x() - xMin) * sx,
                                plot.bottom() - (yOf(p.y()) - y0) * sy);
            if (std::isfinite(pixel.x()) && std::isfinite(pixel.y()))
                pixels.append(pixel);
        }
        return pixels;
    };
    // Groups' bands beneath everything; translucent, so that where bands overlap both show.
    for (const Curve &curve : *m_curves) {
        if (curve.lower.isEmpty())
            continue;
        QPolygonF area = map(curve.upper);
        const QPolygonF lower = map(curve.lower);
        std::copy(lower.crbegin(), lower.crend(), std::back_inserter(area));
        QColor fill = curve.color;
        fill.setAlphaF(0.22f);
        m_bands.append({curve.run, fill, area});
    }
    // Faint raw curves first, so every solid one is on top. Faint is the colour mixed with the
    // background rather than drawn translucent: opaque lines take the raster engine's fast path.
    const QColor base = backgroundOf(m_chart);
    for (const Curve &curve : *m_curves) {
        if (curve.rawPoints.isEmpty())
            continue;
        const QColor &c = curve.color;
        const QColor faint = QColor::fromRgbF(0.75f * base.redF() + 0.25f * c.redF(),
                                              0.75f * base.greenF() + 0.25f * c.greenF(),
                                              0.75f * base.blueF() + 0.25f * c.blueF());
        m_lines.append({curve.run, QPen(faint, 0), {}, columnSpans(map(curve.rawPoints))});
    }
    for (const Curve &curve : *m_curves) {
        // A group's centre line a little heavier than its runs' lines would be.
        QPen pen(curve.color, curve.members.isEmpty() ? 0 : 2);
        m_lines.append({curve.run, pen, map(curve.points), {}});
    }
    update();
}

qsizetype CurveLayer::pointCount() const {
    qsizetype n = 0;
    for (const Line &line : m_lines)
        n += line.pixels.size() + 2 * line.columns.size();
    return n;
}

QRectF CurveLayer::boundingRect() const {
    return m_chart->plotArea();
}

void CurveLayer::setEmphasis(const QString &run) {
    m_emphasis = run;
    update();
}

void CurveLayer::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *) {
    painter->save();
    painter->setClipRect(m_chart->plotArea());
    painter->setRenderHint(QPainter::Antialiasing, false); // cosmetic 1 px lines: the fast path
    const QColor base = backgroundOf(m_chart);
    const Line *emphasized = nullptr;
    painter->setPen(Qt::NoPen);
    for (const Band &band : std::as_const(m_bands)) {
        QColor fill = band.color;
        if (!m_emphasis.isEmpty() && band.run != m_emphasis)
            fill.setAlphaF(fill.alphaF() / 3);
        painter->setBrush(fill);
        painter->drawPolygon(band.area);
    }
    painter->setBrush(Qt::NoBrush);
    for (const Line &line : std::as_const(m_lines)) {
        QPen pen = line.pen;
        if (!m_emphasis.isEmpty() && line.run != m_emphasis) {
            const QColor c = pen.color(); // dimmed: two thirds of the way to the background
            pen.setColor(QColor::fromRgbF(0.67f * base.redF() + 0.33f * c.redF(),
                                          0.67f * base.greenF() + 0.33f * c.greenF(),
                                          0.67f * base.blueF() + 0.33f * c.blueF()));
        } else if (!m_emphasis.isEmpty() && line.columns.isEmpty()) {
            emphasized = &line; // drawn last, on top of all
            continue;
        }
        painter->setPen(pen);
        if (line.columns.isEmpty())
            painter->drawPolyline(line.pixels);
        else
            painter->drawLines(line.columns);
    }
    if (emphasized) {
        painter->setRenderHint(QPainter::Antialiasing, true);
        painter->setPen(QPen(emphasized->pen.color(), 2.5));
        painter->drawPolyline(emphasized->pixels);
    }
    painter->restore();
}

} // namespace sb
