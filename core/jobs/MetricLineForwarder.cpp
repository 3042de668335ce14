#include "MetricLineForwarder.h"

#include "JobBackend.h"
#include "client/CollectorClient.h"
#include "metrics/MetricLineParser.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// Ended jobs told again at the start: recent ones, the newest first.
constexpr int kRetoldJobs = 200;
constexpr qint64 kRetoldDays = 7;
constexpr int kHeartbeatMs = 60'000; // well inside the collector's 5 minutes before "lost"

} // namespace

QString runStatusOfJob(JobState state, std::optional<int> exitCode) {
    if (state == JobState::Succeeded)
        return u"finished"_s;
    if (state == JobState::Stopped)
        return u"stopped"_s;
    // 128 + N: killed by signal N (SIGKILL, the OOM killer, a node's reboot) before it could say.
    return !exitCode || *exitCode > 128 ? u"crashed"_s : u"failed"_s;
}

MetricLineForwarder::MetricLineForwarder(CollectorClient *collector, QObject *parent)
    : QObject(parent)
    , m_collector(collector) {
    // A run on a node or a cluster reaches the collector only through us: while its job runs we
    // speak for it, so a run that logs once an epoch is not judged lost.
    m_heartbeat.setInterval(kHeartbeatMs);
    connect(&m_heartbeat, &QTimer::timeout, this, &MetricLineForwarder::heartbeat);
    m_heartbeat.start();
}

void MetricLineForwarder::heartbeat() {
    for (const JobBackend *backend : std::as_const(m_backends)) {
        for (const Job &job : backend->jobs()) {
            if (job.foreign || job.state != JobState::Running)
                continue;
            QStringList runs;
            if (job.spec.trials == 0)
                runs << job.id;
            for (auto it = job.indexStates.begin(); it != job.indexStates.end(); ++it)
                if (it.value() == JobState::Running)
                    runs << job.id + u'-' + QString::number(it.key());
            for (const QString &run : std::as_const(runs))
                m_collector->push(QJsonDocument(QJsonObject{{u"run"_s, run}}).toJson(), this,
                                  [](const Result<qint64> &) {});
        }
    }
}

void MetricLineForwarder::watch(JobBackend *backend) {
    m_backends << backend;
    connect(backend, &JobBackend::logAppended, this,
            [this](const QString &job, const QByteArray &data) {
                const QByteArray lines = takeMetricLines(job, data);
                if (lines.isEmpty())
                    return;
                if (!m_trialJobs.contains(job))
                    return push(job, lines);
                // A job of trials: "[i] " starts each line, and index i is run "<job>-<i>".
                QMap<QString, QByteArray> byRun;
                for (const QByteArray &line : lines.split('\n')) {
                    const qsizetype close = line.indexOf("] ");
                    if (line.startsWith('[') && close > 1)
                        byRun[job + u'-' + QString::fromLatin1(line.mid(1, close - 1))] +=
                            line.mid(close + 2) + '\n';
                }
                for (auto it = byRun.begin(); it != byRun.end(); ++it)
                    push(it.key(), it.value());
            });
    // Their end may not have reached the collector before the app quit: told again (a run that
    // ended by its own word keeps it).
    QList<Job> ended;
    const QDateTime since = QDateTime::currentDateTime().addDays(-kRetoldDays);
    for (const Job &job : backend->jobs()) {
        if (!job.foreign && job.finishedState() && job.spec.trials == 0 && job.finished >= since)
            ended << job;
    }
    std::sort(ended.begin(), ended.end(),
              [](const Job &a, const Job &b) { return a.finished > b.finished; });
    for (const Job &job : ended.mid(0, kRetoldJobs))
        finishRun(job.id, runStatusOfJob(job.state, job.exitCode), job.node, job.finished,
                  job.spec.environment.value(u"SIGNALBOX_SWEEP"_s));
    connect(backend, &JobBackend::jobChanged, this, [this](const Job &job) {
        if (job.foreign) // someone else's job is no run of the collector's
            return;
        if (job.spec.trials > 0)
            m_trialJobs.insert(job.id);
        const QString sweep = job.spec.environment.value(u"SIGNALBOX_SWEEP"_s);
        for (auto it = job.indexStates.begin(); it != job.indexStates.end(); ++it) {
            const QString run = job.id + u'-' + QString::number(it.key());
            if (isFinished(it.value()) && !m_ended.contains(run)) {
                m_ended.insert(run);
                // An index's exit code is not known: a failed one failed.
                finishRun(run,
                          runStatusOfJob(it.value(), it.value() == JobState::Failed
                                                         ? std::optional<int>(1)
                                                         : std::nullopt),
                          job.node, QDateTime::currentDateTime(), sweep);
            }
        }
        if (job.finishedState()) {
            m_partial.remove(job.id);
            if (job.spec.trials == 0) // a job of trials is no run itself
                finishRun(job.id, runStatusOfJob(job.state, job.exitCode), job.node, job.finished,
                          sweep);
        }
    });
}

void MetricLineForwarder::push(const QString &run, const QByteArray &lines) {
    m_collector->pushLines(run, lines, this, [this, run](const Result<LinesReply> &reply) {
        const QStringList errors = reply ? reply->errors : QStringList{reply.error()};
        if (!errors.isEmpty())
            Q_EMIT problem(tr("%1: %2 metric line(s) not stored: %3")
                               .arg(run)
                               .arg(errors.size())
                               .arg(errors.first()));
    });
}

void MetricLineForwarder::finishRun(const QString &run, const QString &status, const QString &host,
                                    const QDateTime &end, const QString &sweep) {
    QJsonObject info{{u"status"_s, status},
                     {u"host"_s, host},
                     {u"end"_s, static_cast<double>(end.toMSecsSinceEpoch()) / 1000.0}};
    if (!sweep.isEmpty()) // a trial that logged by metric lines: grouped by its sweep too
        info[u"sweep"_s] = sweep;
    // "if_running": the run's own word on how it ended stands; this is none from the run.
    m_collector->push(
        QJsonDocument(QJsonObject{{u"run"_s, run}, {u"info"_s, info}, {u"if_running"_s, true}})
            .toJson(),
        this, [](const Result<qint64> &) {});
}

QByteArray MetricLineForwarder::takeMetricLines(const QString &job, const QByteArray &data) {
    LineBuffer &buffer = m_partial[job];
    QByteArray metricLines;
    buffer.feed(data, [&metricLines](QByteArrayView line) {
        if (line.contains(MetricLines::prefix)) {
            metricLines += line;
            metricLines += '\n';
        }
    });
    if (buffer.pending().size() > (1 << 20))
        buffer.clear(); // a megabyte without a newline is no metric line
    return metricLines;
}

} // namespace sb
