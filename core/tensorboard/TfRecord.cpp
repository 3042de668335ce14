#include "TfRecord.h"

#include "util/Crc32c.h"

#include <cstring>

namespace sb {

namespace {

constexpr qsizetype kHeaderSize = kTfRecordHeaderSize;
constexpr qsizetype kFooterSize = 4;
// A record holds one protobuf message, which is under 2 GiB: a longer length is damage, even when
// its CRC checks out.
constexpr std::uint64_t kLargestRecord = 0x7fffffff;

template <typename T> T readLittleEndian(const char *p) {
    T value;
    std::memcpy(&value, p, sizeof value); // x86 and ARM Linux are little-endian
    return value;
}

bool headerIntact(const char *p) {
    return maskedCrc32c({p, 8}) == readLittleEndian<std::uint32_t>(p + 8) &&
           readLittleEndian<std::uint64_t>(p) <= kLargestRecord;
}

} // namespace

std::uint32_t maskedCrc32c(QByteArrayView data) {
    const std::uint32_t crc = crc32c(data);
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

RecordScan scanRecords(QByteArrayView bytes, const std::function<void(QByteArrayView)> &record) {
    RecordScan scan;
    const char *base = bytes.data();
    const qsizetype size = bytes.size();
    qsizetype pos = 0;
    while (size - pos >= kHeaderSize) {
        if (!headerIntact(base + pos)) {
            ++scan.corrupt;
            ++pos;
            while (size - pos >= kHeaderSize && !headerIntact(base + pos))
                ++pos;
            scan.consumed = pos;
            continue;
        }
        const auto length = readLittleEndian<std::uint64_t>(base + pos);
        const std::uint64_t whole = kHeaderSize + length + kFooterSize;
        if (whole > static_cast<std::uint64_t>(size - pos)) {
            scan.pendingSize = whole;
            break;
        }
        const QByteArrayView data(base + pos + kHeaderSize, static_cast<qsizetype>(length));
        const auto footer = readLittleEndian<std::uint32_t>(data.data() + length);
        if (maskedCrc32c(data) == footer)
            record(data);
        else
            ++scan.corrupt;
        pos += static_cast<qsizetype>(whole);
        scan.consumed = pos;
    }
    return scan;
}

} // namespace sb
