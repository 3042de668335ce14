#include "RunIndex.h"

#include <QJsonDocument>

#include <algorithm>

namespace sb {

std::optional<RunInfo> RunIndex::find(const QString &name) const {
    const auto it = m_runs.constFind(name);
    if (it == m_runs.constEnd())
        return std::nullopt;
    return *it;
}

void RunIndex::set(const RunInfo &info) {
    // (Equal, caches of the runs stay good: a number's value is the same as an integer or not.)
    if (const auto it = m_runs.constFind(info.name); it == m_runs.constEnd() || *it != info) {
        m_searchText.remove(info.name);
        m_searchIndexStale = true;
        ++m_generation;
    }
    m_runs[info.name] = info;
}

void RunIndex::ensure(const QString &name) {
    if (!m_runs.contains(name))
        set(RunInfo{name, {}, {}, {}, {}, {}});
}

QStringList RunIndex::mentioning(QByteArrayView lowered) const {
    if (m_searchIndexStale) {
        m_searchIndex.clear();
        m_searchStarts.clear();
        for (const RunInfo &info : m_runs) {
            auto text = m_searchText.constFind(info.name);
            if (text == m_searchText.constEnd())
                text = m_searchText.insert(
                    info.name,
                    QString::fromUtf8(QJsonDocument(info.toJson()).toJson(QJsonDocument::Compact))
                        .toLower()
                        .toUtf8());
            m_searchStarts.emplace_back(m_searchIndex.size(), info.name);
            m_searchIndex += *text;
            m_searchIndex += '\n';
        }
        m_searchIndexStale = false;
    }
    QStringList found;
    if (lowered.isEmpty() || lowered.contains('\n'))
        return found;
    for (qsizetype at = 0; (at = m_searchIndex.indexOf(lowered, at)) >= 0;) {
        // The run whose text holds `at`; the search goes on after that run's text.
        auto run = std::upper_bound(
                       m_searchStarts.begin(), m_searchStarts.end(), at,
                       [](qsizetype offset, const auto &start) { return offset < start.first; }) -
                   1;
        found << run->second;
        at = run + 1 == m_searchStarts.end() ? m_searchIndex.size() : (run + 1)->first;
    }
    return found;
}

} // namespace sb
