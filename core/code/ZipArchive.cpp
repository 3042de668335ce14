#include "ZipArchive.h"

#include <QtEndian>

#include <zlib.h>

namespace sb {

namespace {

void put16(QByteArray &out, quint32 value) {
    const quint16 le = qToLittleEndian(static_cast<quint16>(value));
    out.append(reinterpret_cast<const char *>(&le), 2);
}

void put32(QByteArray &out, quint32 value) {
    const quint32 le = qToLittleEndian(value);
    out.append(reinterpret_cast<const char *>(&le), 4);
}

constexpr quint32 kDosDate = (0 << 9) | (1 << 5) | 1; // 1980-01-01, the format's first day

// The fields a local header and a central directory entry share, from "version needed" to the
// name's and extra field's lengths.
void putCommon(QByteArray &out, const QByteArray &name, const QByteArray &content, quint32 crc) {
    put16(out, 20);       // version needed: 2.0
    put16(out, 1u << 11); // names are UTF-8
    put16(out, 0);        // stored
    put16(out, 0);        // time
    put16(out, kDosDate);
    put32(out, crc);
    put32(out, static_cast<quint32>(content.size())); // compressed
    put32(out, static_cast<quint32>(content.size()));
    put16(out, static_cast<quint32>(name.size()));
    put16(out, 0); // extra field
}

} // namespace

QByteArray storedZip(const std::vector<std::pair<QString, QByteArray>> &files) {
    // Without ZIP64: sizes and offsets in 32 bits, counts and names' lengths in 16.
    qint64 total = 0;
    for (const auto &[path, content] : files)
        total += content.size() + 2 * (path.toUtf8().size() + 46);
    if (files.size() > 0xFFFF || total >= 0xFFFFFFFFLL)
        return {};
    QByteArray out;
    QByteArray directory;
    for (const auto &[path, content] : files) {
        const QByteArray name = path.toUtf8();
        const auto crc =
            static_cast<quint32>(crc32(0, reinterpret_cast<const Bytef *>(content.constData()),
                                       static_cast<uInt>(content.size())));
        const auto offset = static_cast<quint32>(out.size());
        put32(out, 0x04034b50);
        putCommon(out, name, content, crc);
        out += name;
        out += content;
        put32(directory, 0x02014b50);
        put16(directory, (3u << 8) | 20); // made by: Unix, 2.0 (the attributes below are Unix's)
        putCommon(directory, name, content, crc);
        put16(directory, 0);              // comment
        put16(directory, 0);              // disk
        put16(directory, 0);              // internal attributes
        put32(directory, 0100644u << 16); // a regular file, rw-r--r--
        put32(directory, offset);
        directory += name;
    }
    const auto start = static_cast<quint32>(out.size());
    out += directory;
    put32(out, 0x06054b50);
    put16(out, 0);
    put16(out, 0);
    put16(out, static_cast<quint32>(files.size()));
    put16(out, static_cast<quint32>(files.size()));
    put32(out, static_cast<quint32>(directory.size()));
    put32(out, start);
    put16(out, 0); // comment
    return out;
}

} // namespace sb
