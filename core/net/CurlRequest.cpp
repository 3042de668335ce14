#include "CurlRequest.h"

#include <curl/curl.h>

#include <memory>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

struct Answer {
    QByteArray body;
    qint64 most = 0;
    bool tooLong = false;
};

size_t collect(char *data, size_t size, size_t count, void *out) {
    auto *answer = static_cast<Answer *>(out);
    const size_t length = size * count;
    if (answer->body.size() + qint64(length) > answer->most) {
        answer->tooLong = true;
        return 0; // libcurl stops with a write error
    }
    answer->body.append(data, static_cast<qsizetype>(length));
    return length;
}

struct CurlDeleter {
    void operator()(CURL *curl) const { curl_easy_cleanup(curl); }
};
struct ListDeleter {
    void operator()(curl_slist *list) const { curl_slist_free_all(list); }
};

} // namespace

Result<CurlReply> perform(const CurlRequest &request) {
    // Once, before any handle: libcurl's implicit start is not thread-safe before 7.84.
    static const CURLcode started = curl_global_init(CURL_GLOBAL_DEFAULT);
    const QString where = request.url.toString(QUrl::RemoveQuery | QUrl::RemoveUserInfo);
    std::unique_ptr<CURL, CurlDeleter> curl(started == CURLE_OK ? curl_easy_init() : nullptr);
    if (!curl)
        return fail(u"%1: cannot start libcurl"_s.arg(where));
    CURL *c = curl.get();
    const QByteArray address = request.url.toEncoded();
    Answer answer{{}, request.mostAnswerBytes, false};
    char error[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(c, CURLOPT_URL, address.constData());
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.constData());
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, request.connectTimeoutS);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, request.stalledAfterS);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (!request.credentials.isEmpty())
        curl_easy_setopt(c, CURLOPT_USERPWD, request.credentials.constData());
    if (!request.awsSigV4.isEmpty())
        curl_easy_setopt(c, CURLOPT_AWS_SIGV4, request.awsSigV4.constData());
    if (request.method == "HEAD")
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    if (request.body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body->constData());
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                         static_cast<curl_off_t>(request.body->size()));
    }
    // No "Expect: 100-continue" before a large body: a server that does not answer it (as
    // ClickHouse does not) holds each request a second.
    std::unique_ptr<curl_slist, ListDeleter> headers(curl_slist_append(nullptr, "Expect:"));
    for (const QByteArray &header : request.headers)
        headers.reset(curl_slist_append(headers.release(), header.constData()));
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
    if (const CURLcode code = curl_easy_perform(c); code != CURLE_OK) {
        if (answer.tooLong)
            return fail(u"%1: the answer is longer than %2 MB"_s.arg(where).arg(
                request.mostAnswerBytes >> 20));
        return fail(
            u"%1: %2"_s.arg(where, QString::fromUtf8(*error ? error : curl_easy_strerror(code))));
    }
    CurlReply reply;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply.status);
    reply.body = std::move(answer.body);
    return reply;
}

} // namespace sb
