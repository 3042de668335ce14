#pragma once

#include "Sweep.h"

#include <QList>
#include <QObject>

namespace sb {

// Every sweep of a data directory, owned in one place: new ones opened from their files, those
// of earlier sessions resumed from their state. The app's Sweeps view and `signalbox-cli sweep
// run` both run sweeps through it, with the same controller.
class SweepRegistry final : public QObject {
    Q_OBJECT
public:
    SweepRegistry(JobsModel *jobs, CollectorClient *collector, QString stateDirectory,
                  QObject *parent = nullptr);

    QString stateDirectory() const { return m_stateDirectory; }
    // Where sweeps keep their state, before any is opened or resumed.
    void setStateDirectory(const QString &directory) { m_stateDirectory = directory; }
    // Reopens every sweep whose state is in the directory; those that cannot be are problems.
    void resumeAll();
    // Reads the sweep file and starts the sweep; the error says file, line and key.
    Result<Sweep *> open(const QString &file, quint64 seed);
    QList<Sweep *> sweeps() const { return m_sweeps; }

Q_SIGNALS:
    void added(sb::Sweep *sweep);
    // A sweep could not be resumed, or one of them has a problem (a trial that did not start).
    void problem(const QString &message);

private:
    void add(Sweep *sweep);
    Sweep::Options options(quint64 seed) const { return {m_stateDirectory, seed, 2000}; }

    JobsModel *m_jobs;
    CollectorClient *m_collector;
    QString m_stateDirectory;
    QList<Sweep *> m_sweeps;
};

} // namespace sb
