#include "ParallelCoordinates.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

QColor mix(const QColor &a, const QColor &b, double t) {
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

} // namespace

double ParallelCoordinates::Axis::position(double value) const {
    if (!std::isfinite(value))
        return qQNaN();
    if (categorical)
        return categories.size() < 2 ? 0.5 : value / static_cast<double>(categories.size() - 1);
    if (log && value <= 0)
        return 0; // the zero band
    const double v = log ? std::log10(value) : value;
    const double lo = log ? std::log10(low) : low;
    const double hi = log ? std::log10(high) : high;
    const double t = hi > lo ? std::clamp((v / 2 - lo / 2) / (hi / 2 - lo / 2), 0.0, 1.0) : 0.5;
    return zeros ? kZeroBand + (1 - kZeroBand) * t : t;
}

double ParallelCoordinates::Axis::value(double where) const {
    if (zeros && where < kZeroBand)
        return 0;
    const double t = zeros ? (where - kZeroBand) / (1 - kZeroBand) : where;
    return log ? std::pow(10.0, std::log10(low) + t * (std::log10(high) - std::log10(low)))
               : low + t * (high - low);
}

QString ParallelCoordinates::Axis::label(double where) const {
    return categorical ? QString() : QString::number(value(where), 'g', 3);
}

ParallelCoordinates::ParallelCoordinates(QWidget *parent)
    : QWidget(parent) {
    setMinimumHeight(200);
    setMouseTracking(true);
}

void ParallelCoordinates::setTable(const ParamTable &table, bool smallerIsBetter) {
    // A drag under way is dropped: its axis may be gone or elsewhere.
    m_dragAxis = -1;
    m_brushFrom.reset();
    m_moving = false;
    // Brushes are kept as the values they cover, and laid on the new axes' ranges.
    const QStringList brushedBefore = brushedRuns();
    QHash<QString, std::pair<double, double>> valueBrushes;
    QHash<QString, QStringList> categoryBrushes;
    for (const Axis &axis : std::as_const(m_axes)) {
        const auto brush = m_brushes.constFind(axis.name);
        if (brush == m_brushes.cend())
            continue;
        if (axis.categorical) {
            for (qsizetype c = 0; c < axis.categories.size(); ++c) {
                const double where = axis.position(static_cast<double>(c));
                if (where >= brush->first && where <= brush->second)
                    categoryBrushes[axis.name] << axis.categories[c];
            }
        } else {
            valueBrushes.insert(axis.name, {axis.value(brush->first), axis.value(brush->second)});
        }
    }
    const QStringList &order = m_movedOrder;
    m_table = table;
    m_smallerIsBetter = smallerIsBetter;
    QList<Axis> axes;
    const auto finish = [](Axis axis) {
        if (!axis.categorical) {
            // On a log axis, the positive values' range: zeros (a weight decay of 0) at its foot.
            const bool negatives = std::any_of(axis.values.cbegin(), axis.values.cend(),
                                               [](double v) { return v < 0; });
            const bool positivesOnly = axis.log && !negatives;
            axis.low = std::numeric_limits<double>::infinity();
            axis.high = -axis.low;
            for (const double v : axis.values) {
                if (std::isfinite(v) && (!positivesOnly || v > 0)) {
                    axis.low = std::min(axis.low, v);
                    axis.high = std::max(axis.high, v);
                }
            }
            if (!std::isfinite(axis.low))
                axis.low = axis.high = 0;
            axis.log = positivesOnly && axis.low > 0 && axis.high > axis.low;
            axis.zeros = axis.log && std::any_of(axis.values.cbegin(), axis.values.cend(),
                                                 [](double v) { return v == 0; });
        }
        return axis;
    };
    for (const ParamColumn &param : table.params)
        axes << finish({param.name, param.categorical, param.logScale, 0, 1, param.categories,
                        param.values, false});
    // The metric, last; on a log axis when it spans decades (a loss).
    Axis metric = finish({table.metric, false, true, 0, 1, {}, table.target, true});
    metric.log = metric.low > 0 && metric.high / metric.low > 30;
    axes << metric;
    // The order the user gave by moving axes, for the axes still there; the others after, the
    // parameters by name and the metric last.
    std::stable_sort(axes.begin(), axes.end(), [&order](const Axis &a, const Axis &b) {
        const qsizetype ia = order.indexOf(a.name), ib = order.indexOf(b.name);
        return (ia < 0 ? order.size() : ia) < (ib < 0 ? order.size() : ib);
    });
    m_axes = axes;
    m_brushes.clear();
    for (const Axis &axis : std::as_const(m_axes)) {
        if (const auto range = valueBrushes.constFind(axis.name); range != valueBrushes.cend()) {
            const double from = axis.position(range->first), to = axis.position(range->second);
            if (std::isfinite(from) && std::isfinite(to))
                m_brushes.insert(axis.name, {std::min(from, to), std::max(from, to)});
        } else if (const auto chosen = categoryBrushes.constFind(axis.name);
                   chosen != categoryBrushes.cend()) {
            double low = 1, high = 0;
            for (const QString &category : *chosen) {
                const qsizetype c = axis.categories.indexOf(category);
                if (c >= 0) {
                    low = std::min(low, axis.position(static_cast<double>(c)));
                    high = std::max(high, axis.position(static_cast<double>(c)));
                }
            }
            if (low <= high)
                m_brushes.insert(axis.name, {low - 1e-9, high + 1e-9});
        }
    }
    redraw();
    // The table's choice follows what the brushes hold now.
    if (!brushedBefore.isEmpty() && brushedRuns() != brushedBefore &&
        (!valueBrushes.isEmpty() || !categoryBrushes.isEmpty()))
        Q_EMIT brushChanged(brushedRuns());
}

void ParallelCoordinates::setHighlighted(const QStringList &runs) {
    QSet<QString> highlighted(runs.cbegin(), runs.cend());
    if (highlighted == m_highlighted)
        return; // (the table's selection is said again on every refresh)
    m_highlighted = std::move(highlighted);
    redraw();
}

QStringList ParallelCoordinates::axisOrder() const {
    QStringList names;
    for (const Axis &axis : m_axes)
        names << axis.name;
    return names;
}

void ParallelCoordinates::moveAxis(const QString &axis, qsizetype to) {
    const qsizetype from = axisOrder().indexOf(axis);
    if (from < 0)
        return;
    m_axes.move(from, std::clamp<qsizetype>(to, 0, m_axes.size() - 1));
    m_movedOrder = axisOrder();
    redraw();
}

bool ParallelCoordinates::inBrushes(qsizetype run) const {
    for (const Axis &axis : m_axes) {
        const auto brush = m_brushes.constFind(axis.name);
        if (brush == m_brushes.cend())
            continue;
        const double where = axis.position(axis.values[static_cast<std::size_t>(run)]);
        if (!(where >= brush->first && where <= brush->second))
            return false;
    }
    return true;
}

QStringList ParallelCoordinates::brushedRuns() const {
    QStringList runs;
    for (qsizetype i = 0; i < m_table.runs.size(); ++i)
        if (inBrushes(i))
            runs << m_table.runs[i];
    return runs;
}

void ParallelCoordinates::brush(const QString &axis, double low, double high) {
    const qsizetype index = axisOrder().indexOf(axis);
    if (index < 0)
        return;
    const Axis &a = m_axes[index];
    const double from = a.position(a.categorical ? low : std::max(low, a.low));
    const double to = a.position(a.categorical ? high : std::min(high, a.high));
    m_brushes.insert(axis, {std::min(from, to), std::max(from, to)});
    redraw();
    Q_EMIT brushChanged(brushedRuns());
}

void ParallelCoordinates::clearBrushes() {
    m_brushes.clear();
    redraw();
    Q_EMIT brushChanged(brushedRuns());
}

QRectF ParallelCoordinates::plotRect() const {
    const QFontMetrics fm(font());
    return QRectF(rect()).adjusted(50, fm.height() * 2.5, -70, -fm.height() * 1.5);
}

double ParallelCoordinates::xOf(qsizetype axis) const {
    const QRectF plot = plotRect();
    return m_axes.size() < 2 ? plot.center().x()
                             : plot.left() + plot.width() * static_cast<double>(axis) /
                                                 static_cast<double>(m_axes.size() - 1);
}

qsizetype ParallelCoordinates::axisAt(double x) const {
    for (qsizetype i = 0; i < m_axes.size(); ++i)
        if (std::abs(xOf(i) - x) <= 8)
            return i;
    return -1;
}

void ParallelCoordinates::redraw() {
    m_paintedValid = false;
    update();
}

void ParallelCoordinates::changeEvent(QEvent *event) {
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange ||
        event->type() == QEvent::StyleChange)
        m_paintedValid = false;
    QWidget::changeEvent(event);
}

void ParallelCoordinates::paintEvent(QPaintEvent *) {
    const qreal ratio = devicePixelRatioF();
    if (!m_paintedValid || m_painted.size() != size() * ratio) {
        m_painted = QPixmap(size() * ratio);
        m_painted.setDevicePixelRatio(ratio);
        QPainter into(&m_painted);
        paintAll(into);
        m_paintedValid = true;
        ++m_redraws;
    }
    QPainter(this).drawPixmap(0, 0, m_painted);
}

void ParallelCoordinates::paintAll(QPainter &painter) {
    painter.fillRect(rect(), palette().color(QPalette::Base));
    painter.setRenderHint(QPainter::Antialiasing);
    m_lines = 0;
    if (m_table.runs.isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter,
                         tr("The parallel coordinates appear when runs log %1")
                             .arg(m_table.metric.isEmpty() ? tr("a metric") : m_table.metric));
        return;
    }
    const QFontMetrics fm(font());
    const QRectF plot = plotRect();
    const auto yOf = [&](double where) {
        return plot.bottom() - where * plot.height();
    };
    // Once a paint: each axis's x, and whether each run is inside the brushes.
    std::vector<double> xs;
    for (qsizetype i = 0; i < m_axes.size(); ++i)
        xs.push_back(xOf(i));
    std::vector<char> inside(static_cast<std::size_t>(m_table.runs.size()));
    for (qsizetype run = 0; run < m_table.runs.size(); ++run)
        inside[static_cast<std::size_t>(run)] = inBrushes(run);
    const auto metricAxis =
        std::find_if(m_axes.cbegin(), m_axes.cend(), [](const Axis &axis) { return axis.metric; }) -
        m_axes.cbegin();
    // The best run: the smallest or the largest metric.
    qsizetype best = 0;
    for (qsizetype i = 1; i < m_table.runs.size(); ++i) {
        const double a = m_table.target[static_cast<std::size_t>(i)];
        const double b = m_table.target[static_cast<std::size_t>(best)];
        if (m_smallerIsBetter ? a < b : a > b)
            best = i;
    }
    const auto draw = [&](qsizetype run) {
        QPainterPath path;
        bool started = false;
        for (qsizetype i = 0; i < m_axes.size(); ++i) {
            const double where =
                m_axes[i].position(m_axes[i].values[static_cast<std::size_t>(run)]);
            if (!std::isfinite(where))
                continue; // a parameter the run lacks: the line passes it by
            const QPointF point(xs[static_cast<std::size_t>(i)], yOf(where));
            if (!std::exchange(started, true))
                path.moveTo(point);
            else
                path.lineTo(point);
        }
        // Best (0) to worst (1) along the metric's axis.
        const Axis &metric = m_axes[metricAxis];
        double rank = metric.position(m_table.target[static_cast<std::size_t>(run)]);
        if (!m_smallerIsBetter)
            rank = 1 - rank;
        const bool chosen = m_highlighted.contains(m_table.runs[run]);
        const bool faded = !inside[static_cast<std::size_t>(run)];
        const QColor color = faded ? palette().color(QPalette::Mid)
                                   : mix(QColor(0x1f, 0x5f, 0xa8), QColor(0xd9, 0x5f, 0x02), rank);
        QPen pen(run == best && !faded ? palette().color(QPalette::Text) : color);
        pen.setWidthF(chosen ? 3.2 : run == best ? 2.6 : 1.3);
        painter.setPen(pen);
        painter.setOpacity(faded ? 0.25 : chosen || run == best ? 1.0 : 0.7);
        painter.drawPath(path);
        ++m_lines;
    };
    // Faded first, then the brushed ones, the highlighted and the best on top.
    for (const int pass : {0, 1, 2}) {
        for (qsizetype run = 0; run < m_table.runs.size(); ++run) {
            const bool top = run == best || m_highlighted.contains(m_table.runs[run]);
            const int layer = !inside[static_cast<std::size_t>(run)] ? 0 : top ? 2 : 1;
            if (layer == pass)
                draw(run);
        }
    }
    painter.setOpacity(1.0);

    const QColor ink = palette().color(QPalette::Text);
    for (qsizetype i = 0; i < m_axes.size(); ++i) {
        const Axis &axis = m_axes[i];
        const double x = xs[static_cast<std::size_t>(i)];
        painter.setPen(QPen(ink, 1));
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        if (const auto brush = m_brushes.constFind(axis.name); brush != m_brushes.cend()) {
            QColor band = palette().color(QPalette::Highlight);
            band.setAlphaF(0.35f);
            painter.fillRect(
                QRectF(QPointF(x - 6, yOf(brush->second)), QPointF(x + 6, yOf(brush->first))),
                band);
        }
        QFont bold = font();
        bold.setBold(true);
        painter.setFont(bold);
        const double room =
            std::max(60.0, plot.width() / std::max<qsizetype>(1, m_axes.size() - 1));
        painter.drawText(QRectF(x - room / 2, 2, room, fm.height() * 1.2), Qt::AlignCenter,
                         fm.elidedText(axis.name, Qt::ElideMiddle, static_cast<int>(room) - 4));
        painter.setFont(font());
        painter.setPen(palette().color(QPalette::PlaceholderText));
        if (axis.categorical) {
            // Every few names where a line of text each would not fit.
            const qsizetype every = std::max<qsizetype>(
                1, static_cast<qsizetype>(std::ceil(double(axis.categories.size()) * fm.height() /
                                                    std::max(1.0, plot.height()))));
            for (qsizetype c = 0; c < axis.categories.size(); c += every)
                painter.drawText(
                    QPointF(x + 4, yOf(axis.position(static_cast<double>(c))) + fm.ascent() / 2.0),
                    fm.elidedText(axis.categories[c], Qt::ElideRight, 80));
        } else {
            painter.drawText(QRectF(x - 60, plot.top() - fm.height() * 1.2, 120, fm.height()),
                             Qt::AlignCenter, axis.label(1));
            painter.drawText(QRectF(x - 60, plot.bottom() + 2, 120, fm.height()), Qt::AlignCenter,
                             axis.label(0));
        }
    }
}

void ParallelCoordinates::mousePressEvent(QMouseEvent *event) {
    const QRectF plot = plotRect();
    const qsizetype axis = axisAt(event->position().x());
    if (event->button() != Qt::LeftButton || axis < 0)
        return QWidget::mousePressEvent(event);
    m_dragAxis = axis;
    m_moving = event->position().y() < plot.top() - 4; // on its title: moving it
    if (!m_moving)
        m_brushFrom = std::clamp((plot.bottom() - event->position().y()) / plot.height(), 0.0, 1.0);
    m_dragged = false;
    m_brushesAtPress = m_brushes;
    event->accept();
}

void ParallelCoordinates::mouseMoveEvent(QMouseEvent *event) {
    if (m_dragAxis < 0) {
        const qsizetype axis = axisAt(event->position().x());
        setCursor(axis < 0                                       ? Qt::ArrowCursor
                  : event->position().y() < plotRect().top() - 4 ? Qt::SizeHorCursor
                                                                 : Qt::CrossCursor);
        return;
    }
    const QRectF plot = plotRect();
    m_dragged = true;
    if (m_moving) { // the nearest slot to the pointer
        const double step =
            m_axes.size() < 2 ? 1 : plot.width() / static_cast<double>(m_axes.size() - 1);
        const auto to =
            static_cast<qsizetype>(std::lround((event->position().x() - plot.left()) / step));
        const QString name = m_axes[m_dragAxis].name;
        moveAxis(name, to);
        m_dragAxis = axisOrder().indexOf(name);
    } else if (m_brushFrom) {
        const double here =
            std::clamp((plot.bottom() - event->position().y()) / plot.height(), 0.0, 1.0);
        m_brushes.insert(m_axes[m_dragAxis].name,
                         {std::min(*m_brushFrom, here), std::max(*m_brushFrom, here)});
        redraw();
    }
    event->accept();
}

void ParallelCoordinates::mouseReleaseEvent(QMouseEvent *event) {
    if (m_dragAxis < 0)
        return QWidget::mouseReleaseEvent(event);
    if (!m_moving && m_brushFrom) {
        const QString name = m_axes[m_dragAxis].name;
        const auto brush = m_brushes.constFind(name);
        if (!m_dragged || (brush != m_brushes.cend() && brush->second - brush->first < 0.01))
            m_brushes.remove(name); // a click, not a drag: that axis unbrushed
        redraw();
        if (m_brushes != m_brushesAtPress)
            Q_EMIT brushChanged(brushedRuns());
    }
    m_dragAxis = -1;
    m_brushFrom.reset();
    m_moving = false;
    event->accept();
}

} // namespace sb
