#include "SamplesFeed.h"

namespace sb {

SamplesFeed::SamplesFeed(CollectorClient *collector, QObject *parent)
    : QObject(parent)
    , m_collector(collector) {
    m_poll.setInterval(kPollMs);
    connect(&m_poll, &QTimer::timeout, this, &SamplesFeed::refresh);
}

void SamplesFeed::setRuns(const QStringList &runs) {
    if (runs == m_runs)
        return;
    m_runs = runs;
    // Tags and items of runs no longer shown go at once (a fetch still out is dropped).
    const QSet<QString> shown(runs.begin(), runs.end());
    m_tags.removeIf([&shown](const SampleTagSummary &tag) { return !shown.contains(tag.run); });
    m_series.removeIf([&shown](const auto &entry) { return !shown.contains(entry.key().first); });
    Q_EMIT tagsChanged();
    refresh();
}

void SamplesFeed::say(const QString &problem) {
    // Said when it changes: the view's one banner is the curves' too, and an answer that
    // came is no reason to clear what they said.
    if (problem == m_problem)
        return;
    m_problem = problem;
    Q_EMIT this->problem(problem);
}

void SamplesFeed::setActive(bool active) {
    if (active == m_poll.isActive())
        return;
    if (active) {
        m_poll.start();
        refresh();
    } else {
        m_poll.stop();
    }
}

void SamplesFeed::refresh() {
    if (m_listing || m_runs.isEmpty()) {
        if (m_runs.isEmpty() && !m_tags.isEmpty()) {
            m_tags.clear();
            Q_EMIT tagsChanged();
        }
        return;
    }
    m_listing = true;
    const QStringList asked = m_runs;
    m_collector->sampleTags(asked, this, [this, asked](Result<QList<SampleTagSummary>> tags) {
        m_listing = false;
        if (!tags) {
            say(tags.error());
            return;
        }
        say({});
        if (asked != m_runs) { // the shown runs changed meanwhile: list them
            refresh();
            return;
        }
        for (const SampleTagSummary &tag : *tags) {
            Series &series = m_series[{tag.run, tag.tag}];
            series.listed = tag.points;
            if (series.wanted && qint64(series.items.size()) != series.listed)
                fetchItems({tag.run, tag.tag});
        }
        if (*tags != m_tags) {
            m_tags = std::move(tags).value();
            Q_EMIT tagsChanged();
        }
    });
}

const std::vector<SampleItem> &SamplesFeed::items(const QString &run, const QString &tag) {
    Series &series = m_series[{run, tag}];
    if (!series.wanted) {
        series.wanted = true;
        fetchItems({run, tag});
    }
    return series.items;
}

void SamplesFeed::fetchItems(const Key &key) {
    Series &series = m_series[key];
    if (series.fetching)
        return;
    series.fetching = true;
    // From the last item held, which must come back first: if it does not, an item landed
    // before it (a run logged an earlier step again) and the tag is fetched from its start.
    const auto held = qint64(series.items.size());
    const qint64 offset = std::max<qint64>(0, held - 1);
    m_collector->samples(key.first, key.second, std::nullopt, std::nullopt, offset,
                         CollectorApi::kMostSamplesPerPage, this,
                         [this, key, held](const Result<SamplesReply> &page) {
                             Series &fetched = m_series[key];
                             fetched.fetching = false;
                             if (!page) {
                                 say(page.error());
                                 return;
                             }
                             if (qint64(fetched.items.size()) != held)
                                 return; // forgotten meanwhile
                             auto first = page->samples.begin();
                             if (held > 0) {
                                 const SampleItem &last = fetched.items.back();
                                 if (first == page->samples.end() || first->blob != last.blob ||
                                     first->step != last.step || first->index != last.index) {
                                     fetched.items.clear();
                                     fetchItems(key);
                                     return;
                                 }
                                 ++first;
                             }
                             fetched.items.insert(fetched.items.end(), first, page->samples.end());
                             fetched.listed = std::max(fetched.listed, page->total);
                             // Decided before the signal: its handlers may add series, which moves
                             // `fetched`.
                             const bool more = page->samples.size() > (held > 0 ? 1U : 0U) &&
                                               qint64(fetched.items.size()) < page->total;
                             Q_EMIT itemsChanged(key.first, key.second);
                             if (more)
                                 fetchItems(key); // the next page
                         });
}

void SamplesFeed::fetchBlob(const QString &digest) {
    if (m_blobsAsked.contains(digest))
        return;
    m_blobsAsked.insert(digest);
    m_blobQueue.push_front(digest);
    while (qsizetype(m_blobQueue.size()) > kBlobsWaiting) {
        const QString dropped = m_blobQueue.back(); // asked long ago: asked again if still wanted
        m_blobsAsked.remove(dropped);
        m_blobQueue.pop_back();
        Q_EMIT blobDropped(dropped);
    }
    nextBlobs();
}

void SamplesFeed::nextBlobs() {
    while (m_blobsInFlight < kBlobsInFlight && !m_blobQueue.empty()) {
        const QString digest = m_blobQueue.front();
        m_blobQueue.pop_front();
        ++m_blobsInFlight;
        m_collector->blob(digest, this, [this, digest](const Result<QByteArray> &bytes) {
            --m_blobsInFlight;
            m_blobsAsked.remove(digest);
            if (bytes)
                Q_EMIT blobFetched(digest, *bytes);
            else
                Q_EMIT blobFailed(digest, bytes.error());
            nextBlobs();
        });
    }
}

} // namespace sb
