#pragma once

#include "metrics/RunInfo.h"

#include <QByteArray>
#include <QHash>
#include <QMap>
#include <QStringList>

#include <optional>
#include <vector>

namespace sb {

// The store's runs by name, and the text index that finds them by the words of their metadata.
class RunIndex {
public:
    const QMap<QString, RunInfo> &byName() const { return m_runs; }
    bool contains(const QString &name) const { return m_runs.contains(name); }
    // The run, or an empty one of that name.
    RunInfo value(const QString &name) const {
        return m_runs.value(name, RunInfo{name, {}, {}, {}, {}, {}});
    }
    std::optional<RunInfo> find(const QString &name) const;
    // Adds or replaces a run; its search text is made again when it changed.
    void set(const RunInfo &info);
    // Adds an empty run of that name, unless there is one.
    void ensure(const QString &name);
    void remove(const QString &name) {
        if (m_runs.remove(name) > 0) {
            m_searchText.remove(name);
            m_searchIndexStale = true;
            ++m_generation;
        }
    }
    // Counts the runs added, changed and removed: what a cache of them is keyed by.
    quint64 generation() const { return m_generation; }
    // The runs whose metadata (as JSON: name, config, tags, note...) holds `lowered`, text in
    // lower case as UTF-8, in name order. Each run's text is kept until the run changes, and all
    // of them lie end to end in one index, so a filter over 100,000 runs is one scan of it.
    QStringList mentioning(QByteArrayView lowered) const;

private:
    QMap<QString, RunInfo> m_runs;
    mutable QHash<QString, QByteArray> m_searchText; // by run, made when first searched
    // Every run's search text, in name order, each ending in a newline (JSON has none raw), and
    // where each starts; made again when a run changed.
    mutable QByteArray m_searchIndex;
    mutable std::vector<std::pair<qsizetype, QString>> m_searchStarts;
    mutable bool m_searchIndexStale = true;
    quint64 m_generation = 0;
};

} // namespace sb
