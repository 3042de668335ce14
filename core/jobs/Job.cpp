#include "Job.h"

#include "util/EnumNames.h"
#include "util/Files.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QRegularExpression>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// The stored names, marked for translation (lupdate reads these) and translated when shown.
constexpr EnumNames<JobState, 5> kStateNames{
    {{JobState::Queued, QT_TRANSLATE_NOOP("sb::JobState", "queued")},
     {JobState::Running, QT_TRANSLATE_NOOP("sb::JobState", "running")},
     {JobState::Succeeded, QT_TRANSLATE_NOOP("sb::JobState", "succeeded")},
     {JobState::Failed, QT_TRANSLATE_NOOP("sb::JobState", "failed")},
     {JobState::Stopped, QT_TRANSLATE_NOOP("sb::JobState", "stopped")}}};

} // namespace

QString jobStateName(JobState state) {
    return nameOf(kStateNames, state);
}

QString jobStateText(JobState state) {
    return translatedNameOf(kStateNames, state, "sb::JobState");
}

JobState jobStateFromName(const QString &name) {
    JobState state = JobState::Queued; // a name not known: as if just submitted
    (void)parseName(kStateNames, name, &state);
    return state;
}

namespace {

QJsonArray intArray(const QList<int> &values) {
    QJsonArray array;
    for (int value : values)
        array.append(value);
    return array;
}

QStringList stringList(const QJsonValue &value) {
    QStringList list;
    for (const auto &item : value.toArray())
        list << item.toString();
    return list;
}

} // namespace

QJsonObject KubeOptions::toJson() const {
    return {{u"image"_s, image},
            {u"cpu"_s, cpu},
            {u"memory"_s, memory},
            {u"queue"_s, queue},
            {u"backoffLimit"_s, backoffLimit},
            {u"deadlineSeconds"_s, deadlineSeconds},
            {u"failExitCodes"_s, intArray(failExitCodes)},
            {u"ttlSeconds"_s, ttlSeconds},
            {u"jobTemplate"_s, jobTemplate},
            {u"tfConfig"_s, tfConfig}};
}

KubeOptions KubeOptions::fromJson(const QJsonObject &json) {
    KubeOptions options;
    options.image = json.value(u"image"_s).toString();
    options.cpu = json.value(u"cpu"_s).toString();
    options.memory = json.value(u"memory"_s).toString();
    options.queue = json.value(u"queue"_s).toString();
    options.backoffLimit = json.value(u"backoffLimit"_s).toInt();
    options.deadlineSeconds = json.value(u"deadlineSeconds"_s).toInt();
    for (const auto &code : json.value(u"failExitCodes"_s).toArray())
        options.failExitCodes << code.toInt();
    options.ttlSeconds = json.value(u"ttlSeconds"_s).toInt(-1);
    options.jobTemplate = json.value(u"jobTemplate"_s).toString();
    options.tfConfig = json.value(u"tfConfig"_s).toBool();
    return options;
}

QJsonObject SlurmOptions::toJson() const {
    return {{u"partition"_s, partition},
            {u"account"_s, account},
            {u"qos"_s, qos},
            {u"timeLimit"_s, timeLimit},
            {u"cpusPerTask"_s, cpusPerTask},
            {u"memory"_s, memory},
            {u"constraint"_s, constraint},
            {u"gpuType"_s, gpuType},
            {u"dependency"_s, dependency},
            {u"extraArgs"_s, QJsonArray::fromStringList(extraArgs)},
            {u"script"_s, script}};
}

SlurmOptions SlurmOptions::fromJson(const QJsonObject &json) {
    SlurmOptions options;
    options.partition = json.value(u"partition"_s).toString();
    options.account = json.value(u"account"_s).toString();
    options.qos = json.value(u"qos"_s).toString();
    options.timeLimit = json.value(u"timeLimit"_s).toString();
    options.cpusPerTask = json.value(u"cpusPerTask"_s).toInt();
    options.memory = json.value(u"memory"_s).toString();
    options.constraint = json.value(u"constraint"_s).toString();
    options.gpuType = json.value(u"gpuType"_s).toString();
    options.dependency = json.value(u"dependency"_s).toString();
    options.extraArgs = stringList(json.value(u"extraArgs"_s));
    options.script = json.value(u"script"_s).toString();
    return options;
}

QJsonObject JobSpec::toJson() const {
    QJsonObject env;
    for (auto it = environment.begin(); it != environment.end(); ++it)
        env[it.key()] = it.value();
    QJsonObject json{{u"name"_s, name},
                     {u"command"_s, QJsonArray::fromStringList(command)},
                     {u"workingDirectory"_s, workingDirectory},
                     {u"environment"_s, env},
                     {u"backend"_s, backend},
                     {u"target"_s, target},
                     {u"gpus"_s, gpus},
                     {u"workers"_s, workers},
                     {u"codeDirectory"_s, codeDirectory}};
    if (!nodes.isEmpty())
        json[u"nodes"_s] = QJsonArray::fromStringList(nodes);
    if (trials > 0)
        json[u"trials"_s] = trials;
    if (backend == BackendName::kKubernetes)
        json[u"kubernetes"_s] = kube.toJson();
    if (backend == BackendName::kSlurm)
        json[u"slurm"_s] = slurm.toJson();
    return json;
}

JobSpec JobSpec::fromJson(const QJsonObject &json) {
    JobSpec spec;
    spec.name = json.value(u"name"_s).toString();
    spec.command = stringList(json.value(u"command"_s));
    spec.workingDirectory = json.value(u"workingDirectory"_s).toString();
    const QJsonObject env = json.value(u"environment"_s).toObject();
    for (auto it = env.begin(); it != env.end(); ++it)
        spec.environment[it.key()] = it.value().toString();
    spec.nodes = stringList(json.value(u"nodes"_s));
    spec.gpus = json.value(u"gpus"_s).toInt();
    spec.workers = std::max(1, json.value(u"workers"_s).toInt(1));
    spec.trials = json.value(u"trials"_s).toInt();
    spec.codeDirectory = json.value(u"codeDirectory"_s).toString();
    if (json.contains(u"backend"_s)) {
        spec.backend = json.value(u"backend"_s).toString();
        spec.target = json.value(u"target"_s).toString();
        spec.kube = KubeOptions::fromJson(json.value(u"kubernetes"_s).toObject());
        spec.slurm = SlurmOptions::fromJson(json.value(u"slurm"_s).toObject());
    } else if (const QString cluster = json.value(u"cluster"_s).toString(); !cluster.isEmpty()) {
        spec.backend =
            BackendName::kKubernetes; // the flat form: Kubernetes options beside the others
        spec.target = cluster;
        spec.kube = KubeOptions::fromJson(json);
    } else {
        spec.target = json.value(u"node"_s).toString();
        spec.backend = spec.target.isEmpty() ? BackendName::kLocal : BackendName::kSsh;
    }
    return spec;
}

QJsonObject Job::toJson() const {
    QJsonObject json{{u"id"_s, id},
                     {u"backend"_s, backend},
                     {u"node"_s, node},
                     {u"spec"_s, spec.toJson()},
                     {u"state"_s, jobStateName(state)},
                     {u"submitted"_s, submitted.toString(Qt::ISODateWithMs)},
                     {u"started"_s, started.toString(Qt::ISODateWithMs)},
                     {u"finished"_s, finished.toString(Qt::ISODateWithMs)},
                     {u"logPath"_s, logPath},
                     {u"message"_s, message},
                     {u"processGroup"_s, processGroup},
                     {u"gpuIds"_s, gpuIds}};
    if (exitCode)
        json[u"exitCode"_s] = *exitCode;
    if (!clusterJobId.isEmpty())
        json[u"clusterJobId"_s] = clusterJobId;
    if (!indexStates.isEmpty()) {
        QJsonObject indexes;
        for (auto it = indexStates.begin(); it != indexStates.end(); ++it)
            indexes[QString::number(it.key())] = jobStateName(it.value());
        json[u"indexes"_s] = indexes;
    }
    return json;
}

Job Job::fromJson(const QJsonObject &json) {
    Job job;
    job.id = json.value(u"id"_s).toString();
    job.backend = json.value(u"backend"_s).toString();
    job.node = json.value(u"node"_s).toString();
    job.spec = JobSpec::fromJson(json.value(u"spec"_s).toObject());
    job.state = jobStateFromName(json.value(u"state"_s).toString());
    const QJsonObject indexes = json.value(u"indexes"_s).toObject();
    for (auto it = indexes.begin(); it != indexes.end(); ++it)
        job.indexStates.insert(it.key().toInt(), jobStateFromName(it.value().toString()));
    job.submitted = QDateTime::fromString(json.value(u"submitted"_s).toString(), Qt::ISODateWithMs);
    job.started = QDateTime::fromString(json.value(u"started"_s).toString(), Qt::ISODateWithMs);
    job.finished = QDateTime::fromString(json.value(u"finished"_s).toString(), Qt::ISODateWithMs);
    if (json.value(u"exitCode"_s).isDouble())
        job.exitCode = json.value(u"exitCode"_s).toInt();
    job.logPath = json.value(u"logPath"_s).toString();
    job.message = json.value(u"message"_s).toString();
    job.processGroup = json.value(u"processGroup"_s).toInteger();
    job.gpuIds = json.value(u"gpuIds"_s).toString();
    job.clusterJobId = json.value(u"clusterJobId"_s).toString();
    return job;
}

void markFailed(Job &job, const QString &why) {
    job.state = JobState::Failed;
    job.finished = QDateTime::currentDateTime();
    job.message = why;
}

const Job *findJob(const QList<Job> &jobs, const QString &id) {
    const auto it =
        std::find_if(jobs.begin(), jobs.end(), [&id](const Job &job) { return job.id == id; });
    return it != jobs.end() ? &*it : nullptr;
}

Job *findJob(QList<Job> &jobs, const QString &id) {
    return const_cast<Job *>(findJob(std::as_const(jobs), id)); // NOLINT: the same list, writable
}

Result<QByteArray> readJobLog(const Job &job) {
    QFile file(job.logPath);
    if (!file.open(QIODevice::ReadOnly))
        return fail(u"cannot read %1: %2"_s.arg(job.logPath, file.errorString()));
    return file.readAll();
}

QString jobBaseName(const JobSpec &spec) {
    if (!spec.name.isEmpty() || spec.command.isEmpty())
        return spec.name;
    // "python3 -u train_mlp.py", "torchrun --nproc-per-node=8 train.py": the script names it,
    // not its interpreter or launcher.
    static const QRegularExpression launcher(
        u"^(python[0-9.]*|pypy[0-9.]*|bash|sh|zsh|env|uv|poetry|accelerate|deepspeed|torchrun|"
        "srun|mpirun|nohup|time|exec)$"_s);
    static const QRegularExpression script(u"\\.(py|sh|ipynb|lua|jl|R)$"_s);
    const QString program = QFileInfo(spec.command.front()).fileName();
    if (launcher.match(program).hasMatch()) {
        for (const QString &word : spec.command.mid(1)) {
            if (script.match(word).hasMatch())
                return QFileInfo(word).completeBaseName();
        }
        const auto module = spec.command.indexOf(u"-m"_s); // python -m package.train
        if (module > 0 && module + 1 < spec.command.size())
            return spec.command[module + 1].section(u'.', -1);
    }
    return QFileInfo(spec.command.front()).baseName();
}

QString withRandomSuffix(const QString &base) {
    return u"%1-%2"_s.arg(base.isEmpty() ? u"run"_s : base)
        .arg(QRandomGenerator::global()->generate() & 0xffffff, 6, 16, QLatin1Char('0'));
}

QString safeName(const QString &text, NameRules rules, int maxLength) {
    static const QRegularExpression forFiles(u"[^A-Za-z0-9._-]+"_s);
    static const QRegularExpression forKubernetes(u"[^a-z0-9]+"_s);
    static const QRegularExpression dashesAtEnds(u"^-+|-+$"_s);
    QString name = rules == NameRules::Files ? QString(text).replace(forFiles, u"-"_s)
                                             : text.toLower().replace(forKubernetes, u"-"_s);
    return name.remove(dashesAtEnds).left(maxLength).remove(dashesAtEnds);
}

QList<int> parseIndexes(const QString &ranges) {
    QList<int> indexes;
    for (const QString &part : ranges.split(u',', Qt::SkipEmptyParts)) {
        const QStringList bounds = part.split(u'-');
        const int first = std::clamp(bounds.first().toInt(), 0, kMaxTrials);
        const int last = std::min(bounds.last().toInt(), kMaxTrials - 1);
        for (int i = first; i <= last; ++i)
            indexes << i;
    }
    return indexes;
}

QString newJobId(const JobSpec &spec) {
    return withRandomSuffix(safeName(jobBaseName(spec), NameRules::Files, 48));
}

QList<Job> loadJobs(const QString &path, QString *problem) {
    QList<Job> jobs;
    const auto document = readStateFile(path);
    if (!document) {
        *problem = document.error();
        return jobs;
    }
    if (document->isObject()) {
        const auto aside = keepAside(path);
        *problem = u"%1 holds no list of jobs; %2"_s.arg(path, aside ? u"kept as %1"_s.arg(*aside)
                                                                     : aside.error());
        return jobs;
    }
    for (const auto &value : document->array()) {
        if (value.isObject())
            jobs << Job::fromJson(value.toObject());
    }
    return jobs;
}

Status saveJobs(const QString &path, const QList<Job> &jobs) {
    QJsonArray array;
    for (const Job &job : jobs)
        array.append(job.toJson());
    return writeFileAtomically(path, QJsonDocument(array).toJson());
}

} // namespace sb
