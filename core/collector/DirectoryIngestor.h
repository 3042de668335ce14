#pragma once

#include "metrics/MetricLineParser.h"
#include "tensorboard/LogdirFollower.h"
#include "util/FileEntry.h"

#include <QDeadlineTimer>
#include <QHash>
#include <QJsonArray>
#include <QObject>
#include <QSet>
#include <QTimer>

namespace sb {

class Collector;

// Follows *.jsonl and *.csv files under watched directories: each file is a run named by its
// path relative to the directory, without the extension. New complete lines are ingested as
// they appear; a partial last line waits for the rest. A watched directory is also a
// TensorBoard logdir: its event files' scalars are followed too (see LogdirFollower). Offsets
// persist in the store directory, so a restart does not ingest a line or a record twice. A file
// replaced by another (a rotation: a new inode at its path) or cut shorter is read from its start.
//
// The file system is looked at on a worker thread, never the collector's (whose queries must
// not wait on it): every kPoll the files known are stat'ed, and the directories are walked for
// new files only every kPoll while they keep appearing, then less and less often, up to
// kSlowestWalk, so that thousands of idle run directories cost little. The collector's thread
// reads only files whose size or inode changed.
class DirectoryIngestor final : public QObject {
    Q_OBJECT
public:
    // A longer line is not a metric record: it is skipped and reported, never read again.
    static constexpr qint64 kMaxLine = 1 << 20;
    static constexpr int kPoll = 500;         // ms
    static constexpr int kSlowestWalk = 8000; // ms

    DirectoryIngestor(Collector *collector, const QStringList &directories, QString statePath);
    void scan();
    QJsonArray sourcesJson() const;

    // A file found under a watched directory.
    struct Listed {
        QString directory;   // the watched one
        FileEntry file;      // relative to it
        bool events = false; // a TensorBoard event file (else lines: .jsonl or .csv)
        bool changed = true; // new, or another size or inode than in `known`
    };
    // What is there now: every file under `directories` when `walk`, else the `known` ones
    // stat'ed again (those gone are left out), each marked changed or not against `known`.
    // Touches nothing else: it runs on a worker thread.
    static std::vector<Listed> list(const QStringList &directories, std::vector<Listed> known,
                                    bool walk);

private:
    struct Source {
        qint64 offset = 0;
        quint64 inode = 0; // of the file read so far (0: unknown)
        quint64 device = 0;
        qint64 lines = 0;
        qint64 errors = 0;
        QString lastError;
        CsvMetricReader csv;
        bool skippingLongLine = false; // inside a line longer than kMaxLine, read past it
    };
    // Reads the next chunk of new lines; true: more is waiting.
    bool follow(const QString &directory, const FileEntry &listed);
    bool followEventFiles(const QString &directory); // true: more is waiting
    // A chunk's samples of one run into the store; an error only when the disk failed.
    Status storeSamples(const QString &run, const std::vector<LogdirFollower::Sample> &samples);
    // Follows what the latest listing shows changed; again at once while a backlog is left.
    void followListed();
    void loadState();
    void saveState() const;

    Collector *m_collector;
    QStringList m_directories;
    QString m_statePath;
    QHash<QString, Source> m_sources;
    QHash<QString, LogdirFollower> m_logdirs; // by watched directory
    QHash<QString, qint64> m_savedOffsets;    // event files' offsets from the last run
    QTimer m_timer;
    std::vector<Listed> m_listed; // what the last look found
    bool m_looking = false;       // a look is running on a worker thread
    bool m_unsaved = false;       // offsets moved since the state file was written
    QSet<QString> m_behind;       // lines files not read to their end (a backlog, a retry)
    int m_walkEvery = kPoll;      // ms between walks: grows while nothing new appears
    QDeadlineTimer m_nextWalk;
};

} // namespace sb
