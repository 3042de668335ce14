#pragma once

#include "config/Config.h"
#include "jobs/Job.h"

#include <QJsonObject>
#include <QList>
#include <QMetaType>

namespace sb {

// Labels and annotations Signalbox puts on what it submits, to find it again.
inline constexpr char kManagedLabel[] = "signalbox.dev/managed";
inline constexpr char kSpecAnnotation[] = "signalbox.dev/spec";
inline constexpr char kStoppedAnnotation[] = "signalbox.dev/stopped";
inline constexpr int kRendezvousPort = 29500;
// Where a job's delivered code is unpacked in its containers (and its working directory unless
// the spec names another).
inline constexpr char kCodeDirectory[] = "/workspace/code";

// Where a sweep's Indexed Job finds its trials: trial-<index>.sh, one script per index.
inline constexpr char kTrialsDirectory[] = "/etc/signalbox/sweep";
// The ConfigMap of a job of trials (JobSpec::trials): `scripts[i]` runs trial index i.
QString trialsName(const QString &job);
QJsonObject trialsConfigMap(const QString &job, const QString &ns, const QList<QString> &scripts);

// How a job's local code directory reaches its pods: an immutable ConfigMap named by the code's
// hash, or, when larger, an object of that name in an S3-compatible store fetched through a
// presigned URL; an init container with the job's image (which needs sh, tar, and curl, wget or
// python3 for the URL) unpacks it.
struct CodeDelivery {
    QString configMap; // the ConfigMap, or
    QString object;    // the object's key in the store
    QString url;       // and its presigned URL
    bool none() const { return configMap.isEmpty() && object.isEmpty(); }
};
// What a run on a cluster becomes: its objects (the Job last), and where the Job's pods fetch
// the code from, decided when the objects were made (an edit of the objects may refer to it).
struct KubeManifests {
    QList<QJsonObject> objects;
    CodeDelivery code;
};
QString codeObjectKey(const QString &hash);
QString codeConfigMapName(const QString &hash);
// The ConfigMap holding `gzip` (a CodeArchive) as code.tar.gz.
QJsonObject codeConfigMap(const QString &name, const QString &ns, const QByteArray &gzip);
// The most a compressed archive may weigh in a ConfigMap (1 MiB, base64 and metadata included).
inline constexpr qsizetype kConfigMapCodeLimit = 740 * 1024;

// Signalbox's Python client reaches pods as an immutable ConfigMap named by its version, mounted
// at kClientDirectory; withPythonClientMounted() changes a Job manifest so that its containers'
// commands find it first on PYTHONPATH.
inline constexpr char kClientDirectory[] = "/signalbox/client";
QString clientConfigMapName(const QString &version);
QJsonObject clientConfigMap(const QString &name, const QString &ns, const QByteArray &archive);
QJsonObject withPythonClientMounted(QJsonObject job, const QString &configMap);

// A Job name for `spec`: DNS-1123, short enough for Indexed pods' host names, unique by suffix.
QString kubeJobName(const JobSpec &spec);

// The batch/v1 Job that runs `spec` as `name`. Several workers make an Indexed Job whose pods
// find each other through the headless Service of workersService(): each gets MASTER_ADDR
// (worker 0's host name), MASTER_PORT, WORLD_SIZE (workers), RANK and NODE_RANK (its index).
// With `tfConfig`, TF_CONFIG too. A job template adds its node selector, tolerations, priority
// class and service account. Exit codes in `failExitCodes` fail the job without retries, and
// evictions (preemption, node drain) never count against backoffLimit. The spec rides along as
// an annotation, so the cluster alone tells what a job ran.
QJsonObject jobManifest(const JobSpec &spec, const QString &name, const QString &ns,
                        const QMap<QString, QString> &extraEnvironment = {},
                        const JobTemplate &jobTemplate = {}, const CodeDelivery &code = {});
QJsonObject workersService(const QString &name, const QString &ns);
// The collection an object is created in: /apis/batch/v1/namespaces/NS/jobs and the like.
QString kubeCollection(const QJsonObject &object, const QString &ns);

// A Job as the jobs table shows it, in a researcher's words: queued (and why: unschedulable,
// waiting for quota, pulling the image), running, succeeded, failed (and why), stopped.
Job jobFromKube(const QJsonObject &job, const QList<QJsonObject> &pods, const QString &cluster);

} // namespace sb

// What KubeBackend::validate() accepted, carried in RunDraft::accepted.
Q_DECLARE_METATYPE(sb::KubeManifests)
