#pragma once

#include "client/CollectorClient.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QStringList>
#include <QTimer>

#include <deque>
#include <vector>

namespace sb {

// The samples (images, histograms, text, audio) of the runs a view shows, from the collector:
// their tags, listed every two seconds while the view is active; each tag's items, fetched for
// the tags a view asks for, page by page and only what is new; and blobs on request, a few at a
// time, the latest asked first (a slider being dragged wants where it is now, not where it was).
// Nothing here blocks: the client decodes answers off the calling thread.
class SamplesFeed final : public QObject {
    Q_OBJECT
public:
    static constexpr int kPollMs = 2000;
    static constexpr int kBlobsInFlight = 6;
    static constexpr qsizetype kBlobsWaiting = 64; // older requests are dropped past it

    explicit SamplesFeed(CollectorClient *collector, QObject *parent = nullptr);

    void setRuns(const QStringList &runs);
    const QStringList &runs() const { return m_runs; }
    // Polls while active (the view shows); lists at once when it becomes so.
    void setActive(bool active);
    void refresh();
    // The shown runs' tags, in run then tag order.
    const QList<SampleTagSummary> &tags() const { return m_tags; }
    // A run's tag's items fetched so far, in step order; more are asked for when the listing
    // says the tag grew (itemsChanged when they are in).
    const std::vector<SampleItem> &items(const QString &run, const QString &tag);
    // A blob's bytes: blobFetched or blobFailed, once, whoever asked.
    void fetchBlob(const QString &digest);

Q_SIGNALS:
    void tagsChanged();
    void itemsChanged(const QString &run, const QString &tag);
    void blobFetched(const QString &digest, const QByteArray &bytes);
    void blobFailed(const QString &digest, const QString &why);
    // Asked long ago and dropped from the queue unasked: ask again if still wanted.
    void blobDropped(const QString &digest);
    void problem(const QString &message); // empty: the collector answers again

private:
    struct Series {
        std::vector<SampleItem> items;
        qint64 listed = 0; // items the listing says the tag holds
        bool fetching = false;
        bool wanted = false; // a view asked for it: kept up as it grows
    };
    using Key = std::pair<QString, QString>; // run, tag
    void fetchItems(const Key &key);
    void say(const QString &problem);
    void nextBlobs();

    CollectorClient *m_collector;
    QStringList m_runs;
    QList<SampleTagSummary> m_tags;
    QHash<Key, Series> m_series;
    QTimer m_poll;
    bool m_listing = false;
    std::deque<QString> m_blobQueue; // newest first
    QSet<QString> m_blobsAsked;      // queued or in flight
    int m_blobsInFlight = 0;
    QString m_problem; // the last said
};

} // namespace sb
