#include "EventParser.h"

#include "ProtoWire.h"

#include <cstring>

namespace sb {

namespace {

using namespace proto;

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

void parseMetadata(QByteArrayView metadata, TfEvent::Value *value) {
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
                else if (pluginField == 2 && pluginType == Bytes)
                    value->pluginContent = plugin.bytes();
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

bool parseValue(QByteArrayView bytes, TfEvent::Value *value) {
    Wire wire(bytes);
    std::uint32_t field = 0;
    WireType type{};
    while (wire.next(&field, &type)) {
        if (field == 1 && type == Bytes) {
            value->tag = wire.bytes();
        } else if (field == 2 && type == Fixed32) {
            value->value = wire.fixed<float>();
            value->isScalar = true;
        } else if (field == 4 && type == Bytes) {
            value->image = wire.bytes();
        } else if (field == 5 && type == Bytes) {
            value->histo = wire.bytes();
        } else if (field == 6 && type == Bytes) {
            value->audio = wire.bytes();
        } else if (field == 8 && type == Bytes) {
            value->tensor = wire.bytes();
            value->isScalar = scalarTensor(value->tensor, &value->value);
        } else if (field == 9 && type == Bytes) {
            parseMetadata(wire.bytes(), value);
        } else {
            wire.skip(type);
        }
    }
    return wire.ok();
}

} // namespace

bool parseEvent(QByteArrayView record, TfEvent *out) {
    out->wallTime = 0;
    out->step = 0;
    out->values.clear();
    out->sessionStart = false;
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
                    // In place: a value is 136 bytes of views, and events come by the million.
                    if (!parseValue(summary.bytes(), &out->values.emplace_back()))
                        return false;
                } else {
                    summary.skip(summaryType);
                }
            }
            if (!summary.ok())
                return false;
        } else if (field == 7 && type == Bytes) {
            Wire session(wire.bytes());
            std::uint32_t sessionField = 0;
            WireType sessionType{};
            while (session.next(&sessionField, &sessionType)) {
                if (sessionField == 1 && sessionType == Varint)
                    out->sessionStart = session.varint() == 1;
                else
                    session.skip(sessionType);
            }
            if (!session.ok())
                return false;
        } else {
            wire.skip(type);
        }
    }
    return wire.ok() && wire.atEnd();
}

} // namespace sb
