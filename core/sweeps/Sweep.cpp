#include "Sweep.h"

#include "Hyperband.h"
#include "SweepSearch.h"
#include "TrialCommand.h"
#include "client/CollectorClient.h"
#include "jobs/JobsModel.h"
#include "ssh/ShellQuote.h"
#include "util/EnumNames.h"
#include "util/Files.h"
#include "util/Log.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QScopedValueRollback>

#include <algorithm>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr int kStateVersion = 1;
// How many logged values of a trial's metric are read at most (bands count logged values): as
// many as the collector answers in one request.
constexpr int kMetricPoints = CollectorApi::kMostColumns;
// How long after a trial ends its last metric lines may take to reach the collector: on a busy
// machine (the test command's, with builds beside the tests) 1.5 s was too short once.
constexpr qint64 kSettleMs = 4000;

constexpr EnumNames<Sweep::State, 3> kStateNames{{{Sweep::State::Running, "running"},
                                                  {Sweep::State::Stopped, "stopped"},
                                                  {Sweep::State::Finished, "finished"}}};

QString stateName(Sweep::State state) {
    return nameOf(kStateNames, state);
}

QString time(const QDateTime &t) {
    return t.toString(Qt::ISODateWithMs);
}

// An identifier from the sweep's name that is safe in job names and file names.
QString sweepId(const QString &name) {
    const QString base = safeName(name, NameRules::Kubernetes, 30);
    return withRandomSuffix(base.isEmpty() ? u"sweep"_s : base);
}

// Whether the trials run as one job (an Indexed Job on a cluster): where the backend can, for
// grid and random, whose trials are known before any of them ends.
bool indexed(const SweepSpec &spec, const JobBackend *backend) {
    return backend && backend->capabilities().trialsInOneJob > 0 &&
           spec.method != SweepSpec::Method::Bayes;
}

QString relativeTo(const SweepSpec &spec, const QString &path) {
    if (path.isEmpty() || QDir::isAbsolutePath(path))
        return path;
    return QDir::cleanPath(QFileInfo(spec.fileName).absoluteDir().filePath(path));
}

} // namespace

std::optional<double> Trial::last() const {
    if (values.isEmpty())
        return std::nullopt;
    return values.last();
}

std::optional<double> Trial::best(bool maximize) const {
    if (values.isEmpty())
        return std::nullopt;
    return maximize ? *std::max_element(values.begin(), values.end())
                    : *std::min_element(values.begin(), values.end());
}

QJsonObject Trial::toJson() const {
    QJsonArray metric;
    for (double value : values)
        metric.append(value);
    return {{u"number"_s, number},
            {u"parameters"_s, parameters},
            {u"command"_s, QJsonArray::fromStringList(command)},
            {u"backend"_s, backend},
            {u"job"_s, jobId},
            {u"index"_s, index},
            {u"run"_s, run},
            {u"node"_s, node},
            {u"state"_s, jobStateName(state)},
            {u"earlyStopped"_s, earlyStopped},
            {u"message"_s, message},
            {u"values"_s, metric},
            {u"started"_s, time(started)},
            {u"finished"_s, time(finished)}};
}

Trial Trial::fromJson(const QJsonObject &json) {
    Trial trial;
    trial.number = json[u"number"_s].toInt();
    trial.parameters = json[u"parameters"_s].toObject();
    for (const QJsonValue arg : json[u"command"_s].toArray())
        trial.command << arg.toString();
    trial.backend = json[u"backend"_s].toString();
    trial.jobId = json[u"job"_s].toString();
    trial.index = json[u"index"_s].toInt(-1);
    trial.run = json[u"run"_s].toString();
    trial.node = json[u"node"_s].toString();
    trial.state = jobStateFromName(json[u"state"_s].toString());
    trial.earlyStopped = json[u"earlyStopped"_s].toBool();
    trial.message = json[u"message"_s].toString();
    for (const QJsonValue value : json[u"values"_s].toArray())
        trial.values << value.toDouble();
    trial.started = QDateTime::fromString(json[u"started"_s].toString(), Qt::ISODateWithMs);
    trial.finished = QDateTime::fromString(json[u"finished"_s].toString(), Qt::ISODateWithMs);
    return trial;
}

Sweep::Sweep(SweepSpec spec, JobsModel *jobs, CollectorClient *collector, Options options,
             QObject *parent)
    : QObject(parent)
    , m_spec(std::move(spec))
    , m_jobs(jobs)
    , m_collector(collector)
    , m_options(std::move(options)) {
    m_poll.setInterval(m_options.pollMs);
    connect(&m_poll, &QTimer::timeout, this, &Sweep::pollMetrics);
}

Result<Sweep *> Sweep::create(const SweepSpec &spec, JobsModel *jobs, CollectorClient *collector,
                              const Options &options, QObject *parent) {
    JobBackend *backend = jobs->registry()->backend(spec.backend);
    if (!backend)
        return fail(tr("%1: no %2 backend to run the trials on").arg(spec.fileName, spec.backend));
    if (indexed(spec, backend) && spec.runCap == 0 && spec.method == SweepSpec::Method::Random)
        return fail(tr("%1: run_cap: a random sweep on a cluster needs one (it is the Indexed "
                       "Job's number of trials)")
                        .arg(spec.fileName));
    auto *sweep = new Sweep(spec, jobs, collector, options, parent);
    sweep->m_id = sweepId(spec.name);
    sweep->m_created = QDateTime::currentDateTime();
    sweep->m_limit = static_cast<int>(trialLimit(spec));
    sweep->save();
    return sweep;
}

Result<Sweep *> Sweep::resume(const QString &stateFile, JobsModel *jobs, CollectorClient *collector,
                              const Options &options, QObject *parent) {
    QFile file(stateFile);
    if (!file.open(QIODevice::ReadOnly))
        return fail(
            tr("%1: cannot read the sweep's state (%2)").arg(stateFile, file.errorString()));
    QJsonParseError error;
    const QJsonObject state = QJsonDocument::fromJson(file.readAll(), &error).object();
    if (error.error != QJsonParseError::NoError || state[u"version"_s].toInt() != kStateVersion)
        return fail(tr("%1: not a sweep's state (%2)")
                        .arg(stateFile, error.error != QJsonParseError::NoError
                                            ? error.errorString()
                                            : tr("unknown version")));
    auto spec = SweepSpec::parse(state[u"yaml"_s].toString().toUtf8(), state[u"file"_s].toString());
    if (!spec)
        return fail(spec.error());
    Options resumed = options;
    resumed.seed = state[u"seed"_s].toString().toULongLong();
    auto *sweep = new Sweep(*spec, jobs, collector, resumed, parent);
    sweep->m_id = state[u"id"_s].toString();
    sweep->m_created = QDateTime::fromString(state[u"created"_s].toString(), Qt::ISODateWithMs);
    sweep->m_limit = state[u"limit"_s].toInt();
    sweep->m_stopReason = state[u"reason"_s].toString();
    for (const QJsonValue value : state[u"trials"_s].toArray()) {
        const Trial trial = Trial::fromJson(value.toObject());
        if (!trial.finishedState())
            sweep->m_unread.insert(trial.number, 0);
        sweep->m_trials << trial;
    }
    sweep->m_state = State::Stopped; // unless it says otherwise
    (void)parseName(kStateNames, state[u"status"_s].toString(), &sweep->m_state);
    sweep->connectBackend();
    if (sweep->m_state == State::Running)
        sweep->start();
    return sweep;
}

QStringList Sweep::stateFiles(const QString &directory) {
    QStringList files;
    const QDir dir(directory);
    for (const QString &name :
         dir.entryList({u"*.json"_s}, QDir::Files, QDir::Time | QDir::Reversed))
        files << dir.filePath(name);
    return files;
}

QString Sweep::statePath() const {
    return QDir(m_options.stateDirectory).filePath(m_id + u".json"_s);
}

JobBackend *Sweep::backend() const {
    return m_jobs->registry()->backend(m_spec.backend);
}

void Sweep::connectBackend() {
    JobBackend *jobs = backend();
    if (!jobs)
        return;
    connect(jobs, &JobBackend::jobChanged, this, &Sweep::onJob, Qt::UniqueConnection);
    for (const Job &job : jobs->jobs()) // what happened while the app was closed
        onJob(job);
}

void Sweep::start() {
    connectBackend();
    if (m_state != State::Running) {
        m_state = State::Running;
        m_stopReason.clear(); // started again by the person: the old reason no longer holds
        save();
    }
    if (!m_spec.metric.isEmpty())
        m_poll.start();
    schedule();
    Q_EMIT changed();
}

void Sweep::stop() {
    m_state = State::Stopped;
    QSet<QString> stopped;
    for (Trial &trial : m_trials) {
        if (trial.finishedState() || trial.jobId.isEmpty() || stopped.contains(trial.jobId))
            continue;
        stopped.insert(trial.jobId);
        if (Status ok = backend()->stop(trial.jobId); !ok)
            Q_EMIT problem(ok.error());
    }
    save();
    Q_EMIT changed();
}

void Sweep::extend(int more) {
    if (more <= 0)
        return;
    const qsizetype grid = gridSize(m_spec);
    int limit = (m_limit == 0 ? static_cast<int>(m_trials.size()) : m_limit) + more;
    if (grid > 0)
        limit = static_cast<int>(std::min<qsizetype>(limit, grid));
    if (limit <= m_trials.size()) {
        Q_EMIT problem(tr("%1 has tried every combination of its grid").arg(m_spec.name));
        return;
    }
    m_limit = limit;
    start();
}

int Sweep::active() const {
    return static_cast<int>(std::count_if(m_trials.begin(), m_trials.end(),
                                          [](const Trial &t) { return !t.finishedState(); }));
}

bool Sweep::targetReached() const {
    if (!m_spec.target)
        return false;
    const int best = bestTrial();
    if (best < 0)
        return false;
    const double value = *m_trials[best].best(m_spec.maximize);
    return m_spec.maximize ? value >= *m_spec.target : value <= *m_spec.target;
}

bool Sweep::mayDrawMore() const {
    return !targetReached() && (m_limit == 0 || m_trials.size() < m_limit);
}

int Sweep::bestTrial() const {
    int best = -1;
    for (const Trial &trial : m_trials) {
        const auto value = trial.best(m_spec.maximize);
        if (!value)
            continue;
        const auto bestValue = best < 0 ? std::nullopt : m_trials[best].best(m_spec.maximize);
        if (!bestValue || (m_spec.maximize ? *value > *bestValue : *value < *bestValue))
            best = trial.number;
    }
    return best;
}

QStringList Sweep::runs() const {
    QStringList runs;
    for (const Trial &trial : m_trials)
        if (!trial.run.isEmpty())
            runs << trial.run;
    return runs;
}

QString Sweep::statusText() const {
    int running = 0;
    int queued = 0;
    int done = 0;
    int early = 0;
    for (const Trial &trial : m_trials) {
        running += trial.state == JobState::Running;
        queued += trial.state == JobState::Queued;
        done += trial.finishedState();
        early += trial.earlyStopped;
    }
    QString text = tr("%1 · %2 trials done").arg(stateName(m_state)).arg(done);
    if (m_limit > 0)
        text += tr(" of %1").arg(m_limit);
    if (running + queued > 0)
        text += tr(", %1 running, %2 queued").arg(running).arg(queued);
    if (early > 0)
        text += tr(", %1 stopped early").arg(early);
    if (targetReached())
        text += tr(" · target %1 reached").arg(*m_spec.target);
    if (!m_stopReason.isEmpty())
        text += u" · "_s + m_stopReason;
    return text;
}

JobSpec Sweep::trialJob(const Trial &trial) const {
    JobSpec job;
    job.name = u"%1-%2"_s.arg(m_id).arg(trial.number);
    job.command = trial.command;
    const QString parameters =
        QString::fromUtf8(QJsonDocument(trial.parameters).toJson(QJsonDocument::Compact));
    job.environment = m_spec.environment;
    job.environment.insert({{u"SIGNALBOX_SWEEP"_s, m_id},
                            {u"SIGNALBOX_TRIAL"_s, QString::number(trial.number)},
                            {u"SIGNALBOX_TRIAL_PARAMETERS"_s, parameters}});
    if (m_spec.command.join(u' ').contains("${args_json_file}"_L1)) {
        // The parameters travel in the environment; a fixed script writes them where
        // ${args_json_file} says, then runs the trial. No value is ever shell text.
        job.command = QStringList{u"/bin/sh"_s, u"-c"_s,
                                  u"printf '%s' \"$SIGNALBOX_TRIAL_PARAMETERS\" > \"$0\" && "
                                  "exec \"$@\""_s,
                                  trialParametersFile(job.name)} +
                      trial.command;
    }
    job.gpus = m_spec.gpusPerTrial;
    job.codeDirectory = relativeTo(m_spec, m_spec.codeDirectory);
    job.backend = m_spec.backend;
    if (!m_spec.cluster.isEmpty()) {
        job.target = m_spec.cluster;
        job.kube.image = m_spec.image;
        job.kube.jobTemplate = m_spec.jobTemplate;
        job.workingDirectory = m_spec.workingDirectory;
    } else if (!m_spec.slurmCluster.isEmpty()) {
        job.target = m_spec.slurmCluster;
        job.slurm.partition = m_spec.partition;
        job.slurm.timeLimit = m_spec.timeLimit;
        job.workingDirectory = m_spec.workingDirectory;
    } else if (!m_spec.nodes.isEmpty()) {
        job.target =
            m_spec.nodes.size() == 1 ? m_spec.nodes.first() : QString(JobSpec::kAnyNode.toString());
        if (m_spec.nodes.size() > 1)
            job.nodes = m_spec.nodes;
        job.workingDirectory = m_spec.workingDirectory;
    } else { // this computer: beside the sweep file unless it says otherwise
        job.workingDirectory = relativeTo(
            m_spec, m_spec.workingDirectory.isEmpty() ? u"."_s : m_spec.workingDirectory);
    }
    return job;
}

void Sweep::schedule() {
    // A backend reports changes from inside submit(); the loop below sees them anyway.
    if (m_state != State::Running || m_scheduling)
        return;
    const QScopedValueRollback guard(m_scheduling, true);
    if (indexed(m_spec, backend())) {
        if (mayDrawMore())
            launchIndexed();
    } else {
        // Bayes learns from every finished trial, so it waits for their final metric first.
        const bool waiting = m_spec.method == SweepSpec::Method::Bayes &&
                             std::any_of(m_trials.begin(), m_trials.end(), [this](const Trial &t) {
                                 return t.finishedState() && m_unread.contains(t.number);
                             });
        while (!waiting && m_state == State::Running && active() < m_spec.parallelism &&
               mayDrawMore())
            launchOne();
    }
    finishIfDone();
}

void Sweep::launchOne() {
    Trial trial;
    trial.number = static_cast<int>(m_trials.size());
    QList<Observation> observations;
    for (const Trial &done : m_trials) {
        if (done.finishedState() && done.last())
            observations << Observation{done.parameters, *done.last()};
    }
    trial.parameters = nextTrial(m_spec, m_options.seed, trial.number, observations);
    trial.command = trialCommand(m_spec, trial.parameters,
                                 trialParametersFile(u"%1-%2"_s.arg(m_id).arg(trial.number)));
    JobBackend *jobs = backend();
    trial.backend = jobs->name();
    const auto id = jobs->submit(trialJob(trial));
    if (!id) {
        trial.state = JobState::Failed;
        trial.message = id.error();
        trial.finished = QDateTime::currentDateTime();
        m_trials << trial;
        m_state = State::Stopped; // the target is wrong; more trials would fail the same way
        Q_EMIT problem(tr("%1: trial %2 could not start: %3")
                           .arg(m_spec.name)
                           .arg(trial.number)
                           .arg(id.error()));
        save();
        return;
    }
    trial.jobId = *id;
    trial.run = *id;
    qCInfo(lcSweeps).noquote() << m_spec.name << u"trial"_s << trial.number << u"started as"_s
                               << trial.backend + u'/' + trial.jobId;
    m_trials << trial;
    m_unread.insert(trial.number, 0);
    save();
    Q_EMIT changed();
}

void Sweep::launchIndexed() {
    JobBackend *jobs = backend();
    const int first = static_cast<int>(m_trials.size());
    const int count = m_limit - first;
    if (!jobs || count <= 0)
        return;
    const int most = jobs->capabilities().trialsInOneJob;
    if (count > most) {
        m_state = State::Stopped;
        Q_EMIT problem(tr("%1: %2 trials are more than one Indexed Job holds (%3); lower run_cap")
                           .arg(m_spec.name)
                           .arg(count)
                           .arg(most));
        save();
        Q_EMIT changed();
        return;
    }
    QList<Trial> trials;
    QList<QString> scripts;
    for (int i = 0; i < count; ++i) {
        Trial trial;
        trial.number = first + i;
        trial.index = i;
        trial.parameters = nextTrial(m_spec, m_options.seed, trial.number, {});
        // Its own file: an array's tasks on one Slurm node share its /tmp.
        const QString parametersFile = trialParametersFile(u"%1-%2"_s.arg(m_id).arg(trial.number));
        trial.command = trialCommand(m_spec, trial.parameters, parametersFile);
        trial.backend = jobs->name();
        // Its own run and parameters, then its argument vector, every value single-quoted. The
        // backend sets SIGNALBOX_TRIAL_INDEX.
        scripts << u"export SIGNALBOX_RUN=\"$SIGNALBOX_RUN-$SIGNALBOX_TRIAL_INDEX\" "
                   "SIGNALBOX_TRIAL=%1 SIGNALBOX_TRIAL_PARAMETERS=%2\n"
                   "printf '%s' \"$SIGNALBOX_TRIAL_PARAMETERS\" > %3\nexec %4\n"_s.arg(
                       QString::number(trial.number),
                       shellQuote(QString::fromUtf8(
                           QJsonDocument(trial.parameters).toJson(QJsonDocument::Compact))),
                       shellQuote(parametersFile), shellCommand(trial.command));
        trials << trial;
    }
    Trial base;
    base.number = first;
    JobSpec job = trialJob(base);
    job.environment.remove(u"SIGNALBOX_TRIAL"_s);
    job.environment.remove(u"SIGNALBOX_TRIAL_PARAMETERS"_s);
    job.command = m_spec.command; // for people: what each index runs, before its macros
    job.trials = count;
    job.workers = std::min(m_spec.parallelism, count);
    const auto id = jobs->submitTrials(job, scripts);
    if (!id) {
        m_state = State::Stopped;
        Q_EMIT problem(tr("%1: the trials could not start: %2").arg(m_spec.name, id.error()));
        save();
        Q_EMIT changed();
        return;
    }
    for (Trial &trial : trials) {
        trial.jobId = *id;
        trial.run = u"%1-%2"_s.arg(*id).arg(trial.index);
        m_unread.insert(trial.number, 0);
        m_trials << trial;
    }
    save();
    Q_EMIT changed();
}

void Sweep::onJob(const Job &job) {
    bool touched = false;
    for (Trial &trial : m_trials) {
        if (trial.jobId != job.id)
            continue;
        JobState state = job.state;
        if (trial.index >= 0) { // one index of a job of trials
            state = job.indexStates.value(trial.index, job.state);
            if (job.finishedState() && !isFinished(state))
                state = job.state == JobState::Succeeded ? JobState::Failed : job.state;
            if (trial.earlyStopped && state == JobState::Failed)
                state = JobState::Stopped;
        }
        if (trial.state == state && trial.node == job.node && trial.message == job.message)
            continue;
        const bool ended = !trial.finishedState() && isFinished(state);
        trial.state = state;
        trial.node = job.node;
        if (!trial.earlyStopped)
            trial.message = trial.index >= 0 ? QString() : job.message;
        // An Indexed Job's start is its first index's: later ones start when they are seen to.
        if (state != JobState::Queued && !trial.started.isValid())
            trial.started = job.started.isValid() && trial.index < 0 ? job.started
                                                                     : QDateTime::currentDateTime();
        if (ended) {
            trial.finished = job.finished.isValid() && trial.index < 0
                                 ? job.finished
                                 : QDateTime::currentDateTime();
            // Its last values, once more, when the last lines have reached the collector.
            m_unread.insert(trial.number, QDateTime::currentMSecsSinceEpoch());
            QTimer::singleShot(kSettleMs, this, &Sweep::pollMetrics);
        }
        touched = true;
    }
    if (!touched)
        return;
    stopIfFailing();
    save();
    Q_EMIT changed();
    schedule();
}

void Sweep::stopIfFailing() {
    if (m_state != State::Running)
        return;
    QList<const Trial *> ended;
    for (const Trial &trial : m_trials) {
        if (trial.finishedState())
            ended << &trial;
    }
    std::stable_sort(ended.begin(), ended.end(),
                     [](const Trial *a, const Trial *b) { return a->finished < b->finished; });
    auto failed = [](const Trial *trial) {
        return trial->state == JobState::Failed && !trial->earlyStopped;
    };
    qsizetype inARow = 0;
    while (inARow < ended.size() && failed(ended[ended.size() - 1 - inARow]))
        ++inARow;
    const bool firstFailed = ended.size() >= kFirstFailures && inARow == ended.size();
    if (!firstFailed && inARow < kFailuresInARow)
        return;
    // Their own words: the job's message and the last line the trial printed (the traceback's).
    QStringList why;
    for (qsizetype i = ended.size() - inARow; i < ended.size() && why.size() < 3; ++i) {
        const Trial *trial = ended[i];
        QString text = trial->message;
        if (const auto log = trial->index < 0 ? backend()->log(trial->jobId)
                                              : Result<QByteArray>(QByteArray())) {
            const QList<QByteArray> lines = log->trimmed().split('\n');
            if (const QString last = QString::fromUtf8(lines.last()).trimmed().left(300);
                !last.isEmpty() && !text.contains(last))
                text += (text.isEmpty() ? u""_s : u": "_s) + last;
        }
        why << u"trial %1: %2"_s.arg(trial->number).arg(text);
    }
    // Never fewer than kFirstFailures: the plural alone.
    m_stopReason =
        tr("stopped after %1 failed trials in a row (%2)").arg(inARow).arg(why.join(u"; "_s));
    qCWarning(lcSweeps).noquote() << m_spec.name << m_stopReason;
    stop();
    Q_EMIT problem(u"%1: %2"_s.arg(m_spec.name, m_stopReason));
}

void Sweep::pollMetrics() {
    if (m_polling || m_spec.metric.isEmpty() || !m_collector)
        return;
    QStringList runs;
    for (const Trial &trial : m_trials) {
        if (m_unread.contains(trial.number))
            runs << trial.run;
    }
    if (runs.isEmpty())
        return schedule();
    m_polling = true;
    SeriesWindow window;
    window.width = kMetricPoints;
    const qint64 askedAt = QDateTime::currentMSecsSinceEpoch();
    m_collector->series(runs, m_spec.metric, window, false, this,
                        [this, askedAt](const Result<SeriesReplies> &reply) {
                            m_polling = false;
                            if (!reply) {
                                Q_EMIT problem(tr("%1: cannot read %2 from the collector: %3")
                                                   .arg(m_spec.name, m_spec.metric, reply.error()));
                                return;
                            }
                            QHash<QString, QList<double>> byRun;
                            for (const SeriesReply &series : reply->series) {
                                // One value per step: a line delivered twice (a log re-read after a
                                // restart) is one value. A NaN is a diverged trial's value: never
                                // 0.
                                QList<double> values;
                                for (std::size_t i = 0; i < series.y.size() && i < series.x.size();
                                     ++i) {
                                    if (i > 0 && series.x[i] == series.x[i - 1])
                                        values.last() = series.y[i];
                                    else
                                        values << series.y[i];
                                }
                                byRun.insert(series.run, values);
                            }
                            for (Trial &trial : m_trials) {
                                if (byRun.contains(trial.run))
                                    trial.values = byRun.value(trial.run);
                                // Read late enough after its end, a trial's metric is final (a
                                // trial that never logged it has nothing more to give).
                                if (trial.finishedState() && m_unread.contains(trial.number) &&
                                    askedAt - m_unread.value(trial.number) >= kSettleMs)
                                    m_unread.remove(trial.number);
                            }
                            applyHyperband();
                            save();
                            Q_EMIT changed();
                            schedule();
                        });
}

void Sweep::applyHyperband() {
    if (m_spec.earlyTerminate.bands.isEmpty())
        return;
    QList<TrialCurve> curves;
    for (const Trial &trial : m_trials)
        curves << TrialCurve{QString::number(trial.number),
                             trial.state == JobState::Running && !trial.earlyStopped, trial.values};
    for (const QString &number : hyperbandStops(m_spec.earlyTerminate, m_spec.maximize, curves)) {
        Trial &trial = m_trials[number.toInt()];
        trial.earlyStopped = true;
        trial.message = tr("stopped early by hyperband after %1 values").arg(trial.values.size());
        qCInfo(lcSweeps).noquote() << m_spec.name << u"trial"_s << number << trial.message;
        const Status stopped = trial.index >= 0 ? backend()->stopIndex(trial.jobId, trial.index)
                                                : backend()->stop(trial.jobId);
        if (!stopped)
            Q_EMIT problem(stopped.error());
    }
}

void Sweep::finishIfDone() {
    if (m_state == State::Running && active() == 0 && !mayDrawMore() && m_unread.isEmpty()) {
        m_state = State::Finished;
        qCInfo(lcSweeps).noquote()
            << m_spec.name << u"finished after"_s << m_trials.size() << u"trials"_s;
        m_poll.stop();
        save();
        Q_EMIT changed();
    }
}

void Sweep::save() {
    QJsonArray trials;
    for (const Trial &trial : m_trials)
        trials.append(trial.toJson());
    const QJsonObject state{{u"version"_s, kStateVersion},
                            {u"id"_s, m_id},
                            {u"file"_s, m_spec.fileName},
                            {u"yaml"_s, QString::fromUtf8(m_spec.yaml)},
                            {u"seed"_s, QString::number(m_options.seed)},
                            {u"created"_s, time(m_created)},
                            {u"status"_s, stateName(m_state)},
                            {u"limit"_s, m_limit},
                            {u"reason"_s, m_stopReason},
                            {u"trials"_s, trials}};
    if (Status saved =
            writeFileAtomically(statePath(), QJsonDocument(state).toJson(QJsonDocument::Compact));
        !saved)
        Q_EMIT problem(tr("%1: cannot save the sweep's state: %2").arg(statePath(), saved.error()));
}

} // namespace sb
