#pragma once

#include "metrics/store/MetricStore.h"

#include <QtGlobal>

#include <memory>
#include <utility>
#include <vector>

// What the store's tests share: opening one, a series of known values, text samples, and what a
// series reads back.
namespace store_helpers {

inline std::unique_ptr<sb::MetricStore> openStore(const QString &dir) {
    auto store = sb::MetricStore::open(dir);
    if (!store)
        qFatal("cannot open store: %s", qPrintable(store.error()));
    return std::move(store).value();
}

// Steps [first, first + count), each value 1000 * `life` + its step: which life logged a point.
inline sb::SeriesPoints life(const QString &metric, int first, int count, int lifeNumber) {
    sb::SeriesPoints s{metric, {}};
    for (int i = first; i < first + count; ++i)
        s.points.push_back({double(i), 1000.0 * lifeNumber + i, 1.7e9 + lifeNumber * 1e4 + i});
    return s;
}

inline sb::Sample text(const QString &tag, double step, const QByteArray &body = {}) {
    sb::Sample sample{tag,
                      sb::SampleKind::Text,
                      step,
                      1.7e9 + step,
                      0,
                      {},
                      body.isEmpty() ? "at " + QByteArray::number(step) : body,
                      {}};
    if (sb::Status checked = sb::checkSample(&sample); !checked)
        qFatal("not a valid sample: %s", qPrintable(checked.error()));
    return sample;
}

// Every point of a series as read, as (step, value).
inline std::vector<std::pair<double, double>> pointsOf(sb::MetricStore &store, const QString &run,
                                                       const QString &metric) {
    auto opened = store.openSeries(run, metric);
    if (!opened)
        return {};
    std::vector<sb::MetricPoint> points(std::size_t(opened->points->size()));
    opened->points->read(0, qint64(points.size()), points.data());
    std::vector<std::pair<double, double>> out;
    out.reserve(points.size());
    for (const auto &p : points)
        out.emplace_back(p.step, p.value);
    return out;
}

} // namespace store_helpers
