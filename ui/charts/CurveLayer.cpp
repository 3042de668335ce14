#include "CurveLayer.h"

#include "CurveChart.h"

#include <QChart>
#include <QPainter>
#include <QPixmap>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

namespace sb {

using namespace Qt::StringLiterals;

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

void drawMarker(QPainter *painter, QPointF p, int marker, const QColor &color, double r) {
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setPen(QPen(color, 1.2));
    painter->setBrush(marker == 4 || marker == 5 ? Qt::NoBrush : QBrush(color));
    switch (marker) {
    case 0:
        painter->setPen(Qt::NoPen);
        painter->drawRect(QRectF(p - QPointF(r, r), p + QPointF(r, r)));
        break;
    case 1:
        painter->drawEllipse(p, r, r);
        break;
    case 2:
        painter->drawPolygon(QPolygonF(
            {p + QPointF(0, -r - 0.5), p + QPointF(r, r * 0.8), p + QPointF(-r, r * 0.8)}));
        break;
    case 3:
        painter->drawPolygon(QPolygonF(
            {p + QPointF(0, -r - 1), p + QPointF(r, 0), p + QPointF(0, r + 1), p - QPointF(r, 0)}));
        break;
    case 4:
        painter->drawLine(p - QPointF(r + 1, 0), p + QPointF(r + 1, 0));
        painter->drawLine(p - QPointF(0, r + 1), p + QPointF(0, r + 1));
        break;
    case 5:
        painter->drawLine(p - QPointF(r, r), p + QPointF(r, r));
        painter->drawLine(p + QPointF(-r, r), p + QPointF(r, -r));
        break;
    default:
        painter->drawPolygon(QPolygonF(
            {p + QPointF(0, r + 0.5), p + QPointF(r, -r * 0.8), p + QPointF(-r, -r * 0.8)}));
        break;
    }
    painter->restore();
}

QString markerGlyph(int marker) {
    static const QString glyphs[kMarkerShapes] = {u"■"_s, u"●"_s, u"▲"_s, u"◆"_s,
                                                  u"✚"_s, u"✖"_s, u"▼"_s};
    return glyphs[std::clamp(marker, 0, kMarkerShapes - 1)];
}

void CurveLayer::setCurves(const QList<Curve> *curves) {
    m_curves = curves;
}

void CurveLayer::remap(const AxisScale &x, const AxisScale &y) {
    prepareGeometryChange();
    m_lines.clear();
    m_bands.clear();
    m_plain = m_dimmed = QPixmap();
    m_paintedOnce = false;
    const QRectF plot = m_chart->plotArea();
    if (!m_curves || !x.valid() || !y.valid() || plot.isEmpty())
        return;
    auto map = [&](const QList<QPointF> &points) {
        QPolygonF pixels;
        pixels.reserve(points.size());
        for (const QPointF &p : points) {
            if (!x.shows(p.x()) || !y.shows(p.y()))
                continue;
            const QPointF pixel(plot.left() + x.toUnit(p.x()) * plot.width(),
                                plot.bottom() - y.toUnit(p.y()) * plot.height());
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
        QPen pen(curve.color, curve.members.isEmpty() ? 0 : 2, curve.style);
        // Each line's shapes start further along, so that lines' shapes do not stand in columns.
        const int offset = static_cast<int>(qHash(curve.run) % 48);
        m_lines.append({curve.run, pen, map(curve.points), {}, curve.marker, offset});
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

namespace {

// A curve of one point (a metric logged once, such as an hparams session's result) is a dot:
// a polyline of one point draws nothing.
void drawCurve(QPainter *painter, const QPolygonF &pixels) {
    if (pixels.size() != 1) {
        painter->drawPolyline(pixels);
        return;
    }
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setBrush(painter->pen().color());
    painter->drawEllipse(pixels.front(), 3.0, 3.0);
    painter->restore();
}

// A run's shape every kMarkerGap pixels along its line, each run's started further along so
// that runs' shapes do not sit on one another.
void drawMarkers(QPainter *painter, const QPolygonF &pixels, int marker, int offset) {
    constexpr double kMarkerGap = 56;
    if (marker <= 0 || pixels.isEmpty())
        return;
    // Not at the lines' start, where runs' curves often meet.
    double next = pixels.front().x() + kMarkerGap / 2 + offset % 48;
    for (const QPointF &p : pixels) {
        if (p.x() < next)
            continue;
        next = p.x() + kMarkerGap;
        drawMarker(painter, p, marker, painter->pen().color());
    }
}

} // namespace

void CurveLayer::draw(QPainter *painter, bool dimmed) const {
    painter->setRenderHint(QPainter::Antialiasing, false); // cosmetic 1 px lines: the fast path
    const QColor base = backgroundOf(m_chart);
    painter->setPen(Qt::NoPen);
    for (const Band &band : std::as_const(m_bands)) {
        QColor fill = band.color;
        if (dimmed)
            fill.setAlphaF(fill.alphaF() / 3);
        painter->setBrush(fill);
        painter->drawPolygon(band.area);
    }
    painter->setBrush(Qt::NoBrush);
    for (const Line &line : std::as_const(m_lines)) {
        QPen pen = line.pen;
        if (dimmed) {
            const QColor c = pen.color(); // two thirds of the way to the background
            pen.setColor(QColor::fromRgbF(0.67f * base.redF() + 0.33f * c.redF(),
                                          0.67f * base.greenF() + 0.33f * c.greenF(),
                                          0.67f * base.blueF() + 0.33f * c.blueF()));
        }
        painter->setPen(pen);
        if (line.columns.isEmpty()) {
            drawCurve(painter, line.pixels);
            drawMarkers(painter, line.pixels, line.marker, line.markerOffset);
        } else {
            painter->drawLines(line.columns);
        }
    }
}

void CurveLayer::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *) {
    // The first paint of new curves goes straight to the screen (the fastest way there). Paints
    // again of the same curves come from the hover: those are painted once into a picture, all
    // as they are or all dimmed, and a hover adds only the emphasised curve on top, so moving the
    // mouse over 200 runs stays smooth.
    const QRectF plot = m_chart->plotArea();
    if (plot.isEmpty())
        return;
    const bool dimmed = !m_emphasis.isEmpty();
    if (m_exporting || (!dimmed && m_plain.isNull() && !std::exchange(m_paintedOnce, true))) {
        painter->save();
        painter->setClipRect(plot);
        draw(painter, false);
        painter->restore();
        return;
    }
    QPixmap &cache = dimmed ? m_dimmed : m_plain;
    const qreal ratio = painter->device() ? painter->device()->devicePixelRatioF() : 1.0;
    if (cache.isNull() || cache.devicePixelRatio() != ratio) {
        cache = QPixmap((plot.size() * ratio).toSize());
        cache.setDevicePixelRatio(ratio);
        cache.fill(Qt::transparent);
        QPainter picture(&cache);
        picture.translate(-plot.topLeft());
        draw(&picture, dimmed);
    }
    painter->save();
    painter->setClipRect(plot);
    painter->drawPixmap(plot.topLeft(), cache);
    if (dimmed) {
        for (const Band &band : std::as_const(m_bands)) {
            if (band.run == m_emphasis) {
                painter->setPen(Qt::NoPen);
                painter->setBrush(band.color);
                painter->drawPolygon(band.area);
            }
        }
        for (const Line &line : std::as_const(m_lines)) {
            if (line.run == m_emphasis && line.columns.isEmpty()) {
                painter->setPen(QPen(line.pen.color(), 2.5, line.pen.style()));
                painter->setBrush(Qt::NoBrush);
                drawCurve(painter, line.pixels);
                drawMarkers(painter, line.pixels, line.marker, line.markerOffset);
            }
        }
    }
    painter->restore();
}

} // namespace sb
