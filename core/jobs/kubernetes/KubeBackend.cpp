#include "KubeBackend.h"

#include "config/YamlJson.h"
#include "jobs/JobOutput.h"
#include "jobs/PythonClient.h"

#include "monitor/SampleScript.h"

#include "util/LineBuffer.h"
#include "util/Log.h"
#include "util/OffThread.h"

#include <QJsonArray>
#include <QTimer>

#include <QUrl>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr qint64 kLogRetryMs = 5000;  // after a refused or broken log stream
constexpr qint64 kLogResumeMs = 1000; // after a stream that ended at once: no busy loop
constexpr qint64 kShortStreamMs = 1000;
// The output kept per job: the cluster keeps its pods' logs, the app only what a pane shows.
// Past it the oldest half goes, at a line's start, so the memory of a chatty job stays bounded.
constexpr qsizetype kKeptLogBytes = qsizetype(16) << 20;

QString jobOfPod(const QJsonObject &pod) {
    const QJsonObject labels = pod[u"metadata"_s][u"labels"_s].toObject();
    const QString name = labels[u"batch.kubernetes.io/job-name"_s].toString();
    return name.isEmpty() ? labels[u"job-name"_s].toString() : name;
}

// "2026-11-23T01:02:03.5Z" as (seconds, nanoseconds), to order log lines exactly.
std::pair<qint64, qint64> logTime(QByteArrayView stamp) {
    const qsizetype dot = stamp.indexOf('.');
    const QByteArrayView whole = dot < 0 ? stamp.chopped(1) : stamp.first(dot);
    const qint64 seconds =
        QDateTime::fromString(QString::fromLatin1(whole) + u'Z', Qt::ISODate).toSecsSinceEpoch();
    qint64 nanos = 0;
    if (dot >= 0) {
        QByteArray fraction = stamp.sliced(dot + 1).chopped(1).toByteArray().left(9);
        fraction.append(QByteArray(9 - fraction.size(), '0'));
        nanos = fraction.toLongLong();
    }
    return {seconds, nanos};
}

// What the sampling script said inside a pod; where the image cannot run it, plainly why.
NodeSample podSample(const Result<KubeExecResult> &ran, NodeSampleBuilder &builder) {
    NodeSample sample;
    if (!ran) {
        const bool noShell = ran.error().contains(u"executable file not found"_s) ||
                             ran.error().contains(u"no such file"_s, Qt::CaseInsensitive);
        sample.error = noShell ? QObject::tr("not available: the image has no sh")
                               : QObject::tr("not available: %1").arg(ran.error());
        return sample;
    }
    SampleFrameReader reader;
    reader.feed(ran->out);
    const auto frame = reader.next();
    if (!frame) {
        sample.error = QObject::tr("not available: the sampling script printed no sample (exit "
                                   "code %1): %2")
                           .arg(ran->exitCode)
                           .arg(QString::fromUtf8(ran->err.left(200)).trimmed());
        return sample;
    }
    sample = builder.build(*frame);
    if (!sample.hasNvidiaSmi)
        sample.gpuError = QObject::tr("not available: the image has no nvidia-smi");
    return sample;
}

} // namespace

struct KubeBackend::Cluster {
    QString name;
    std::unique_ptr<KubeClient> client;
    std::unique_ptr<KubeInformer> jobs;
    std::unique_ptr<KubeInformer> pods;
    QHash<QString, Job> rows;              // by job name
    QHash<QString, QString> jobOfPod;      // pod -> job
    QHash<QString, QStringList> podsOfJob; // job -> pods
    struct Follow {
        quint64 call = 0;
        QByteArray lastStamp;      // of the last line taken
        int takenAtLastStamp = 0;  // lines taken with exactly that time (a runtime may repeat it)
        int toSkipAtLastStamp = 0; // of those, how many a resumed stream has yet to repeat
        bool replaying = false;    // a resumed stream, still repeating what was taken
        LineBuffer lines;
        bool ended = false;  // the container ended and its whole log was read
        qint64 failedAt = 0; // ms since epoch of the last refusal; retried after a while
    };
    QHash<QString, Follow> follows; // by pod
};

KubeBackend::KubeBackend(Options options, QObject *parent)
    : JobBackend(parent)
    , m_options(std::move(options)) {
    m_code.setObjectStore(m_options.objectStore);
    connect(&m_code, &KubeCode::prepared, this, &JobBackend::codePrepared);
}

KubeBackend::~KubeBackend() = default;

void KubeBackend::addCluster(const KubeContext &context) {
    auto cluster = std::make_unique<Cluster>();
    cluster->name = context.name;
    cluster->client = std::make_unique<KubeClient>(context);
    watch(*cluster);
    m_clusters[context.name] = std::move(cluster);
}

void KubeBackend::watch(Cluster &c) {
    const QString base = u"/namespaces/%1/"_s.arg(c.client->context().ns);
    const QString managed = QString::fromLatin1(kManagedLabel) + u"=true"_s;
    c.jobs = std::make_unique<KubeInformer>(c.client.get(), u"/apis/batch/v1"_s + base + u"jobs"_s,
                                            m_options.allJobs ? QString() : managed);
    c.pods = std::make_unique<KubeInformer>(c.client.get(), u"/api/v1"_s + base + u"pods"_s,
                                            m_options.allJobs ? u"batch.kubernetes.io/job-name"_s
                                                              : managed);
    connect(c.jobs.get(), &KubeInformer::updated, this,
            [this, &c](const QList<QJsonObject> &changed, const QStringList &removed) {
                QStringList names = removed;
                for (const QJsonObject &job : changed)
                    names << kubeName(job);
                refresh(c, names);
            });
    connect(c.pods.get(), &KubeInformer::updated, this,
            [this, &c](const QList<QJsonObject> &changed, const QStringList &removed) {
                QStringList jobs;
                for (const QString &pod : removed) {
                    const QString job = c.jobOfPod.take(pod);
                    c.podsOfJob[job].removeAll(pod);
                    jobs << job;
                }
                for (const QJsonObject &pod : changed) {
                    const QString name = kubeName(pod);
                    const QString job = jobOfPod(pod);
                    if (!c.jobOfPod.contains(name)) {
                        c.jobOfPod.insert(name, job);
                        c.podsOfJob[job] << name;
                    }
                    jobs << job;
                    followLogs(c, pod);
                }
                jobs.removeDuplicates();
                refresh(c, jobs);
            });
    for (KubeInformer *informer : {c.jobs.get(), c.pods.get()})
        connect(informer, &KubeInformer::errorChanged, this,
                [this, name = c.name] { Q_EMIT clusterChanged(name); });
    c.jobs->start();
    c.pods->start();
}

void KubeBackend::setAllJobs(bool all) {
    if (all == m_options.allJobs)
        return;
    m_options.allJobs = all;
    for (auto &[name, cluster] : m_clusters) {
        Cluster &c = *cluster;
        for (Cluster::Follow &follow : c.follows) {
            if (follow.call)
                c.client->cancel(follow.call);
        }
        c.follows.clear();
        c.jobOfPod.clear();
        c.podsOfJob.clear();
        const QStringList shown = c.rows.keys();
        c.rows.clear();
        for (const QString &id : shown)
            Q_EMIT jobRemoved(id);
        watch(c); // the new informers list afresh; the old ones end with their destruction
    }
}

QStringList KubeBackend::clusters() const {
    QStringList names;
    for (const auto &[name, cluster] : m_clusters)
        names << name;
    return names;
}

QString KubeBackend::clusterError(const QString &cluster) const {
    const auto it = m_clusters.find(cluster);
    if (it == m_clusters.end())
        return tr("no cluster named \"%1\"").arg(cluster);
    const QString jobs = it->second->jobs->error();
    return jobs.isEmpty() ? it->second->pods->error() : jobs;
}

void KubeBackend::refresh(Cluster &cluster, const QStringList &jobNames) {
    for (const QString &name : jobNames) {
        const auto object = cluster.jobs->objects().constFind(name);
        if (object == cluster.jobs->objects().cend()) {
            auto row = cluster.rows.find(name);
            if (row == cluster.rows.end() || row->finishedState())
                continue;
            row->state = JobState::Stopped; // deleted on the cluster while it ran
            row->message = tr("deleted from the cluster");
            Q_EMIT jobChanged(*row);
            continue;
        }
        QList<QJsonObject> pods;
        for (const QString &pod : cluster.podsOfJob.value(name)) {
            if (const auto it = cluster.pods->objects().constFind(pod);
                it != cluster.pods->objects().cend())
                pods << *it;
        }
        Job job = jobFromKube(*object, pods, cluster.name);
        m_submitting.remove(name);
        auto row = cluster.rows.find(name);
        if (row != cluster.rows.end() && row->toJson() == job.toJson())
            continue;
        cluster.rows.insert(name, job);
        Q_EMIT jobChanged(job);
    }
}

void KubeBackend::followLogs(Cluster &cluster, const QJsonObject &pod) {
    const QString name = kubeName(pod);
    const QString phase = pod[u"status"_s][u"phase"_s].toString();
    if (phase == "Pending"_L1 || phase.isEmpty())
        return;
    Cluster::Follow &follow = cluster.follows[name];
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (follow.call || follow.ended ||
        (follow.failedAt && now - follow.failedAt < kLogRetryMs - 100))
        return;
    const QString job = jobOfPod(pod);
    const QString index =
        pod[u"metadata"_s][u"annotations"_s][u"batch.kubernetes.io/job-completion-index"_s]
            .toString();
    const JobSpec &spec = cluster.rows.value(job).spec;
    const bool distributed = spec.workers > 1 || spec.trials > 0;
    const QByteArray prefix =
        distributed && !index.isEmpty() ? QByteArray('[' + index.toUtf8() + "] ") : QByteArray();
    const bool running = phase == "Running"_L1;
    KubeRequest request;
    request.path = u"/api/v1/namespaces/%1/pods/%2/log?timestamps=true&container=main"_s.arg(
        pod[u"metadata"_s][u"namespace"_s].toString(), name);
    if (running)
        request.path += u"&follow=true"_s;
    if (!follow.lastStamp.isEmpty()) // whole seconds: lines of that second come again, and go
        request.path +=
            u"&sinceTime="_s + QString::fromLatin1(QUrl::toPercentEncoding(QString::fromLatin1(
                                   follow.lastStamp.left(follow.lastStamp.indexOf('.')) + 'Z')));
    // A resumed stream starts at the whole second before the last line taken: what it repeats
    // is skipped by time, and lines sharing the last one's exact time by count.
    follow.replaying = !follow.lastStamp.isEmpty();
    follow.toSkipAtLastStamp = follow.takenAtLastStamp;
    follow.lines = {}; // a line cut off by the break comes again whole
    auto take = [this, &cluster, name, job, prefix](const QByteArray &chunk) {
        Cluster::Follow &f = cluster.follows[name];
        QByteArray out;
        f.lines.feed(chunk, [&](QByteArrayView line) {
            const qsizetype space = line.indexOf(' ');
            const QByteArrayView stamp = space < 0 ? line : line.first(space);
            if (f.replaying) {
                const auto time = logTime(stamp);
                const auto last = logTime(f.lastStamp);
                if (time < last || (time == last && f.toSkipAtLastStamp-- > 0))
                    return;
                f.replaying = false;
            }
            if (stamp == f.lastStamp) {
                ++f.takenAtLastStamp;
            } else {
                f.lastStamp = stamp.toByteArray();
                f.takenAtLastStamp = 1;
            }
            out +=
                prefix + (space < 0 ? QByteArray() : line.sliced(space + 1).toByteArray()) + '\n';
        });
        if (!out.isEmpty())
            appendLog(job, out);
    };
    const qint64 startedAt = now;
    follow.call = cluster.client->follow(
        request, this, take,
        [this, &cluster, name, job, running, startedAt](const KubeReply &reply) {
            Cluster::Follow &f = cluster.follows[name];
            f.call = 0;
            if (!reply.ok()) {
                if (!f.failedAt)
                    appendLog(job, "[signalbox] cannot read the log of pod " + name.toUtf8() +
                                       ": " + reply.error.toUtf8() + '\n');
                f.failedAt = QDateTime::currentMSecsSinceEpoch();
                resumeLogs(cluster, name, kLogRetryMs);
                return;
            }
            f.failedAt = 0;
            if (!running) {
                f.ended = true;
                return;
            }
            // The stream ended while the pod ran (a reconnect, an API server restart): resume,
            // at once unless it ended as soon as it began.
            const bool brief = QDateTime::currentMSecsSinceEpoch() - startedAt < kShortStreamMs;
            resumeLogs(cluster, name, brief ? kLogResumeMs : 0);
        });
}

void KubeBackend::resumeLogs(Cluster &cluster, const QString &pod, qint64 delayMs) {
    QTimer::singleShot(std::chrono::milliseconds(delayMs), this, [this, &cluster, pod] {
        if (const auto latest = cluster.pods->objects().constFind(pod);
            latest != cluster.pods->objects().cend())
            followLogs(cluster, *latest);
    });
}

void KubeBackend::appendLog(const QString &id, const QByteArray &data) {
    QByteArray &kept = m_logs[id];
    kept.append(data);
    keepLogTail(kept, kKeptLogBytes,
                "[signalbox] earlier output dropped here; the cluster keeps it (kubectl logs)\n");
    Q_EMIT logAppended(id, data);
}

Result<KubeManifests> KubeBackend::manifests(const JobSpec &spec, const QString &name) const {
    const auto it = m_clusters.find(spec.target);
    if (it == m_clusters.end())
        return fail(tr("no cluster named \"%1\"").arg(spec.target));
    JobTemplate jobTemplate;
    if (!spec.kube.jobTemplate.isEmpty()) {
        const auto found =
            std::find_if(m_options.templates.cbegin(), m_options.templates.cend(),
                         [&spec](const JobTemplate &t) { return t.name == spec.kube.jobTemplate; });
        if (found == m_options.templates.cend())
            return fail(
                tr("no job template named \"%1\" in the config").arg(spec.kube.jobTemplate));
        jobTemplate = *found;
    }
    if (spec.kube.image.trimmed().isEmpty() && jobTemplate.image.isEmpty())
        return fail(tr("a run on a cluster needs a container image"));
    if (spec.command.isEmpty())
        return fail(tr("a run needs a command"));
    CodeDelivery code;
    if (!spec.codeDirectory.isEmpty()) {
        auto packed = m_code.packed(spec.codeDirectory);
        if (!packed)
            return fail(packed.error());
        code = *packed;
    }
    const QString ns = it->second->client->context().ns;
    QList<QJsonObject> objects;
    if (spec.workers > 1 && spec.trials == 0)
        objects << workersService(name, ns);
    QJsonObject job = jobManifest(spec, name, ns, m_options.environment, jobTemplate, code);
    if (const auto &shipped = pythonClient()) // `import signalbox` works in its pods as here
        job = withPythonClientMounted(job, clientConfigMapName(shipped->version));
    objects << job;
    return KubeManifests{objects, code};
}

namespace {

// Creates `objects` one after the other from `index` on, so the Job comes only once its Service
// is there; `done` gets the first refusal, or an empty string.
void createInOrder(KubeClient *client, const QList<QJsonObject> &objects, int index, bool dryRun,
                   QObject *receiver, const std::function<void(const QString &)> &done) {
    if (index == objects.size()) {
        done({});
        return;
    }
    const QJsonObject &object = objects[index];
    KubeRequest request;
    request.method = "POST";
    request.path = kubeCollection(
        object, object[u"metadata"_s][u"namespace"_s].toString(client->context().ns));
    if (dryRun)
        request.path += u"?dryRun=All"_s;
    request.body = QJsonDocument(object).toJson(QJsonDocument::Compact);
    client->send(request, receiver, [=](const KubeReply &reply) {
        if (!reply.ok())
            return done(
                u"%1 %2: %3"_s.arg(object[u"kind"_s].toString(), kubeName(object), reply.error));
        createInOrder(client, objects, index + 1, dryRun, receiver, done);
    });
}

// Signalbox's Python client as the ConfigMap its jobs mount (named by its version, immutable:
// one there already is this one); `done` gets the refusal, or an empty string.
void ensureClientConfigMap(KubeClient *client, const QString &ns, const PythonClient &shipped,
                           QObject *receiver, const std::function<void(const QString &)> &done) {
    const QString name = clientConfigMapName(shipped.version);
    KubeRequest exists;
    exists.path = u"/api/v1/namespaces/%1/configmaps/%2"_s.arg(ns, name);
    client->send(exists, receiver, [=](const KubeReply &found) {
        if (found.ok())
            return done({});
        if (found.status != 404)
            return done(u"ConfigMap %1: %2"_s.arg(name, found.error));
        KubeRequest create;
        create.method = "POST";
        create.path = u"/api/v1/namespaces/%1/configmaps"_s.arg(ns);
        create.body = QJsonDocument(clientConfigMap(name, ns, shipped.archive))
                          .toJson(QJsonDocument::Compact);
        client->send(create, receiver, [=](const KubeReply &created) {
            done(created.ok() || created.status == 409 // another submission raced us
                     ? QString()
                     : u"ConfigMap %1: %2"_s.arg(name, created.error));
        });
    });
}

} // namespace

void KubeBackend::apply(const QString &cluster, const QList<QJsonObject> &objects, bool dryRun,
                        QObject *receiver, const std::function<void(const QString &)> &done) {
    const auto it = m_clusters.find(cluster);
    if (it == m_clusters.end())
        return done(tr("no cluster named \"%1\"").arg(cluster));
    KubeClient *client = it->second->client.get();
    const auto &shipped = pythonClient();
    if (!shipped || dryRun || objects.isEmpty())
        return createInOrder(client, objects, 0, dryRun, receiver, done);
    // The client the Job mounts goes up first, into the Job's namespace.
    const QString ns = objects.last()[u"metadata"_s][u"namespace"_s].toString(client->context().ns);
    ensureClientConfigMap(client, ns, *shipped, receiver, [=](const QString &error) {
        if (!error.isEmpty()) // the job runs all the same; only `import signalbox` may fail
            qCWarning(lcKube).noquote()
                << u"%1: the Python client is not shipped: %2"_s.arg(cluster, error);
        createInOrder(client, objects, 0, dryRun, receiver, done);
    });
}

QStringList KubeBackend::templateNames() const {
    QStringList names;
    for (const JobTemplate &t : m_options.templates)
        names << t.name;
    return names;
}

void KubeBackend::askAvailability(const QString &target, QObject *receiver,
                                  AvailabilityDone done) const {
    clusterGpus(target, receiver, [done = std::move(done)](const Result<KubeGpuInventory> &gpus) {
        done(gpus ? Result<QString>(gpus->summary()) : Result<QString>(gpus.failure()));
    });
}

Result<QString> KubeBackend::preview(const JobSpec &spec) const {
    if (m_previewName.second.isEmpty() || m_previewName.first != spec.name)
        m_previewName = {spec.name, kubeJobName(spec)};
    const auto made = manifests(spec, m_previewName.second);
    if (!made)
        return made.failure();
    m_previewCode = made->code;
    QByteArray yaml;
    for (const QJsonObject &object : made->objects)
        yaml += (yaml.isEmpty() ? QByteArray() : QByteArray("---\n")) + jsonToYaml(object);
    return QString::fromUtf8(yaml);
}

void KubeBackend::validate(const RunDraft &draft, QObject *receiver, ValidateDone done) {
    const QString text = draft.text;
    const QString cluster = draft.spec.target;
    const QString fileName = tr("The manifest");
    runOffThread(
        receiver, [text, fileName] { return parseYamlObjects(text.toUtf8(), fileName); },
        [this, receiver, text, cluster,
         done = std::move(done)](const Result<QList<QJsonObject>> &parsed) {
            if (!parsed)
                return done(parsed.failure());
            const QList<QJsonObject> &objects = *parsed;
            // A preview that could not be made says why in a comment line.
            if (objects.isEmpty() || objects.last()[u"kind"_s].toString() != "Job"_L1)
                return done(
                    fail(text.startsWith(u'#')
                             ? text.mid(2).trimmed()
                             : tr("The manifest: the last document must be the Job (kind: Job)")));
            apply(cluster, objects, true, receiver,
                  [objects, code = m_previewCode, done](const QString &error) {
                      if (!error.isEmpty())
                          return done(fail(tr("The API server refused it: %1").arg(error)));
                      done(QVariant::fromValue(KubeManifests{objects, code}));
                  });
        });
}

Result<QString> KubeBackend::submitDraft(const RunDraft &draft) {
    if (!draft.accepted.canConvert<KubeManifests>())
        return submit(draft.spec);
    return submitManifests(draft.spec, draft.accepted.value<KubeManifests>());
}

Result<QString> KubeBackend::submit(const JobSpec &spec) {
    auto objects = manifests(spec, kubeJobName(spec));
    if (!objects)
        return fail(objects.error());
    return submitManifests(spec, std::move(objects).value());
}

Result<QString> KubeBackend::submitManifests(const JobSpec &spec, KubeManifests manifests) {
    m_previewName = {}; // the next run's Job gets a name of its own
    QList<QJsonObject> &objects = manifests.objects;
    if (!m_clusters.contains(spec.target))
        return fail(tr("no cluster named \"%1\"").arg(spec.target));
    if (objects.isEmpty() || objects.last()[u"kind"_s].toString() != "Job"_L1)
        return fail(tr("the last manifest must be the Job"));
    QJsonObject &object = objects.last();
    const QString name = kubeName(object);
    if (name.isEmpty())
        return fail(tr("the Job needs metadata.name"));
    // Signalbox's label on the Job and its pods, so that the watches see them.
    const auto labelled = [](QJsonObject carrier) {
        QJsonObject meta = carrier[u"metadata"_s].toObject();
        QJsonObject labels = meta[u"labels"_s].toObject();
        labels[QString::fromLatin1(kManagedLabel)] = u"true"_s;
        meta[u"labels"_s] = labels;
        carrier[u"metadata"_s] = meta;
        return carrier;
    };
    object = labelled(object);
    QJsonObject jobSpec = object[u"spec"_s].toObject();
    jobSpec[u"template"_s] = labelled(jobSpec[u"template"_s].toObject());
    object[u"spec"_s] = jobSpec;
    Job job;
    job.id = name;
    job.backend = this->name();
    job.node = spec.target;
    job.spec = spec;
    job.submitted = QDateTime::currentDateTime();
    job.message = tr("submitting");
    m_submitting.insert(name, job);
    Q_EMIT jobChanged(job);
    auto refused = [this, name](const QString &error) {
        if (error.isEmpty() || !m_submitting.contains(name))
            return;
        Job failed = m_submitting.take(name);
        markFailed(failed, tr("refused by the cluster: %1").arg(error));
        Q_EMIT jobChanged(failed);
    };
    // The code the objects were made to fetch goes up first.
    const CodeDelivery &code = manifests.code;
    if (code.none()) {
        apply(spec.target, objects, false, this, refused);
        return name;
    }
    m_code.unpin(spec.codeDirectory); // the dialog's snapshot is spent: the next run packs afresh
    m_code.deliver(m_clusters[spec.target]->client.get(), code,
                   [this, cluster = spec.target, objects, refused](const QString &error) {
                       if (!error.isEmpty())
                           return refused(error);
                       apply(cluster, objects, false, this, refused);
                   });
    return name;
}

QList<Job> KubeBackend::jobs() const {
    QList<Job> out = m_submitting.values();
    for (const auto &[name, cluster] : m_clusters)
        out += cluster->rows.values();
    return out;
}

KubeBackend::Cluster *KubeBackend::clusterOf(const QString &id, Job *job) const {
    for (const auto &[name, cluster] : m_clusters) {
        if (const auto it = cluster->rows.constFind(id); it != cluster->rows.cend()) {
            if (job)
                *job = *it;
            return cluster.get();
        }
    }
    return nullptr;
}

Status KubeBackend::stop(const QString &id) {
    Job job;
    Cluster *cluster = clusterOf(id, &job);
    if (!cluster)
        return fail(tr("no job %1 on any cluster").arg(id));
    if (job.finishedState())
        return fail(tr("%1 has ended already").arg(id));
    KubeRequest request;
    request.method = "PATCH";
    request.contentType = "application/merge-patch+json";
    request.path = u"/apis/batch/v1/namespaces/%1/jobs/%2"_s.arg(cluster->client->context().ns, id);
    const QJsonObject patch{
        {u"metadata"_s,
         QJsonObject{{u"annotations"_s,
                      QJsonObject{{QString::fromLatin1(kStoppedAnnotation), u"true"_s}}}}},
        {u"spec"_s, QJsonObject{{u"suspend"_s, true}}}};
    request.body = QJsonDocument(patch).toJson(QJsonDocument::Compact);
    cluster->client->send(request, this, [this, id](const KubeReply &reply) {
        if (!reply.ok())
            appendLog(id, "[signalbox] could not stop the job: " + reply.error.toUtf8() + '\n');
    });
    return success();
}

Result<QString> KubeBackend::submitTrials(const JobSpec &spec, const QList<QString> &scripts) {
    if (spec.trials != scripts.size() || scripts.isEmpty())
        return fail(tr("a job of trials needs one script per trial"));
    const QString name = kubeJobName(spec);
    auto made = manifests(spec, name);
    if (!made)
        return fail(made.error());
    made.value().objects.prepend(
        trialsConfigMap(name, m_clusters.at(spec.target)->client->context().ns, scripts));
    return submitManifests(spec, std::move(made).value());
}

Status KubeBackend::stopIndex(const QString &id, int index) {
    Job job;
    Cluster *cluster = clusterOf(id, &job);
    if (!cluster)
        return fail(tr("no job %1 on any cluster").arg(id));
    // Its pod goes; with backoffLimitPerIndex 0 the index fails and is not tried again.
    KubeRequest request;
    request.method = "DELETE";
    request.path = u"/api/v1/namespaces/%1/pods?labelSelector=%2"_s.arg(
        cluster->client->context().ns,
        QString::fromLatin1(QUrl::toPercentEncoding(
            u"job-name=%1,batch.kubernetes.io/job-completion-index=%2"_s.arg(id).arg(index))));
    cluster->client->send(request, this, [this, id, index](const KubeReply &reply) {
        if (!reply.ok())
            appendLog(id, "[signalbox] could not stop index " + QByteArray::number(index) + ": " +
                              reply.error.toUtf8() + '\n');
    });
    return success();
}

Result<QByteArray> KubeBackend::log(const QString &id) const {
    return m_logs.value(id);
}

namespace {

QString shortTime(const QJsonValue &stamp) {
    return QDateTime::fromString(stamp.toString(), Qt::ISODate)
        .toLocalTime()
        .toString(u"yyyy-MM-dd HH:mm:ss"_s);
}

// A pod in one line: phase, node, and each container's state.
QString podLine(const QJsonObject &pod) {
    const QJsonObject status = pod[u"status"_s].toObject();
    QStringList containers;
    for (const QString &key : {u"initContainerStatuses"_s, u"containerStatuses"_s}) {
        for (const QJsonValue c : status[key].toArray()) {
            const QJsonObject state = c[u"state"_s].toObject();
            const QString kind = state.keys().value(0);
            const QJsonObject detail = state[kind].toObject();
            QString what = kind;
            if (detail.contains(u"exitCode"_s))
                what += u" exit %1"_s.arg(detail[u"exitCode"_s].toInt());
            if (detail.contains(u"reason"_s))
                what += u" (%1)"_s.arg(detail[u"reason"_s].toString());
            containers << u"%1 %2"_s.arg(c[u"name"_s].toString(), what);
        }
    }
    return u"  %1  %2  on %3  %4\n"_s.arg(kubeName(pod), status[u"phase"_s].toString(),
                                          pod[u"spec"_s][u"nodeName"_s].toString(u"no node yet"_s),
                                          containers.join(u", "_s));
}

} // namespace

void KubeBackend::sampleGpus(const QString &id, QObject *receiver, JobSamplesDone done) const {
    Job job;
    Cluster *cluster = clusterOf(id, &job);
    QList<QJsonObject> running;
    if (cluster && cluster->pods) {
        for (const QString &name : cluster->podsOfJob.value(id)) {
            const QJsonObject pod = cluster->pods->objects().value(name);
            if (pod[u"status"_s][u"phase"_s].toString() == u"Running"_s)
                running << pod;
        }
    }
    if (running.isEmpty()) {
        const QString why = !cluster ? tr("no job %1 on any cluster").arg(id)
                                     : tr("job %1 has no running pod").arg(id);
        QTimer::singleShot(0, receiver, [done = std::move(done), why] { done(fail(why)); });
        return;
    }
    // Each pod's answer meets the others here, in the pods' order.
    auto samples = std::make_shared<std::vector<JobNodeSample>>(running.size());
    auto left = std::make_shared<qsizetype>(running.size());
    auto finish = std::make_shared<JobSamplesDone>(std::move(done));
    for (qsizetype i = 0; i < running.size(); ++i) {
        const QJsonObject &pod = running[i];
        const QString name = pod[u"metadata"_s][u"name"_s].toString();
        const QString container =
            pod[u"spec"_s][u"containers"_s].toArray().first()[u"name"_s].toString();
        (*samples)[static_cast<size_t>(i)].where = name;
        cluster->client->exec(
            pod[u"metadata"_s][u"namespace"_s].toString(), name, container,
            SampleScript::command(0), receiver,
            [samples, left, finish, i, id,
             backend = QPointer<const KubeBackend>(this)](const Result<KubeExecResult> &ran) {
                JobNodeSample &node = (*samples)[static_cast<size_t>(i)];
                // Kept across readings: the CPU used since the last one.
                NodeSampleBuilder alone;
                node.sample =
                    podSample(ran, backend ? backend->gpuSampleBuilder(id, node.where) : alone);
                if (--*left == 0)
                    (*finish)(*samples);
            });
    }
}

void KubeBackend::clusterGpus(const QString &cluster, QObject *receiver,
                              std::function<void(const Result<KubeGpuInventory> &)> done) const {
    const auto found = m_clusters.find(cluster);
    if (found == m_clusters.end() || !found->second->client) {
        QTimer::singleShot(0, receiver, [done = std::move(done), cluster] {
            done(fail(u"no Kubernetes cluster named %1"_s.arg(cluster)));
        });
        return;
    }
    KubeClient *client = found->second->client.get();
    // The three answers meet here; the first failure of nodes or pods is the answer.
    struct Pending {
        std::optional<KubeReply> nodes, pods, queues;
        std::function<void(const Result<KubeGpuInventory> &)> done;
    };
    auto pending = std::make_shared<Pending>();
    pending->done = std::move(done);
    auto finish = [pending] {
        if (!pending->nodes || !pending->pods || !pending->queues)
            return;
        for (const KubeReply *reply : {&*pending->nodes, &*pending->pods})
            if (!reply->ok())
                return pending->done(fail(reply->error));
        KubeGpuInventory inventory;
        inventory.nodes = kubeGpuNodes(pending->nodes->json.object(), pending->pods->json.object());
        inventory.kueue = pending->queues->ok(); // 404: Kueue is not installed
        if (inventory.kueue)
            inventory.queues = kueueQueues(pending->queues->json.object());
        pending->done(inventory);
    };
    client->send({.path = u"/api/v1/nodes"_s}, receiver, [pending, finish](const KubeReply &r) {
        pending->nodes = r;
        finish();
    });
    client->send({.path = u"/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2C"
                          "status.phase%21%3DFailed"_s},
                 receiver, [pending, finish](const KubeReply &r) {
                     pending->pods = r;
                     finish();
                 });
    client->send({.path = u"/apis/kueue.x-k8s.io/v1beta1/clusterqueues"_s}, receiver,
                 [pending, finish](const KubeReply &r) {
                     pending->queues = r;
                     finish();
                 });
}

void KubeBackend::describe(const QString &id, QObject *receiver,
                           std::function<void(const QString &)> done) const {
    Job job;
    const Cluster *cluster = clusterOf(id, &job);
    if (!cluster)
        return JobBackend::describe(id, receiver, std::move(done));
    QString text = describeJob(job);
    const QJsonObject object = cluster->jobs->objects().value(id);
    text += u"\nConditions:\n"_s;
    const QJsonArray conditions = object[u"status"_s][u"conditions"_s].toArray();
    if (conditions.isEmpty())
        text += u"  (none yet)\n"_s;
    for (const QJsonValue c : conditions)
        text += u"  %1  %2=%3  %4  %5\n"_s.arg(
            shortTime(c[u"lastTransitionTime"_s]), c[u"type"_s].toString(),
            c[u"status"_s].toString(), c[u"reason"_s].toString(), c[u"message"_s].toString());
    QStringList objects{id};
    text += u"\nPods:\n"_s;
    for (const QString &pod : cluster->podsOfJob.value(id)) {
        text += podLine(cluster->pods->objects().value(pod));
        objects << pod;
    }
    // The events of the Job and of each pod, asked for together; the text waits for all.
    struct Gathering {
        QList<QJsonObject> events;
        QStringList errors;
        qsizetype pending = 0;
    };
    auto gathering = std::make_shared<Gathering>();
    gathering->pending = objects.size();
    for (const QString &name : objects) {
        KubeRequest request;
        request.path = u"/api/v1/namespaces/%1/events?fieldSelector=%2"_s.arg(
            cluster->client->context().ns,
            QString::fromLatin1(QUrl::toPercentEncoding(u"involvedObject.name="_s + name)));
        cluster->client->send(request, receiver, [gathering, text, done](const KubeReply &reply) {
            if (!reply.ok())
                gathering->errors << reply.error;
            for (const QJsonValue event : reply.json[u"items"_s].toArray())
                gathering->events << event.toObject();
            if (--gathering->pending > 0)
                return;
            auto when = [](const QJsonObject &event) {
                for (const char *key : {"lastTimestamp", "eventTime", "firstTimestamp"}) {
                    QString t = event[QString::fromLatin1(key)].toString();
                    if (!t.isEmpty())
                        return t;
                }
                return event[u"metadata"_s][u"creationTimestamp"_s].toString();
            };
            std::sort(
                gathering->events.begin(), gathering->events.end(),
                [&](const QJsonObject &a, const QJsonObject &b) { return when(a) < when(b); });
            QString out = text + u"\nEvents:\n"_s;
            for (const QJsonObject &event : gathering->events) {
                const int count = event[u"count"_s].toInt(1);
                out += u"  %1  %2  %3  %4/%5  %6%7\n"_s.arg(
                    shortTime(when(event)), event[u"type"_s].toString(),
                    event[u"reason"_s].toString(),
                    event[u"involvedObject"_s][u"kind"_s].toString().toLower(),
                    event[u"involvedObject"_s][u"name"_s].toString(),
                    event[u"message"_s].toString(), count > 1 ? u" (×%1)"_s.arg(count) : QString());
            }
            if (gathering->events.isEmpty())
                out += u"  (none)\n"_s;
            gathering->errors.removeDuplicates();
            for (const QString &error : gathering->errors)
                out += u"  could not read events: %1\n"_s.arg(error);
            done(out);
        });
    }
}

} // namespace sb
