#include "CodeArchive.h"

#include "CodeSync.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QLocale>

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr int kBlock = 512;

// `value` as a NUL-terminated octal field of `width` bytes.
void octal(char *field, int width, qint64 value) {
    const QByteArray digits = QByteArray::number(value, 8).rightJustified(width - 1, '0');
    std::memcpy(field, digits.constData(), static_cast<size_t>(width - 1));
}

// A ustar header; a path over 100 bytes is split into prefix and name at a '/'.
Result<QByteArray> header(const QByteArray &path, char type, qint64 size, bool executable,
                          const QByteArray &linkTarget) {
    QByteArray block(kBlock, '\0');
    char *h = block.data();
    QByteArray name = path;
    QByteArray prefix;
    if (name.size() > 100) {
        const qsizetype cut = path.lastIndexOf('/', 155);
        if (cut <= 0 || path.size() - cut - 1 > 100)
            return fail(
                u"%1: the path is too long for a tar archive"_s.arg(QString::fromUtf8(path)));
        prefix = path.first(cut);
        name = path.sliced(cut + 1);
    }
    if (linkTarget.size() > 100)
        return fail(
            u"%1: the link target is too long for a tar archive"_s.arg(QString::fromUtf8(path)));
    std::memcpy(h, name.constData(), static_cast<size_t>(name.size()));
    octal(h + 100, 8, executable || type == '2' ? 0755 : 0644);
    octal(h + 108, 8, 0);
    octal(h + 116, 8, 0);
    octal(h + 124, 12, size);
    octal(h + 136, 12, 0);
    h[156] = type;
    std::memcpy(h + 157, linkTarget.constData(), static_cast<size_t>(linkTarget.size()));
    constexpr std::array<char, 8> kMagic{'u', 's', 't', 'a', 'r', '\0', '0', '0'}; // and version
    std::copy(kMagic.begin(), kMagic.end(), h + 257);
    std::memcpy(h + 345, prefix.constData(), static_cast<size_t>(prefix.size()));
    std::memset(h + 148, ' ', 8); // the checksum counts its own field as spaces
    unsigned sum = 0;
    for (int i = 0; i < kBlock; ++i)
        sum += static_cast<unsigned char>(h[i]);
    octal(h + 148, 7, sum);
    return block;
}

Result<QByteArray> gzip(const QByteArray &data) {
    z_stream stream{};
    if (deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return fail(u"cannot start compressing"_s);
    QByteArray out(static_cast<qsizetype>(deflateBound(&stream, static_cast<uLong>(data.size()))),
                   Qt::Uninitialized);
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.constData()));
    stream.avail_in = static_cast<uInt>(data.size());
    stream.next_out = reinterpret_cast<Bytef *>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    const int result = deflate(&stream, Z_FINISH);
    out.resize(static_cast<qsizetype>(stream.total_out));
    deflateEnd(&stream);
    if (result != Z_STREAM_END)
        return fail(u"compressing failed"_s);
    return out;
}

} // namespace

Result<CodeArchive> packCode(const QString &directory, qint64 limitBytes) {
    const auto files = projectFiles(directory);
    if (!files)
        return fail(files.error());
    CodeArchive archive;
    QByteArray tar;
    for (const QString &file : *files) {
        const QFileInfo info(directory + u'/' + file);
        const QByteArray path = file.toUtf8();
        if (info.isSymLink()) {
            // The link as written, which may be relative: not QFileInfo's absolute target.
            const std::string target =
                std::filesystem::read_symlink(info.filePath().toStdString()).string();
            auto h = header(path, '2', 0, false, QByteArray::fromStdString(target));
            if (!h)
                return fail(h.error());
            tar += *h;
            continue;
        }
        if (!info.isFile())
            continue; // listed by git but deleted meanwhile, or a submodule
        archive.bytes += info.size();
        if (archive.bytes > limitBytes)
            return fail(u"%1 holds more than %2 of code (what git tracks or would track)"_s.arg(
                directory, QLocale::system().formattedDataSize(limitBytes)));
        QFile in(info.filePath());
        if (!in.open(QIODevice::ReadOnly))
            return fail(u"cannot read %1: %2"_s.arg(info.filePath(), in.errorString()));
        const QByteArray content = in.readAll();
        auto h = header(path, '0', content.size(), info.isExecutable(), {});
        if (!h)
            return fail(h.error());
        tar += *h;
        tar += content;
        tar += QByteArray((kBlock - content.size() % kBlock) % kBlock, '\0');
        ++archive.files;
    }
    tar += QByteArray(2 * kBlock, '\0'); // the end of the archive
    archive.hash =
        QString::fromLatin1(QCryptographicHash::hash(tar, QCryptographicHash::Sha256).toHex());
    auto compressed = gzip(tar);
    if (!compressed)
        return fail(compressed.error());
    archive.gzip = std::move(compressed).value();
    return archive;
}

} // namespace sb
