#pragma once

#include "config/Config.h"
#include "jobs/Job.h"

#include <QJsonObject>
#include <QList>

namespace sb {

// Labels and annotations Signalbox puts on what it submits, to find it again.
inline constexpr char kManagedLabel[] = "signalbox.dev/managed";
inline constexpr char kSpecAnnotation[] = "signalbox.dev/spec";
inline constexpr char kStoppedAnnotation[] = "signalbox.dev/stopped";
inline constexpr int kRendezvousPort = 29500;

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
                        const JobTemplate &jobTemplate = {});
QJsonObject workersService(const QString &name, const QString &ns);

// A Job as the jobs table shows it, in a researcher's words: queued (and why: unschedulable,
// waiting for quota, pulling the image), running, succeeded, failed (and why), stopped.
Job jobFromKube(const QJsonObject &job, const QList<QJsonObject> &pods, const QString &cluster);

} // namespace sb
