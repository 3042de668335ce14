#pragma once

#include <QByteArray>
#include <QString> // QByteArray + QByteArray with QT_USE_QSTRINGBUILDER

// Small, well-formed media files for tests of what checks them: only what the header checks
// read is real (no pixel or sample data is decoded anywhere in core).
namespace media_bytes {

// The smallest PNG our header check accepts: signature, IHDR, IEND (CRCs unchecked here);
// `between` goes before IEND (two images of one size with different bytes).
inline QByteArray png(quint32 width, quint32 height, const QByteArray &between = {}) {
    QByteArray out("\x89PNG\r\n\x1A\n", 8);
    out += QByteArray("\x00\x00\x00\x0DIHDR", 8);
    for (const quint32 v : {width, height})
        for (int shift = 24; shift >= 0; shift -= 8)
            out.append(static_cast<char>((v >> shift) & 0xFF));
    out += QByteArray("\x08\x02\x00\x00\x00", 5) + QByteArray(4, '\0'); // depth, colour, CRC
    out += between;
    out += QByteArray("\x00\x00\x00\x00IEND\xAE\x42\x60\x82", 12);
    return out;
}

inline QByteArray jpeg(quint16 width, quint16 height) {
    QByteArray out("\xFF\xD8\xFF\xE0\x00\x04JF", 8); // SOI, an APP0 of 2 bytes
    out += QByteArray("\xFF\xC0\x00\x0B\x08", 5);
    out.append(static_cast<char>(height >> 8)).append(static_cast<char>(height & 0xFF));
    out.append(static_cast<char>(width >> 8)).append(static_cast<char>(width & 0xFF));
    out += QByteArray("\x01\x01\x11\x00", 4);
    out += QByteArray("\xFF\xD9", 2);
    return out;
}

inline QByteArray wav(quint32 rate, quint16 channels, quint32 dataBytes, qsizetype actualBytes) {
    auto le = [](quint32 v, int bytes) {
        QByteArray out;
        for (int i = 0; i < bytes; ++i)
            out.append(static_cast<char>((v >> (8 * i)) & 0xFF));
        return out;
    };
    QByteArray out = "RIFF" + le(36 + dataBytes, 4) + "WAVE";
    out += "fmt " + le(16, 4) + le(1, 2) + le(channels, 2) + le(rate, 4) +
           le(rate * channels * 2, 4) + le(channels * 2, 2) + le(16, 2);
    out += "data" + le(dataBytes, 4) + QByteArray(actualBytes, '\0');
    return out;
}

} // namespace media_bytes
