#pragma once

#include "util/Result.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace sb {

// A run restarted from a checkpoint at `step`, as its first push (or metric line, or TensorBoard's
// SessionLog.START) says:
//   rewind  the run goes on under its name; what it logged after it last stood at `step` is
//           hidden (kept, and restorable), so its curves never double back
//   fork    a new run (the push's) starts with a copy of `from`'s history up to `step`; `from`
//           is left as it is
// `inclusive`: the checkpoint's own step goes too (TensorBoard purges steps >= its START's).
// JSON: {"mode": "rewind" | "fork", "step": N, "inclusive": false, "from": "RUN"}
struct Resume {
    enum class Mode { Rewind, Fork };
    Mode mode = Mode::Rewind;
    double step = 0;
    bool inclusive = false;
    QString from; // the parent run of a fork

    // Whether a point (or sample) at `at` is past the checkpoint: what a rewind hides and a fork
    // leaves behind.
    bool past(double at) const { return inclusive ? at >= step : at > step; }
    static Result<Resume> fromJson(const QJsonValue &json);
    QJsonObject toJson() const;
    bool operator==(const Resume &) const = default;
};

} // namespace sb
