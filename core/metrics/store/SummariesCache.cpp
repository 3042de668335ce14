#include "SummariesCache.h"

#include "StoreRecords.h"
#include "storage/Journal.h"
#include "storage/StoreFiles.h"

#include <QFile>
#include <QtEndian>

#include <cstdio>
#include <fcntl.h>
#include <limits>
#include <unistd.h>

namespace sb {

using namespace Qt::StringLiterals;

namespace {
constexpr qint64 kViewKeyBytes = 8;
} // namespace

void SummariesCache::load(const SeriesTable &series, const QHash<quint32, StoredSeries *> &byId,
                          QStringList *notes) {
    // None yet, or unreadable: summaries are built again as series are read.
    const auto opened = m_directory.openFile(u"summaries"_s, O_RDWR, notes);
    if (!opened || *opened < 0)
        return;
    const UniqueFd file(*opened);
    QByteArray bytes;
    if (!readWholeFile(file.get(), std::numeric_limits<qsizetype>::max(), &bytes))
        return;
    qint64 offset = 0;
    for (qint64 length; (length = journal_framing::recordLength(bytes, offset)) > 0;
         offset += length) {
        const QByteArrayView record(bytes.constData() + offset, length);
        const QByteArrayView payload = journal_framing::payloadOf(record);
        const quint32 type = journal_framing::typeOf(record);
        const qint64 head = store_records::kSeriesIdBytes +
                            (type == quint32(RecordType::SummaryOfView) ? kViewKeyBytes : 0);
        if ((type != quint32(RecordType::Summary) && type != quint32(RecordType::SummaryOfView)) ||
            payload.size() < head)
            continue;
        StoredSeries *found = byId.value(qFromLittleEndian<quint32>(payload.data()), nullptr);
        if (!found)
            continue;
        // Of other points than a rewind shows now: what came before it is of no use either.
        const quint64 view = head > store_records::kSeriesIdBytes
                                 ? qFromLittleEndian<quint64>(payload.data() + 4)
                                 : 0;
        if (view != found->viewKey) {
            found->summary.reset();
            continue;
        }
        SeriesSummary summary = found->summary.value_or(SeriesSummary());
        if (summary.restore(payload.sliced(head)))
            found->summary = std::move(summary);
    }
    // A torn tail (a write cut short) goes, so that later records follow whole ones.
    if (offset < bytes.size())
        (void)::ftruncate(file.get(), offset);
    m_size = offset;
    for (const auto &each : series.all()) {
        // Longer than its series: the disk lost points; built again from what is there.
        if (each->summary && each->summary->count() > each->shown())
            each->summary.reset();
        if (each->summary) {
            each->savedCount = each->summary->count();
            each->savedBlocks = std::size_t(each->savedCount / SeriesSummary::kBlockSize);
        }
    }
}

Status SummariesCache::save(const SeriesTable &series, QStringList *notes, bool rewrite) {
    QByteArray records;
    qint64 whole = 0; // the file's size were it written afresh
    std::vector<StoredSeries *> saved;
    for (const auto &each : series.all()) {
        if (!each->summary)
            continue;
        whole += journal_framing::kHeaderSize + store_records::kSeriesIdBytes +
                 each->summary->saved(each->summary->blocks().size()).size() +
                 qint64(each->summary->blocks().size() * sizeof(SeriesSummary::Block));
        if (each->summary->count() != each->savedCount)
            saved.push_back(each.get());
    }
    if (saved.empty() && !rewrite)
        return success();
    // Stale records (blocks saved again as they filled) past half the file: written afresh.
    const bool afresh = rewrite || m_size > whole + (1 << 20);
    auto record = [&records](StoredSeries *each, std::size_t fromBlock) {
        char head[store_records::kSeriesIdBytes + kViewKeyBytes];
        qToLittleEndian<quint32>(each->id, head);
        qToLittleEndian<quint64>(each->viewKey, head + store_records::kSeriesIdBytes);
        const bool view = each->viewKey != 0; // the earlier form for a series no rewind hides
        store_records::append(
            &records, view ? RecordType::SummaryOfView : RecordType::Summary,
            QByteArray(QByteArray(head, view ? sizeof head : 4) + each->summary->saved(fromBlock)));
    };
    if (afresh) {
        saved.clear();
        for (const auto &each : series.all()) {
            if (each->summary) {
                record(each.get(), 0);
                saved.push_back(each.get());
            }
        }
    } else {
        for (StoredSeries *each : saved)
            record(each, each->savedBlocks);
    }
    if (Status written = write(records, afresh, notes); !written)
        return written;
    for (StoredSeries *each : saved) {
        each->savedCount = each->summary->count();
        each->savedBlocks = std::size_t(each->savedCount / SeriesSummary::kBlockSize);
    }
    return success();
}

// No fsync: the file is a cache, and its records' checksums tell a torn or lost write.
Status SummariesCache::write(const QByteArray &records, bool whole, QStringList *notes) {
    const QString path = m_directory.filePath(u"summaries"_s);
    const QByteArray target = QFile::encodeName(whole ? path + u".new"_s : path);
    Result<int> opened = whole ? createStoreFile(path + u".new"_s)
                               : m_directory.openFile(u"summaries"_s, O_WRONLY | O_CREAT, notes);
    const UniqueFd fd(opened ? *opened : -1);
    if (!fd.valid() ||
        !writeFully(fd.get(), records.constData(), records.size(), whole ? 0 : m_size)) {
        if (fd.valid() && !whole)
            (void)::ftruncate(fd.get(), m_size); // never a torn record mid-file
        return fail(systemError(u"cannot write %1"_s.arg(QString::fromLocal8Bit(target))),
                    ErrorCode::StorageFailed);
    }
    if (whole && std::rename(target.constData(), QFile::encodeName(path).constData()) != 0)
        return fail(systemError(u"cannot replace %1"_s.arg(path)), ErrorCode::StorageFailed);
    m_size = (whole ? 0 : m_size) + records.size();
    return success();
}

Status SummariesCache::update(StoredSeries &series, const PointSource &points) {
    if (!series.summary)
        series.summary.emplace();
    series.summary->update(points); // stops before the first chunk that failed
    if (QString failure = points.failure(); !failure.isEmpty()) {
        // What it holds was read whole (or restored): kept, and brought up to date later.
        if (series.summary->count() == 0)
            series.summary.reset();
        series.unreadableAt = series.count;
        return fail(std::move(failure), ErrorCode::StorageFailed);
    }
    series.unreadableAt = -1;
    return success();
}

std::size_t SummariesCache::memoryBytes(const SeriesTable &series) {
    std::size_t bytes = 0;
    for (const auto &each : series.all())
        bytes += each->summary ? each->summary->memoryBytes() : 0;
    return bytes;
}

} // namespace sb
