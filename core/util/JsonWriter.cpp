#include "JsonWriter.h"

#include <charconv>
#include <cmath>

#include <QJsonArray>
#include <QJsonObject>

namespace sb {

void JsonWriter::item() {
    if (m_afterKey)
        m_afterKey = false;
    else if (!std::exchange(m_first, false))
        m_out.append(',');
}

void JsonWriter::open(char bracket) {
    item();
    m_out.append(bracket);
    m_first = true;
}

void JsonWriter::close(char bracket) {
    m_out.append(bracket);
    m_first = false;
}

void JsonWriter::key(QStringView name) {
    item();
    string(name);
    m_out.append(':');
    m_afterKey = true;
}

void JsonWriter::value(QStringView text) {
    item();
    string(text);
}

void JsonWriter::value(double v) {
    item();
    number(v);
}

void JsonWriter::value(qint64 v) {
    item();
    m_out.append(QByteArray::number(v));
}

void JsonWriter::value(bool flag) {
    item();
    m_out.append(flag ? "true" : "false");
}

void JsonWriter::json(const QJsonValue &v) {
    switch (v.type()) {
    case QJsonValue::Bool:
        value(v.toBool());
        break;
    case QJsonValue::Double:
        // Qt keeps whole numbers as 64-bit integers: all their digits, as its own writer does
        // (a whole number is one both defaults agree on).
        if (const qint64 whole = v.toInteger(0); whole == v.toInteger(1))
            value(whole);
        else
            value(v.toDouble());
        break;
    case QJsonValue::String:
        value(v.toString());
        break;
    case QJsonValue::Array:
        beginArray();
        for (const QJsonValue item : v.toArray())
            json(item);
        endArray();
        break;
    case QJsonValue::Object: {
        beginObject();
        const QJsonObject object = v.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            key(it.key());
            json(it.value());
        }
        endObject();
        break;
    }
    default: // null, and undefined, which JSON cannot say
        item();
        m_out.append("null");
    }
}

void JsonWriter::values(const std::vector<double> &numbers) {
    beginArray();
    for (size_t i = 0; i < numbers.size(); ++i) {
        if (i > 0)
            m_out.append(',');
        number(numbers[i]);
    }
    endArray();
}

void JsonWriter::number(double v) {
    if (!std::isfinite(v)) {
        m_out.append("null");
        return;
    }
    if (v == 0 && std::signbit(v)) { // "-0" reads as the integer 0 in some readers
        m_out.append("-0.0");
        return;
    }
    char text[32];
    // Past 1e15 in exponent form: shortest digits write 2^64 as 18446744073709552000, a whole
    // number that JSON readers (simdjson among them) refuse beyond 64 bits.
    const auto end =
        std::abs(v) < 1e15
            ? std::to_chars(text, text + sizeof text, v).ptr
            : std::to_chars(text, text + sizeof text, v, std::chars_format::scientific).ptr;
    m_out.append(text, end - text);
}

void JsonWriter::string(QStringView text) {
    static constexpr char kHex[] = "0123456789abcdef";
    const QByteArray utf8 = text.toUtf8();
    m_out.append('"');
    for (const char c : utf8) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            m_out.append('\\').append(c);
        } else if (u < 0x20) {
            m_out.append("\\u00").append(kHex[u >> 4]).append(kHex[u & 15]);
        } else {
            m_out.append(c);
        }
    }
    m_out.append('"');
}

} // namespace sb
