#pragma once

#include "JobBackend.h"

#include <QList>
#include <QObject>

namespace sb {

// The job backends of a session, by name and by capability: the one way callers find a backend.
// It does not own them. Lives on the GUI thread.
class BackendRegistry final : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    // Adds a backend; its name must be its own (a second one of the same name is refused).
    void add(JobBackend *backend);
    // The backend of a name (JobSpec::backend, Job::backend), or null.
    JobBackend *backend(const QString &name) const;
    // Every backend, in the order added.
    const QList<JobBackend *> &backends() const { return m_backends; }
    // The backends that can do something: `has(capabilities)` true.
    template <typename Predicate> QList<JobBackend *> with(Predicate has) const {
        QList<JobBackend *> found;
        for (JobBackend *backend : m_backends) {
            if (has(backend->capabilities()))
                found << backend;
        }
        return found;
    }

Q_SIGNALS:
    void added(sb::JobBackend *backend);

private:
    QList<JobBackend *> m_backends;
};

} // namespace sb
