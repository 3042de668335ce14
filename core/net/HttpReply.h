#pragma once

#include "util/Result.h"

#include <QByteArray>

#include <optional>

namespace sb {

// An HTTP/1.1 reply read from raw bytes (Debian's http_parser): for requests that travel as
// bytes over another stream, such as an SSH channel to a socket on a remote host.
struct HttpReply {
    int status = 0;
    QByteArray body; // de-chunked
};
// The reply, once `bytes` hold all of it (by Content-Length, chunked encoding, or the end of the
// stream when `ended`); an empty optional while more is to come; an error for bytes that are
// no HTTP reply.
Result<std::optional<HttpReply>> parseHttpReply(const QByteArray &bytes, bool ended);

} // namespace sb
