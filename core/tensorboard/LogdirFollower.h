#pragma once

#include "EventParser.h"
#include "Summaries.h"
#include "metrics/MetricPoint.h"
#include "util/FileEntry.h"
#include "util/Result.h"

#include <QHash>
#include <QJsonArray>
#include <QMap>
#include <QSet>
#include <QString>

#include <functional>
#include <vector>

namespace sb {

// TensorBoard's test for an event file: the name holds "tfevents".
bool isEventFileName(const QString &fileName);

// Where a logdir's files come from: this computer's file system, or a node over SFTP.
class LogdirSource {
public:
    using File = FileEntry; // path relative to the logdir
    virtual ~LogdirSource() = default;
    // Every file under the logdir whose name holds "tfevents", as TensorBoard finds them.
    virtual Result<std::vector<File>> eventFiles() = 0;
    virtual Result<QByteArray> read(const QString &path, qint64 offset, qint64 size) = 0;
};

// A logdir on this computer; `root` may also be a single event file.
class LocalLogdir final : public LogdirSource {
public:
    explicit LocalLogdir(const QString &root);
    Result<std::vector<File>> eventFiles() override;
    Result<QByteArray> read(const QString &path, qint64 offset, qint64 size) override;

private:
    QString m_root;
};

// Follows the TensorBoard event files of a logdir, incrementally by offset, and turns their
// scalars into points. Every directory holding event files is a run named by its path under
// the logdir, as TensorBoard names it ("." for the logdir itself); a run's files are read in
// name order, so rotated files follow one another. A record cut off at the end of a file waits
// for the rest; a record with a bad CRC is skipped and counted. A plain value: copy it to a
// worker thread, poll there, and take the copy back once its points are stored.
class LogdirFollower {
public:
    // `prefix`, when given, names the runs "PREFIX/RUN" (and the logdir's own run "PREFIX").
    explicit LogdirFollower(QString prefix = {})
        : m_prefix(std::move(prefix)) {}

    // Receives one run's new points; a failure leaves the file's offset where it was.
    using Sink = std::function<Status(const QString &run, std::vector<SeriesPoints> &&series)>;
    // One step of a tag of another kind: an image, histogram, text, audio clip, or a session's
    // hyperparameters (their tag is TensorBoard's, "_hparams_/session_start_info").
    struct Sample {
        QString tag;
        double step = 0;
        double wallTime = 0;
        SampleData data;
    };
    using SampleSink = std::function<Status(const QString &run, std::vector<Sample> &&samples)>;
    // Each value's items as the store keeps them (storedSamples), or why the value is refused;
    // hparams values hold none. Checked on every core of the pool: hashing a logdir's images
    // is most of the work of reading it.
    static std::vector<Result<std::vector<sb::Sample>>>
    storedItems(const std::vector<Sample> &samples);
    // A writer restarted from a checkpoint (SessionLog.START) at `step`: what the run logged at
    // that step or later before it is to be dropped, as TensorBoard does (a Resume::Rewind,
    // inclusive). Said in order between the points and samples before and after it; `key`
    // names the record (a digest of its file's path, and its offset), so that one said again
    // (a file read again after a failure) is known. A failure after it keeps what was told before
    // it: the file is read again from that record.
    using RestartSink = std::function<Status(const QString &run, double step, const QString &key)>;
    struct Progress {
        qint64 bytes = 0;  // read this time
        bool more = false; // stopped at the budget: poll again at once
    };
    // Samples of `kinds` go to `samples`; the others are not decoded. Without images, audio,
    // text or histograms among them, large records are passed over unread.
    static constexpr qint64 kBudget = 64 << 20; // bytes a poll reads by default
    Result<Progress> poll(LogdirSource &source, const Sink &sink, qint64 budget = kBudget,
                          const SampleSink &samples = {}, SummaryKinds kinds = kEverySampleKind,
                          const RestartSink &restarts = {});

    struct FileState {
        qint64 offset = 0;
        quint64 inode = 0; // of the file read so far (0: unknown)
        quint64 device = 0;
        qint64 records = 0; // intact records read
        qint64 points = 0;
        qint64 corrupt = 0; // records skipped for a bad CRC or a malformed message
        qint64 skipped = 0; // large records (graphs, images) passed over unread
        qint64 refused = 0; // samples refused (a truncated image, a histogram of NaN edges...)
        QString lastError;
        QString lastRefusal; // why the last one was: "TAG at step N: WHY"
    };
    const QMap<QString, FileState> &files() const { return m_files; }
    void restoreOffset(const QString &path, qint64 offset) { m_files[path].offset = offset; }
    // Takes what a copy of this follower read, except the files of runs whose points were not
    // stored: those are read again next time.
    void adopt(const LogdirFollower &polled, const QSet<QString> &unstoredRuns);
    QJsonArray filesJson() const;

    QString runOf(const QString &path) const;

private:
    struct Sinks {
        const Sink &points;
        const SampleSink &samples;
        const RestartSink &restarts;
    };
    Status follow(LogdirSource &source, const LogdirSource::File &file, qint64 *budget,
                  const Sinks &sinks, SummaryKinds kinds);

    QString m_prefix;
    QMap<QString, FileState> m_files; // by path: a run's files in name (= creation time) order
    // Each run's tags' kinds, from the plugin metadata their first values carried.
    QHash<QString, QHash<QByteArray, SummaryKind>> m_tagKinds;
};

} // namespace sb
