#include "SweepRegistry.h"

namespace sb {

SweepRegistry::SweepRegistry(JobsModel *jobs, CollectorClient *collector, QString stateDirectory,
                             QObject *parent)
    : QObject(parent)
    , m_jobs(jobs)
    , m_collector(collector)
    , m_stateDirectory(std::move(stateDirectory)) {
}

void SweepRegistry::resumeAll() {
    for (const QString &file : Sweep::stateFiles(m_stateDirectory)) {
        auto sweep = Sweep::resume(file, m_jobs, m_collector, options(0), this);
        if (sweep)
            add(*sweep);
        else
            Q_EMIT problem(tr("A sweep was not resumed: %1").arg(sweep.error()));
    }
}

Result<Sweep *> SweepRegistry::open(const QString &file, quint64 seed) {
    const auto spec = SweepSpec::load(file);
    if (!spec)
        return fail(spec.error());
    auto sweep = Sweep::create(*spec, m_jobs, m_collector, options(seed), this);
    if (!sweep)
        return sweep;
    add(*sweep);
    (*sweep)->start();
    return sweep;
}

void SweepRegistry::add(Sweep *sweep) {
    m_sweeps << sweep;
    connect(sweep, &Sweep::problem, this, &SweepRegistry::problem);
    Q_EMIT added(sweep);
}

} // namespace sb
