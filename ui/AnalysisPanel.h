#pragma once

#include "charts/RunScatter.h"
#include "metrics/ParamAnalysis.h"

#include <QElapsedTimer>
#include <QSet>
#include <QTimer>

#include <QWidget>
#include <atomic>
#include <memory>

class QComboBox;
class QCheckBox;
class QLabel;
class QTableWidget;

namespace sb {

class ParallelCoordinates;
class RunsModel;

// Hyperparameter analysis of the runs the table shows: which parameters matter for a metric
// (their importance and correlation), the runs as parallel coordinates, and any two values (a
// config key or a metric) as a scatter with their Pareto front. Linked both ways with the runs
// table: a brush or a click chooses runs there (runsChosen), and the table's selection is drawn
// bold here. The forest is grown off the GUI thread, only while the panel is in front.
class AnalysisPanel final : public QWidget {
    Q_OBJECT
public:
    static constexpr qint64 kValuesEveryMs = 10'000; // live runs' values: computed again at most
    static constexpr qsizetype kMostAxes = 12;       // keys on the parallel coordinates

    explicit AnalysisPanel(RunsModel *runs, QWidget *parent = nullptr);
    ~AnalysisPanel() override;

    // The runs to analyse (the table's shown runs); their values are read from the model.
    void setRuns(const QStringList &runs);
    void setSelected(const QStringList &runs);
    void setActive(bool active);
    // The metric analysed, and how each run's is read (last, min, max, best).
    void setAnalysedMetric(const QString &metric);
    QString analysedMetric() const;
    // The scatter's axes: a metric's name, or "config.KEY".
    void setScatter(const QString &x, const QString &y);
    void setParetoShown(bool shown);

    const QList<ParamEffect> &effects() const { return m_effects; }
    ParallelCoordinates *coordinates() const { return m_coordinates; }
    RunScatter *scatter() const { return m_scatter; }
    // Whether a computation is out (tests wait for it).
    bool busy() const { return m_computing; }

Q_SIGNALS:
    void runsChosen(const QStringList &runs);
    void computed(); // effects(), the coordinates and the scatter are up to date

private:
    void recompute(); // soon: batched by m_again
    void compute();
    void showEffects();
    void updateScatter();
    void showScatter(const QString &x, const QString &y); // the axes, not chosen by the user
    // Each value that can be an axis: metrics, then config keys, as the shown runs have them.
    QStringList axisChoices() const;
    // The metrics and axes to choose from, for the shown runs, where setRuns() left them stale.
    void refreshChoices();
    // An axis' value of each shown run that has one: a metric's statistic, a config number; a
    // config key with words among its values is an axis of categories (its values as text,
    // sorted), each run at its category's index.
    struct AxisValues {
        RunScatter::Axis axis;
        QHash<QString, double> byRun;
    };
    AxisValues axisValues(const QString &axis) const;

    RunsModel *m_runs;
    QStringList m_shown;
    QStringList m_selected;
    bool m_active = false;
    bool m_computing = false;
    bool m_stale = true;
    bool m_scatterChosen = false; // by the user: the scatter's axes no longer follow the analysis
    bool m_metricChosen = false;  // by the user: kept while the shown runs have it
    bool m_choicesStale = false;
    QTimer m_again;
    QComboBox *m_metric;
    QComboBox *m_statistic;
    QLabel *m_summary;
    QTableWidget *m_importance;
    ParallelCoordinates *m_coordinates;
    QComboBox *m_scatterX;
    QComboBox *m_scatterY;
    QCheckBox *m_pareto;
    RunScatter *m_scatter;
    QList<ParamEffect> m_effects;
    QSet<QString> m_numeric; // keys with numbers: the scatter's first choice
    // What the last computation was of: the runs and metric, and their values and configs.
    QByteArray m_computedRuns;
    QByteArray m_computedValues;
    QElapsedTimer m_sinceComputed;
    std::shared_ptr<std::atomic_bool> m_cancel = std::make_shared<std::atomic_bool>(false);
};

} // namespace sb
