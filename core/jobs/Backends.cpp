#include "Backends.h"

#include "client/CollectorClient.h"
#include "config/Config.h"
#include "kube/KubeConfig.h"
#include "util/Log.h"

namespace sb {

using namespace Qt::StringLiterals;

namespace {

QMap<QString, QString> runEnvironment(const QString &collectorUrl, const QString &token,
                                      const QString &project) {
    QMap<QString, QString> environment;
    if (collectorUrl.isEmpty())
        return environment;
    environment.insert(u"SIGNALBOX_COLLECTOR"_s, collectorUrl);
    if (!token.isEmpty())
        environment.insert(u"SIGNALBOX_TOKEN"_s, token);
    if (!project.isEmpty()) // the runs land where the app looks
        environment.insert(u"SIGNALBOX_PROJECT"_s, project);
    return environment;
}

} // namespace

Backends::Backends(CollectorClient *collector, const Options &options)
    : m_local({options.dataDir, 10000,
               runEnvironment(options.collectorUrl, options.collectorToken,
                              collector ? collector->project() : QString())})
    , m_ssh(&m_monitor, {options.dataDir, 10000, 1000, {}})
    , m_kube({})
    , m_slurm(&m_monitor, {options.dataDir, 2000})
    , m_jobs(&m_registry)
    , m_forwarder(collector) {
    for (JobBackend *backend :
         std::initializer_list<JobBackend *>{&m_local, &m_ssh, &m_kube, &m_slurm}) {
        m_registry.add(backend);
        m_forwarder.watch(backend);
    }
    if (options.sampleLocal)
        m_monitor.startLocal();

    if (const auto config = Config::load(options.configPath)) {
        m_monitor.setNodes(config->nodes);
        m_kube.setJobTemplates(config->jobTemplates);
        m_kube.setObjectStore(config->objectStore);
        QList<SlurmClusterConfig> slurmClusters;
        for (const SlurmClusterConfig &cluster : config->slurmClusters) {
            const bool loginKnown =
                std::any_of(config->nodes.begin(), config->nodes.end(),
                            [&cluster](const NodeConfig &n) { return n.name == cluster.login; });
            if (loginKnown)
                slurmClusters << cluster;
            else
                m_problems << u"Slurm cluster %1: its login node \"%2\" is not among the "
                              "config's nodes"_s.arg(cluster.name, cluster.login);
        }
        m_slurm.setClusters(slurmClusters);
        if (!config->problems.isEmpty())
            m_problems << u"Some nodes of the config were not loaded (the others were): %1"_s.arg(
                config->problems.join(u"; "_s));
    } else { // a broken config loses nothing else: this computer and the collector still work
        m_problems << u"The config was not loaded: %1"_s.arg(config.error());
    }
    for (const JobBackend *backend :
         std::initializer_list<const JobBackend *>{&m_local, &m_ssh, &m_slurm}) {
        if (!backend->restoreProblem().isEmpty())
            m_problems << u"Run history: %1"_s.arg(backend->restoreProblem());
    }

    const auto kubeconfig = KubeConfig::load();
    if (!kubeconfig)
        m_problems << u"The kubeconfig was not loaded: %1"_s.arg(kubeconfig.error());
    for (const QString &problem : std::as_const(m_problems))
        qCWarning(lcConfig).noquote() << problem;
    if (!kubeconfig)
        return;
    QStringList contexts = options.clusters;
    if (contexts.isEmpty() && !kubeconfig->currentContext.isEmpty())
        contexts << kubeconfig->currentContext;
    for (const QString &name : std::as_const(contexts)) {
        if (const auto context = kubeconfig->context(name))
            m_kube.addCluster(*context);
        else
            m_problems << u"Cluster %1: %2"_s.arg(name, context.error());
    }
}

QHash<qint64, QString> Backends::runsOn(const QString &node) const {
    if (node != NodeMonitor::kLocalNode)
        return m_ssh.runsOn(node);
    QHash<qint64, QString> runs;
    for (const Job &job : m_local.jobs())
        if (job.state == JobState::Running && job.processGroup > 0)
            runs.insert(job.processGroup, job.id);
    return runs;
}

QHash<int, QString> Backends::reservedGpus(const QString &node) const {
    return node == NodeMonitor::kLocalNode ? QHash<int, QString>() : m_ssh.reservedGpus(node);
}

} // namespace sb
