#pragma once

#include "util/Result.h"

#include <QByteArrayView>
#include <QLatin1StringView>

namespace sb {

// What an image's own header says. Refuses what is not a whole PNG, JPEG, GIF or WebP (a file
// cut short lacks its end marker), an image of no pixels, and one of more than `mostPixels`,
// all before anything decodes it.
struct ImageHeader {
    QLatin1StringView format; // "png", "jpeg", "gif" or "webp"
    qint64 width = 0;
    qint64 height = 0;
};
Result<ImageHeader> imageHeader(QByteArrayView bytes, qint64 mostPixels);

// What a WAV file's header says, checked against the bytes it holds: a format chunk with a
// possible channel count and rate, and a data chunk no longer than what follows it.
struct WavHeader {
    double sampleRate = 0;
    qint64 channels = 0;
    qint64 frames = 0;
    qint64 encoding = 0;      // 1: integer PCM; 3: IEEE float; 0xFFFE: see its extension
    qint64 bitsPerSample = 0; // of one channel's sample
    qint64 dataOffset = 0;    // where the samples start, and their bytes (whole frames)
    qint64 dataBytes = 0;
};
Result<WavHeader> wavHeader(QByteArrayView bytes);

} // namespace sb
