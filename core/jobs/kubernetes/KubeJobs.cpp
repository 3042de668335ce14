#include "KubeJobs.h"

#include "jobs/PythonClient.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

QJsonObject envVar(const QString &name, const QString &value) {
    return {{u"name"_s, name}, {u"value"_s, value}};
}

QJsonObject condition(const QJsonObject &status, const QString &type) {
    for (const QJsonValue c : status[u"conditions"_s].toArray()) {
        if (c[u"type"_s].toString() == type && c[u"status"_s].toString() == "True"_L1)
            return c.toObject();
    }
    return {};
}

QDateTime timestamp(const QJsonValue &value) {
    return QDateTime::fromString(value.toString(), Qt::ISODate).toLocalTime();
}

// Why a pod that is not running yet waits, or an empty string.
QString podWaitReason(const QJsonObject &pod) {
    const QJsonObject status = pod[u"status"_s].toObject();
    for (const QJsonValue c : status[u"conditions"_s].toArray()) {
        if (c[u"type"_s].toString() == "PodScheduled"_L1 && c[u"status"_s].toString() == "False"_L1)
            return u"%1: %2"_s.arg(c[u"reason"_s].toString() == "Unschedulable"_L1
                                       ? u"unschedulable"_s
                                       : c[u"reason"_s].toString(),
                                   c[u"message"_s].toString());
    }
    for (const QString &key : {u"initContainerStatuses"_s, u"containerStatuses"_s}) {
        for (const QJsonValue c : status[key].toArray()) {
            const QJsonObject waiting = c[u"state"_s][u"waiting"_s].toObject();
            const QString reason = waiting[u"reason"_s].toString();
            if (reason == "ImagePullBackOff"_L1 || reason == "ErrImagePull"_L1 ||
                reason == "InvalidImageName"_L1)
                return u"cannot pull the image %1: %2"_s.arg(c[u"image"_s].toString(),
                                                             waiting[u"message"_s].toString());
            if (!reason.isEmpty() && reason != "ContainerCreating"_L1 &&
                reason != "PodInitializing"_L1)
                return u"%1: %2"_s.arg(reason, waiting[u"message"_s].toString());
        }
    }
    return {};
}

std::optional<int> exitCodeOf(const QJsonObject &pod) {
    for (const QJsonValue c : pod[u"status"_s][u"containerStatuses"_s].toArray()) {
        const QJsonObject terminated = c[u"state"_s][u"terminated"_s].toObject();
        if (!terminated.isEmpty())
            return terminated[u"exitCode"_s].toInt();
    }
    return std::nullopt;
}

// The metadata of an object Signalbox owns: its name, namespace and Signalbox's label.
QJsonObject managedMetadata(const QString &name, const QString &ns) {
    return {{u"name"_s, name},
            {u"namespace"_s, ns},
            {u"labels"_s, QJsonObject{{QString::fromLatin1(kManagedLabel), u"true"_s}}}};
}

// The init container's script: fetch the archive when it comes by URL, then unpack it.
constexpr char kUnpackCode[] = R"(set -e
archive="$SIGNALBOX_CODE_ARCHIVE"
if [ -n "$SIGNALBOX_CODE_URL" ]; then
  archive="${TMPDIR:-/tmp}/signalbox-code.tar.gz"
  if command -v curl >/dev/null 2>&1; then curl -fsSL -o "$archive" "$SIGNALBOX_CODE_URL"
  elif command -v wget >/dev/null 2>&1; then wget -q -O "$archive" "$SIGNALBOX_CODE_URL"
  else python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(*sys.argv[1:])' \
    "$SIGNALBOX_CODE_URL" "$archive"
  fi
fi
mkdir -p "$SIGNALBOX_CODE_DIR"
tar -xzf "$archive" -C "$SIGNALBOX_CODE_DIR"
)";

} // namespace

QString kubeJobName(const JobSpec &spec) {
    return withRandomSuffix(safeName(jobBaseName(spec), NameRules::Kubernetes, 40));
}

QJsonObject jobManifest(const JobSpec &spec, const QString &name, const QString &ns,
                        const QMap<QString, QString> &extraEnvironment,
                        const JobTemplate &jobTemplate, const CodeDelivery &code) {
    QJsonArray env;
    QMap<QString, QString> variables = extraEnvironment;
    variables.insert(spec.environment);
    variables.insert(u"SIGNALBOX_RUN"_s, name);
    for (auto it = variables.begin(); it != variables.end(); ++it)
        env.append(envVar(it.key(), it.value()));
    const bool distributed = spec.workers > 1 && spec.trials == 0;
    if (distributed) {
        env.append(envVar(u"MASTER_ADDR"_s, u"%1-0.%1"_s.arg(name)));
        env.append(envVar(u"MASTER_PORT"_s, QString::number(kRendezvousPort)));
        env.append(envVar(u"WORLD_SIZE"_s, QString::number(spec.workers)));
        const QJsonObject index{
            {u"fieldRef"_s,
             QJsonObject{{u"fieldPath"_s,
                          u"metadata.annotations['batch.kubernetes.io/job-completion-index']"_s}}}};
        for (const QString &var : {u"RANK"_s, u"NODE_RANK"_s})
            env.append(QJsonObject{{u"name"_s, var}, {u"valueFrom"_s, index}});
        if (spec.kube.tfConfig) { // the kubelet expands $(RANK), defined just above
            QJsonArray workers;
            for (int i = 0; i < spec.workers; ++i)
                workers.append(u"%1-%2.%1:%3"_s.arg(name).arg(i).arg(kRendezvousPort));
            const QJsonObject cluster{{u"cluster"_s, QJsonObject{{u"worker"_s, workers}}}};
            QByteArray tfConfig = QJsonDocument(cluster).toJson(QJsonDocument::Compact);
            tfConfig.chop(1);
            tfConfig += R"(,"task":{"type":"worker","index":$(RANK)}})";
            env.append(envVar(u"TF_CONFIG"_s, QString::fromUtf8(tfConfig)));
        }
    }
    QJsonObject resources;
    if (spec.gpus > 0)
        resources[u"limits"_s] = QJsonObject{{u"nvidia.com/gpu"_s, spec.gpus}};
    QJsonObject requests;
    if (!spec.kube.cpu.isEmpty())
        requests[u"cpu"_s] = spec.kube.cpu;
    if (!spec.kube.memory.isEmpty())
        requests[u"memory"_s] = spec.kube.memory;
    if (!requests.isEmpty())
        resources[u"requests"_s] = requests;
    QJsonObject container{
        {u"name"_s, u"main"_s},
        {u"image"_s, spec.kube.image.isEmpty() ? jobTemplate.image : spec.kube.image},
        {u"command"_s, QJsonArray::fromStringList(spec.command)},
        {u"env"_s, env},
        {u"resources"_s, resources}};
    if (!spec.workingDirectory.isEmpty())
        container[u"workingDir"_s] = spec.workingDirectory;
    const QString codeDir = QString::fromLatin1(kCodeDirectory);
    QJsonArray initContainers;
    QJsonArray volumes;
    if (!code.none()) {
        const QJsonObject codeMount{{u"name"_s, u"code"_s}, {u"mountPath"_s, codeDir}};
        QJsonArray initEnv{envVar(u"SIGNALBOX_CODE_DIR"_s, codeDir)};
        QJsonArray initMounts{codeMount};
        volumes = {QJsonObject{{u"name"_s, u"code"_s}, {u"emptyDir"_s, QJsonObject{}}}};
        if (!code.configMap.isEmpty()) {
            initEnv.append(
                envVar(u"SIGNALBOX_CODE_ARCHIVE"_s, u"/signalbox/archive/code.tar.gz"_s));
            initMounts.append(QJsonObject{{u"name"_s, u"code-archive"_s},
                                          {u"mountPath"_s, u"/signalbox/archive"_s},
                                          {u"readOnly"_s, true}});
            volumes.append(QJsonObject{{u"name"_s, u"code-archive"_s},
                                       {u"configMap"_s, QJsonObject{{u"name"_s, code.configMap}}}});
        } else {
            initEnv.append(envVar(u"SIGNALBOX_CODE_OBJECT"_s, code.object));
            initEnv.append(envVar(u"SIGNALBOX_CODE_URL"_s, code.url));
        }
        initContainers.append(QJsonObject{
            {u"name"_s, u"code"_s},
            {u"image"_s, container[u"image"_s]},
            {u"command"_s, QJsonArray{u"sh"_s, u"-c"_s, QString::fromLatin1(kUnpackCode)}},
            {u"env"_s, initEnv},
            {u"volumeMounts"_s, initMounts}});
        container[u"volumeMounts"_s] = QJsonArray{codeMount};
        if (spec.workingDirectory.isEmpty())
            container[u"workingDir"_s] = codeDir;
        QJsonArray withCode = container[u"env"_s].toArray();
        withCode.append(envVar(u"SIGNALBOX_CODE"_s, codeDir));
        container[u"env"_s] = withCode;
    }
    if (distributed)
        container[u"ports"_s] = QJsonArray{QJsonObject{{u"containerPort"_s, kRendezvousPort}}};
    if (spec.trials > 0) { // each pod runs its index's script; no parameter is shell text here
        const QString dir = QString::fromLatin1(kTrialsDirectory);
        container[u"command"_s] =
            QJsonArray{u"/bin/sh"_s, u"-c"_s,
                       u"export SIGNALBOX_TRIAL_INDEX=\"$JOB_COMPLETION_INDEX\"; "
                       "exec /bin/sh \"%1/trial-$JOB_COMPLETION_INDEX.sh\""_s.arg(dir)};
        QJsonArray mounts = container[u"volumeMounts"_s].toArray();
        mounts.append(
            QJsonObject{{u"name"_s, u"trials"_s}, {u"mountPath"_s, dir}, {u"readOnly"_s, true}});
        container[u"volumeMounts"_s] = mounts;
        volumes.append(QJsonObject{{u"name"_s, u"trials"_s},
                                   {u"configMap"_s, QJsonObject{{u"name"_s, trialsName(name)}}}});
    }
    QJsonObject podSpec{{u"restartPolicy"_s, u"Never"_s}, {u"containers"_s, QJsonArray{container}}};
    if (!initContainers.isEmpty())
        podSpec[u"initContainers"_s] = initContainers;
    if (!volumes.isEmpty())
        podSpec[u"volumes"_s] = volumes;
    if (distributed)
        podSpec[u"subdomain"_s] = name;
    if (!jobTemplate.nodeSelector.isEmpty())
        podSpec[u"nodeSelector"_s] = jobTemplate.nodeSelector;
    if (!jobTemplate.tolerations.isEmpty())
        podSpec[u"tolerations"_s] = jobTemplate.tolerations;
    if (!jobTemplate.priorityClass.isEmpty())
        podSpec[u"priorityClassName"_s] = jobTemplate.priorityClass;
    if (!jobTemplate.serviceAccount.isEmpty())
        podSpec[u"serviceAccountName"_s] = jobTemplate.serviceAccount;
    const QJsonObject labels{{QString::fromLatin1(kManagedLabel), u"true"_s}};
    QJsonObject jobLabels = labels;
    if (!spec.kube.queue.isEmpty())
        jobLabels[u"kueue.x-k8s.io/queue-name"_s] = spec.kube.queue;
    QJsonObject jobSpec{
        {u"backoffLimit"_s, spec.kube.backoffLimit},
        {u"completions"_s, spec.workers},
        {u"parallelism"_s, spec.workers},
        {u"template"_s,
         QJsonObject{{u"metadata"_s, QJsonObject{{u"labels"_s, labels}}}, {u"spec"_s, podSpec}}}};
    if (distributed || spec.trials > 0)
        jobSpec[u"completionMode"_s] = u"Indexed"_s;
    if (spec.trials > 0) { // a trial that fails, or is stopped early, fails its index alone
        jobSpec[u"completions"_s] = spec.trials;
        jobSpec.remove(u"backoffLimit"_s);
        jobSpec[u"backoffLimitPerIndex"_s] = spec.kube.backoffLimit;
    }
    if (spec.kube.deadlineSeconds > 0)
        jobSpec[u"activeDeadlineSeconds"_s] = spec.kube.deadlineSeconds;
    if (spec.kube.ttlSeconds >= 0)
        jobSpec[u"ttlSecondsAfterFinished"_s] = spec.kube.ttlSeconds;
    QJsonArray failureRules{QJsonObject{
        {u"action"_s, u"Ignore"_s},
        {u"onPodConditions"_s,
         QJsonArray{QJsonObject{{u"type"_s, u"DisruptionTarget"_s}, {u"status"_s, u"True"_s}}}}}};
    if (!spec.kube.failExitCodes.isEmpty()) {
        QJsonArray codes;
        for (int exitCode : spec.kube.failExitCodes)
            codes.append(exitCode);
        failureRules.append(
            QJsonObject{{u"action"_s, u"FailJob"_s},
                        {u"onExitCodes"_s, QJsonObject{{u"containerName"_s, u"main"_s},
                                                       {u"operator"_s, u"In"_s},
                                                       {u"values"_s, codes}}}});
    }
    jobSpec[u"podFailurePolicy"_s] = QJsonObject{{u"rules"_s, failureRules}};
    if (!spec.kube.queue.isEmpty())
        jobSpec[u"suspend"_s] = true; // Kueue admits it when the quota allows
    const QString specJson =
        QString::fromUtf8(QJsonDocument(spec.toJson()).toJson(QJsonDocument::Compact));
    return {{u"apiVersion"_s, u"batch/v1"_s},
            {u"kind"_s, u"Job"_s},
            {u"metadata"_s,
             QJsonObject{{u"name"_s, name},
                         {u"namespace"_s, ns},
                         {u"labels"_s, jobLabels},
                         {u"annotations"_s,
                          QJsonObject{{QString::fromLatin1(kSpecAnnotation), specJson}}}}},
            {u"spec"_s, jobSpec}};
}

QString trialsName(const QString &job) {
    return job + u"-trials"_s;
}

QJsonObject trialsConfigMap(const QString &job, const QString &ns, const QList<QString> &scripts) {
    QJsonObject data;
    for (qsizetype i = 0; i < scripts.size(); ++i)
        data[u"trial-%1.sh"_s.arg(i)] = scripts[i];
    return {{u"apiVersion"_s, u"v1"_s},
            {u"kind"_s, u"ConfigMap"_s},
            {u"metadata"_s, managedMetadata(trialsName(job), ns)},
            {u"immutable"_s, true},
            {u"data"_s, data}};
}

QString codeObjectKey(const QString &hash) {
    return u"signalbox/code/%1.tar.gz"_s.arg(hash);
}

QString codeConfigMapName(const QString &hash) {
    return u"signalbox-code-"_s + hash.left(32);
}

QJsonObject codeConfigMap(const QString &name, const QString &ns, const QByteArray &gzip) {
    return {
        {u"apiVersion"_s, u"v1"_s},
        {u"kind"_s, u"ConfigMap"_s},
        {u"metadata"_s, managedMetadata(name, ns)},
        {u"immutable"_s, true}, // its name is its content's hash
        {u"binaryData"_s, QJsonObject{{u"code.tar.gz"_s, QString::fromLatin1(gzip.toBase64())}}}};
}

QString clientConfigMapName(const QString &version) {
    return u"signalbox-client-"_s + version;
}

QJsonObject clientConfigMap(const QString &name, const QString &ns, const QByteArray &archive) {
    return {{u"apiVersion"_s, u"v1"_s},
            {u"kind"_s, u"ConfigMap"_s},
            {u"metadata"_s, managedMetadata(name, ns)},
            {u"immutable"_s, true}, // its name is its version
            {u"binaryData"_s,
             QJsonObject{{u"signalbox.zip"_s, QString::fromLatin1(archive.toBase64())}}}};
}

QJsonObject withPythonClientMounted(QJsonObject job, const QString &configMap) {
    QJsonObject spec = job[u"spec"_s].toObject();
    QJsonObject podTemplate = spec[u"template"_s].toObject();
    QJsonObject pod = podTemplate[u"spec"_s].toObject();
    QJsonArray volumes = pod[u"volumes"_s].toArray();
    // Optional: where the ConfigMap could not be made (no right to), the pod still starts.
    volumes.append(
        QJsonObject{{u"name"_s, u"signalbox-client"_s},
                    {u"configMap"_s, QJsonObject{{u"name"_s, configMap}, {u"optional"_s, true}}}});
    pod[u"volumes"_s] = volumes;
    const QString directory = QString::fromLatin1(kClientDirectory);
    QJsonArray containers = pod[u"containers"_s].toArray();
    for (qsizetype i = 0; i < containers.size(); ++i) {
        QJsonObject container = containers[i].toObject();
        QJsonArray mounts = container[u"volumeMounts"_s].toArray();
        mounts.append(QJsonObject{{u"name"_s, u"signalbox-client"_s},
                                  {u"mountPath"_s, directory},
                                  {u"readOnly"_s, true}});
        container[u"volumeMounts"_s] = mounts;
        QStringList command;
        for (const QJsonValue word : container[u"command"_s].toArray())
            command << word.toString();
        if (!command.isEmpty()) // ahead of the image's PYTHONPATH, which is kept
            container[u"command"_s] =
                QJsonArray::fromStringList(withPythonClient(directory, command));
        containers[i] = container;
    }
    pod[u"containers"_s] = containers;
    podTemplate[u"spec"_s] = pod;
    spec[u"template"_s] = podTemplate;
    job[u"spec"_s] = spec;
    return job;
}

QJsonObject workersService(const QString &name, const QString &ns) {
    return {{u"apiVersion"_s, u"v1"_s},
            {u"kind"_s, u"Service"_s},
            {u"metadata"_s, managedMetadata(name, ns)},
            {u"spec"_s,
             QJsonObject{{u"clusterIP"_s, u"None"_s},
                         {u"selector"_s, QJsonObject{{u"batch.kubernetes.io/job-name"_s, name}}},
                         {u"ports"_s, QJsonArray{QJsonObject{{u"name"_s, u"rendezvous"_s},
                                                             {u"port"_s, kRendezvousPort}}}}}}};
}

Job jobFromKube(const QJsonObject &object, const QList<QJsonObject> &pods, const QString &cluster) {
    const QJsonObject meta = object[u"metadata"_s].toObject();
    const QJsonObject spec = object[u"spec"_s].toObject();
    const QJsonObject status = object[u"status"_s].toObject();
    Job job;
    job.id = meta[u"name"_s].toString();
    job.backend = BackendName::kKubernetes;
    job.node = cluster;
    job.spec = JobSpec::fromJson(
        QJsonDocument::fromJson(
            meta[u"annotations"_s][QString::fromLatin1(kSpecAnnotation)].toString().toUtf8())
            .object());
    job.spec.backend = job.backend;
    job.spec.target = cluster;
    if (job.spec.name.isEmpty())
        job.spec.name = job.id;
    if (job.spec.kube.image.isEmpty()) { // not submitted by Signalbox: what its pod template says
        job.foreign = true;
        const QJsonObject container = spec[u"template"_s][u"spec"_s][u"containers"_s][0].toObject();
        job.spec.kube.image = container[u"image"_s].toString();
        for (const QString &key : {u"command"_s, u"args"_s}) {
            for (const QJsonValue arg : container[key].toArray())
                job.spec.command << arg.toString();
        }
        job.spec.workers = std::max(1, spec[u"parallelism"_s].toInt(1));
        job.spec.gpus =
            container[u"resources"_s][u"limits"_s][u"nvidia.com/gpu"_s].toVariant().toInt();
    }
    job.submitted = timestamp(meta[u"creationTimestamp"_s]);
    job.started = timestamp(status[u"startTime"_s]);

    if (job.spec.trials > 0) { // each trial's state: finished by the Job's status, else its pod
        // A Job's own word on its size is bounded: the annotation may come from anyone.
        for (int i = 0; i < std::min(job.spec.trials, kMaxTrials); ++i)
            job.indexStates[i] = JobState::Queued;
        for (const QJsonObject &pod : pods) {
            if (pod[u"status"_s][u"phase"_s].toString() == "Running"_L1)
                job.indexStates[pod[u"metadata"_s][u"annotations"_s]
                                   [u"batch.kubernetes.io/job-completion-index"_s]
                                       .toString()
                                       .toInt()] = JobState::Running;
        }
        for (int i : parseIndexes(status[u"completedIndexes"_s].toString()))
            job.indexStates[i] = JobState::Succeeded;
        for (int i : parseIndexes(status[u"failedIndexes"_s].toString()))
            job.indexStates[i] = JobState::Failed;
    }
    const QJsonObject complete = condition(status, u"Complete"_s);
    QJsonObject failed = condition(status, u"Failed"_s);
    if (failed.isEmpty())
        failed = condition(status, u"FailureTarget"_s);
    std::optional<int> failedExit;
    for (const QJsonObject &pod : pods) {
        if (pod[u"status"_s][u"phase"_s].toString() == "Failed"_L1 && !failedExit)
            failedExit = exitCodeOf(pod);
    }
    const bool stopped =
        meta[u"annotations"_s][QString::fromLatin1(kStoppedAnnotation)].toString() == "true"_L1;
    if (!complete.isEmpty()) {
        job.state = JobState::Succeeded;
        job.exitCode = 0;
        job.finished =
            timestamp(status[u"completionTime"_s].isString() ? status[u"completionTime"_s]
                                                             : complete[u"lastTransitionTime"_s]);
        return job;
    }
    if (!failed.isEmpty()) {
        job.state = JobState::Failed;
        job.exitCode = failedExit;
        job.finished = timestamp(failed[u"lastTransitionTime"_s]);
        const QString reason = failed[u"reason"_s].toString();
        job.message = reason == "DeadlineExceeded"_L1
                          ? u"ran past its deadline (activeDeadlineSeconds)"_s
                          : u"%1: %2"_s.arg(reason, failed[u"message"_s].toString());
        return job;
    }
    if (stopped) {
        job.state = JobState::Stopped;
        job.finished = timestamp(condition(status, u"Suspended"_s)[u"lastTransitionTime"_s]);
        return job;
    }
    if (spec[u"suspend"_s].toBool()) {
        job.state = JobState::Queued;
        job.message = meta[u"labels"_s][u"kueue.x-k8s.io/queue-name"_s].isString()
                          ? u"waiting for quota in queue %1"_s.arg(
                                meta[u"labels"_s][u"kueue.x-k8s.io/queue-name"_s].toString())
                          : u"suspended"_s;
        return job;
    }
    const int workers = std::max(1, spec[u"parallelism"_s].toInt(1));
    QStringList nodes;
    int running = 0;
    QString waiting;
    for (const QJsonObject &pod : pods) {
        const QString phase = pod[u"status"_s][u"phase"_s].toString();
        if (phase == "Running"_L1) {
            ++running;
            const QString node = pod[u"spec"_s][u"nodeName"_s].toString();
            if (!nodes.contains(node))
                nodes << node;
        } else if (phase == "Pending"_L1 && waiting.isEmpty()) {
            waiting = podWaitReason(pod);
        }
    }
    if (running > 0) {
        job.state = JobState::Running;
        nodes.sort();
        job.message = workers > 1 ? u"%1/%2 workers running on %3"_s.arg(running).arg(workers).arg(
                                        nodes.join(u", "_s))
                                  : u"on %1"_s.arg(nodes.join(u", "_s));
        if (job.spec.trials > 0) {
            const auto ended =
                std::count_if(job.indexStates.begin(), job.indexStates.end(), isFinished);
            job.message = u"%1 of %2 trials running, %3 ended, on %4"_s.arg(running)
                              .arg(job.spec.trials)
                              .arg(ended)
                              .arg(nodes.join(u", "_s));
        }
        return job;
    }
    job.state = JobState::Queued;
    job.message = !waiting.isEmpty() ? waiting
                  : pods.isEmpty()   ? u"waiting for its pods to be created"_s
                                     : u"starting"_s;
    return job;
}

QString kubeCollection(const QJsonObject &object, const QString &ns) {
    const QString apiVersion = object[u"apiVersion"_s].toString();
    const QString plural = object[u"kind"_s].toString().toLower() + u's';
    const QString group =
        apiVersion.contains(u'/') ? u"/apis/"_s + apiVersion : u"/api/"_s + apiVersion;
    return u"%1/namespaces/%2/%3"_s.arg(group, ns, plural);
}

} // namespace sb
