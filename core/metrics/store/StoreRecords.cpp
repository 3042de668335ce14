#include "StoreRecords.h"

#include "storage/Journal.h"

#include <QJsonDocument>
#include <QtEndian>

#include <cstring>

namespace sb {

using namespace Qt::StringLiterals;

namespace store_records {

void append(QByteArray *out, RecordType type, QByteArrayView payload) {
    journal_framing::append(out, static_cast<quint32>(type), payload);
}

QByteArray format(quint32 version) {
    char payload[4];
    qToLittleEndian<quint32>(version, payload);
    return QByteArray(payload, 4);
}

QByteArray run(const RunInfo &info) {
    return QJsonDocument(info.toJson()).toJson(QJsonDocument::Compact);
}

QByteArray series(quint32 id, const QString &run, const QString &metric) {
    const QByteArray runText = run.toUtf8();
    char head[8];
    qToLittleEndian<quint32>(id, head);
    qToLittleEndian<quint32>(quint32(runText.size()), head + 4);
    return QByteArray(head, 8) + runText + metric.toUtf8();
}

QByteArray extent(quint32 series, const Extent &extent) {
    char payload[24];
    qToLittleEndian<quint32>(series, payload);
    qToLittleEndian<quint32>(extent.file, payload + 4);
    qToLittleEndian<qint64>(extent.offset, payload + 8);
    qToLittleEndian<qint64>(extent.capacity, payload + 16);
    return QByteArray(payload, sizeof payload);
}

void appendCommitted(QByteArray *out, quint32 id, qint64 count, const MetricPoint &last) {
    char entry[kCommittedEntryBytes];
    qToLittleEndian<quint32>(id, entry);
    qToLittleEndian<qint64>(count, entry + 4);
    std::memcpy(entry + 12, &last, sizeof last);
    out->append(entry, sizeof entry);
}

} // namespace store_records

QByteArray store_records::deletedRuns(const QStringList &runs) {
    QByteArray out;
    for (const QString &run : runs) {
        const QByteArray name = run.toUtf8();
        char size[4];
        qToLittleEndian<quint32>(quint32(name.size()), size);
        out.append(size, 4).append(name);
    }
    return out;
}

QSet<QString> store_records::readDeletedRuns(QByteArrayView payload) {
    QSet<QString> runs;
    for (qsizetype at = 0; at + 4 <= payload.size();) {
        const quint32 size = qFromLittleEndian<quint32>(payload.data() + at);
        if (size > payload.size() - at - 4)
            break;
        runs.insert(QString::fromUtf8(payload.sliced(at + 4, size)));
        at += 4 + size;
    }
    return runs;
}

void JournalReplay::read(quint32 type, QByteArrayView payload) {
    const qint64 length = journal_framing::kHeaderSize + payload.size();
    dataRecords = dataRecords || type >= static_cast<quint32>(RecordType::Format);
    if (type == static_cast<quint32>(RecordType::Run)) {
        const QJsonObject json = QJsonDocument::fromJson(payload.toByteArray()).object();
        const QString name = json.value(u"name"_s).toString();
        if (!name.isEmpty()) {
            m_runs.set(RunInfo::fromJson(name, json));
            m_runRecordBytes[name] = length;
        }
    } else if (type == static_cast<quint32>(RecordType::SeriesCreated) ||
               type == static_cast<quint32>(RecordType::Series)) {
        qint64 id = -1;
        QString run, metric;
        if (type == static_cast<quint32>(RecordType::Series)) {
            const quint32 runBytes =
                payload.size() >= 8 ? qFromLittleEndian<quint32>(payload.data() + 4) : 0;
            if (payload.size() >= 8 && runBytes <= payload.size() - 8) {
                id = qFromLittleEndian<quint32>(payload.data());
                run = QString::fromUtf8(payload.sliced(8, runBytes));
                metric = QString::fromUtf8(payload.sliced(8 + runBytes));
            }
        } else {
            const QJsonObject json = QJsonDocument::fromJson(payload.toByteArray()).object();
            id = json.value(u"id"_s).toInteger(-1);
            run = json.value(u"run"_s).toString();
            metric = json.value(u"metric"_s).toString();
        }
        m_otherBytes += length;
        if (id >= 0 && id < SeriesTable::kMostIds && !m_ids.contains(quint32(id)) &&
            !run.isEmpty() && !metric.isEmpty() && !m_series.find(run, metric)) {
            m_ids.insert(quint32(id));
            m_series.add(quint32(id), run, metric);
            m_runs.ensure(run);
        }
    } else if (type == static_cast<quint32>(RecordType::Commit)) {
        for (qint64 i = 0; i + 12 <= payload.size(); i += 12) {
            committed[qFromLittleEndian<quint32>(payload.data() + i)] =
                std::max<qint64>(0, qFromLittleEndian<qint64>(payload.data() + i + 4));
        }
    } else if (type == static_cast<quint32>(RecordType::Committed)) {
        for (qint64 i = 0; i + store_records::kCommittedEntryBytes <= payload.size();
             i += store_records::kCommittedEntryBytes) {
            const auto id = qFromLittleEndian<quint32>(payload.data() + i);
            committed[id] = std::max<qint64>(0, qFromLittleEndian<qint64>(payload.data() + i + 4));
            MetricPoint last;
            std::memcpy(&last, payload.data() + i + 12, sizeof last);
            lastPoints[id] = last;
        }
    } else if (type == static_cast<quint32>(RecordType::Batch) ||
               type == static_cast<quint32>(RecordType::BatchKey)) {
        const QString key = type == static_cast<quint32>(RecordType::Batch)
                                ? BatchLedger::legacyKey(payload)
                                : QString::fromUtf8(payload);
        if (!key.isEmpty())
            m_batches.remember(key);
        m_otherBytes += length;
    } else if (type == static_cast<quint32>(RecordType::SampleTag)) {
        m_samples.readTag(payload);
    } else if (type == static_cast<quint32>(RecordType::Blobs)) {
        m_samples.readBlobs(payload);
    } else if (type == static_cast<quint32>(RecordType::Samples)) {
        m_samples.readSamples(payload);
    } else if (type == static_cast<quint32>(RecordType::Rewind)) {
        (void)m_rewinds.read(payload); // a damaged one hides nothing
    } else if (type == static_cast<quint32>(RecordType::RewindRestored)) {
        (void)m_rewinds.readRestored(payload);
    } else if (type == static_cast<quint32>(RecordType::RunDeleted)) {
        deleteRuns(store_records::readDeletedRuns(payload));
    } else if (type == static_cast<quint32>(RecordType::Format) && payload.size() >= 4) {
        format = qFromLittleEndian<quint32>(payload.data());
    } else if (type == static_cast<quint32>(RecordType::Extent) && payload.size() == 24) {
        m_otherBytes += length;
        const Extent extent{qFromLittleEndian<quint32>(payload.data() + 4),
                            qFromLittleEndian<qint64>(payload.data() + 8),
                            qFromLittleEndian<qint64>(payload.data() + 16)};
        if (DataFiles::plausible(extent))
            extents.emplace_back(qFromLittleEndian<quint32>(payload.data()), extent);
    }
}

void JournalReplay::deleteRuns(const QSet<QString> &runs) {
    if (runs.isEmpty())
        return;
    deletions = true;
    QSet<quint32> ids;
    for (const auto &series : m_series.removeRuns(runs)) {
        ids.insert(series->id);
        committed.remove(series->id);
        lastPoints.remove(series->id);
    }
    // Their extents: room to give back once the data files are open.
    std::erase_if(extents, [&](const std::pair<quint32, Extent> &entry) {
        if (!ids.contains(entry.first))
            return false;
        deletedRoom.push_back(entry.second);
        return true;
    });
    const std::vector<Extent> blobs = m_samples.removeRuns(runs);
    deletedRoom.insert(deletedRoom.end(), blobs.begin(), blobs.end());
    m_batches.forgetRuns(runs);
    for (const QString &run : runs) {
        for (const Rewind &rewind : std::vector<Rewind>(m_rewinds.ofRun(run)))
            (void)m_rewinds.remove(rewind.id);
        m_runs.remove(run);
        m_runRecordBytes.remove(run);
    }
}

qint64 JournalReplay::snapshotBytes() const {
    // One Committed record (its header, an entry per series) besides the others.
    qint64 bytes = m_otherBytes + journal_framing::kHeaderSize +
                   store_records::kCommittedEntryBytes * qint64(m_series.size());
    for (const qint64 runBytes : m_runRecordBytes)
        bytes += runBytes;
    return bytes + m_samples.snapshotBytes() + m_rewinds.snapshotBytes();
}

} // namespace sb
