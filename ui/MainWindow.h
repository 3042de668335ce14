#pragma once

#include "metrics/CollectorApi.h"

#include <QMainWindow>

class QAction;
class QCloseEvent;

class QLabel;
class QTabWidget;

namespace sb {

class CollectorClient;
class CurvesView;
class JobsModel;
class JobsView;
class LogdirFeeds;
class LogdirsDialog;
class NodeMonitor;
class NodesView;
class Notifier;
class SweepsView;

// The one window: curves, jobs, nodes and sweeps as tabs, with a banner for anything that went
// wrong.
class MainWindow final : public QMainWindow {
    Q_OBJECT
public:
    // `configPath`: the YAML file node edits are saved to.
    MainWindow(CollectorClient *collector, JobsModel *jobs, NodeMonitor *monitor,
               const QString &configPath, QWidget *parent = nullptr);
    // Remembers the window, its splitters and view options for the next start.
    ~MainWindow() override;

    CurvesView *curves() const { return m_curves; }
    JobsView *jobs() const { return m_jobs; }
    NodesView *nodes() const { return m_nodes; }
    SweepsView *sweeps() const { return m_sweeps; }
    Notifier *notifier() const { return m_notifier; }
    void showView(const QString &name);
    // Offers "Open TensorBoard logdir…" in the curves view.
    void setLogdirFeeds(LogdirFeeds *feeds);
    LogdirsDialog *logdirsDialog(); // null until feeds are set
    // Adds `message` to the banner, where it stays until dismissed (the same text shows once).
    void showError(const QString &message);
    // Sets the banner's message about `topic`, replacing its earlier one; an empty message
    // clears it (a problem that went away). Every topic's message shows, one a line.
    void showProblem(const QString &topic, const QString &message);
    // A token for the collector, typed in by the person: used from the next request on, and
    // kept in the system keychain for the next start when `keep`.
    void useCollectorToken(const QString &token, bool keep);

Q_SIGNALS:
    // A token typed in, for what else talks to the collector (the runs launched from now on).
    void collectorTokenChanged(const QString &token);
    // The collector's health, each time the window asks (at start, each minute, a new token).
    void collectorHealth(const sb::Health &health);

public:
protected:
    // With runs still going on this computer, asks whether to keep them running or stop them.
    void closeEvent(QCloseEvent *event) override;

private:
    void createMenus();
    // The status bar's line on the collector: where, lab store, project, user, read only; at
    // start also what the collector repaired.
    void showCollectorFacts(bool atStart = false);
    void askForToken();
    void showAbout();
    void showHowToLog();

    JobsModel *m_jobModel;
    QTabWidget *m_tabs;
    void updateBanner();

    QLabel *m_banner;
    CollectorClient *m_collector;
    QLabel *m_collectorFacts;
    QString m_access; // the user's right on the project, as health last said it
    QList<std::pair<QString, QString>> m_problems; // topic, message; in the order they came
    CurvesView *m_curves;
    JobsView *m_jobs;
    NodesView *m_nodes;
    SweepsView *m_sweeps;
    LogdirFeeds *m_feeds = nullptr;
    LogdirsDialog *m_logdirs = nullptr;
    Notifier *m_notifier;
    QList<QAction *> m_themes; // View ▸ Theme: system, light, dark
};

} // namespace sb
