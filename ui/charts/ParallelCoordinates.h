#pragma once

#include <QPointer>
#include <QWidget>

namespace sb {

class Sweep;

// A sweep's trials as lines across one vertical axis per parameter and a last one for the
// metric: which settings the good trials share shows as a bundle. Log-distributed parameters get
// log axes, categorical ones an axis of their values. Lines are coloured by the metric from best
// (blue) to worst (orange); the best trial is drawn thick and last.
class ParallelCoordinates final : public QWidget {
    Q_OBJECT
public:
    explicit ParallelCoordinates(QWidget *parent = nullptr);
    void setSweep(Sweep *sweep);
    // The trials drawn with a metric value (a line each), for tests.
    int lineCount() const { return m_lines; }
    QSize sizeHint() const override { return {900, 280}; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QPointer<Sweep> m_sweep;
    int m_lines = 0;
};

} // namespace sb
