#pragma once

#include <QByteArrayView>

#include <cstdint>
#include <cstring>

namespace sb::proto {

// Protocol buffers' wire format, read in place: enough for the TensorFlow messages in event
// files, with no generated code and no copy of the bytes.
enum WireType : std::uint8_t { Varint = 0, Fixed64 = 1, Bytes = 2, Fixed32 = 5 };

// A cursor over protobuf wire format that stops (ok() false) at the first malformed byte.
class Wire {
public:
    explicit Wire(QByteArrayView bytes)
        : m_p(bytes.data())
        , m_end(bytes.data() + bytes.size()) {}

    bool atEnd() const { return m_p == m_end; }
    bool ok() const { return m_ok; }

    bool next(std::uint32_t *field, WireType *type) {
        if (m_p >= m_end || !m_ok)
            return false;
        const std::uint64_t key = varint();
        *field = static_cast<std::uint32_t>(key >> 3);
        *type = static_cast<WireType>(key & 7);
        if (*field == 0)
            m_ok = false; // field numbers start at 1
        return m_ok;
    }

    std::uint64_t varint() {
        std::uint64_t value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_p >= m_end)
                break;
            const auto byte = static_cast<std::uint8_t>(*m_p++);
            value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
            if (!(byte & 0x80))
                return value;
        }
        m_ok = false;
        return 0;
    }

    template <typename T> T fixed() {
        T value{};
        if (m_end - m_p < static_cast<std::ptrdiff_t>(sizeof value)) {
            m_ok = false;
            return value;
        }
        std::memcpy(&value, m_p, sizeof value);
        m_p += sizeof value;
        return value;
    }

    QByteArrayView bytes() {
        const std::uint64_t length = varint();
        if (!m_ok || length > static_cast<std::uint64_t>(m_end - m_p)) {
            m_ok = false;
            return {};
        }
        const QByteArrayView view(m_p, static_cast<qsizetype>(length));
        m_p += length;
        return view;
    }

    void skip(WireType type) {
        switch (type) {
        case Varint:
            (void)varint();
            break;
        case Fixed64:
            (void)fixed<std::uint64_t>();
            break;
        case Bytes:
            (void)bytes();
            break;
        case Fixed32:
            (void)fixed<std::uint32_t>();
            break;
        default:
            m_ok = false; // groups (3, 4) are not in these messages
        }
    }

private:
    const char *m_p;
    const char *m_end;
    bool m_ok = true;
};

} // namespace sb::proto
