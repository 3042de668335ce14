#include "HttpReply.h"

#include <http_parser.h>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

struct Reading {
    HttpReply reply;
    bool complete = false;
};

Reading *of(http_parser *parser) {
    return static_cast<Reading *>(parser->data);
}

} // namespace

Result<std::optional<HttpReply>> parseHttpReply(const QByteArray &bytes, bool ended) {
    static const http_parser_settings settings = [] {
        http_parser_settings s{};
        s.on_body = [](http_parser *p, const char *at, size_t n) {
            of(p)->reply.body.append(at, static_cast<qsizetype>(n));
            return 0;
        };
        s.on_message_complete = [](http_parser *p) {
            of(p)->complete = true;
            of(p)->reply.status = static_cast<int>(p->status_code);
            http_parser_pause(p, 1); // one reply: what follows is not read
            return 0;
        };
        return s;
    }();
    // Parsed from the start each time: replies here are small and whole after a few reads.
    Reading reading;
    http_parser parser{};
    http_parser_init(&parser, HTTP_RESPONSE);
    parser.data = &reading;
    const size_t used = http_parser_execute(&parser, &settings, bytes.constData(),
                                            static_cast<size_t>(bytes.size()));
    const auto error = static_cast<http_errno>(parser.http_errno);
    if (!reading.complete && ended && error == HPE_OK)
        http_parser_execute(&parser, &settings, nullptr, 0); // the end of the stream ends it
    if (reading.complete)
        return std::optional<HttpReply>(reading.reply);
    if (error != HPE_OK && error != HPE_PAUSED)
        return fail(u"not an HTTP reply (%1 at byte %2)"_s
                        .arg(QString::fromLatin1(http_errno_description(error)))
                        .arg(used));
    if (ended)
        return fail(u"the reply ended after %1 bytes, before it was whole"_s.arg(bytes.size()));
    return std::optional<HttpReply>();
}

} // namespace sb
