#pragma once

#include <QByteArray>
#include <QJsonValue>
#include <QStringView>

#include <vector>

namespace sb {

// JSON text written straight into bytes, for answers that are mostly numbers (a chart's curves):
// building a QJsonObject and serialising it costs several times the work. Numbers are written
// shortest round-trip, non-finite ones as null; strings are escaped as RFC 8259 asks.
class JsonWriter {
public:
    void beginObject() { open('{'); }
    void endObject() { close('}'); }
    void beginArray() { open('['); }
    void endArray() { close(']'); }
    void key(QStringView name);
    void value(QStringView text);
    void value(double number);
    void value(qint64 number);
    void value(bool flag);
    void json(const QJsonValue &v);                  // any JSON, as Qt holds it
    void values(const std::vector<double> &numbers); // as an array

    // key and value, the pairs an object is made of
    template <typename T> void field(QStringView name, const T &v) {
        key(name);
        value(v);
    }

    QByteArray take() { return std::move(m_out); }

private:
    void item(); // a comma before every item of a container but its first
    void open(char bracket);
    void close(char bracket);
    void string(QStringView text);
    void number(double v);

    QByteArray m_out;
    bool m_first = true;     // the next item is its container's first
    bool m_afterKey = false; // the next item is a key's value
};

} // namespace sb
