#include "JobHistory.h"

#include "util/Log.h"
#include "util/OffThread.h"

#include <QCoreApplication>
#include <QMutex>

namespace sb {

struct JobHistory::Written {
    QMutex mutex; // one write of the file at a time (they share its temporary)
    quint64 version = 0;
};

Status JobHistory::writeVersion(Written &written, const QString &path, const QList<Job> &jobs,
                                quint64 version) {
    const QMutexLocker lock(&written.mutex);
    if (version <= written.version)
        return success();
    Status saved = saveJobs(path, jobs);
    if (saved)
        written.version = version;
    return saved;
}

JobHistory::JobHistory(QString path, QObject *parent, int delayMs)
    : QObject(parent)
    , m_path(std::move(path))
    , m_delayMs(delayMs)
    , m_written(std::make_shared<Written>()) {
    m_delay.setSingleShot(true);
    connect(&m_delay, &QTimer::timeout, this, &JobHistory::write);
    // Before the pool drops the writes not started: the last word reaches the file.
    if (QCoreApplication *app = QCoreApplication::instance())
        connect(app, &QCoreApplication::aboutToQuit, this, [this] { (void)flush(); });
}

JobHistory::~JobHistory() {
    if (Status saved = flush(); !saved)
        qCWarning(lcJobs).noquote() << saved.error();
}

QList<Job> JobHistory::load(QString *problem) const {
    return loadJobs(m_path, problem);
}

void JobHistory::save(const QList<Job> &jobs, std::function<void(const Status &)> written) {
    m_pending = jobs;
    ++m_version;
    if (written)
        m_waiting.append({m_version, std::move(written)});
    if (!m_pendingSince.isValid())
        m_pendingSince.start();
    if (!m_inFlight && !m_delay.isActive())
        m_delay.start(m_delayMs);
}

void JobHistory::landed(quint64 version, const Status &saved) {
    // Taken out first: a callback may save again.
    QList<std::pair<quint64, std::function<void(const Status &)>>> heard;
    for (auto it = m_waiting.begin(); it != m_waiting.end();) {
        if (it->first <= version) {
            heard.append(std::move(*it));
            it = m_waiting.erase(it);
        } else {
            ++it;
        }
    }
    for (const auto &entry : heard)
        entry.second(saved);
}

void JobHistory::write() {
    m_inFlight = true;
    m_pendingSince.invalidate();
    runOffThread(
        this,
        [written = m_written, path = m_path, jobs = m_pending, version = m_version] {
            return writeVersion(*written, path, jobs, version);
        },
        [this, version = m_version](const Status &saved) {
            m_inFlight = false;
            if (!saved)
                qCWarning(lcJobs).noquote() << saved.error();
            landed(version, saved);
            if (m_version > version) // changed meanwhile: due `delayMs` after that change
                m_delay.start(
                    static_cast<int>(std::max<qint64>(0, m_delayMs - m_pendingSince.elapsed())));
        });
}

Status JobHistory::flush() {
    m_delay.stop();
    m_pendingSince.invalidate();
    Status saved =
        m_version == 0 ? success() : writeVersion(*m_written, m_path, m_pending, m_version);
    landed(m_version, saved);
    return saved;
}

} // namespace sb
