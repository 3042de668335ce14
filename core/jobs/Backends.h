#pragma once

#include "BackendRegistry.h"
#include "JobsModel.h"
#include "MetricLineForwarder.h"
#include "jobs/kubernetes/KubeBackend.h"
#include "jobs/local/LocalBackend.h"
#include "jobs/slurm/SlurmBackend.h"
#include "jobs/ssh/SshBackend.h"
#include "monitor/NodeMonitor.h"

#include <QStringList>

namespace sb {

class CollectorClient;

// The job backends of one session, wired the same way for the app and for `signalbox-cli
// sweep run`: this computer, the config's SSH nodes (a NodeMonitor watches their free GPUs), the
// kubeconfig's clusters, the config's Slurm clusters (through login nodes), a registry of them by
// name and capability, a jobs model over all of them, and the metric lines of their output
// forwarded to the collector. What cannot be loaded is said in problems(); the rest works.
class Backends final {
public:
    struct Options {
        QString dataDir;
        QString configPath;      // the YAML config; a missing file means no SSH nodes
        QStringList clusters;    // kubeconfig contexts; none: the current context, if any
        QString collectorUrl;    // given to local and SSH runs, which push to it themselves
        bool sampleLocal = true; // this computer as a node on the dashboard
        QString collectorToken;  // its bearer token, given with it (SIGNALBOX_TOKEN)
    };
    Backends(CollectorClient *collector, const Options &options);
    Backends(const Backends &) = delete;
    Backends &operator=(const Backends &) = delete;

    // Every backend by name and capability; the one way the UI reaches them.
    BackendRegistry &registry() { return m_registry; }
    JobsModel &jobs() { return m_jobs; }
    LocalBackend &local() { return m_local; }
    SshBackend &ssh() { return m_ssh; }
    KubeBackend &kube() { return m_kube; }
    SlurmBackend &slurm() { return m_slurm; }
    NodeMonitor &monitor() { return m_monitor; }
    MetricLineForwarder &forwarder() { return m_forwarder; }
    // Process group -> run of our unfinished runs on a node (this computer or an SSH node).
    QHash<qint64, QString> runsOn(const QString &node) const;
    QHash<int, QString> reservedGpus(const QString &node) const; // GPU index -> run
    // What was not loaded (a broken config or node entry, the kubeconfig, run history), one
    // sentence each for the person; everything else is there.
    const QStringList &problems() const { return m_problems; }

private:
    NodeMonitor m_monitor;
    LocalBackend m_local;
    SshBackend m_ssh;
    KubeBackend m_kube;
    SlurmBackend m_slurm;
    BackendRegistry m_registry;
    JobsModel m_jobs;
    MetricLineForwarder m_forwarder;
    QStringList m_problems;
};

} // namespace sb
