#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace sb {

// Metadata of a run. Every field but the name is optional in an update and merged in.
struct RunInfo {
    QString name;
    QJsonObject config; // hyperparameters
    QString host;
    // running, finished, failed, stopped, crashed (its process died without a word: killed, or
    // gone) or lost (silent past the collector's threshold; a later push makes it running again)
    QString status;
    std::optional<double> start; // seconds since the epoch
    std::optional<double> end;
    std::optional<double> lastSeen; // when the collector last heard from it (push, line, heartbeat)
    QString sweep; // the id of the sweep that made it (SIGNALBOX_SWEEP), if one did
    // The researcher's own words on it; unset in an update: left as they are.
    std::optional<QStringList> tags;
    std::optional<QString> note;
    // Put away by the researcher: kept whole, left out of the app's table until asked for.
    // Unset in an update: left as it is.
    std::optional<bool> archived;
    // What the run ran, as its client recorded it (each replaced whole by an update that has it):
    // code {commit, branch, dirty, remote, root, diff_bytes, diff_cut} and environment {argv,
    // python, executable, platform, host, cwd}. The diff and the packages are texts of the run
    // at tags "code/diff" and "environment/packages", kept out of every listing of runs.
    QJsonObject code;
    QJsonObject environment;
    // {run, step}: the run this one was forked from, and the step its copied history ends at.
    // Set by the store's fork only (a push's own is dropped).
    QJsonObject forkedFrom;
    bool operator==(const RunInfo &) const = default;

    QJsonObject toJson() const;
    static RunInfo fromJson(const QString &name, const QJsonObject &json);
    // Fields present in `update` replace ours; config keys are merged; last seen only grows. A
    // run that is running again (revived after it was judged lost) has no end.
    void merge(const RunInfo &update);
    // Whether the status says the run is over (anything but running, lost or none).
    bool ended() const;
};

} // namespace sb
