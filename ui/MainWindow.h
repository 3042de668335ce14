#pragma once

#include "monitor/NodeSample.h"

#include <QMainWindow>

class QLabel;
class QTabWidget;

namespace sb {

class CollectorClient;
class CurvesView;
class JobsModel;
class JobsView;
class NodeCard;

// The one window: curves, jobs and nodes as tabs, with a banner for anything that went wrong.
class MainWindow final : public QMainWindow {
    Q_OBJECT
public:
    MainWindow(CollectorClient *collector, JobsModel *jobs, QWidget *parent = nullptr);

    CurvesView *curves() const { return m_curves; }
    JobsView *jobs() const { return m_jobs; }
    void showView(const QString &name);
    void addLocalSample(const sb::NodeSample &sample);
    // Shows `message` in the banner; an empty message hides it.
    void showError(const QString &message);

private:
    QTabWidget *m_tabs;
    QLabel *m_banner;
    CurvesView *m_curves;
    JobsView *m_jobs;
    NodeCard *m_localNode;
};

} // namespace sb
