#include "BackendRegistry.h"

#include "util/Log.h"

namespace sb {

void BackendRegistry::add(JobBackend *backend) {
    if (this->backend(backend->name())) {
        qCWarning(lcJobs).noquote() << "a second backend named" << backend->name() << "ignored";
        return;
    }
    m_backends << backend;
    Q_EMIT added(backend);
}

JobBackend *BackendRegistry::backend(const QString &name) const {
    for (JobBackend *backend : m_backends) {
        if (backend->name() == name)
            return backend;
    }
    return nullptr;
}

} // namespace sb
