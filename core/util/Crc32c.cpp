#include "Crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace sb {

namespace {

constexpr std::array<std::uint32_t, 256> makeTable() {
    std::array<std::uint32_t, 256> table{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int k = 0; k < 8; ++k)
            c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        table[i] = c;
    }
    return table;
}

constexpr auto kTable = makeTable();

std::uint32_t crc32cTable(const char *data, std::size_t size, std::uint32_t crc) {
    for (std::size_t i = 0; i < size; ++i)
        crc = kTable[(crc ^ static_cast<std::uint8_t>(data[i])) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
// SSE 4.2's crc32 instruction computes CRC-32C: eight bytes a cycle instead of one.
__attribute__((target("sse4.2"))) std::uint32_t crc32cHardware(const char *data, std::size_t size,
                                                               std::uint32_t crc) {
    std::uint64_t c = crc;
    for (; size >= 8; size -= 8, data += 8) {
        std::uint64_t word = 0;
        std::memcpy(&word, data, 8);
        c = _mm_crc32_u64(c, word);
    }
    auto c32 = static_cast<std::uint32_t>(c);
    for (; size > 0; --size, ++data)
        c32 = _mm_crc32_u8(c32, static_cast<std::uint8_t>(*data));
    return c32;
}

const bool kHasSse42 = __builtin_cpu_supports("sse4.2");
#endif

} // namespace

std::uint32_t crc32c(QByteArrayView data, std::uint32_t crc) {
    const auto size = static_cast<std::size_t>(data.size());
#if defined(__x86_64__)
    if (kHasSse42)
        return ~crc32cHardware(data.data(), size, ~crc);
#endif
    return ~crc32cTable(data.data(), size, ~crc);
}

} // namespace sb
