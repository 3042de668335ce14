#pragma once

#include <QJsonObject>
#include <QString>

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
    bool operator==(const RunInfo &) const = default;

    QJsonObject toJson() const;
    static RunInfo fromJson(const QString &name, const QJsonObject &json);
    // Fields present in `update` replace ours; config keys are merged.
    void merge(const RunInfo &update);
};

} // namespace sb
