#pragma once

#include "ClickHouse.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QSet>
#include <QThreadPool>
#include <QTimer>

namespace sb {

class MetricStore;

// Ships what the embedded store commits to the lab's ClickHouse: every point once, and each
// run's info. The store stays the journal that acknowledges pushes, so an outage of ClickHouse
// only delays what the lab sees. Lives on the store's thread; ClickHouse is called off it, one
// batch at a time.
//
// Deleted runs are deleted there too (ALTER ... DELETE, which leaves points inserted later, of a
// new run of the same name, alone).
//
// Once: a batch is one INSERT (one block, stored whole or not at all), and the points it holds
// carry their index in their series. What ClickHouse holds is read back on start and after any
// failed batch (a batch whose answer was lost may have been stored), and shipping goes on from
// there. Before that read, any INSERT of this store's still running there (its answer lost, a
// kill of the collector) is ended: its name says whose it is (query_id: the store's lab id).
class LabForwarder final : public QObject {
    Q_OBJECT
public:
    struct Options {
        ClickHouse::Options server;
        QString project = QStringLiteral("default");
        int everyMs = 200;                        // a batch at most this often
        qint64 mostBatchBytes = qint64(16) << 20; // of points, as RowBinary
        int longestPauseMs = 30'000;              // between tries while ClickHouse fails
    };
    LabForwarder(MetricStore *store, Options options, QObject *parent = nullptr);
    ~LabForwarder() override;

    // Runs about to be deleted from the store: deleted from ClickHouse before anything else is
    // sent, even after a kill (the list is kept on disk, in the store's directory, until
    // ClickHouse took it). Call it before the store deletes them; an error means not noted.
    Status noteDeleting(const QStringList &runs);

    // For /health: points shipped by this process, points known not shipped yet, the last
    // failure (until a batch goes through), and whether ClickHouse is caught up with.
    QJsonObject state() const;
    bool caughtUp() const { return m_ready && m_dirty.isEmpty() && !m_inFlight; }

Q_SIGNALS:
    void shipped(qint64 points); // a batch was stored

private:
    struct Batch {
        QByteArray points;
        QByteArray runs;
        QByteArray blocks;
        QHash<QString, qint64> ends;        // series key -> its shipped count once stored
        QHash<QString, QByteArray> runRows; // run -> the digest of its row, once stored
        QSet<QString> runNames;
        qint64 count = 0;
        bool unreadable = false; // a series' points could not be read from the store
    };
    static QString keyOf(const QString &run, const QString &metric);
    // Sends the deletes noted, then reads what ClickHouse holds of these runs (all: empty).
    void resume(const QStringList &asked);
    void tick();
    Batch nextBatch();
    void failed(const QString &why, const QStringList &runs);
    QString deletingPath() const;
    // What names this collector's points in ClickHouse (`source`): its lab id's first 12 digits.
    QString source() const { return m_id.left(12); }
    Status saveDeleting() const;

    MetricStore *m_store;
    Options m_options;
    QTimer m_timer;
    QHash<QString, qint64> m_shipped;     // series key -> points ClickHouse holds
    QHash<QString, QByteArray> m_runRows; // run -> the digest of its row ClickHouse holds
    QSet<QString> m_dirty;                // runs with points or info perhaps not shipped
    QStringList m_deleting;               // runs to delete from ClickHouse first
    QString m_id;                         // this store's, kept in its directory: its INSERTs' names
    quint64 m_inserts = 0;
    // ClickHouse's calls, one at a time, on a thread of their own: one that hangs holds up
    // nothing else of the collector's (the decoding of pushes shares the common pool). Last:
    // gone first, waiting for a call in flight.
    QThreadPool m_pool;
    bool m_ready = false; // m_shipped is what ClickHouse holds
    bool m_inFlight = false;
    bool m_migrated = false;
    qint64 m_shippedHere = 0;
    QString m_error;
    int m_pauseMs = 0;
};

} // namespace sb
