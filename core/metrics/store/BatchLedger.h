#pragma once

#include <QByteArrayView>
#include <QSet>
#include <QString>

#include <deque>

namespace sb {

// How a batch was sent: whole (a client's push) or in parts (metric lines forwarded a few at a
// time); the same id sent both ways names two batches.
enum class BatchKind { Whole, InParts };

// The ids of the last batches stored, so that a retry of one whose answer was lost is known.
class BatchLedger {
public:
    // How many batch ids are remembered (a retry comes within seconds; this is hours of them).
    static constexpr qsizetype kRemembered = 100'000;

    // A batch's key: the run's length, the run, the kind and the sender's id, so that no run or
    // id, whatever it holds, makes another's key (run "a\0b" id "c" is not run "a" id "b\0c").
    static QString key(const QString &run, const QString &batch, BatchKind kind);
    // The key of a batch record the previous version wrote ("run\0id", " (lines)" after the id of
    // metric lines' batches); empty when it is not one.
    static QString legacyKey(QByteArrayView payload);

    bool contains(const QString &key) const { return m_keys.contains(key); }
    // Remembers a key, forgetting the oldest past kRemembered.
    void remember(const QString &key);
    // Forgets the keys of these runs' batches (deleted runs: a run of the name later is new).
    void forgetRuns(const QSet<QString> &runs);
    // The remembered keys, oldest first.
    const std::deque<QString> &keys() const { return m_order; }

private:
    QSet<QString> m_keys;
    std::deque<QString> m_order;
};

} // namespace sb
