#include "Journal.h"

#include "StoreFiles.h"
#include "util/Crc32c.h"

#include <QFile>
#include <QtEndian>

#include <cstdio>
#include <fcntl.h>
#include <limits>
#include <unistd.h>

namespace sb {

using namespace Qt::StringLiterals;

namespace journal_framing {

namespace {
constexpr quint32 kMagic = 0x314A4253; // kMagicBytes as a little-endian number
} // namespace

void append(QByteArray *out, quint32 type, QByteArrayView payload) {
    char header[kHeaderSize];
    qToLittleEndian<quint32>(kMagic, header);
    qToLittleEndian<quint32>(type, header + 4);
    qToLittleEndian<quint32>(static_cast<quint32>(payload.size()), header + 8);
    const auto typeBytes = QByteArrayView(header + 4, 4);
    qToLittleEndian<quint32>(crc32c(payload, crc32c(typeBytes)), header + 12);
    out->append(header, sizeof header);
    out->append(payload);
}

qint64 recordLength(QByteArrayView bytes, qint64 offset) {
    if (offset + kHeaderSize > bytes.size())
        return 0;
    const char *header = bytes.constData() + offset;
    const auto length = qFromLittleEndian<quint32>(header + 8);
    if (qFromLittleEndian<quint32>(header) != kMagic ||
        offset + kHeaderSize + static_cast<qint64>(length) > bytes.size())
        return 0;
    const QByteArrayView payload(header + kHeaderSize, length);
    if (crc32c(payload, crc32c(QByteArrayView(header + 4, 4))) !=
        qFromLittleEndian<quint32>(header + 12))
        return 0;
    return kHeaderSize + static_cast<qint64>(length);
}

quint32 typeOf(QByteArrayView record) {
    return qFromLittleEndian<quint32>(record.constData() + 4);
}

QByteArrayView payloadOf(QByteArrayView record) {
    return record.sliced(kHeaderSize, qFromLittleEndian<quint32>(record.constData() + 8));
}

} // namespace journal_framing

namespace framing = journal_framing;

Journal::~Journal() = default;

QString Journal::path() const {
    return m_directory.filePath(u"journal"_s);
}

Result<QString> Journal::keepDamaged(QByteArrayView bytes, qint64 offset) {
    const QString aside = m_directory.filePath(u"journal.damaged"_s);
    if (const auto out = createStoreFile(aside); out) {
        const UniqueFd fd(*out);
        if (writeFully(fd.get(), bytes.constData(), bytes.size()))
            return m_directory.keepInLostFound(aside, u"journal-at-%1.damaged"_s.arg(offset));
    }
    return fail(u"cannot write %1"_s.arg(aside));
}

Status Journal::replay(const std::function<void(quint32, QByteArrayView)> &visit,
                       QStringList *recoveryNotes, QStringList *lossNotes) {
    auto opened = m_directory.openFile(u"journal"_s, O_RDWR, lossNotes);
    if (!opened)
        return opened.failure();
    const UniqueFd journal(*opened);
    QByteArray bytes;
    if (journal.valid() &&
        !readWholeFile(journal.get(), std::numeric_limits<qsizetype>::max(), &bytes))
        return fail(systemError(u"cannot read %1"_s.arg(path())));

    qint64 offset = 0;
    qint64 readableEnd = 0; // where the last readable record ends
    while (offset < bytes.size()) {
        const qint64 length = framing::recordLength(bytes, offset);
        if (length > 0) {
            const QByteArrayView record(bytes.constData() + offset, length);
            visit(framing::typeOf(record), framing::payloadOf(record));
            offset += length;
            readableEnd = offset;
            continue;
        }
        qint64 next = offset + 1;
        for (;; ++next) {
            next = bytes.indexOf(framing::kMagicBytes, next);
            if (next < 0 || framing::recordLength(bytes, next) > 0)
                break;
        }
        if (next < 0)
            next = bytes.size();
        const qint64 skipped = next - offset;
        // A write the stop cut short: a record header whose payload runs past the end.
        const bool tornTail =
            next == bytes.size() &&
            (skipped < framing::kHeaderSize ||
             (QByteArrayView(bytes).sliced(offset, 4) == framing::kMagicBytes &&
              framing::kHeaderSize +
                      qint64(qFromLittleEndian<quint32>(bytes.constData() + offset + 8)) >
                  skipped));
        if (tornTail) {
            *recoveryNotes << u"journal: cut the torn tail of a write the stop interrupted "
                              "(%1 bytes at offset %2; never acknowledged)"_s.arg(skipped)
                                  .arg(offset);
        } else {
            const auto kept = keepDamaged(QByteArrayView(bytes).sliced(offset, skipped), offset);
            if (!kept)
                return fail(u"the journal is damaged at offset %1 and %2; not touching the store"_s
                                .arg(offset)
                                .arg(kept.error()));
            *lossNotes << u"journal: %1 unreadable bytes at offset %2 kept in %3; reading "
                          "resumed at offset %4"_s.arg(skipped)
                              .arg(offset)
                              .arg(*kept)
                              .arg(next);
        }
        offset = next;
    }
    if (readableEnd < bytes.size() && ::ftruncate(journal.get(), readableEnd) != 0)
        return fail(systemError(u"cannot truncate %1"_s.arg(path())));
    m_size = readableEnd;
    return success();
}

Status Journal::openForAppend(QStringList *notes) {
    if (m_fd.valid())
        return success();
    auto appending = m_directory.openFile(u"journal"_s, O_WRONLY | O_APPEND | O_CREAT, notes);
    if (!appending)
        return appending.failure();
    m_fd.reset(*appending);
    return success();
}

Status Journal::append(const QByteArray &records, QStringList *notes) {
    if (!writeFully(m_fd.get(), records.constData(), records.size())) {
        const Error error{systemError(u"cannot append to the journal"_s), ErrorCode::StorageFailed};
        // Torn bytes left mid-journal would make recovery cut every later commit.
        if (::ftruncate(m_fd.get(), m_size) != 0)
            *notes << systemError(u"cannot cut a torn journal append"_s);
        return error;
    }
    m_size += records.size();
    return success();
}

Status Journal::replace(const QByteArray &snapshot, const std::function<Status()> &beforeSwap) {
    const QString journalPath = path();
    const QByteArray temporary = QFile::encodeName(journalPath + u".new"_s);
    const auto created = createStoreFile(journalPath + u".new"_s);
    const UniqueFd fd(created ? *created : -1);
    if (!fd.valid() || !writeFully(fd.get(), snapshot.constData(), snapshot.size()) ||
        ::fdatasync(fd.get()) != 0)
        return fail(systemError(u"cannot write %1"_s.arg(QString::fromLocal8Bit(temporary))));
    if (Status ready = beforeSwap(); !ready)
        return ready;
    if (std::rename(temporary.constData(), QFile::encodeName(journalPath).constData()) != 0)
        return fail(systemError(u"cannot replace %1"_s.arg(journalPath)));
    m_fd.reset(openStoreFile(journalPath, O_WRONLY | O_APPEND).fd);
    if (!m_fd.valid())
        return fail(systemError(u"cannot open %1"_s.arg(journalPath)));
    m_size = snapshot.size();
    return success();
}

Status Journal::sync() {
    if (m_fd.valid() && ::fdatasync(m_fd.get()) != 0)
        return fail(systemError(u"cannot sync the journal"_s));
    return success();
}

} // namespace sb
