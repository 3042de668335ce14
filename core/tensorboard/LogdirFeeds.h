#pragma once

#include "LogdirFollower.h"

#include <QDateTime>
#include <QObject>
#include <QTimer>

#include <map>

namespace sb {

class CollectorClient;
class NodeMonitor;

// The TensorBoard logdirs the app follows into its collector: a directory on this computer, or
// NODE:PATH on an SSH node (read over SFTP on that node's connection). Every two seconds each
// is read on a worker (the node's thread, or the thread pool for a local one), its new scalars
// are pushed to the collector, and its offsets move on only once the collector took them. Runs
// are named "LOGDIR/RUN" after the logdir's last path component ("NODE:LOGDIR/RUN" on a node).
// The list and its offsets persist, so reopening Signalbox resumes without reading twice.
class LogdirFeeds final : public QObject {
    Q_OBJECT
public:
    LogdirFeeds(CollectorClient *collector, NodeMonitor *monitor, QString statePath,
                QObject *parent = nullptr);

    // Refuses a node that is not configured, a local path that is not there, and a logdir
    // already followed.
    Status follow(const QString &source);
    void unfollow(const QString &source);

    struct FeedStatus {
        QString source;
        QString runPrefix;
        int files = 0;
        qint64 points = 0;  // read since Signalbox started
        qint64 corrupt = 0; // records skipped
        QString error;      // the last read's or push's failure; empty when all is well
        QDateTime lastRead;
    };
    QList<FeedStatus> feeds() const;

Q_SIGNALS:
    void changed();

private:
    struct Feed {
        quint64 id = 0; // a result for an earlier feed of the same source is not this one's
        QString node;   // empty: this computer
        QString path;
        LogdirFollower follower;
        bool busy = false;
        QString error;
        QDateTime lastRead;
    };
    struct Polled {
        LogdirFollower follower;
        struct Push {
            // Points and samples: a failure reads the run's files again (the store skips the
            // samples it holds); a config (hparams), or samples refused for their content, are
            // said once: reading again would fail again.
            enum class Kind { Points, Config, Samples };
            QString run;
            QByteArray body;
            Kind kind = Kind::Points;
        };
        QList<Push> pushes;
        bool more = false;
    };
    static Result<Polled> pollSource(LogdirFollower follower, LogdirSource &source,
                                     const QString &host);
    void pollAll();
    void poll(const QString &source);
    Feed *feedOf(const QString &source, quint64 id);
    void received(const QString &source, quint64 id, const Result<Polled> &polled);
    void pushNext(const QString &source, quint64 id, const std::shared_ptr<Polled> &polled,
                  int index, QSet<QString> unstored);
    void load();
    void save() const;

    CollectorClient *m_collector;
    NodeMonitor *m_monitor;
    QString m_statePath;
    std::map<QString, Feed> m_feeds; // by source
    quint64 m_lastId = 0;
    QTimer m_timer;
};

} // namespace sb
