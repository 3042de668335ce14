#include "SampleTable.h"

#include "StoreRecords.h"
#include "storage/Journal.h"

#include <QtEndian>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <utility>

namespace sb {

namespace {

constexpr qint64 kDigestBytes = 32;
constexpr qsizetype kSnapshotRecordBytes = 256 << 10; // a snapshot's entries, a record each

template <typename T> T take(const char *&at) {
    const T value = qFromLittleEndian<T>(at);
    at += sizeof(T);
    return value;
}
template <typename T> void put(char *&at, T value) {
    qToLittleEndian<T>(value, at);
    at += sizeof(T);
}

bool validKind(quint8 kind) {
    return kind >= quint8(SampleKind::Image) && kind <= quint8(SampleKind::Audio);
}

} // namespace

Extent StoredBlob::extent() const {
    const qint64 units = (size + DataFiles::kPointBytes - 1) / DataFiles::kPointBytes;
    return {file, offset, std::max<qint64>(1, units)};
}

std::vector<const SampleTag *> SampleTable::ofRun(const QString &run) const {
    std::vector<const SampleTag *> tags;
    for (const SampleTag *tag : m_byRun.value(run))
        tags.push_back(tag);
    std::sort(tags.begin(), tags.end(),
              [](const SampleTag *a, const SampleTag *b) { return a->tag < b->tag; });
    return tags;
}

std::optional<quint32> SampleTable::blob(QByteArrayView digest) const {
    const auto it = m_blobsByDigest.constFind(digest.toByteArray());
    return it == m_blobsByDigest.constEnd() ? std::nullopt : std::optional<quint32>(*it);
}

void SampleTable::truncate(const Mark &mark) {
    while (m_tags.size() > mark.tags) {
        const SampleTag &tag = *m_tags.back();
        m_samples -= qint64(tag.samples.size());
        m_byRun[tag.run].remove(tag.tag);
        if (m_byRun[tag.run].isEmpty())
            m_byRun.remove(tag.run);
        m_byId.remove(tag.id);
        m_tags.pop_back();
    }
    while (m_blobs.size() > mark.blobs) {
        m_blobsByDigest.remove(m_blobs.back().digest);
        m_blobs.pop_back();
    }
}

std::vector<Extent> SampleTable::removeRuns(const QSet<QString> &runs) {
    std::vector<char> named(m_blobs.size(), 0); // 1: by a removed item; 2: by a kept one too
    std::vector<std::unique_ptr<SampleTag>> kept;
    kept.reserve(m_tags.size());
    for (auto &tag : m_tags) {
        const bool removed = runs.contains(tag->run);
        for (const StoredSample &sample : tag->samples)
            if (sample.blob < named.size())
                named[sample.blob] = std::max<char>(named[sample.blob], removed ? 1 : 2);
        if (!removed) {
            kept.push_back(std::move(tag));
            continue;
        }
        m_samples -= qint64(tag->samples.size());
        m_byId.remove(tag->id);
    }
    m_tags = std::move(kept);
    for (const QString &run : runs)
        m_byRun.remove(run);
    std::vector<Extent> freed;
    for (std::size_t i = 0; i < m_blobs.size(); ++i) {
        if (named[i] != 1 || m_blobs[i].lost())
            continue;
        freed.push_back(m_blobs[i].extent());
        m_blobs[i].file = StoredBlob::kLostFile;
    }
    return freed;
}

SampleTag *SampleTable::createTag(const QString &run, const QString &tag, SampleKind kind) {
    return addTag(m_nextId, run, tag, kind); // its id is never re-used, even if the batch fails
}

SampleTag *SampleTable::addTag(quint32 id, const QString &run, const QString &tag,
                               SampleKind kind) {
    auto created = std::make_unique<SampleTag>();
    created->id = id;
    m_nextId = std::max(m_nextId, id + 1);
    created->run = run;
    created->tag = tag;
    created->kind = kind;
    SampleTag *raw = created.get();
    m_byRun[run][tag] = raw;
    m_byId.insert(raw->id, raw);
    m_tags.push_back(std::move(created));
    return raw;
}

StoredBlob SampleTable::replaceBlob(quint32 index, StoredBlob blob) {
    return std::exchange(m_blobs[index], std::move(blob));
}

quint32 SampleTable::addBlob(StoredBlob blob) {
    const auto index = quint32(m_blobs.size());
    m_blobsByDigest.insert(blob.digest, index);
    m_blobs.push_back(std::move(blob));
    return index;
}

namespace {
quint64 fingerprint(const StoredSample &sample) {
    return qHashMulti(0, sample.step, sample.wall, sample.index, sample.blob);
}
} // namespace

void SampleTable::addSample(SampleTag *tag, const StoredSample &sample) {
    if (tag->samples.empty()) {
        tag->firstStep = tag->lastStep = sample.step;
    } else if (sample.step < tag->samples.back().step && tag->ordered) {
        tag->ordered = false;
        for (const StoredSample &held : tag->samples)
            tag->fingerprints.insert(fingerprint(held));
    }
    tag->firstStep = std::min(tag->firstStep, sample.step);
    tag->lastStep = std::max(tag->lastStep, sample.step);
    if (!tag->ordered)
        tag->fingerprints.insert(fingerprint(sample));
    tag->byStep.clear();
    tag->samples.push_back(sample);
    ++m_samples;
}

const std::vector<quint32> &SampleTable::inStepOrder(const SampleTag &tag) {
    const auto shown = qint64(tag.samples.size()) - rangesLength(tag.hidden);
    if (qint64(tag.byStep.size()) != shown) {
        tag.byStep.clear();
        tag.byStep.reserve(std::size_t(shown));
        auto range = tag.hidden.begin();
        for (qint64 i = 0; i < qint64(tag.samples.size()); ++i) {
            if (range != tag.hidden.end() && i == range->first)
                i = (range++)->end - 1; // past what a rewind hides
            else
                tag.byStep.push_back(quint32(i));
        }
        std::stable_sort(tag.byStep.begin(), tag.byStep.end(), [&tag](quint32 a, quint32 b) {
            return tag.samples[a].step < tag.samples[b].step;
        });
    }
    return tag.byStep;
}

bool SampleTable::holds(const SampleTag &tag, const StoredSample &sample) {
    auto same = [&sample](const StoredSample &held) {
        return held.step == sample.step && held.wall == sample.wall && held.index == sample.index &&
               held.blob == sample.blob;
    };
    if (!tag.ordered) // a 64-bit fingerprint: two items alike in it are taken as one
        return tag.fingerprints.contains(fingerprint(sample));
    auto at =
        std::lower_bound(tag.samples.begin(), tag.samples.end(), sample.step,
                         [](const StoredSample &held, double step) { return held.step < step; });
    for (; at != tag.samples.end() && at->step == sample.step; ++at) {
        if (same(*at))
            return true;
    }
    return false;
}

QByteArray SampleTable::tagRecord(const SampleTag &tag) {
    const QByteArray run = tag.run.toUtf8();
    QByteArray record(9, Qt::Uninitialized);
    char *at = record.data();
    put<quint32>(at, tag.id);
    *at++ = char(tag.kind);
    put<quint32>(at, quint32(run.size()));
    return record + run + tag.tag.toUtf8();
}

void SampleTable::appendBlobEntry(QByteArray *out, const StoredBlob &blob) {
    char entry[kBlobEntryBytes];
    std::memcpy(entry, blob.digest.constData(), kDigestBytes);
    char *at = entry + kDigestBytes;
    put<qint64>(at, blob.size);
    put<quint32>(at, blob.file);
    put<qint64>(at, blob.offset);
    out->append(entry, kBlobEntryBytes);
}

void SampleTable::appendSampleEntry(QByteArray *out, const SampleTag &tag,
                                    const StoredSample &sample) const {
    char entry[kSampleEntryBytes];
    char *at = entry;
    put<quint32>(at, tag.id);
    put<quint32>(at, sample.index);
    put<double>(at, sample.step);
    put<double>(at, sample.wall);
    std::memcpy(at, m_blobs[sample.blob].digest.constData(), kDigestBytes);
    at += kDigestBytes;
    for (const double fact : sample.facts)
        put<double>(at, fact);
    out->append(entry, kSampleEntryBytes);
}

void SampleTable::readTag(QByteArrayView payload) {
    if (payload.size() < 9)
        return;
    const char *at = payload.data();
    const auto id = take<quint32>(at);
    const auto kind = quint8(*at++);
    const auto runBytes = take<quint32>(at);
    if (runBytes == 0 || runBytes >= payload.size() - 9 || !validKind(kind) || id >= kMostTagIds ||
        m_byId.contains(id))
        return;
    const QString run = QString::fromUtf8(payload.sliced(9, runBytes));
    const QString tag = QString::fromUtf8(payload.sliced(9 + runBytes));
    if (find(run, tag)) {
        m_nextId = std::max(m_nextId, id + 1);
        return; // a second id for a tag: the first keeps it, the second's samples are unplaced
    }
    addTag(id, run, tag, SampleKind(kind));
}

void SampleTable::readBlobs(QByteArrayView payload) {
    for (qint64 i = 0; i + kBlobEntryBytes <= payload.size(); i += kBlobEntryBytes) {
        StoredBlob blob;
        blob.digest = payload.sliced(i, kDigestBytes).toByteArray();
        const char *at = payload.data() + i + kDigestBytes;
        blob.size = take<qint64>(at);
        blob.file = take<quint32>(at);
        blob.offset = take<qint64>(at);
        if (blob.size < 0 || blob.size > kMostBlobBytes ||
            (!blob.lost() && !DataFiles::plausible(blob.extent())))
            continue;
        // A later entry for a digest is the same bytes written again after the disk lost them.
        if (const auto held = this->blob(blob.digest)) {
            if (m_blobs[*held].lost() && !blob.lost())
                m_blobs[*held] = std::move(blob);
            continue;
        }
        addBlob(std::move(blob));
    }
}

void SampleTable::readSamples(QByteArrayView payload) {
    for (qint64 i = 0; i + kSampleEntryBytes <= payload.size(); i += kSampleEntryBytes) {
        const char *at = payload.data() + i;
        SampleTag *tag = m_byId.value(take<quint32>(at), nullptr);
        StoredSample sample;
        sample.index = take<quint32>(at);
        sample.step = take<double>(at);
        sample.wall = take<double>(at);
        const auto blob = this->blob(QByteArrayView(at, kDigestBytes));
        at += kDigestBytes;
        for (double &fact : sample.facts)
            fact = take<double>(at);
        if (!tag || !blob || !std::isfinite(sample.step) || !std::isfinite(sample.wall) ||
            qint64(tag->samples.size()) >= kMostSamplesPerTag) {
            ++m_unplaced;
            continue;
        }
        sample.blob = *blob;
        addSample(tag, sample);
    }
}

qint64 SampleTable::markLost(const std::function<bool(const StoredBlob &)> &available) {
    qint64 lost = 0;
    for (StoredBlob &blob : m_blobs) {
        if (!blob.lost() && !available(blob)) {
            blob.file = StoredBlob::kLostFile;
            blob.offset = 0;
            ++lost;
        }
    }
    return lost;
}

qint64 SampleTable::snapshotBytes() const {
    // Names at most 3 bytes a character; each tag's entries, and the blobs', in a record or a few.
    qint64 bytes = 0;
    for (const auto &tag : m_tags)
        bytes += 2 * journal_framing::kHeaderSize + 9 + 3 * (tag->run.size() + tag->tag.size());
    const qint64 entries = qint64(m_blobs.size()) * kBlobEntryBytes + m_samples * kSampleEntryBytes;
    return bytes + entries + (entries / kSnapshotRecordBytes + 1) * journal_framing::kHeaderSize;
}

void SampleTable::appendSnapshot(QByteArray *snapshot) const {
    QByteArray entries;
    auto flush = [&](RecordType type, bool always) {
        if (!entries.isEmpty() && (always || entries.size() >= kSnapshotRecordBytes)) {
            store_records::append(snapshot, type, entries);
            entries.clear();
        }
    };
    for (const StoredBlob &blob : m_blobs) {
        appendBlobEntry(&entries, blob);
        flush(RecordType::Blobs, false);
    }
    flush(RecordType::Blobs, true);
    for (const auto &tag : m_tags) {
        store_records::append(snapshot, RecordType::SampleTag, tagRecord(*tag));
        for (const StoredSample &sample : tag->samples) {
            appendSampleEntry(&entries, *tag, sample);
            flush(RecordType::Samples, false);
        }
        flush(RecordType::Samples, true);
    }
}

} // namespace sb
