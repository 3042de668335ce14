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
    // Tags of runs no longer shown go at once; their items stay cached until the next listing.
    const QSet<QString> shown(runs.begin(), runs.end());
    m_tags.removeIf([&shown](const SampleTagSummary &tag) { return !shown.contains(tag.run); });
    Q_EMIT tagsChanged();
    refresh();
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
            Q_EMIT problem(tags.error());
            return;
        }
        Q_EMIT problem({});
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
    const auto offset = qint64(series.items.size());
    m_collector->samples(
        key.first, key.second, std::nullopt, std::nullopt, offset,
        CollectorApi::kMostSamplesPerPage, this,
        [this, key, offset](const Result<SamplesReply> &page) {
            Series &fetched = m_series[key];
            fetched.fetching = false;
            if (!page) {
                Q_EMIT problem(page.error());
                return;
            }
            if (qint64(fetched.items.size()) != offset)
                return; // forgotten meanwhile
            // Items in step order: one that lands before what is held (a run restarted at an
            // earlier step) means the order changed: fetched again from the start.
            if (!fetched.items.empty() && !page->samples.empty() &&
                page->samples.front().step < fetched.items.back().step) {
                fetched.items.clear();
                fetchItems(key);
                return;
            }
            fetched.items.insert(fetched.items.end(), page->samples.begin(), page->samples.end());
            fetched.listed = std::max(fetched.listed, page->total);
            Q_EMIT itemsChanged(key.first, key.second);
            if (!page->samples.empty() && qint64(fetched.items.size()) < page->total)
                fetchItems(key); // the next page
        });
}

void SamplesFeed::fetchBlob(const QString &digest) {
    if (m_blobsAsked.contains(digest))
        return;
    m_blobsAsked.insert(digest);
    m_blobQueue.push_front(digest);
    while (qsizetype(m_blobQueue.size()) > kBlobsWaiting) {
        m_blobsAsked.remove(m_blobQueue.back()); // asked long ago: asked again if still wanted
        m_blobQueue.pop_back();
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
