#pragma once

#include "KubeCode.h"
#include "KubeGpus.h"
#include "KubeJobs.h"
#include "config/Config.h"
#include "jobs/JobBackend.h"
#include "kube/KubeClient.h"
#include "kube/KubeInformer.h"

#include <map>
#include <memory>

namespace sb {

// Runs jobs as Kubernetes Jobs through the API servers of kubeconfig contexts. The cluster is
// the record: each cluster's Signalbox Jobs and their pods are watched (informers), and every
// row of the table is derived from them, so jobs submitted from another computer, or before a
// restart, show up as they are. Stop suspends the Job (its pods get SIGTERM and the grace
// period) and marks it stopped; the logs of running pods are followed, resuming after a
// reconnect without repeating a line. A job's local code directory travels in a ConfigMap
// named by the code's hash (uploaded once) and is unpacked into the pods by an init container.
class KubeBackend final : public JobBackend {
    Q_OBJECT
public:
    struct Options {
        QMap<QString, QString> environment; // added to every job
        bool allJobs = false;               // every Job of the namespace, not only Signalbox's
        QList<JobTemplate> templates;       // from the config, picked by JobSpec::jobTemplate
        ObjectStoreConfig objectStore;      // for code a ConfigMap cannot hold
    };
    explicit KubeBackend(Options options, QObject *parent = nullptr);
    ~KubeBackend() override;

    // Watches a cluster (a kubeconfig context) from now on; jobs may be submitted to it by name.
    void addCluster(const KubeContext &context);
    QStringList clusters() const;
    void setJobTemplates(const QList<JobTemplate> &templates) { m_options.templates = templates; }
    void setObjectStore(const ObjectStoreConfig &store) { m_code.setObjectStore(store); }
    // How long a packed code directory is reused before it is packed again (tests shorten it).
    void setCodeRepackAfterMs(qint64 ms) { m_code.setRepackAfterMs(ms); }
    const QList<JobTemplate> &jobTemplates() const { return m_options.templates; }
    // Why a cluster cannot be watched now (empty when it can).
    QString clusterError(const QString &cluster) const;

    QString name() const override { return BackendName::kKubernetes; }
    Capabilities capabilities() const override {
        return {.trialsInOneJob = kMaxTrials,
                .foreignJobs = true,
                .jobGpus = true,
                .gpusAndCode = true,
                .workers = true,
                .codeLandsIn = kCodeDirectory,
                .packsCode = true,
                .preview = true,
                .validate = true,
                .availability = true};
    }
    QStringList targets() const override { return clusters(); }
    QStringList templateNames() const override;
    // A cluster's GPUs by product and Kueue queue (clusterGpus()), in a line.
    void askAvailability(const QString &target, QObject *receiver,
                         AvailabilityDone done) const override;
    // The manifests as YAML, the Job named once per run name (a preview asked again while the
    // name stays keeps it, so its random suffix does not flicker).
    Result<QString> preview(const JobSpec &spec) const override;
    void prepareCode(const QString &directory) override { m_code.prepare(directory); }
    QString codeSummary(const QString &directory) const override {
        return m_code.summary(directory);
    }
    // Parses the draft's YAML off the GUI thread, then has the API server check it (a
    // server-side dry run); accepted: a KubeManifests with the code the last preview fetches.
    void validate(const RunDraft &draft, QObject *receiver, ValidateDone done) override;
    // What validate() accepted goes through submitManifests(); a draft not checked, as submit().
    Result<QString> submitDraft(const RunDraft &draft) override;
    // The sampling script inside each running pod, through the exec subresource: where the image
    // has no sh or no nvidia-smi, that pod's sample says "not available" and why.
    void sampleGpus(const QString &id, QObject *receiver, JobSamplesDone done) const override;
    Result<QString> submit(const JobSpec &spec) override;
    QList<Job> jobs() const override;
    Status stop(const QString &id) override;
    Result<QByteArray> log(const QString &id) const override;
    // Adds the Job's conditions, its pods and the events of both, asked from the API server.
    void describe(const QString &id, QObject *receiver,
                  std::function<void(const QString &text)> done) const override;

    // The cluster's GPU nodes (allocatable and allocated nvidia.com/gpu, by product label) and,
    // where Kueue is installed, its ClusterQueues' GPU quota and usage: three requests at once.
    void clusterGpus(const QString &cluster, QObject *receiver,
                     std::function<void(const Result<KubeGpuInventory> &)> done) const;
    // Every Job of the clusters' namespaces, or only those Signalbox submitted (the default).
    void setAllJobs(bool all) override;
    bool allJobs() const override { return m_options.allJobs; }

    // The objects submit() would create for `spec`, for the dialog to show and edit, and the
    // code they fetch.
    Result<KubeManifests> manifests(const JobSpec &spec, const QString &name) const;
    // Submits what manifests() made (its objects perhaps edited) for `spec`: the code goes up
    // first, then the objects, the Job last; the job's id is the Job's name. The Job gets
    // Signalbox's label if the edit removed it.
    Result<QString> submitManifests(const JobSpec &spec, KubeManifests manifests);
    // Submits a job of trials (spec.trials > 0): `scripts[i]` is what index i runs, shell-quoted.
    Result<QString> submitTrials(const JobSpec &spec, const QList<QString> &scripts) override;
    // Stops one index of a job of trials: its pod is deleted and the index fails alone.
    Status stopIndex(const QString &id, int index) override;
    // Submits edited manifests (the Job last) as they are; a server-side dry run first when
    // `dryRun`, whose verdict comes through `done` (empty: accepted).
    void apply(const QString &cluster, const QList<QJsonObject> &objects, bool dryRun,
               QObject *receiver, const std::function<void(const QString &error)> &done);

Q_SIGNALS:
    void clusterChanged(const QString &cluster);

private:
    struct Cluster;
    Cluster *clusterOf(const QString &id, Job *job = nullptr) const;
    void watch(Cluster &cluster);
    void refresh(Cluster &cluster, const QStringList &jobNames);
    void followLogs(Cluster &cluster, const QJsonObject &pod);
    void resumeLogs(Cluster &cluster, const QString &pod, qint64 delayMs);
    void appendLog(const QString &id, const QByteArray &data);

    Options m_options;
    std::map<QString, std::unique_ptr<Cluster>> m_clusters;
    QHash<QString, QByteArray> m_logs; // job -> its pods' output so far
    QHash<QString, Job> m_submitting;  // sent, not yet seen in the watch
    KubeCode m_code;                   // what runs take along, and where it went
    // The last preview's run name and the Job name it was given; the code it fetches.
    mutable std::pair<QString, QString> m_previewName;
    mutable CodeDelivery m_previewCode;
};

} // namespace sb
