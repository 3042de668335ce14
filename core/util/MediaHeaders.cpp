#include "MediaHeaders.h"

namespace sb {

using namespace Qt::StringLiterals;

namespace {

std::uint32_t bigEndian32(const char *p) {
    const auto *u = reinterpret_cast<const unsigned char *>(p);
    return (std::uint32_t{u[0]} << 24) | (std::uint32_t{u[1]} << 16) | (std::uint32_t{u[2]} << 8) |
           u[3];
}
std::uint32_t bigEndian16(const char *p) {
    const auto *u = reinterpret_cast<const unsigned char *>(p);
    return (std::uint32_t{u[0]} << 8) | u[1];
}
std::uint32_t littleEndian(const char *p, int bytes) {
    const auto *u = reinterpret_cast<const unsigned char *>(p);
    std::uint32_t value = 0;
    for (int i = bytes - 1; i >= 0; --i)
        value = (value << 8) | u[i];
    return value;
}

Result<ImageHeader> jpegHeader(QByteArrayView b) {
    if (!b.endsWith("\xFF\xD9"))
        return fail(u"a truncated JPEG (it lacks its end-of-image marker)"_s);
    qsizetype pos = 2;
    while (pos + 4 <= b.size()) {
        if (static_cast<unsigned char>(b[pos]) != 0xFF)
            return fail(u"a malformed JPEG"_s);
        while (pos < b.size() && static_cast<unsigned char>(b[pos]) == 0xFF)
            ++pos; // fill bytes
        if (pos + 3 > b.size())
            break;
        const auto marker = static_cast<unsigned char>(b[pos++]);
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8))
            continue; // markers without a length
        const qsizetype length = bigEndian16(b.data() + pos);
        const bool frame =
            marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
        if (frame && length >= 7 && pos + 7 <= b.size())
            return ImageHeader{"jpeg"_L1, bigEndian16(b.data() + pos + 5),
                               bigEndian16(b.data() + pos + 3)};
        if (length < 2)
            return fail(u"a malformed JPEG"_s);
        pos += length;
    }
    return fail(u"a JPEG without a frame header"_s);
}

Result<ImageHeader> webpHeader(QByteArrayView b) {
    if (b.size() < 30 || b.sliced(8, 4) != "WEBP")
        return fail(u"a malformed WebP image"_s);
    if (littleEndian(b.data() + 4, 4) + qint64{8} > b.size())
        return fail(u"a truncated WebP image"_s);
    const QByteArrayView chunk = b.sliced(12, 4);
    if (chunk == "VP8 ")
        return ImageHeader{"webp"_L1, littleEndian(b.data() + 26, 2) & 0x3FFF,
                           littleEndian(b.data() + 28, 2) & 0x3FFF};
    if (chunk == "VP8L") {
        const std::uint32_t bits = littleEndian(b.data() + 21, 4);
        return ImageHeader{"webp"_L1, (bits & 0x3FFF) + qint64{1},
                           ((bits >> 14) & 0x3FFF) + qint64{1}};
    }
    if (chunk == "VP8X")
        return ImageHeader{"webp"_L1, littleEndian(b.data() + 24, 3) + qint64{1},
                           littleEndian(b.data() + 27, 3) + qint64{1}};
    return fail(u"a malformed WebP image"_s);
}

} // namespace

Result<ImageHeader> imageHeader(QByteArrayView b, qint64 mostPixels) {
    Result<ImageHeader> header = fail(u"not an image TensorBoard shows (PNG, JPEG, GIF or WebP)"_s);
    if (b.startsWith("\x89PNG\r\n\x1A\n")) {
        if (b.size() < 33 || b.sliced(12, 4) != "IHDR")
            return fail(u"a malformed PNG"_s);
        if (!b.endsWith(QByteArrayView("IEND\xAE\x42\x60\x82", 8)))
            return fail(u"a truncated PNG (it lacks its IEND chunk)"_s);
        header = ImageHeader{"png"_L1, bigEndian32(b.data() + 16), bigEndian32(b.data() + 20)};
    } else if (b.startsWith("\xFF\xD8\xFF")) {
        header = jpegHeader(b);
    } else if (b.startsWith("GIF87a") || b.startsWith("GIF89a")) {
        if (b.size() < 14 || !b.endsWith(";"))
            return fail(u"a truncated GIF"_s);
        header =
            ImageHeader{"gif"_L1, littleEndian(b.data() + 6, 2), littleEndian(b.data() + 8, 2)};
    } else if (b.startsWith("RIFF")) {
        header = webpHeader(b);
    }
    if (!header)
        return header;
    if (header->width <= 0 || header->height <= 0)
        return fail(u"an image of no pixels"_s);
    if (header->width > mostPixels / header->height)
        return fail(u"an image of %1 × %2 pixels: the most is %3 pixels"_s.arg(header->width)
                        .arg(header->height)
                        .arg(mostPixels));
    return header;
}

Result<WavHeader> wavHeader(QByteArrayView b) {
    if (b.size() < 12 || !b.startsWith("RIFF") || b.sliced(8, 4) != "WAVE")
        return fail(u"audio that is not WAV"_s);
    WavHeader header;
    qint64 blockAlign = 0;
    for (qsizetype pos = 12; pos + 8 <= b.size();) {
        const QByteArrayView id = b.sliced(pos, 4);
        const qint64 size = littleEndian(b.data() + pos + 4, 4);
        const qsizetype body = pos + 8;
        if (id == "fmt " && size >= 16 && body + 16 <= b.size()) {
            header.encoding = littleEndian(b.data() + body, 2);
            header.channels = littleEndian(b.data() + body + 2, 2);
            header.sampleRate = littleEndian(b.data() + body + 4, 4);
            blockAlign = littleEndian(b.data() + body + 12, 2);
            header.bitsPerSample = littleEndian(b.data() + body + 14, 2);
        } else if (id == "data") {
            if (blockAlign == 0 || header.channels < 1 || header.channels > 256 ||
                header.sampleRate < 1 || header.sampleRate > 1'000'000)
                return fail(u"a WAV whose format chunk is missing or impossible (%1 channels at "
                            u"%2 Hz)"_s.arg(header.channels)
                                .arg(header.sampleRate));
            if (size > b.size() - body)
                return fail(
                    u"a WAV whose header says %1 bytes of samples but which holds %2"_s.arg(size)
                        .arg(b.size() - body));
            header.frames = size / blockAlign;
            header.dataOffset = body;
            header.dataBytes = header.frames * blockAlign;
            return header;
        }
        pos = body + size + (size & 1);
    }
    return fail(u"a WAV without samples (no data chunk)"_s);
}

} // namespace sb
