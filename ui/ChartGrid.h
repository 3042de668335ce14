#pragma once

#include <QHash>
#include <QScrollArea>
#include <QUrl>

class QGridLayout;
class QLabel;
class QPushButton;
class QToolButton;

namespace sb {

class CurveChart;

// The curves view's charts, one per metric, two abreast (or as many as chosen): pinned ones first,
// then a section per prefix ("train/", "val/") that folds away when there is more than one; a
// full-width chart takes a row of its own. Charts are widgets, each costly to make and lay out: a
// page of them is made, and a button shows the next page.
class ChartGrid final : public QScrollArea {
    Q_OBJECT
public:
    static constexpr qsizetype kChartsAPage = 60;

    // `collector`: where the hint (while no run has logged anything) tells scripts to log to.
    explicit ChartGrid(const QUrl &collector, QWidget *parent = nullptr);

    // A run's system series ("system/…"): kept by time, charted after the run's own metrics.
    static bool isSystemMetric(const QString &metric);

    // Charts for these metrics (in this order; pinned ones first), up to the page limit;
    // `anyRun`: whether the table lists any run (which hint shows when there is no chart).
    void arrange(const QStringList &metrics, bool anyRun);
    CurveChart *chart(const QString &metric) const { return m_charts.value(metric); }
    // One list, kept as charts come and go: begin() and end() of two calls match.
    const QList<CurveChart *> &charts() const { return m_list; }
    // Charts a row (a full-width chart takes a row), and each one's height in pixels.
    void setShape(int columns, int chartHeight);
    int columns() const { return m_columns; }
    // Whether a chart is drawn: not in a folded section, and in the scrolled view (at least
    // partly). Only those are fetched.
    bool isDrawn(const CurveChart *chart) const;
    // The charts as they look, for an image of them all.
    QWidget *area() const { return m_area; }

Q_SIGNALS:
    void chartAdded(CurveChart *chart);       // made, with its remembered options
    void chartRemoved(const QString &metric); // gone (deleted later)
    void rearrangeWanted(); // a chart's options, a section folded, or the next page

private:
    // The header of a section of charts (a metric prefix), made once; checked: open.
    QToolButton *sectionHeader(const QString &prefix);
    CurveChart *makeChart(const QString &metric);
    void place(QList<CurveChart *> placed, qsizetype more);

    QWidget *m_area;
    QGridLayout *m_grid;
    QLabel *m_emptyHint;
    QString m_noCurvesYet; // the hint while no run has logged anything
    QPushButton *m_moreCharts;
    qsizetype m_chartLimit = kChartsAPage;
    int m_columns = 2;
    int m_chartHeight = 260;
    QHash<QString, CurveChart *> m_charts;
    QList<CurveChart *> m_list;               // m_charts' values
    QHash<QString, QToolButton *> m_sections; // by prefix, while there is more than one
};

} // namespace sb
