#pragma once

#include "metrics/MetricLineParser.h"
#include "tensorboard/LogdirFollower.h"

#include <QHash>
#include <QJsonArray>
#include <QObject>
#include <QTimer>

namespace sb {

class Collector;

// Follows *.jsonl and *.csv files under watched directories: each file is a run named by its
// path relative to the directory, without the extension. New complete lines are ingested as
// they appear; a partial last line waits for the rest. A watched directory is also a
// TensorBoard logdir: its event files' scalars are followed too (see LogdirFollower). Offsets
// persist in the store directory, so a restart does not ingest a line or a record twice.
class DirectoryIngestor final : public QObject {
    Q_OBJECT
public:
    // A longer line is not a metric record: it is skipped and reported, never read again.
    static constexpr qint64 kMaxLine = 1 << 20;

    DirectoryIngestor(Collector *collector, QStringList directories, QString statePath);
    void scan();
    QJsonArray sourcesJson() const;

private:
    struct Source {
        qint64 offset = 0;
        qint64 lines = 0;
        qint64 errors = 0;
        QString lastError;
        CsvMetricReader csv;
        bool skippingLongLine = false; // inside a line longer than kMaxLine, read past it
    };
    // Reads the next chunk of new lines; true: more is waiting.
    bool follow(const QString &directory, const QString &path);
    bool followEventFiles(const QString &directory); // true: more is waiting
    void loadState();
    void saveState() const;

    Collector *m_collector;
    QStringList m_directories;
    QString m_statePath;
    QHash<QString, Source> m_sources;
    QHash<QString, LogdirFollower> m_logdirs; // by watched directory
    QHash<QString, qint64> m_savedOffsets;    // event files' offsets from the last run
    QTimer m_timer;
};

} // namespace sb
