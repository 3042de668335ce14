#pragma once

#include <QByteArrayView>

#include <cstdint>
#include <functional>

namespace sb {

// TFRecord framing, as TensorBoard's event files use it:
//   uint64 length, uint32 masked_crc32c(length), bytes data[length], uint32 masked_crc32c(data)
// all little-endian.
std::uint32_t maskedCrc32c(QByteArrayView data);

struct RecordScan {
    qsizetype consumed = 0;        // bytes of whole records (intact or skipped) from the start
    qint64 corrupt = 0;            // records dropped for a bad CRC
    std::uint64_t pendingSize = 0; // the whole size of the record at `consumed`, when its header
                                   // is there but not all of it (0 when not even the header is)
};

// What comes before a record's data: its length (u64) and that length's masked CRC (u32).
inline constexpr qsizetype kTfRecordHeaderSize = 12;

// Calls `record` with every intact record at the start of `bytes`, and stops before one that
// is not all there yet (a file still being written). A record whose data fails its CRC is
// skipped and counted; a header that fails its CRC (or gives a length of 2 GiB or more) cannot be
// trusted for the length, so the scan looks forward for the next header that checks out.
RecordScan scanRecords(QByteArrayView bytes, const std::function<void(QByteArrayView)> &record);

} // namespace sb
