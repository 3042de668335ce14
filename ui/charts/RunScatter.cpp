#include "RunScatter.h"

#include "util/PlainText.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace sb {

using namespace Qt::StringLiterals;

RunScatter::RunScatter(QWidget *parent)
    : QWidget(parent) {
    setMinimumSize(260, 200);
    setMouseTracking(true);
}

namespace {

// Where a run lies across its category's band, from its name: the same at every paint.
double spreadOf(const QString &run) {
    return double(qHash(run) % 1001) / 1000.0 * 0.6 - 0.3;
}

// Whether `value` names one of the axis' categories.
bool inCategories(const RunScatter::Axis &axis, double value) {
    return value >= 0 && value < double(axis.categories.size()) && value == std::floor(value);
}

} // namespace

QString RunScatter::label(const Axis &axis, double value) {
    return axis.categories.isEmpty() ? QString::number(value, 'g', 6)
                                     : axis.categories.value(qsizetype(value));
}

void RunScatter::setPoints(const QList<Point> &points, const Axis &x, const Axis &y) {
    m_points.clear();
    m_x = x;
    m_y = y;
    m_x.log = m_x.log && m_x.categories.isEmpty();
    m_y.log = m_y.log && m_y.categories.isEmpty();
    for (const Point &point : points) {
        if (std::isfinite(point.x) && std::isfinite(point.y) &&
            (m_x.categories.isEmpty() || inCategories(m_x, point.x)) &&
            (m_y.categories.isEmpty() || inCategories(m_y, point.y)))
            m_points << point;
        m_x.log = m_x.log && (!std::isfinite(point.x) || point.x >= 0);
        m_y.log = m_y.log && (!std::isfinite(point.y) || point.y >= 0);
    }
    // The range of each axis, padded a twentieth either side (in axis units); a band a category;
    // on a log axis with zeros, a band beneath for them.
    const auto range = [this](const Axis &axis, auto coordinate, double *lo, double *hi,
                              double *zeroAt) {
        *zeroAt = qQNaN();
        if (!axis.categories.isEmpty()) {
            *lo = -0.5;
            *hi = double(axis.categories.size()) - 0.5;
            return;
        }
        const bool log = axis.log;
        bool zeros = false;
        *lo = std::numeric_limits<double>::infinity();
        *hi = -*lo;
        for (const Point &point : std::as_const(m_points)) {
            if (log && coordinate(point) <= 0) {
                zeros = true;
                continue;
            }
            const double v = log ? std::log10(coordinate(point)) : coordinate(point);
            *lo = std::min(*lo, v);
            *hi = std::max(*hi, v);
        }
        if (!std::isfinite(*lo)) {
            *lo = 0;
            *hi = 1;
        }
        const double pad =
            *hi > *lo ? (*hi / 2 - *lo / 2) * 0.1 : std::max(std::abs(*lo) * 0.05, 0.5);
        *lo -= pad;
        *hi += pad;
        if (zeros) {
            *zeroAt = *lo - 1.5 * pad;
            *lo -= 3 * pad;
        }
    };
    range(
        m_x, [](const Point &p) { return p.x; }, &m_x0, &m_x1, &m_xZero);
    range(
        m_y, [](const Point &p) { return p.y; }, &m_y0, &m_y1, &m_yZero);
    update();
}

double RunScatter::unitsOf(const Axis &axis, double zeroAt, double value, const QString &run) {
    if (axis.log)
        return value > 0 ? std::log10(value) : zeroAt;
    return axis.categories.isEmpty() ? value : value + spreadOf(run);
}

void RunScatter::setFront(const QStringList &runs) {
    m_front = runs;
    update();
}

void RunScatter::setHighlighted(const QStringList &runs) {
    QSet<QString> highlighted(runs.cbegin(), runs.cend());
    if (highlighted == m_highlighted)
        return; // (the table's selection is said again on every refresh)
    m_highlighted = std::move(highlighted);
    update();
}

QRectF RunScatter::plotRect() const {
    const QFontMetrics fm(font());
    return QRectF(rect()).adjusted(fm.horizontalAdvance(u"-0.0000e0"_s) + 8, fm.height(), -12,
                                   -fm.height() * 2.6);
}

QPointF RunScatter::place(const Point &point) const {
    const QRectF plot = plotRect();
    const double x = unitsOf(m_x, m_xZero, point.x, point.run);
    const double y = unitsOf(m_y, m_yZero, point.y, point.run);
    return {plot.left() + (x / 2 - m_x0 / 2) / (m_x1 / 2 - m_x0 / 2) * plot.width(),
            plot.bottom() - (y / 2 - m_y0 / 2) / (m_y1 / 2 - m_y0 / 2) * plot.height()};
}

std::optional<QPointF> RunScatter::positionOf(const QString &run) const {
    for (const Point &point : m_points) {
        if (point.run == run)
            return place(point);
    }
    return std::nullopt;
}

QString RunScatter::runAt(QPointF position) const {
    QString nearest;
    double best = 8;
    for (const Point &point : m_points) {
        const double distance = QLineF(place(point), position).length();
        if (distance <= best) {
            best = distance;
            nearest = point.run;
        }
    }
    return nearest;
}

void RunScatter::paintEvent(QPaintEvent *) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    const QRectF plot = plotRect();
    const QFontMetrics fm(font());
    if (m_points.isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("No run has both values"));
        return;
    }
    // Grid and ticks, from the same ticks as the charts'.
    const QColor text = palette().color(QPalette::Text);
    QColor grid = text;
    grid.setAlphaF(0.12f);
    // A category's tick at the middle of its band (every few where they would crowd), named.
    const auto ticksOf = [](const Axis &axis, double lo, double hi, double zeroAt, int room) {
        if (axis.categories.isEmpty()) {
            const auto value = [&axis](double at) {
                return axis.log ? std::pow(10.0, at) : at;
            };
            if (std::isnan(zeroAt))
                return ticksFor(axis.log ? TickUnits::Log : TickUnits::Number, value(lo), value(hi),
                                room);
            // The zero band's label, and the decades above it.
            QList<Tick> ticks{{zeroAt, u"0"_s}};
            const double above = lo + (zeroAt - lo) * 2;
            ticks += ticksFor(TickUnits::Log, value(above), value(hi), std::max(1, room - 1));
            return ticks;
        }
        QList<Tick> ticks;
        const qsizetype every = std::max<qsizetype>(1, axis.categories.size() / std::max(1, room));
        for (qsizetype i = 0; i < axis.categories.size(); i += every)
            ticks.append({double(i), axis.categories[i]});
        return ticks;
    };
    const QList<Tick> xTicks =
        ticksOf(m_x, m_x0, m_x1, m_xZero, std::max(2, static_cast<int>(plot.width() / 90)));
    const QList<Tick> yTicks =
        ticksOf(m_y, m_y0, m_y1, m_yZero, std::max(2, static_cast<int>(plot.height() / 40)));
    const int xLabelWidth =
        m_x.categories.isEmpty()
            ? 100
            : std::max(20, static_cast<int>(plot.width() / double(m_x.categories.size())) - 4);
    painter.setPen(QPen(grid, 0));
    for (const Tick &tick : xTicks) {
        const double x =
            plot.left() + (tick.at / 2 - m_x0 / 2) / (m_x1 / 2 - m_x0 / 2) * plot.width();
        painter.setPen(QPen(grid, 0));
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        painter.setPen(text);
        painter.drawText(QRectF(x - xLabelWidth / 2.0, plot.bottom() + 2, xLabelWidth, fm.height()),
                         Qt::AlignCenter, fm.elidedText(tick.label, Qt::ElideRight, xLabelWidth));
    }
    for (const Tick &tick : yTicks) {
        const double y =
            plot.bottom() - (tick.at / 2 - m_y0 / 2) / (m_y1 / 2 - m_y0 / 2) * plot.height();
        painter.setPen(QPen(grid, 0));
        painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        painter.setPen(text);
        painter.drawText(QRectF(0, y - fm.height() / 2.0, plot.left() - 4, fm.height()),
                         Qt::AlignRight | Qt::AlignVCenter,
                         fm.elidedText(tick.label, Qt::ElideRight, int(plot.left()) - 4));
    }
    painter.setPen(QPen(grid.darker(), 0));
    painter.drawRect(plot);
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(text);
    painter.drawText(
        QRectF(plot.left(), plot.bottom() + fm.height() + 2, plot.width(), fm.height()),
        Qt::AlignCenter, fm.elidedText(m_x.title, Qt::ElideMiddle, static_cast<int>(plot.width())));
    painter.drawText(QRectF(plot.left() + 4, 0, plot.width(), fm.height()), Qt::AlignLeft,
                     fm.elidedText(m_y.title, Qt::ElideMiddle, static_cast<int>(plot.width())));
    painter.setFont(font());
    painter.setClipRect(plot);
    painter.setRenderHint(QPainter::Antialiasing);
    // The front beneath the points: a line through them in order, each ringed.
    QPolygonF front;
    for (const QString &run : std::as_const(m_front)) {
        for (const Point &point : std::as_const(m_points))
            if (point.run == run)
                front << place(point);
    }
    painter.setPen(QPen(text, 1.5, Qt::DashLine));
    painter.drawPolyline(front);
    for (const QPointF &at : std::as_const(front))
        painter.drawEllipse(at, 7.0, 7.0);
    for (const bool chosen : {false, true}) {
        for (const Point &point : std::as_const(m_points)) {
            if (m_highlighted.contains(point.run) != chosen)
                continue;
            painter.setPen(QPen(chosen ? text : point.color.darker(130), chosen ? 1.5 : 0.8));
            painter.setBrush(point.color);
            const double r = chosen ? 5.5 : 3.5;
            painter.drawEllipse(place(point), r, r);
        }
    }
}

void RunScatter::mouseMoveEvent(QMouseEvent *event) {
    const QString run = runAt(event->position());
    if (run.isEmpty()) {
        QToolTip::hideText();
        return;
    }
    for (const Point &point : std::as_const(m_points)) {
        if (point.run == run) {
            QToolTip::showText(event->globalPosition().toPoint(),
                               u"<qt><b>%1</b><br>%2 = %3<br>%4 = %5</qt>"_s.arg(
                                   htmlOf(run), htmlOf(m_x.title), htmlOf(label(m_x, point.x)),
                                   htmlOf(m_y.title), htmlOf(label(m_y, point.y))),
                               this);
            break;
        }
    }
}

void RunScatter::mouseReleaseEvent(QMouseEvent *event) {
    if (event->button() == Qt::LeftButton) {
        if (const QString run = runAt(event->position()); !run.isEmpty())
            Q_EMIT runClicked(run);
    }
}

} // namespace sb
