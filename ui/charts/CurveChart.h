#pragma once

#include <QChartView>
#include <QColor>
#include <QList>
#include <QPointF>

#include "AxisTicks.h"
#include "CurveLayer.h"
#include "util/Result.h"

#include <functional>
#include <optional>

class QAbstractAxis;
class QCategoryAxis;
class QGraphicsRectItem;
class QGraphicsLineItem;
class QGraphicsTextItem;
class QGraphicsSimpleTextItem;
class QMenu;
class QRubberBand;
class QToolButton;

namespace sb {

// One run's line on a chart: the smoothed curve in its colour and, behind it, the raw one faint.
// A group of runs is one too: its centre line, with its band filled translucent behind.
struct Curve {
    QString run; // for a group, its name
    QColor color;
    QList<QPointF> points;    // what is drawn solid
    QList<QPointF> rawPoints; // drawn faint behind; empty when there is no smoothing
    QList<QPointF> lower;     // a group's band, at the same x as its points; empty for a run
    QList<QPointF> upper;
    QStringList members;     // a group's runs; empty for a run
    qsizetype nonFinite = 0; // values NaN or infinite, not among the points: none to draw
    // On a chart of several metrics, which one this is (each its own line style); else empty.
    QString metric;
    Qt::PenStyle style = Qt::SolidLine;
    int marker = 0; // a shape along the line, for runs of one colour (markerGlyph())
};

// One run's values where the cursor is, for the hover readout.
struct ReadoutRow {
    QString run;
    QString metric; // on a chart of several
    QColor color;
    int marker = 0;
    QPointF smoothed;                              // the drawn curve's point nearest the cursor's x
    std::optional<double> raw;                     // the raw curve's value there, when it is drawn
    std::optional<std::pair<double, double>> band; // a group's band there
    qsizetype members = 0;                         // a group's runs
};

// A line chart for learning curves. Data arrives already downsampled to the plot's width (M4);
// QtCharts draws the axes, grid and title, and a CurveLayer paints the curves (see there why).
// Rubber band and wheel zoom, shift- or middle-drag to pan, right click or resetZoom() to fit;
// the zoom survives live updates until it is reset.
class CurveChart final : public QChartView {
    Q_OBJECT
public:
    explicit CurveChart(const QString &title, QWidget *parent = nullptr);

    // `aside`: what the chart says beside its curves (runs it cannot draw, and why).
    void setCurves(const QList<Curve> &curves, const QString &aside = {});
    void setLogY(bool logY);
    bool logY() const { return m_logY; }
    // Log x (log-log convergence plots); not on a clock-time axis. Points at x <= 0 are left out.
    void setLogX(bool logX);
    bool logX() const { return m_logX && !wallClock(); }
    // Log x as chosen, whether or not this axis (clock time) can show it.
    bool logXChosen() const { return m_logX; }
    // This chart's own arrangement, chosen from its "⋯" menu: across both columns, first of all,
    // and a y range that stays as it is while points arrive (zooming in x included).
    void setFullWidth(bool on);
    bool fullWidth() const { return m_fullWidth; }
    void setPinned(bool on);
    bool pinned() const { return m_pinned; }
    void setYLocked(bool on);
    bool yLocked() const { return m_yLocked; }
    QMenu *optionsMenu() const { return m_options; }
    void setXTitle(const QString &title);
    // What x is: numbers (steps, another metric), clock time (seconds since the epoch) or a
    // duration (seconds since a run's start); its ticks fall and read accordingly.
    void setXUnits(TickUnits units);
    // The ticks an axis shows now (at: in the axis's units, log10 on a log axis).
    QList<Tick> ticksOf(Qt::Orientation orientation) const;
    void resetZoom();
    // Shows this x range (unset: fits the data) as if zoomed here, without saying xZoomed: another
    // chart's zoom, when charts zoom together. y fits what shows, unless locked.
    void followXZoom(std::optional<std::pair<double, double>> range);
    bool wallClock() const { return m_xUnits == TickUnits::Clock; }
    // The x range the user zoomed to; unset while the chart fits its data.
    std::optional<std::pair<double, double>> xRange() const { return m_userRange; }
    int plotWidth() const;
    // How x maps onto the plot now (its range, linear or log).
    AxisScale xScale() const { return {m_xLo, m_xHi, logX()}; }
    AxisScale yScale() const { return {m_yLo, m_yHi, m_logY}; }
    QString metricName() const { return m_metric; }
    // Other metrics drawn here too (train and val loss), each in its line style; the title
    // names them all with their styles. At most kMostMetrics in all.
    static constexpr int kMostMetrics = 4;
    void setOtherMetrics(const QStringList &others);
    const QStringList &otherMetrics() const { return m_others; }
    QStringList metrics() const { return QStringList{m_metric} + m_others; }
    static Qt::PenStyle styleOf(qsizetype metricIndex);
    // What the "Draw here too" menu offers (the metrics there are charts for), asked as it opens.
    void setMetricChoices(std::function<QStringList()> choices) {
        m_metricChoices = std::move(choices);
    }
    const QList<Curve> &curves() const { return m_curves; }
    // Lines and points on screen, after log-y dropped what it cannot show.
    int drawnLines() const;
    qsizetype drawnPoints() const;
    // Every curve's value at x, highest first: only curves whose points span x (a finished run
    // is not read past its end), within `slack` either side.
    static QList<ReadoutRow> readoutAt(const QList<Curve> &curves, double x, double slack);
    // The run under the cursor: drawn bold, the others dimmed; empty: none.
    QString hoveredRun() const { return m_hovered; }
    // What the readout says now, as text.
    QString readoutText() const;
    // What the chart says in place of curves it cannot draw (every value NaN); empty: none.
    QString noteText() const;
    // The chart as a file for a paper or a slide: SVG (vector) or PNG by the name's ending, laid
    // out anew at `size` pixels (PNG at twice that resolution), as it is shown (zoom, log y,
    // theme) with a legend of its curves in the plot's corner.
    Status exportImage(const QString &path, QSize size) const;

Q_SIGNALS:
    // "Export as image…" was chosen from the chart's menu.
    void exportRequested();
    // The visible x range or the plot width changed: fetch data for it.
    void viewportChanged();
    // A click on a run's curve, or on a group's (its name).
    void runClicked(const QString &run);
    // An option changed from the chart's own menu: "logY", "logX", "fullWidth", "pinned",
    // "yLocked" or "with" (the other metrics drawn here).
    void optionsChanged(const QString &option);
    // The user zoomed or panned x here, or fitted the chart: charts that zoom together follow.
    void xZoomed();

protected:
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void changeEvent(QEvent *event) override; // a new palette: light or dark

private:
    // The chart's background, title, axes and grid from the widget's palette.
    void applyPalette();
    // Ticks for both axes' ranges, as many as the plot's size fits.
    void layTicks();
    void fitAxes();
    void remapCurves();
    std::pair<double, double> yRange() const;
    // The data coordinates under a point of the view (QChart::mapToValue needs a series).
    QPointF valueAt(const QPointF &position) const;
    void setXRange(double lo, double hi, bool byUser);
    void setYRange(double lo, double hi);
    void showReadout(const QPointF &position);
    void hideReadout();
    // Centred on a plot with nothing drawn, else in its top left; shown when it has something
    // to say.
    void placeNote();
    // The readout said again where the cursor rests: after a zoom, a fit, new points, a filter.
    void refreshReadout();
    // A legend of the curves in the plot's top right corner (for exported images).
    void paintLegend(QPainter *painter) const;
    void setHovered(const QString &run);

    QString m_metric;
    QStringList m_others;
    std::function<QStringList()> m_metricChoices;
    QString m_xTitle; // as given: the axis holds it escaped
    // Labels and grid only: the curves are drawn over m_xLo..m_xHi and m_yLo..m_yHi by the layer.
    QCategoryAxis *m_xAxis = nullptr;
    double m_xLo = 0;
    double m_xHi = 1;
    TickUnits m_xUnits = TickUnits::Number;
    QCategoryAxis *m_yAxis = nullptr;
    double m_yLo = 0;
    double m_yHi = 1;
    QList<Tick> m_xTicks; // what the axes label now
    QList<Tick> m_yTicks;
    bool m_logY = false;
    bool m_logX = false;
    CurveLayer *m_layer;
    QList<Curve> m_curves;
    std::optional<std::pair<double, double>> m_userRange;
    std::optional<std::pair<double, double>> m_userYRange; // set by a zoom rectangle only
    std::optional<QPoint> m_panFrom;
    std::optional<QPoint> m_zoomFrom;
    std::optional<QPointF> m_readoutAt; // where the cursor rests while the readout shows
    QRubberBand *m_zoomBand;
    QGraphicsTextItem *m_readout;
    QGraphicsRectItem *m_readoutBox;           // keeps the readout legible over the curves
    QGraphicsLineItem *m_crosshair;            // the cursor's x, across the plot
    QGraphicsSimpleTextItem *m_note = nullptr; // in place of curves with nothing to draw
    QString m_hovered;
    bool m_fullWidth = false;
    bool m_pinned = false;
    bool m_yLocked = false;
    QToolButton *m_optionsButton;
    QMenu *m_options;
};

} // namespace sb
