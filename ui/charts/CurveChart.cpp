#include "CurveChart.h"

#include "CurveLayer.h"
#include "util/PlainText.h"

#include <QCategoryAxis>
#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QFontMetrics>
#include <QGraphicsLineItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QImage>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QRubberBand>
#include <QSvgGenerator>
#include <QToolButton>

#include <algorithm>
#include <cmath>
#include <limits>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// Binary search for the point nearest to x in a list sorted by x.
std::optional<QPointF> nearest(const QList<QPointF> &points, double x) {
    if (points.isEmpty())
        return std::nullopt;
    const auto it = std::lower_bound(points.begin(), points.end(), x,
                                     [](const QPointF &p, double v) { return p.x() < v; });
    if (it == points.end())
        return points.back();
    if (it == points.begin())
        return *it;
    const auto before = std::prev(it);
    return x - before->x() < it->x() - x ? *before : *it;
}

} // namespace

CurveChart::CurveChart(const QString &title, QWidget *parent)
    : QChartView(new QChart, parent)
    , m_metric(title)
    , m_layer(new CurveLayer(chart())) {
    QChart *c = chart();
    c->setTitle(htmlOf(title)); // QtCharts titles are rich text; a name is not
    c->legend()->hide();
    c->setMargins(QMargins(4, 4, 4, 4));
    c->setBackgroundRoundness(0);
    // Categories at our ticks: QtCharts' own axes elide or drop labels in a narrow chart, label
    // one decade of a log axis once, and put clock ticks at odd seconds.
    for (QCategoryAxis **axis : {&m_xAxis, &m_yAxis}) {
        *axis = new QCategoryAxis(this);
        (*axis)->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
        (*axis)->setTruncateLabels(false);
    }
    c->addAxis(m_xAxis, Qt::AlignBottom);
    c->addAxis(m_yAxis, Qt::AlignLeft);
    applyPalette();
    connect(c, &QChart::plotAreaChanged, this, [this] {
        remapCurves();
        placeNote();
        layTicks(); // as many as the new size fits
    });
    setRubberBand(QChartView::NoRubberBand); // ours: QtCharts' own moves axes behind our back
    setMouseTracking(true);
    setMinimumHeight(220);
    m_zoomBand = new QRubberBand(QRubberBand::Rectangle, this);
    m_readoutBox = new QGraphicsRectItem(c);
    m_readoutBox->setZValue(9);
    m_readoutBox->setPen(Qt::NoPen);
    m_readoutBox->hide();
    m_readout = new QGraphicsTextItem(c);
    m_readout->setZValue(10);
    m_readout->hide();
    m_crosshair = new QGraphicsLineItem(c);
    m_crosshair->setZValue(8);
    m_crosshair->hide();
    m_note = new QGraphicsSimpleTextItem(c);
    m_note->setZValue(7);
    m_note->setBrush(palette().text());
    m_note->hide();

    // The chart's own options, in a menu at its top right corner.
    m_options = new QMenu(this);
    const auto option = [this](const QString &text, const QString &name, auto apply) {
        QAction *action = m_options->addAction(text);
        action->setObjectName(name);
        action->setCheckable(true);
        connect(action, &QAction::triggered, this, [this, apply, name](bool on) {
            apply(on);
            Q_EMIT optionsChanged(name);
        });
        return action;
    };
    QAction *logY = option(tr("Log y"), u"logY"_s, [this](bool on) { setLogY(on); });
    QAction *logX = option(tr("Log x"), u"logX"_s, [this](bool on) { setLogX(on); });
    QAction *full = option(tr("Full width"), u"fullWidth"_s, [this](bool on) { setFullWidth(on); });
    QAction *pin = option(tr("Pin to the top"), u"pinned"_s, [this](bool on) { setPinned(on); });
    QAction *lock =
        option(tr("Lock the y range"), u"yLocked"_s, [this](bool on) { setYLocked(on); });
    // Other metrics on this chart: train and val loss together.
    QMenu *together = m_options->addMenu(tr("Draw here too"));
    together->setObjectName(u"drawHereToo"_s);
    connect(together, &QMenu::aboutToShow, this, [this, together] {
        together->clear();
        const QStringList choices = m_metricChoices ? m_metricChoices() : QStringList();
        // Those that end as this one does first (val/loss beside train/loss).
        const QString tail = m_metric.section(u'/', -1);
        QStringList offered;
        for (const bool alike : {true, false}) {
            for (const QString &metric : choices) {
                if (metric != m_metric && (metric.section(u'/', -1) == tail) == alike)
                    offered << metric;
            }
        }
        if (offered.isEmpty())
            together->addAction(tr("No other metric is charted"))->setEnabled(false);
        for (const QString &metric : std::as_const(offered).mid(0, 50)) {
            QAction *action = together->addAction(QString(metric).replace(u'&', u"&&"_s));
            action->setCheckable(true);
            action->setChecked(m_others.contains(metric));
            action->setEnabled(m_others.contains(metric) || m_others.size() + 1 < kMostMetrics);
            connect(action, &QAction::toggled, this, [this, metric](bool on) {
                QStringList others = m_others;
                if (on)
                    others << metric;
                else
                    others.removeAll(metric);
                setOtherMetrics(others);
                Q_EMIT optionsChanged(u"with"_s);
            });
        }
    });
    m_options->addSeparator();
    m_options->addAction(tr("Fit to the data (right-click)"), this, [this] {
        resetZoom();
        Q_EMIT xZoomed();
    });
    m_options->addAction(tr("Export as image (PNG, SVG)…"), this, &CurveChart::exportRequested)
        ->setObjectName(u"exportImage"_s);
    connect(m_options, &QMenu::aboutToShow, this, [this, logY, logX, full, pin, lock] {
        logY->setChecked(m_logY);
        logX->setEnabled(!wallClock());
        logX->setChecked(this->logX());
        full->setChecked(m_fullWidth);
        pin->setChecked(m_pinned);
        lock->setChecked(m_yLocked);
    });
    m_optionsButton = new QToolButton(this);
    m_optionsButton->setObjectName(u"chartOptions"_s);
    m_optionsButton->setText(u"⋯"_s);
    m_optionsButton->setToolTip(tr("This chart's options"));
    m_optionsButton->setAutoRaise(true);
    m_optionsButton->setPopupMode(QToolButton::InstantPopup);
    m_optionsButton->setMenu(m_options);
}

Qt::PenStyle CurveChart::styleOf(qsizetype metricIndex) {
    static constexpr Qt::PenStyle styles[kMostMetrics] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine,
                                                          Qt::DashDotLine};
    return styles[std::clamp<qsizetype>(metricIndex, 0, kMostMetrics - 1)];
}

void CurveChart::setOtherMetrics(const QStringList &others) {
    m_others.clear();
    for (const QString &metric : others) {
        if (metric != m_metric && !m_others.contains(metric) && m_others.size() + 1 < kMostMetrics)
            m_others << metric;
    }
    if (m_others.isEmpty()) {
        chart()->setTitle(htmlOf(m_metric)); // QtCharts titles are rich text; a name is not
        return;
    }
    // Each name with a sample of its line: solid, dashed, dotted, dash-dot.
    static const QString samples[kMostMetrics] = {u"——"_s, u"– –"_s, u"···"_s, u"–·–"_s};
    QStringList named;
    const QStringList all = metrics();
    for (qsizetype i = 0; i < all.size(); ++i)
        named << htmlOf(all[i]) + u" <b>"_s + samples[i] + u"</b>"_s;
    chart()->setTitle(named.join(u"&nbsp;&nbsp; "_s));
}

void CurveChart::setFullWidth(bool on) {
    m_fullWidth = on;
}

void CurveChart::setPinned(bool on) {
    m_pinned = on;
}

void CurveChart::setYLocked(bool on) {
    m_yLocked = on;
    if (on) {
        m_userYRange = yRange();
    } else {
        m_userYRange.reset();
        fitAxes();
    }
}

void CurveChart::setCurves(const QList<Curve> &curves, const QString &aside) {
    m_curves = curves;
    m_layer->setCurves(&m_curves);
    fitAxes();
    // Points, and none of them a number to draw: said, rather than an empty chart.
    bool points = false;
    bool finite = false;
    for (const Curve &curve : m_curves) {
        points = points || curve.nonFinite > 0;
        for (const QPointF &point : curve.points) {
            points = true;
            finite = finite || std::isfinite(point.y());
        }
    }
    QStringList note;
    if (points && !finite)
        note << tr("Nothing to draw: every value here is NaN or infinite");
    if (!aside.isEmpty())
        note << aside;
    m_note->setText(note.join(u'\n'));
    placeNote();
    refreshReadout();
}

QString CurveChart::noteText() const {
    return m_note->isVisible() ? m_note->text() : QString();
}

void CurveChart::placeNote() {
    m_note->setVisible(!m_note->text().isEmpty());
    const QRectF plot = chart()->plotArea();
    const QRectF text = m_note->boundingRect();
    const bool drawn = m_layer->pointCount() > 0;
    m_note->setPos(drawn ? plot.topLeft() + QPointF(6, 4)
                         : plot.center() - QPointF(text.width() / 2, text.height() / 2));
}

void CurveChart::refreshReadout() {
    if (m_readoutAt)
        showReadout(*m_readoutAt);
}

int CurveChart::drawnLines() const {
    return m_layer->lineCount();
}

qsizetype CurveChart::drawnPoints() const {
    return m_layer->pointCount();
}

std::pair<double, double> CurveChart::yRange() const {
    return {m_yLo, m_yHi};
}

QPointF CurveChart::valueAt(const QPointF &position) const {
    const QRectF plot = chart()->plotArea();
    if (plot.isEmpty())
        return {};
    return {xScale().fromUnit((position.x() - plot.left()) / plot.width()),
            yScale().fromUnit((plot.bottom() - position.y()) / plot.height())};
}

void CurveChart::remapCurves() {
    m_layer->remap(xScale(), yScale());
}

void CurveChart::fitAxes() {
    double xMin = std::numeric_limits<double>::infinity(), xMax = -xMin;
    double yMin = xMin, yMax = -xMin;
    for (const Curve &curve : std::as_const(m_curves)) {
        for (const auto *points : {&curve.points, &curve.rawPoints, &curve.lower, &curve.upper}) {
            for (const QPointF &p : *points) {
                if (!std::isfinite(p.y()) || (m_logY && p.y() <= 0) || (logX() && p.x() <= 0))
                    continue;
                xMin = std::min(xMin, p.x());
                xMax = std::max(xMax, p.x());
                if (!m_userRange || (p.x() >= m_userRange->first && p.x() <= m_userRange->second)) {
                    yMin = std::min(yMin, p.y());
                    yMax = std::max(yMax, p.y());
                }
            }
        }
    }
    if (!std::isfinite(xMin)) {
        remapCurves();
        return;
    }
    if (m_userRange) {
        setXRange(m_userRange->first, m_userRange->second, false);
    } else if (xMax > xMin) {
        setXRange(xMin, xMax, false);
    } else if (logX()) { // every point at one x: it in the middle, not on the edge
        setXRange(xMin / 2, xMin * 2, false);
    } else {
        setXRange(xMin - 0.5, xMin + 0.5, false);
    }
    if (m_userYRange) {
        setYRange(m_userYRange->first, m_userYRange->second);
    } else if (std::isfinite(yMin)) {
        // In halves and clamped, so that values near +-1e308 give a range, not infinities.
        const double pad =
            yMax > yMin ? (yMax / 2 - yMin / 2) * 0.1 : std::max(std::abs(yMin) * 0.05, 1e-9);
        constexpr double largest = std::numeric_limits<double>::max();
        if (m_logY) {
            setYRange(yMin / 1.2, std::min(yMax * 1.2, largest));
        } else {
            setYRange(std::max(yMin - pad, -largest), std::min(yMax + pad, largest));
        }
    }
    remapCurves();
}

void CurveChart::setYRange(double lo, double hi) {
    if (m_logY && !(lo > 0 && hi > lo))
        return;
    m_yLo = lo;
    m_yHi = hi;
    layTicks();
    refreshReadout();
}

void CurveChart::setXRange(double lo, double hi, bool byUser) {
    // Zoomed or panned past what the axis shows (to infinity, to a span below the digits of its
    // values, to zero on a log axis): left where it was, and never passed to the other charts.
    const AxisScale asked{lo, hi, logX()};
    const double a0 = asked.log ? std::log10(lo) : lo;
    const double a1 = asked.log ? std::log10(hi) : hi;
    if (!asked.valid() || !std::isfinite(a0) || !std::isfinite(a1) ||
        !(a1 / 2 - a0 / 2 > 5e-15 * std::max({std::abs(a0), std::abs(a1), 1e-300})))
        return;
    m_xLo = lo;
    m_xHi = hi;
    layTicks();
    if (byUser) {
        remapCurves();
        m_userRange = std::make_pair(lo, hi);
        Q_EMIT viewportChanged();
        Q_EMIT xZoomed();
    }
    refreshReadout();
}

QList<Tick> CurveChart::ticksOf(Qt::Orientation orientation) const {
    return orientation == Qt::Horizontal ? m_xTicks : m_yTicks;
}

void CurveChart::layTicks() {
    const QRectF plot = chart()->plotArea();
    const QFontMetrics metrics(m_xAxis->labelsFont());
    const TickUnits xUnits = logX() ? TickUnits::Log : m_xUnits;
    // x: as many as fit side by side with a gap, in the width the plot has with the least right
    // margin (the margin follows the last label: counted in, the two would chase each other).
    const int width =
        std::max(100, static_cast<int>(plot.width()) + chart()->margins().right() - 4);
    const auto widest = [&metrics](const QList<Tick> &ticks) {
        int most = 0;
        for (const Tick &tick : ticks)
            most = std::max(most, metrics.horizontalAdvance(tick.label));
        return most;
    };
    QList<Tick> xTicks;
    for (int most = std::max(2, width / 60); most >= 2; --most) {
        xTicks = ticksFor(xUnits, m_xLo, m_xHi, most);
        if (xTicks.size() * (widest(xTicks) + 18) <= width)
            break;
    }
    while (xTicks.size() > 1 && xTicks.size() * (widest(xTicks) + 18) > width) {
        for (qsizetype i = xTicks.size() - 2; i >= 0; i -= 2) // too narrow: every other one
            xTicks.removeAt(i);
    }
    // y: one every two lines.
    const int height = std::max(60, static_cast<int>(plot.height()));
    const QList<Tick> yTicks =
        ticksFor(m_logY ? TickUnits::Log : TickUnits::Number, m_yLo, m_yHi,
                 std::max(2, static_cast<int>(height / (metrics.height() * 2.0))));
    // The axes run from 0 to 1 with each tick at its place along the plot: QtCharts lays out an
    // axis from its span, which for values near ±1e308 is infinite and for milliseconds of a
    // clock is below the digits of its values.
    const auto lay = [](QCategoryAxis *axis, const AxisScale &scale, const QList<Tick> &ticks) {
        const double a0 = scale.log ? std::log10(scale.lo) : scale.lo;
        const double a1 = scale.log ? std::log10(scale.hi) : scale.hi;
        QList<std::pair<QString, double>> wanted;
        double last = -1e-6;
        for (const Tick &tick : ticks) {
            const double at = (tick.at / 2 - a0 / 2) / (a1 / 2 - a0 / 2);
            if (std::isfinite(at) && at > last && at <= 1 + 1e-9) {
                wanted.append({tick.label, at});
                last = at;
            }
        }
        // Laid again only when they move: QtCharts lays the whole chart out at each change, and
        // a refresh sets both ranges more than once.
        const QStringList labels = axis->categoriesLabels();
        bool same = labels.size() == wanted.size();
        for (qsizetype i = 0; same && i < labels.size(); ++i)
            same = labels[i] == wanted[i].first && axis->endValue(labels[i]) == wanted[i].second;
        if (same && axis->min() == 0 && axis->max() == 1)
            return;
        for (const QString &label : labels)
            axis->remove(label);
        axis->setStartValue(-1e-6);
        for (const auto &[label, at] : wanted)
            axis->append(label, at);
        axis->setRange(0, 1);
    };
    m_xTicks = xTicks;
    m_yTicks = yTicks;
    lay(m_xAxis, xScale(), xTicks);
    lay(m_yAxis, yScale(), yTicks);
    // Room on the right for half the last label, which is centred on the plot's edge.
    const int right = xTicks.isEmpty() ? 4 : metrics.horizontalAdvance(xTicks.last().label) / 2 + 4;
    if (chart()->margins().right() != right)
        chart()->setMargins(QMargins(4, 4, right, 4));
}

void CurveChart::setLogY(bool logY) {
    if (logY == m_logY)
        return;
    m_logY = logY;
    m_yLocked = false; // a range on the other scale means nothing
    m_userYRange.reset();
    if (logY && !(m_yLo > 0)) { // a start a log axis can show until the curves say theirs
        m_yLo = 0.1;
        m_yHi = std::max(m_yHi, 1.0);
    }
    setCurves(m_curves);
}

void CurveChart::setLogX(bool logX) {
    if (logX == m_logX)
        return;
    m_logX = logX;
    m_userRange.reset();        // a range on the other scale means nothing
    if (logX && !(m_xLo > 0)) { // a start a log axis can show until the curves say theirs
        m_xLo = 1;
        m_xHi = std::max(m_xHi, 10.0);
    }
    setCurves(m_curves);
    Q_EMIT viewportChanged(); // the columns are asked for anew, even in log x
}

void CurveChart::setXUnits(TickUnits units) {
    if (units == m_xUnits || units == TickUnits::Log)
        return;
    m_xUnits = units;
    layTicks();
    remapCurves();
}

void CurveChart::applyPalette() {
    const QPalette p = palette();
    // A grid line is the text colour faintly over the background, whichever is light.
    const auto faint = [&p](double amount) {
        const QColor base = p.color(QPalette::Base), text = p.color(QPalette::Text);
        return QColor::fromRgbF(base.redF() + (text.redF() - base.redF()) * amount,
                                base.greenF() + (text.greenF() - base.greenF()) * amount,
                                base.blueF() + (text.blueF() - base.blueF()) * amount);
    };
    QChart *c = chart();
    c->setBackgroundBrush(p.base());
    c->setBackgroundPen(Qt::NoPen);
    c->setTitleBrush(p.text());
    setBackgroundBrush(p.window());
    if (m_note)
        m_note->setBrush(p.text());
    for (QAbstractAxis *axis : std::initializer_list<QAbstractAxis *>{m_xAxis, m_yAxis}) {
        if (!axis)
            continue;
        axis->setLabelsBrush(p.text());
        axis->setTitleBrush(p.text());
        axis->setLinePenColor(faint(0.45));
        axis->setGridLineColor(faint(0.15));
        axis->setMinorGridLineColor(faint(0.07));
    }
}

void CurveChart::changeEvent(QEvent *event) {
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void CurveChart::setXTitle(const QString &title) {
    m_xTitle = title;
    m_xAxis->setTitleText(htmlOf(title)); // rich text, as the chart's title
}

Status CurveChart::exportImage(const QString &path, QSize size) const {
    if (size.width() < 50 || size.height() < 50 || size.width() > 20000 || size.height() > 20000)
        return fail(tr("An image from 50 to 20,000 pixels a side, please"));
    // A copy laid out at the asked size, never shown: the chart on screen is left as it is.
    CurveChart copy(m_metric);
    copy.setAttribute(Qt::WA_DontShowOnScreen);
    copy.setPalette(palette());
    copy.m_optionsButton->hide();
    copy.setXTitle(m_xTitle);
    copy.setXUnits(m_xUnits);
    copy.setLogY(m_logY);
    copy.setLogX(m_logX);
    copy.setOtherMetrics(m_others);
    copy.m_userRange = m_userRange;
    copy.m_userYRange = m_userYRange; // a y zoom or lock; else fitted, with round ticks
    copy.setCurves(m_curves);
    copy.m_layer->setExporting(true); // every curve as lines (SVG keeps them vector)
    copy.resize(size);
    copy.show();
    QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents); // lays it out, ticks too
    auto paint = [&copy, size](QPainter *painter) {
        copy.render(painter, QRectF(QPointF(0, 0), size), copy.rect());
        copy.paintLegend(painter);
    };
    if (path.endsWith(u".svg"_s, Qt::CaseInsensitive)) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(m_metric);
        svg.setDescription(tr("Exported by Signalbox"));
        QPainter painter;
        if (!painter.begin(&svg))
            return fail(tr("Could not write %1").arg(path));
        paint(&painter);
        if (!painter.end())
            return fail(tr("Could not write %1").arg(path));
        return QFileInfo(path).size() > 0 ? success() : fail(tr("Could not write %1").arg(path));
    }
    QImage image(size * 2, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(2);
    image.fill(copy.palette().color(QPalette::Window));
    {
        QPainter painter(&image);
        paint(&painter);
    }
    return image.save(path) ? success() : fail(tr("Could not write %1").arg(path));
}

void CurveChart::paintLegend(QPainter *painter) const {
    constexpr int kMostNamed = 20;
    if (m_curves.isEmpty())
        return;
    const QFontMetrics metrics(font());
    const QRectF plot = chart()->plotArea();
    // Each curve as the chart draws it: its colour, line style and shape, "run · metric" on a
    // chart of several metrics.
    const auto nameOf = [&metrics](const Curve &curve) {
        return metrics.elidedText(curve.metric.isEmpty() ? curve.run
                                                         : curve.run + u" · "_s + curve.metric,
                                  Qt::ElideMiddle, 300);
    };
    const int rows = static_cast<int>(std::min<qsizetype>(m_curves.size(), kMostNamed));
    int textWidth = 0;
    for (int i = 0; i < rows; ++i)
        textWidth = std::max(textWidth, metrics.horizontalAdvance(nameOf(m_curves[i])));
    const int line = metrics.height();
    const QRectF box(plot.right() - textWidth - 40, plot.top() + 6, textWidth + 34,
                     line * (rows + (m_curves.size() > kMostNamed ? 1 : 0)) + 8);
    painter->save();
    QColor background = palette().color(QPalette::Base);
    background.setAlphaF(0.85f);
    painter->setPen(QPen(palette().color(QPalette::Mid), 0));
    painter->setBrush(background);
    painter->drawRect(box);
    painter->setFont(font());
    for (int i = 0; i < rows; ++i) {
        const Curve &curve = m_curves[i];
        const qreal y = box.top() + 4 + i * line + line / 2.0;
        painter->setPen(QPen(curve.color, 2, curve.style, Qt::FlatCap));
        painter->drawLine(QPointF(box.left() + 5, y), QPointF(box.left() + 25, y));
        if (curve.marker > 0)
            drawMarker(painter, QPointF(box.left() + 15, y), curve.marker, curve.color);
        painter->setPen(palette().color(QPalette::Text));
        painter->drawText(QPointF(box.left() + 30, y - line / 2.0 + metrics.ascent()),
                          nameOf(curve));
    }
    if (m_curves.size() > kMostNamed)
        painter->drawText(QPointF(box.left() + 30, box.top() + 4 + rows * line + metrics.ascent()),
                          tr("and %1 more").arg(m_curves.size() - kMostNamed));
    painter->restore();
}

void CurveChart::resetZoom() {
    m_userRange.reset();
    m_yLocked = false;
    m_userYRange.reset();
    fitAxes();
    Q_EMIT viewportChanged();
}

void CurveChart::followXZoom(std::optional<std::pair<double, double>> range) {
    if (range && logX() && !(range->first > 0 && range->second > range->first))
        range.reset(); // a range from zero a log axis cannot show: this chart fits its data
    if (range == m_userRange)
        return;
    m_userRange = range;
    if (!m_yLocked)
        m_userYRange.reset(); // y fits what shows here
    fitAxes();
    Q_EMIT viewportChanged();
}

int CurveChart::plotWidth() const {
    return std::max(50, static_cast<int>(chart()->plotArea().width()));
}

void CurveChart::wheelEvent(QWheelEvent *event) {
    // The wheel scrolls the page of charts; Ctrl+wheel zooms the one under the pointer.
    if (!(event->modifiers() & Qt::ControlModifier)) {
        event->ignore();
        return;
    }
    const double factor = event->angleDelta().y() > 0 ? 0.8 : 1.25;
    const QRectF plot = chart()->plotArea();
    const double at = (event->position().x() - plot.left()) / std::max(1.0, plot.width());
    const AxisScale x = xScale(); // zoomed about the pointer, evenly on a log axis too
    setXRange(x.fromUnit(at - at * factor), x.fromUnit(at + (1 - at) * factor), true);
    event->accept();
}

void CurveChart::mousePressEvent(QMouseEvent *event) {
    // Shift-drag or middle-drag pans; a plain drag draws the zoom rectangle.
    if (event->button() == Qt::MiddleButton ||
        (event->button() == Qt::LeftButton && event->modifiers() & Qt::ShiftModifier)) {
        m_panFrom = event->pos();
        setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    if (event->button() == Qt::RightButton) {
        event->accept();
        return;
    }
    if (event->button() == Qt::LeftButton && chart()->plotArea().contains(event->position())) {
        m_zoomFrom = event->pos();
        m_zoomBand->setGeometry(QRect(event->pos(), QSize()));
        m_zoomBand->show();
        event->accept();
        return;
    }
    QChartView::mousePressEvent(event);
}

void CurveChart::mouseMoveEvent(QMouseEvent *event) {
    if (m_panFrom) {
        const double dx =
            (m_panFrom->x() - event->pos().x()) / std::max(1.0, chart()->plotArea().width());
        m_panFrom = event->pos();
        const AxisScale x = xScale();
        setXRange(x.fromUnit(dx), x.fromUnit(1 + dx), true);
        event->accept();
        return;
    }
    if (m_zoomFrom) {
        m_zoomBand->setGeometry(QRect(*m_zoomFrom, event->pos()).normalized());
        event->accept();
        return;
    }
    showReadout(event->position());
    QChartView::mouseMoveEvent(event);
}

void CurveChart::mouseReleaseEvent(QMouseEvent *event) {
    if (m_panFrom) {
        m_panFrom.reset();
        unsetCursor();
        event->accept();
        return;
    }
    if (event->button() == Qt::RightButton) {
        resetZoom();
        Q_EMIT xZoomed();
        event->accept();
        return;
    }
    if (m_zoomFrom) {
        const QRect band = QRect(*m_zoomFrom, event->pos()).normalized();
        m_zoomFrom.reset();
        m_zoomBand->hide();
        if (m_readoutAt)
            m_readoutAt = event->position(); // read again where the band was let go
        if (band.width() <= 4 && band.height() <= 4 && !m_hovered.isEmpty()) {
            Q_EMIT runClicked(m_hovered); // a click, not a drag: the run under the cursor
        } else if (band.width() > 4 && band.height() > 4) {
            const QPointF a = valueAt(band.topLeft());
            const QPointF b = valueAt(band.bottomRight());
            m_userYRange = std::make_pair(std::min(a.y(), b.y()), std::max(a.y(), b.y()));
            setYRange(m_userYRange->first, m_userYRange->second);
            setXRange(std::min(a.x(), b.x()), std::max(a.x(), b.x()), true);
        }
        event->accept();
        return;
    }
    QChartView::mouseReleaseEvent(event);
}

void CurveChart::resizeEvent(QResizeEvent *event) {
    QChartView::resizeEvent(event);
    m_optionsButton->move(width() - m_optionsButton->sizeHint().width() - 6, 4);
    Q_EMIT viewportChanged();
}

void CurveChart::leaveEvent(QEvent *event) {
    hideReadout();
    QChartView::leaveEvent(event);
}

QList<ReadoutRow> CurveChart::readoutAt(const QList<Curve> &curves, double x, double slack) {
    QList<ReadoutRow> rows;
    for (const Curve &curve : curves) {
        if (curve.points.isEmpty() || x < curve.points.front().x() - slack ||
            x > curve.points.back().x() + slack)
            continue; // not read past a run's ends
        ReadoutRow row{curve.run,
                       curve.metric,
                       curve.color,
                       curve.marker,
                       *nearest(curve.points, x),
                       std::nullopt,
                       std::nullopt,
                       curve.members.size()};
        if (const auto raw = nearest(curve.rawPoints, x))
            row.raw = raw->y();
        const auto lower = nearest(curve.lower, x);
        const auto upper = nearest(curve.upper, x);
        if (lower && upper && lower->y() != upper->y())
            row.band = std::make_pair(lower->y(), upper->y());
        rows << row;
    }
    std::stable_sort(rows.begin(), rows.end(), [](const ReadoutRow &a, const ReadoutRow &b) {
        return a.smoothed.y() > b.smoothed.y();
    });
    return rows;
}

QString CurveChart::readoutText() const {
    return m_readout->isVisible() ? m_readout->toPlainText() : QString();
}

void CurveChart::hideReadout() {
    m_readoutAt.reset();
    m_readout->hide();
    m_readoutBox->hide();
    m_crosshair->hide();
    setHovered({});
}

void CurveChart::setHovered(const QString &run) {
    if (run == m_hovered)
        return;
    m_hovered = run;
    m_layer->setEmphasis(run);
}

void CurveChart::showReadout(const QPointF &position) {
    const QRectF plot = chart()->plotArea();
    if (!plot.contains(position) || m_curves.isEmpty())
        return hideReadout();
    constexpr int kMostRows = 12;
    const QPointF value = valueAt(position);
    const double slack = std::abs(valueAt(position + QPointF(3, 0)).x() - value.x()); // 3 px
    QList<ReadoutRow> rows = readoutAt(m_curves, value.x(), slack);
    if (rows.isEmpty()) {
        hideReadout();
        m_readoutAt = position; // said again once a curve comes under the cursor
        return;
    }
    m_readoutAt = position;
    // The run under the cursor: the nearest curve within 8 pixels, bold; the others dimmed.
    const auto [yMin, yMax] = yRange();
    const auto scaled = [this](double y) {
        return m_logY ? std::log10(std::max(y, 1e-300)) : y;
    };
    const double pixelsPerY = plot.height() / std::max(1e-300, scaled(yMax) - scaled(yMin));
    auto distance = [&](const ReadoutRow &row) {
        return std::abs(scaled(row.smoothed.y()) - scaled(value.y())) * pixelsPerY;
    };
    const auto closest =
        std::min_element(rows.begin(), rows.end(),
                         [&](const auto &a, const auto &b) { return distance(a) < distance(b); });
    setHovered(distance(*closest) <= 8 ? closest->run : QString());
    // With many runs, the ones nearest the cursor, still highest first.
    const qsizetype hidden = std::max<qsizetype>(0, rows.size() - kMostRows);
    if (hidden > 0) {
        QList<ReadoutRow> near = rows;
        std::stable_sort(near.begin(), near.end(),
                         [&](const auto &a, const auto &b) { return distance(a) < distance(b); });
        near.resize(kMostRows);
        rows.removeIf([&near](const ReadoutRow &row) {
            return std::none_of(near.begin(), near.end(), [&row](const ReadoutRow &n) {
                return n.run == row.run && n.metric == row.metric;
            });
        });
    }
    const QFontMetrics metrics(font());
    const auto number = [](double v) {
        return QString::number(v, 'g', 6);
    };
    // The x of the data point nearest the cursor: a step that was logged, not one in between.
    // A group's points lie at its pixel columns' centres: its x is said as about that.
    const auto nearestRow =
        std::min_element(rows.cbegin(), rows.cend(), [&value](const auto &a, const auto &b) {
            return std::abs(a.smoothed.x() - value.x()) < std::abs(b.smoothed.x() - value.x());
        });
    const double x = nearestRow->smoothed.x();
    const bool about = nearestRow->members > 0;
    const QString xText =
        about ? u"≈ "_s + number(std::abs(x) >= 10 ? std::round(x) : x) : u"= "_s + number(x);
    QString html = u"<div style=\"white-space:nowrap\"><b>%1</b>"_s.arg(
        wallClock() ? (about ? u"≈ "_s : QString()) +
                          QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(x * 1000))
                              .toString(u"yyyy-MM-dd hh:mm:ss"_s)
                    : u"%1 %2"_s.arg(chart()->axes(Qt::Horizontal).value(0)
                                         ? chart()->axes(Qt::Horizontal).first()->titleText()
                                         : u"x"_s,
                                     xText));
    for (const ReadoutRow &row : std::as_const(rows)) {
        QString name = htmlOf(metrics.elidedText(row.run, Qt::ElideMiddle, 220));
        if (!row.metric.isEmpty())
            name += u" <span style=\"color:gray\">· %1</span>"_s.arg(
                htmlOf(metrics.elidedText(row.metric, Qt::ElideMiddle, 160)));
        if (row.members > 0)
            name += u" <span style=\"color:gray\">×%1</span>"_s.arg(row.members);
        // The smoothed value, and the raw one (or a group's band) beside it where they differ.
        const QString aside =
            row.band ? u"%1 – %2"_s.arg(number(row.band->first), number(row.band->second))
            : row.raw && *row.raw != row.smoothed.y() ? number(*row.raw)
                                                      : QString();
        html += u"<br><span style=\"color:%1\">%5</span> %2&nbsp; %3%4"_s.arg(
            row.color.name(), row.run == m_hovered ? u"<b>"_s + name + u"</b>"_s : name,
            number(row.smoothed.y()),
            aside.isEmpty() ? QString() : u" <span style=\"color:gray\">(%1)</span>"_s.arg(aside),
            markerGlyph(row.marker));
    }
    if (hidden > 0)
        html += u"<br><i>%1</i>"_s.arg(tr("and %1 more").arg(hidden));
    html += u"</div>"_s;
    m_readout->setDefaultTextColor(palette().color(QPalette::ToolTipText));
    m_readout->setHtml(html);
    // Kept inside the plot: right of the cursor, else left; clamped top and bottom.
    const QSizeF size = m_readout->boundingRect().size();
    QPointF at = position + QPointF(14, -size.height() / 2);
    if (at.x() + size.width() > plot.right())
        at.setX(position.x() - size.width() - 14);
    at.setX(std::max(at.x(), plot.left()));
    at.setY(std::clamp(at.y(), plot.top(), std::max(plot.top(), plot.bottom() - size.height())));
    m_readout->setPos(at);
    m_readout->show();
    QColor background = palette().color(QPalette::ToolTipBase);
    background.setAlphaF(0.92);
    m_readoutBox->setBrush(background);
    m_readoutBox->setRect(QRectF(at, size));
    m_readoutBox->show();
    QColor line = palette().color(QPalette::Text);
    line.setAlphaF(0.35);
    m_crosshair->setPen(QPen(line, 0));
    m_crosshair->setLine(QLineF(position.x(), plot.top(), position.x(), plot.bottom()));
    m_crosshair->show();
}

} // namespace sb
