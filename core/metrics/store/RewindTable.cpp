#include "RewindTable.h"

#include "StoreRecords.h"
#include "storage/Journal.h"

#include <QDataStream>
#include <QIODevice>

#include <algorithm>

namespace sb {

std::vector<IndexRange> mergedRanges(std::vector<IndexRange> ranges) {
    std::sort(ranges.begin(), ranges.end(),
              [](const IndexRange &a, const IndexRange &b) { return a.first < b.first; });
    std::vector<IndexRange> merged;
    for (const IndexRange &range : ranges) {
        if (range.end <= range.first)
            continue;
        if (!merged.empty() && range.first <= merged.back().end)
            merged.back().end = std::max(merged.back().end, range.end);
        else
            merged.push_back(range);
    }
    return merged;
}

qint64 rangesLength(const std::vector<IndexRange> &ranges) {
    qint64 length = 0;
    for (const IndexRange &range : ranges)
        length += range.end - range.first;
    return length;
}

qint64 storedIndex(const std::vector<IndexRange> &hidden, qint64 shown, std::size_t *next) {
    qint64 at = shown;
    std::size_t range = 0;
    for (; range < hidden.size() && hidden[range].first <= at; ++range)
        at += hidden[range].end - hidden[range].first;
    if (next)
        *next = range;
    return at;
}

namespace {

// Strings as a u32 length and UTF-8 (QDataStream's own form is UTF-16).
void writeText(QDataStream &out, const QString &text) {
    const QByteArray utf8 = text.toUtf8();
    out << quint32(utf8.size());
    out.writeRawData(utf8.constData(), int(utf8.size()));
}

bool readText(QDataStream &in, qint64 left, QString *text) {
    quint32 size = 0;
    in >> size;
    if (in.status() != QDataStream::Ok || size > left)
        return false;
    QByteArray utf8(qsizetype(size), Qt::Uninitialized);
    if (in.readRawData(utf8.data(), int(size)) != int(size))
        return false;
    *text = QString::fromUtf8(utf8);
    return true;
}

void writeEntries(QDataStream &out, const std::vector<std::pair<quint32, IndexRange>> &entries) {
    out << quint32(entries.size());
    for (const auto &[id, range] : entries)
        out << id << range.first << range.end;
}

bool readEntries(QDataStream &in, qint64 left, std::vector<std::pair<quint32, IndexRange>> *out) {
    constexpr qint64 kEntryBytes = 20;
    quint32 count = 0;
    in >> count;
    if (in.status() != QDataStream::Ok || count > left / kEntryBytes)
        return false;
    out->reserve(count);
    for (quint32 i = 0; i < count; ++i) {
        quint32 id = 0;
        IndexRange range;
        in >> id >> range.first >> range.end;
        if (range.first < 0 || range.end < range.first)
            return false;
        out->emplace_back(id, range);
    }
    return in.status() == QDataStream::Ok;
}

} // namespace

const std::vector<Rewind> &RewindTable::ofRun(const QString &run) const {
    static const std::vector<Rewind> none;
    const auto it = m_byRun.constFind(run);
    return it == m_byRun.constEnd() ? none : *it;
}

void RewindTable::add(Rewind rewind) {
    m_nextId = std::max(m_nextId, rewind.id + 1);
    remove(rewind.id); // a record read twice (a damaged journal replayed) counts once
    m_runOf.insert(rewind.id, rewind.run);
    m_byRun[rewind.run].push_back(std::move(rewind));
}

std::optional<Rewind> RewindTable::remove(quint32 id) {
    const auto run = m_runOf.constFind(id);
    if (run == m_runOf.constEnd())
        return std::nullopt;
    std::vector<Rewind> &rewinds = m_byRun[*run];
    const auto it =
        std::find_if(rewinds.begin(), rewinds.end(), [id](const Rewind &r) { return r.id == id; });
    std::optional<Rewind> removed = std::move(*it);
    rewinds.erase(it);
    if (rewinds.empty())
        m_byRun.remove(*run);
    m_runOf.erase(run);
    return removed;
}

std::optional<QString> RewindTable::runOf(quint32 id) const {
    const auto it = m_runOf.constFind(id);
    return it == m_runOf.constEnd() ? std::nullopt : std::optional(*it);
}

QHash<quint32, std::vector<IndexRange>> RewindTable::hidden(const QString &run, bool tags) const {
    QHash<quint32, std::vector<IndexRange>> ranges;
    for (const Rewind &rewind : ofRun(run)) {
        for (const auto &[entry, range] : tags ? rewind.tags : rewind.series)
            ranges[entry].push_back(range);
    }
    for (std::vector<IndexRange> &each : ranges)
        each = mergedRanges(std::move(each));
    return ranges;
}

void RewindTable::clamp(const QHash<quint32, qint64> &seriesSizes,
                        const QHash<quint32, qint64> &tagSizes, QByteArray *journal) {
    for (std::vector<Rewind> &rewinds : m_byRun) {
        for (Rewind &rewind : rewinds) {
            bool cut = false;
            for (auto [entries, sizes] :
                 {std::pair{&rewind.series, &seriesSizes}, std::pair{&rewind.tags, &tagSizes}}) {
                for (auto &[id, range] : *entries) {
                    const qint64 size = sizes->value(id, 0);
                    if (range.end > size) {
                        range = {std::min(range.first, size), size};
                        cut = true;
                    }
                }
            }
            if (cut)
                store_records::append(journal, RecordType::Rewind, record(rewind));
        }
    }
}

QByteArray RewindTable::record(const Rewind &rewind) {
    QByteArray payload;
    QDataStream out(&payload, QIODevice::WriteOnly);
    out.setByteOrder(QDataStream::LittleEndian);
    out.setFloatingPointPrecision(QDataStream::DoublePrecision);
    out << rewind.id << rewind.step << quint8(rewind.inclusive ? 1 : 0) << rewind.wall
        << rewind.points << rewind.samples;
    writeText(out, rewind.run);
    writeEntries(out, rewind.series);
    writeEntries(out, rewind.tags);
    return payload;
}

QByteArray RewindTable::restoredRecord(quint32 id) {
    QByteArray payload;
    QDataStream out(&payload, QIODevice::WriteOnly);
    out.setByteOrder(QDataStream::LittleEndian);
    out << id;
    return payload;
}

bool RewindTable::read(QByteArrayView payload) {
    const QByteArray bytes = payload.toByteArray();
    QDataStream in(bytes);
    in.setByteOrder(QDataStream::LittleEndian);
    in.setFloatingPointPrecision(QDataStream::DoublePrecision);
    Rewind rewind;
    quint8 inclusive = 0;
    in >> rewind.id >> rewind.step >> inclusive >> rewind.wall >> rewind.points >> rewind.samples;
    rewind.inclusive = inclusive != 0;
    const qint64 size = bytes.size();
    if (in.status() != QDataStream::Ok || rewind.id == 0 || !readText(in, size, &rewind.run) ||
        rewind.run.isEmpty() || !readEntries(in, size, &rewind.series) ||
        !readEntries(in, size, &rewind.tags) || !in.atEnd())
        return false;
    add(std::move(rewind));
    return true;
}

bool RewindTable::readRestored(QByteArrayView payload) {
    if (payload.size() != 4)
        return false;
    QDataStream in(payload.toByteArray());
    in.setByteOrder(QDataStream::LittleEndian);
    quint32 id = 0;
    in >> id;
    m_nextId = std::max(m_nextId, id + 1);
    return remove(id).has_value();
}

void RewindTable::appendSnapshot(QByteArray *snapshot) const {
    // Ids are never re-used: the highest given stays known when its rewind is gone.
    if (m_nextId > 1 && !m_runOf.contains(m_nextId - 1))
        store_records::append(snapshot, RecordType::RewindRestored, restoredRecord(m_nextId - 1));
    for (const std::vector<Rewind> &rewinds : m_byRun) {
        for (const Rewind &rewind : rewinds)
            store_records::append(snapshot, RecordType::Rewind, record(rewind));
    }
}

qint64 RewindTable::snapshotBytes() const {
    qint64 bytes = 0;
    for (const std::vector<Rewind> &rewinds : m_byRun) {
        for (const Rewind &rewind : rewinds)
            bytes += journal_framing::kHeaderSize + record(rewind).size();
    }
    return bytes + journal_framing::kHeaderSize + restoredRecord(0).size();
}

} // namespace sb
