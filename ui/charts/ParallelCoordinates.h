#pragma once

#include "metrics/ParamAnalysis.h"

#include <QPixmap>
#include <QSet>
#include <QWidget>

#include <optional>

namespace sb {

// Runs as lines across one vertical axis per parameter and a last one for the metric: which
// settings the good runs share shows as a bundle. Log-scale parameters get log axes, categorical
// ones an axis of their values. Lines are coloured by the metric from best (blue) to worst
// (orange); the best run is drawn thick and last, and runs selected elsewhere bold.
// Drag along an axis to brush a range of it: runs outside every brush fade, and brushedRuns()
// are those inside all of them (a click on the axis clears its brush). Drag an axis's title
// sideways to move the axis.
class ParallelCoordinates final : public QWidget {
    Q_OBJECT
public:
    explicit ParallelCoordinates(QWidget *parent = nullptr);

    // `smallerIsBetter`: how the metric's colours run. Brushes on axes still there are kept.
    void setTable(const ParamTable &table, bool smallerIsBetter);
    // Runs drawn bold (the table's selection).
    void setHighlighted(const QStringList &runs);
    // The runs inside every brush; all of them while nothing is brushed.
    QStringList brushedRuns() const;
    bool brushing() const { return !m_brushes.isEmpty(); }
    // Brushes an axis (by its name; the metric's is its own) to [low, high] of its values.
    void brush(const QString &axis, double low, double high);
    void clearBrushes();
    // The axes' names, left to right.
    QStringList axisOrder() const;
    void moveAxis(const QString &axis, qsizetype to);
    // The runs drawn with a metric value (a line each), for tests.
    int lineCount() const { return m_lines; }
    int redraws() const { return m_redraws; } // how often the lines were drawn afresh
    QSize sizeHint() const override { return {900, 280}; }

Q_SIGNALS:
    void brushChanged(const QStringList &runs); // brushedRuns(), after a brush changed

protected:
    void paintEvent(QPaintEvent *event) override;
    void changeEvent(QEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    struct Axis {
        QString name;
        bool categorical = false;
        bool log = false;
        double low = 0;
        double high = 1;
        QStringList categories;
        std::vector<double> values;               // one per run (NaN: missing)
        bool metric = false;                      // the metric's axis (a key may have its name)
        bool zeros = false;                       // a log axis with zeros: they sit at its foot
        static constexpr double kZeroBand = 0.08; // of the axis, beneath the smallest value
        double position(double value) const;      // 0 (bottom) to 1 (top); NaN: missing
        double value(double where) const;         // the inverse, for a number's axis
        QString label(double where) const;
    };
    QRectF plotRect() const;
    double xOf(qsizetype axis) const;
    // The axis at a point's x (within a few pixels), or -1.
    qsizetype axisAt(double x) const;
    bool inBrushes(qsizetype run) const;
    // Thousands of lines are drawn once into m_painted; a repaint for any other reason (the
    // parent's, a tooltip's) only copies it. redraw() draws them again at the next paint.
    void redraw();
    void paintAll(QPainter &painter);
    QPixmap m_painted;
    bool m_paintedValid = false;
    int m_redraws = 0;

    ParamTable m_table;
    bool m_smallerIsBetter = true;
    QList<Axis> m_axes;       // in their order on screen; the metric's among them
    QStringList m_movedOrder; // the axes' order once the user moved one
    QHash<QString, std::pair<double, double>> m_brushes; // by axis, in 0..1 positions
    QHash<QString, std::pair<double, double>> m_brushesAtPress;
    QSet<QString> m_highlighted;
    int m_lines = 0;
    // A drag: brushing an axis (from a position), or moving one by its title.
    qsizetype m_dragAxis = -1;
    std::optional<double> m_brushFrom;
    bool m_moving = false;
    bool m_dragged = false;
};

} // namespace sb
