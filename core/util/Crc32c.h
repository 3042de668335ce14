#pragma once

#include <QByteArrayView>

#include <cstdint>

namespace sb {

// CRC-32C (Castagnoli), the checksum of the store's journal and of TFRecord framing.
std::uint32_t crc32c(QByteArrayView data, std::uint32_t crc = 0);

} // namespace sb
