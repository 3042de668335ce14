#include "EventParser.h"

#include <cstring>

namespace sb {

namespace {

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

constexpr std::uint64_t kDtFloat = 1;
constexpr std::uint64_t kDtDouble = 2;
constexpr std::uint64_t kDataClassScalar = 1;

// A rank-0 float or double tensor's value; false for anything else (images, histograms, text).
bool scalarTensor(QByteArrayView tensor, double *value) {
    Wire wire(tensor);
    std::uint64_t dtype = 0;
    bool rank0 = true;
    bool found = false;
    QByteArrayView content;
    std::uint32_t field = 0;
    WireType type{};
    while (wire.next(&field, &type)) {
        if (field == 1 && type == Varint) {
            dtype = wire.varint();
        } else if (field == 2 && type == Bytes) {
            Wire shape(wire.bytes());
            std::uint32_t shapeField = 0;
            WireType shapeType{};
            while (shape.next(&shapeField, &shapeType)) {
                if (shapeField == 2 || shapeField == 3) // a dimension, or unknown_rank
                    rank0 = false;
                shape.skip(shapeType);
            }
        } else if (field == 4 && type == Bytes) {
            content = wire.bytes();
        } else if (field == 5 && type == Bytes && !found) { // packed float_val
            const QByteArrayView packed = wire.bytes();
            if (packed.size() >= 4) {
                float f = 0;
                std::memcpy(&f, packed.data(), 4);
                *value = f;
                found = true;
            }
        } else if (field == 5 && type == Fixed32 && !found) { // unpacked float_val
            *value = wire.fixed<float>();
            found = true;
        } else if (field == 6 && type == Bytes && !found) { // packed double_val
            const QByteArrayView packed = wire.bytes();
            if (packed.size() >= 8) {
                std::memcpy(value, packed.data(), 8);
                found = true;
            }
        } else if (field == 6 && type == Fixed64 && !found) {
            *value = wire.fixed<double>();
            found = true;
        } else {
            wire.skip(type);
        }
    }
    if (!wire.ok() || !rank0 || (dtype != kDtFloat && dtype != kDtDouble))
        return false;
    if (!found && content.size() == (dtype == kDtFloat ? 4 : 8)) {
        if (dtype == kDtFloat) {
            float f = 0;
            std::memcpy(&f, content.data(), 4);
            *value = f;
        } else {
            std::memcpy(value, content.data(), 8);
        }
        found = true;
    }
    return found;
}

void parseMetadata(QByteArrayView metadata, EventScalars::Value *value) {
    Wire wire(metadata);
    std::uint32_t field = 0;
    WireType type{};
    while (wire.next(&field, &type)) {
        if (field == 1 && type == Bytes) {
            Wire plugin(wire.bytes());
            std::uint32_t pluginField = 0;
            WireType pluginType{};
            while (plugin.next(&pluginField, &pluginType)) {
                if (pluginField == 1 && pluginType == Bytes)
                    value->plugin = plugin.bytes();
                else
                    plugin.skip(pluginType);
            }
        } else if (field == 4 && type == Varint) {
            value->scalarClass = wire.varint() == kDataClassScalar;
        } else {
            wire.skip(type);
        }
    }
}

bool parseValue(QByteArrayView bytes, EventScalars::Value *value) {
    Wire wire(bytes);
    std::uint32_t field = 0;
    WireType type{};
    while (wire.next(&field, &type)) {
        if (field == 1 && type == Bytes) {
            value->tag = wire.bytes();
        } else if (field == 2 && type == Fixed32) {
            value->value = wire.fixed<float>();
            value->isScalar = true;
        } else if (field == 8 && type == Bytes) {
            value->isScalar = scalarTensor(wire.bytes(), &value->value);
        } else if (field == 9 && type == Bytes) {
            parseMetadata(wire.bytes(), value);
        } else {
            wire.skip(type);
        }
    }
    return wire.ok();
}

} // namespace

bool parseEvent(QByteArrayView record, EventScalars *out) {
    out->wallTime = 0;
    out->step = 0;
    out->values.clear();
    Wire wire(record);
    std::uint32_t field = 0;
    WireType type{};
    while (wire.next(&field, &type)) {
        if (field == 1 && type == Fixed64) {
            out->wallTime = wire.fixed<double>();
        } else if (field == 2 && type == Varint) {
            out->step = static_cast<std::int64_t>(wire.varint());
        } else if (field == 5 && type == Bytes) {
            Wire summary(wire.bytes());
            std::uint32_t summaryField = 0;
            WireType summaryType{};
            while (summary.next(&summaryField, &summaryType)) {
                if (summaryField == 1 && summaryType == Bytes) {
                    EventScalars::Value value;
                    if (!parseValue(summary.bytes(), &value))
                        return false;
                    out->values.push_back(value);
                } else {
                    summary.skip(summaryType);
                }
            }
            if (!summary.ok())
                return false;
        } else {
            wire.skip(type);
        }
    }
    return wire.ok() && wire.atEnd();
}

} // namespace sb
