#include "LogdirFeeds.h"

#include "SftpLogdir.h"
#include "Summaries.h"
#include "client/CollectorClient.h"
#include "metrics/MetricLineParser.h"
#include "monitor/NodeConnection.h"
#include "monitor/NodeMonitor.h"
#include "util/Files.h"
#include "util/Log.h"
#include "util/OffThread.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr qint64 kBudget = 16 << 20; // bytes read per poll: bounds the memory of a backlog

// "NODE:PATH" names a node when the part before the colon is no path itself.
std::pair<QString, QString> splitSource(const QString &source) {
    const qsizetype colon = source.indexOf(u':');
    if (colon > 0 && !source.left(colon).contains(u'/'))
        return {source.left(colon), source.mid(colon + 1)};
    return {QString(), source};
}

QString prefixOf(const QString &node, const QString &path) {
    QString name = QFileInfo(QDir::cleanPath(path)).fileName();
    if (name.isEmpty() || name == u"~"_s || name == u"."_s)
        name = u"logdir"_s;
    return node.isEmpty() ? name : node + u':' + name;
}

// The collector's push format; non-finite values travel as "NaN", "Infinity", "-Infinity".
QByteArray pushBody(const QString &run, const QString &host,
                    const std::vector<SeriesPoints> &series) {
    QJsonObject columns;
    for (const SeriesPoints &s : series) {
        QJsonArray steps;
        QJsonArray values;
        QJsonArray times;
        for (const MetricPoint &p : s.points) {
            steps.append(p.step);
            values.append(metricJson(p.value));
            times.append(p.wall);
        }
        columns[s.metric] =
            QJsonObject{{u"step"_s, steps}, {u"value"_s, values}, {u"time"_s, times}};
    }
    QJsonObject push{{u"run"_s, run}, {u"series"_s, columns}};
    if (!host.isEmpty())
        push[u"info"_s] = QJsonObject{{u"host"_s, host}};
    return QJsonDocument(push).toJson(QJsonDocument::Compact);
}

// A push of a run's config alone.
QByteArray configBody(const QString &run, const QString &host, const QJsonObject &config) {
    QJsonObject info{{u"config"_s, config}};
    if (!host.isEmpty())
        info[u"host"_s] = host;
    return QJsonDocument(QJsonObject{{u"run"_s, run}, {u"info"_s, info}})
        .toJson(QJsonDocument::Compact);
}

// A writer's restart (SessionLog.START): the run rewinds, as TensorBoard purges, at the step.
QByteArray restartBody(const QString &run, double step, const QString &key) {
    const Resume resume{Resume::Mode::Rewind, step, true, {}};
    return QJsonDocument(
               QJsonObject{{u"run"_s, run}, {u"batch"_s, key}, {u"resume"_s, resume.toJson()}})
        .toJson(QJsonDocument::Compact);
}

} // namespace

LogdirFeeds::LogdirFeeds(CollectorClient *collector, NodeMonitor *monitor, QString statePath,
                         QObject *parent)
    : QObject(parent)
    , m_collector(collector)
    , m_monitor(monitor)
    , m_statePath(std::move(statePath)) {
    load();
    m_timer.setInterval(2000);
    connect(&m_timer, &QTimer::timeout, this, &LogdirFeeds::pollAll);
    m_timer.start();
    QTimer::singleShot(0, this, &LogdirFeeds::pollAll);
}

Status LogdirFeeds::follow(const QString &source) {
    const QString trimmed = source.trimmed();
    const auto [node, path] = splitSource(trimmed);
    if (path.isEmpty())
        return fail(u"say which logdir: a directory, or NODE:PATH on a node"_s);
    if (m_feeds.count(trimmed))
        return fail(u"%1 is followed already"_s.arg(trimmed), ErrorCode::AlreadyExists);
    if (!node.isEmpty()) {
        bool known = false;
        for (const NodeConfig &config : m_monitor->nodes())
            known = known || config.name == node;
        if (!known)
            return fail(u"no node is named \"%1\" (add it in the Nodes view first)"_s.arg(node));
    } else if (!QFileInfo::exists(path)) {
        return fail(u"%1: no such directory on this computer"_s.arg(path));
    }
    Feed &feed = m_feeds[trimmed];
    feed.id = ++m_lastId;
    feed.node = node;
    feed.path = node.isEmpty() ? QFileInfo(path).absoluteFilePath() : path;
    feed.follower = LogdirFollower(prefixOf(node, path));
    save();
    Q_EMIT changed();
    poll(trimmed);
    return success();
}

void LogdirFeeds::unfollow(const QString &source) {
    if (m_feeds.erase(source)) {
        save();
        Q_EMIT changed();
    }
}

QList<LogdirFeeds::FeedStatus> LogdirFeeds::feeds() const {
    QList<FeedStatus> out;
    for (const auto &[source, feed] : m_feeds) {
        FeedStatus status{source, prefixOf(feed.node, feed.path)};
        status.error = feed.error;
        status.lastRead = feed.lastRead;
        const auto &files = feed.follower.files();
        status.files = static_cast<int>(files.size());
        for (const auto &file : files) {
            status.points += file.points;
            status.corrupt += file.corrupt;
            if (status.error.isEmpty() && !file.lastError.isEmpty())
                status.error = file.lastError;
        }
        out << status;
    }
    return out;
}

void LogdirFeeds::pollAll() {
    for (const auto &[source, feed] : m_feeds) {
        if (!feed.busy)
            poll(source);
    }
}

Result<LogdirFeeds::Polled> LogdirFeeds::pollSource(LogdirFollower follower, LogdirSource &source,
                                                    const QString &host) {
    Polled polled{std::move(follower), {}, false};
    const auto progress = polled.follower.poll(
        source,
        [&](const QString &run, std::vector<SeriesPoints> &&series) {
            polled.pushes.append({run, pushBody(run, host, series)});
            return success();
        },
        kBudget,
        [&](const QString &run, std::vector<LogdirFollower::Sample> &&samples) {
            // A TensorBoard hparams session: the run's hyperparameters, as its config; images,
            // histograms, text and audio as the collector's samples.
            std::vector<Sample> items;
            for (const LogdirFollower::Sample &sample : samples) {
                if (const auto *session = std::get_if<HparamsSample>(&sample.data))
                    polled.pushes.append(
                        {run, configBody(run, host, session->hparams), Polled::Push::Kind::Config});
            }
            for (auto &stored : LogdirFollower::storedItems(samples)) {
                if (stored)
                    std::move(stored->begin(), stored->end(), std::back_inserter(items));
                else
                    qCWarning(lcTensorboard).noquote() << u"%1: %2"_s.arg(run, stored.error());
            }
            for (QByteArray &body : samplesPushes(run, items))
                polled.pushes.append({run, std::move(body), Polled::Push::Kind::Samples});
            return success();
        },
        kEverySampleKind,
        [&](const QString &run, double step, const QString &key) {
            polled.pushes.append({run, restartBody(run, step, key)});
            return success();
        });
    if (!progress)
        return fail(progress.error());
    polled.more = progress->more;
    return polled;
}

void LogdirFeeds::poll(const QString &source) {
    const auto it = m_feeds.find(source);
    if (it == m_feeds.end())
        return;
    Feed &feed = it->second;
    feed.busy = true;
    auto done = [this, source, id = feed.id](const Result<Polled> &polled) {
        received(source, id, polled);
    };
    if (feed.node.isEmpty()) {
        runOffThread(
            this,
            [follower = feed.follower, path = feed.path]() mutable {
                LocalLogdir logdir(path);
                return pollSource(std::move(follower), logdir, {});
            },
            done);
        return;
    }
    NodeConnection *connection = m_monitor->connection(feed.node);
    if (!connection) {
        received(source, feed.id, fail(u"no node is named \"%1\""_s.arg(feed.node)));
        return;
    }
    connection->withSession<Polled>(
        [follower = feed.follower, path = feed.path, node = feed.node](SshSession &session) {
            SftpLogdir logdir(session, path);
            return pollSource(follower, logdir, node);
        },
        this, done);
}

LogdirFeeds::Feed *LogdirFeeds::feedOf(const QString &source, quint64 id) {
    const auto it = m_feeds.find(source);
    return it != m_feeds.end() && it->second.id == id ? &it->second : nullptr;
}

void LogdirFeeds::received(const QString &source, quint64 id, const Result<Polled> &polled) {
    Feed *feed = feedOf(source, id);
    if (!feed)
        return; // unfollowed meanwhile (and maybe followed anew)
    if (!polled) {
        feed->busy = false;
        feed->error = polled.error();
        Q_EMIT changed();
        return;
    }
    pushNext(source, id, std::make_shared<Polled>(polled.value()), 0, {});
}

void LogdirFeeds::pushNext(const QString &source, quint64 id, const std::shared_ptr<Polled> &polled,
                           int index, QSet<QString> unstored) {
    Feed *found = feedOf(source, id);
    if (!found)
        return;
    Feed &feed = *found;
    if (index < polled->pushes.size()) {
        const Polled::Push &push = polled->pushes[index];
        // After a push of a run that must be read again, the run's later pushes wait for that
        // read: sent now, they would be sent twice.
        if (unstored.contains(push.run)) {
            pushNext(source, id, polled, index + 1, unstored);
            return;
        }
        auto pushed = [this, source, id, polled, index, unstored, run = push.run,
                       kind = push.kind](const Result<qint64> &stored) mutable {
            if (!stored) {
                // Points are read again; samples too (the store skips what it holds) unless
                // refused for their content; a config is said once refused.
                if (kind == Polled::Push::Kind::Points ||
                    (kind == Polled::Push::Kind::Samples &&
                     stored.errorCode() != ErrorCode::InvalidInput))
                    unstored.insert(run);
                if (Feed *current = feedOf(source, id))
                    current->error = stored.error();
            }
            pushNext(source, id, polled, index + 1, unstored);
        };
        if (push.kind == Polled::Push::Kind::Samples)
            m_collector->pushSamples(push.body, this, std::move(pushed));
        else
            m_collector->push(push.body, this, std::move(pushed));
        return;
    }
    feed.follower.adopt(polled->follower, unstored);
    feed.busy = false;
    feed.lastRead = QDateTime::currentDateTimeUtc();
    if (unstored.isEmpty())
        feed.error.clear();
    save();
    Q_EMIT changed();
    if (polled->more && unstored.isEmpty())
        poll(source);
}

void LogdirFeeds::load() {
    const auto document = readStateFile(m_statePath);
    if (!document) {
        qCWarning(lcTensorboard).noquote() << document.error();
        return;
    }
    const QJsonArray feeds = document->object()[u"feeds"_s].toArray();
    for (const QJsonValue value : feeds) {
        const QString source = value[u"source"_s].toString();
        const auto [node, path] = splitSource(source);
        if (path.isEmpty())
            continue;
        Feed &feed = m_feeds[source];
        feed.id = ++m_lastId;
        feed.node = node;
        feed.path = value[u"path"_s].toString(path);
        feed.follower = LogdirFollower(prefixOf(node, path));
        const QJsonObject offsets = value[u"offsets"_s].toObject();
        for (auto offset = offsets.begin(); offset != offsets.end(); ++offset)
            feed.follower.restoreOffset(offset.key(), offset.value().toInteger());
    }
}

void LogdirFeeds::save() const {
    QJsonArray feeds;
    for (const auto &[source, feed] : m_feeds) {
        QJsonObject offsets;
        const auto &files = feed.follower.files();
        for (auto file = files.begin(); file != files.end(); ++file)
            offsets[file.key()] = file->offset;
        feeds.append(
            QJsonObject{{u"source"_s, source}, {u"path"_s, feed.path}, {u"offsets"_s, offsets}});
    }
    if (Status saved = writeFileAtomically(
            m_statePath, QJsonDocument(QJsonObject{{u"feeds"_s, feeds}}).toJson());
        !saved)
        qCWarning(lcTensorboard).noquote() << saved.error();
}

} // namespace sb
