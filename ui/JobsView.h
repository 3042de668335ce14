#pragma once

#include "jobs/JobsModel.h"

#include <QWidget>

#include <functional>

class QPlainTextEdit;
class QPushButton;
class QTableView;

namespace sb {

// The one jobs table for every backend, with the selected job's log following live.
class JobsView final : public QWidget {
    Q_OBJECT
public:
    explicit JobsView(JobsModel *jobs, QWidget *parent = nullptr);
    void selectJob(const QString &id);
    // The SSH nodes a new run may go to.
    void setNodeNames(std::function<QStringList()> names) { m_nodeNames = std::move(names); }

Q_SIGNALS:
    void error(const QString &message);

private:
    void showLog();
    void newRun(const JobSpec &preset);
    void updateButtons();
    const Job *selected() const;

    JobsModel *m_jobs;
    QTableView *m_table;
    QPlainTextEdit *m_log;
    QPushButton *m_stop;
    QPushButton *m_resubmit;
    QString m_following;
    std::function<QStringList()> m_nodeNames;
};

} // namespace sb
