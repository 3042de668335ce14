#pragma once

#include <QChartView>
#include <QColor>
#include <QHash>
#include <QList>
#include <QPointF>

#include <optional>

class QLineSeries;
class QAbstractAxis;
class QValueAxis;
class QGraphicsSimpleTextItem;
class QRubberBand;

namespace sb {

// One run's line on a chart: the smoothed curve in its colour and, behind it, the raw one faint.
struct Curve {
    QString run;
    QColor color;
    QList<QPointF> points;    // what is drawn solid
    QList<QPointF> rawPoints; // drawn faint behind; empty when there is no smoothing
};

// A line chart for learning curves: data arrives already downsampled to the plot's width and is
// handed to QtCharts with replace(), never point by point. Rubber band and wheel zoom, drag to pan,
// right click or resetZoom() to fit; the zoom survives live updates until it is reset.
class CurveChart final : public QChartView {
    Q_OBJECT
public:
    explicit CurveChart(const QString &title, QWidget *parent = nullptr);

    void setCurves(const QList<Curve> &curves);
    void setLogY(bool logY);
    void setXTitle(const QString &title);
    void resetZoom();
    // The x range the user zoomed to; unset while the chart fits its data.
    std::optional<std::pair<double, double>> xRange() const { return m_userRange; }
    int plotWidth() const;
    QString metric() const { return m_metric; }

Q_SIGNALS:
    // The visible x range or the plot width changed: fetch data for it.
    void viewportChanged();

protected:
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void leaveEvent(QEvent *event) override;

private:
    QLineSeries *seriesFor(const QString &key, const QColor &color, bool faint);
    void rebuildYAxis();
    void fitAxes();
    void setXRange(double lo, double hi, bool byUser);
    void showReadout(const QPointF &position);

    QString m_metric;
    QValueAxis *m_xAxis;
    QAbstractAxis *m_yAxis = nullptr;
    bool m_logY = false;
    QHash<QString, QLineSeries *> m_series;
    QList<Curve> m_curves;
    std::optional<std::pair<double, double>> m_userRange;
    std::optional<std::pair<double, double>> m_userYRange; // set by a zoom rectangle only
    std::optional<QPoint> m_panFrom;
    std::optional<QPoint> m_zoomFrom;
    QRubberBand *m_zoomBand;
    QGraphicsSimpleTextItem *m_readout;
};

} // namespace sb
