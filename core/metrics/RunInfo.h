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
    QString status;              // running, finished, failed, stopped
    std::optional<double> start; // seconds since the epoch
    std::optional<double> end;
    QString sweep; // the id of the sweep that made it (SIGNALBOX_SWEEP), if one did
    // The researcher's own words on it; unset in an update: left as they are.
    std::optional<QStringList> tags;
    std::optional<QString> note;
    bool operator==(const RunInfo &) const = default;

    QJsonObject toJson() const;
    static RunInfo fromJson(const QString &name, const QJsonObject &json);
    // Fields present in `update` replace ours; config keys are merged.
    void merge(const RunInfo &update);
};

} // namespace sb
