#include "Digest.h"

#include <openssl/evp.h>

namespace sb {

QByteArray sha256(QByteArrayView bytes) {
    QByteArray digest(32, Qt::Uninitialized);
    unsigned int length = 0;
    // EVP_Digest fails only when out of memory: then no digest, and the caller's check says so.
    if (EVP_Digest(bytes.data(), std::size_t(bytes.size()),
                   reinterpret_cast<unsigned char *>(digest.data()), &length, EVP_sha256(),
                   nullptr) != 1 ||
        length != 32)
        return {};
    return digest;
}

} // namespace sb
