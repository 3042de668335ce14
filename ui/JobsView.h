#pragma once

#include "jobs/JobOutput.h"
#include "jobs/JobsModel.h"

#include <QWidget>

#include <functional>

class QCheckBox;
class QPlainTextEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTreeView;

namespace sb {

// The one jobs table for every backend, with the selected job's log following live: new run,
// stop, resubmit with edits, describe; for clusters, Signalbox's jobs or all of the namespace.
// A job of trials unfolds into its trials; one selected shows its own lines and stops alone.
class JobsView final : public QWidget {
    Q_OBJECT
public:
    // configPath: the YAML config, named where the jobs table tells how to add a Slurm cluster.
    explicit JobsView(JobsModel *jobs, const QString &configPath = {}, QWidget *parent = nullptr);
    // Selects the row of a run as the curves name it (a job's id, or "<job>-<trial>"); false if
    // no job of this table made it.
    bool selectRun(const QString &run);
    // Opens the New-run dialog, filled in from `preset` (a job to resubmit).
    void newRun(const JobSpec &preset = {});
    // The SSH nodes a new run may go to.
    void setNodeNames(std::function<QStringList()> names) { m_nodeNames = std::move(names); }

Q_SIGNALS:
    void error(const QString &message);
    // A run double-clicked: its curves, alone.
    void curvesRequested(const QStringList &runs);

private:
    // What the empty table says: how to start a run, and where clusters come from.
    QString emptyHint(const QString &configPath) const;
    // The runs of a row, as the curves name them: its own, or its trials' or jobs' (a sweep).
    QStringList runsOf(const QModelIndex &name) const;
    void showLog();
    // The selected job's output from what it printed so far: metric lines hidden unless asked.
    void appendOutput(const QString &text);
    void updateMetricLines();
    void updatePlaceholder();
    void updateButtons();
    void describe();
    const Job *selected() const;
    JobBackend *backendOf(const Job &job) const;
    int selectedTrial() const; // the selected trial's index, or -1

    JobsModel *m_jobs;
    QSortFilterProxyModel *m_filtered; // by the filter box, trials kept under their job
    QTreeView *m_table;
    QPlainTextEdit *m_log;
    QPushButton *m_stop;
    QPushButton *m_resubmit;
    QPushButton *m_describe;
    QPushButton *m_remove;
    QCheckBox *m_allJobs;
    QString m_following;
    QByteArray m_followingPrefix; // a trial's lines start with it ("[3] "); empty: every line
    JobOutput m_output;           // the followed job's output as the pane shows it
    QCheckBox *m_metricLines;     // "Metric lines hidden: 1,234", checked to show them
    std::function<QStringList()> m_nodeNames;
};

} // namespace sb
