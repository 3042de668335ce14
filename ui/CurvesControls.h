#pragma once

#include "metrics/CollectorApi.h"
#include "metrics/RunGrouping.h"

#include <QWidget>

#include <functional>

class QCheckBox;
class QJsonObject;
class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QToolButton;

namespace sb {

// The curves view's toolbar: smoothing (weight and kind), the x axis (step, time, or another
// metric), log y, the legend, how runs are grouped, and the ways in and out (a TensorBoard
// logdir, reset zoom, export). Choices are remembered.
class CurvesControls final : public QWidget {
    Q_OBJECT
public:
    // `shownRuns`: the runs shown now, whose config keys the grouping dialog offers.
    explicit CurvesControls(std::function<QList<RunInfo>()> shownRuns, QWidget *parent = nullptr);

    double smoothing() const;
    void setSmoothing(double weight);
    SmoothingKind smoothingKind() const;
    XAxis xAxis() const;
    QString xAxisTitle() const;
    // The metric chosen as x, if one is (else a time axis or the step).
    QString xMetric() const;
    // Every metric can be another's x (tokens seen, epoch): listed after the time axes.
    void addXMetrics(const QStringList &metrics);
    bool logY() const;
    bool logX() const;
    // The charts' layout: how many a row, how tall, and whether zooming one zooms them all.
    int columns() const;
    int chartHeight() const;
    bool syncZoom() const;
    static constexpr int kChartHeights[] = {200, 260, 380};
    bool legendShown() const;
    const RunGrouping &grouping() const { return m_grouping; }
    void setGrouping(const RunGrouping &grouping);
    void offerLogdirs(); // shows "Open TensorBoard logdir…"
    // What a saved view keeps of the charts: smoothing, the x axis, log scales, the legend,
    // grouping and layout. Applying takes what it can read and leaves the rest.
    QJsonObject viewState() const;
    void applyViewState(const QJsonObject &state);

Q_SIGNALS:
    void windowChanged(); // smoothing: every chart asked again
    void xAxisChanged();  // and every chart's axis and zoom anew
    void logYToggled(bool on);
    void logXToggled(bool on);
    void layoutChanged();
    void legendToggled();
    void resetZoom();
    void groupingChanged();
    void logdirsRequested();
    void exportPictureRequested();
    void exportPointsRequested();
    void problem(const QString &message);

private:
    QWidget *makeGroupButton();
    QWidget *makeExportButton();
    QWidget *makeLayoutButton();
    void chooseGrouping(RunGrouping::By by);
    // Its text and the menu's checks as the grouping is.
    void updateGroupButton();

    std::function<QList<RunInfo>()> m_shownRuns;
    QSlider *m_smoothing;
    QLabel *m_smoothingLabel;
    QComboBox *m_smoothingKind;
    QComboBox *m_xAxis;
    QCheckBox *m_logY;
    QCheckBox *m_logX;
    QCheckBox *m_showLegend;
    QToolButton *m_groupButton = nullptr;
    QPushButton *m_openLogdir;
    RunGrouping m_grouping;
    QHash<QString, bool> m_xMetrics; // offered as the x axis
};

} // namespace sb
