#pragma once

#include "jobs/Job.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QTimer>

class QSystemTrayIcon;

namespace sb {

class JobsModel;

// Tells the researcher when a run of theirs ends, waits too long or stalls, on the desktop
// (freedesktop notifications over D-Bus, clickable to open the run; the tray icon's balloon
// where no notification server answers), and keeps a tray icon with the count of running jobs.
// Each kind can be turned off; other users' cluster jobs never notify.
class Notifier final : public QObject {
    Q_OBJECT
public:
    enum class Kind { Succeeded, Failed, Stopped, WaitsLong, Stalled };
    static QList<Kind> kinds();
    static QString describe(Kind kind); // "A run failed", for a menu

    struct Options {
        int waitMinutes = 30;  // queued this long: said once
        int stallMinutes = 30; // a run that printed before and then nothing this long
        int checkMs = 30000;   // how often those two are looked for
    };
    Notifier(JobsModel *jobs, Options options, QObject *parent = nullptr);

    void setEnabled(Kind kind, bool enabled);
    // The chosen times (minutes, at least 1) after which a wait or a silence is news.
    void setWaitMinutes(int minutes) { m_options.waitMinutes = std::max(1, minutes); }
    void setStallMinutes(int minutes) { m_options.stallMinutes = std::max(1, minutes); }
    const Options &options() const { return m_options; }
    bool isEnabled(Kind kind) const { return !m_off.contains(kind); }
    // The choices of Settings ▸ Notifications, as remembered (QSettings "notify/…"): kinds on or
    // off, and the two times. Called at start and whenever they change.
    void loadSettings();
    static QString settingsKey(Kind kind);
    QSystemTrayIcon *tray() const { return m_tray; }

Q_SIGNALS:
    // The researcher clicked a notification: show this run.
    void openRun(const QString &backend, const QString &id);
    // Said, with whichever means there was; for the status bar and tests.
    void notified(sb::Notifier::Kind kind, const QString &title, const QString &body);

private Q_SLOTS:
    void actionInvoked(uint notification, const QString &action);

private:
    void changed(const Job &job);
    void check();
    void notify(Kind kind, const Job &job, const QString &title, const QString &body);
    void updateTray();

    JobsModel *m_jobs;
    Options m_options;
    QSet<Kind> m_off;
    QHash<QString, Job> m_known;            // by backend/id: the last state seen
    QHash<QString, QDateTime> m_lastOutput; // by backend/id: when it last printed
    QSet<QString> m_toldWaiting, m_toldStalled;
    QHash<uint, QString> m_byNotification; // D-Bus notification id -> backend/id
    QSystemTrayIcon *m_tray = nullptr;
    qsizetype m_trayCount = -1; // what the tray shows
    QTimer m_check;
};

} // namespace sb
