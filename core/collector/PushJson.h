#pragma once

#include "metrics/MetricPoint.h"
#include "util/Result.h"

#include <QByteArrayView>
#include <QJsonObject>

#include <vector>

namespace sb {

// A JSON push read with simdjson: the arrays of "series" go straight into points, which is where
// a push's bytes are; every other field (run, batch, info, records: small) comes back as Qt JSON
// for the checks every push gets (Collector::decodePush).
struct SplitPush {
    QJsonObject fields;               // the push without "series" (with it, when not an object)
    std::vector<SeriesPoints> series; // each point without a time gets `wallNow`
    qint64 points = 0;
};
Result<SplitPush> splitPush(QByteArrayView body, double wallNow);

} // namespace sb
