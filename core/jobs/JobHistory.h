#pragma once

#include "Job.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <functional>

#include <memory>

namespace sb {

// A backend's job history in its state file (jobs.json, ssh-jobs.json, slurm-jobs.json: a JSON
// array of jobs). Read once at the start; written off the GUI thread, changes coalesced: the
// whole list at most once per `delayMs` and once more when the history goes (at quit), each time
// whole or not at all, readable by the owner only (writeFileAtomically). Lives on the GUI thread.
class JobHistory final : public QObject {
    Q_OBJECT
public:
    explicit JobHistory(QString path, QObject *parent = nullptr, int delayMs = 200);
    ~JobHistory() override; // writes what has not been written yet
    JobHistory(const JobHistory &) = delete;
    JobHistory &operator=(const JobHistory &) = delete;

    const QString &path() const { return m_path; }
    // The jobs the file holds (none when there is no file); a broken file is kept aside and
    // `problem` says so.
    QList<Job> load(QString *problem) const;
    // The list as it is now, to be written within `delayMs` (a copy, implicitly shared).
    // `written`, if given, hears once a write of this list or a newer one has landed or failed.
    void save(const QList<Job> &jobs, std::function<void(const Status &)> written = {});
    // Writes what is pending now, after any write in flight, and waits for it.
    Status flush();

private:
    struct Written; // shared with the writes in flight: which version the file holds
    void write();
    // Tells the `written` callbacks of versions up to `version` how their write went.
    void landed(quint64 version, const Status &saved);
    // Writes `jobs` unless the file holds this version or a newer one already.
    static Status writeVersion(Written &written, const QString &path, const QList<Job> &jobs,
                               quint64 version);

    QString m_path;
    int m_delayMs;
    QTimer m_delay;
    QElapsedTimer m_pendingSince; // the first change not yet taken by a write; invalid: none
    QList<std::pair<quint64, std::function<void(const Status &)>>> m_waiting;
    QList<Job> m_pending;
    quint64 m_version = 0;   // of m_pending; 0: nothing to write
    bool m_inFlight = false; // a write runs off the GUI thread
    std::shared_ptr<Written> m_written;
};

} // namespace sb
