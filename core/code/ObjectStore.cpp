#include "ObjectStore.h"

#include <QCryptographicHash>
#include <QMessageAuthenticationCode>
#include <QUrlQuery>

#include <curl/curl.h>

#include <memory>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

QByteArray sha256Hex(const QByteArray &data) {
    return QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex();
}

QByteArray hmac(const QByteArray &key, const QByteArray &message) {
    return QMessageAuthenticationCode::hash(message, key, QCryptographicHash::Sha256);
}

// RFC 3986 unreserved characters stay; so does '/' in a path.
QByteArray uriEncode(const QString &text, bool path) {
    return QUrl::toPercentEncoding(text, path ? "/" : "");
}

// Host and port as the Host header carries them.
QByteArray hostHeader(const QUrl &url) {
    const int port = url.port();
    const bool standard = port < 0 || (url.scheme() == "https"_L1 && port == 443) ||
                          (url.scheme() == "http"_L1 && port == 80);
    return (standard ? url.host() : u"%1:%2"_s.arg(url.host()).arg(port)).toUtf8();
}

size_t collect(char *data, size_t size, size_t count, void *out) {
    const size_t length = size * count;
    static_cast<QByteArray *>(out)->append(data, static_cast<qsizetype>(length));
    return length;
}

// The S3 error's <Message>, or the HTTP status.
QString s3Error(long status, const QByteArray &body) {
    const qsizetype from = body.indexOf("<Message>");
    const qsizetype to = body.indexOf("</Message>");
    if (from >= 0 && to > from)
        return u"HTTP %1: %2"_s.arg(status).arg(
            QString::fromUtf8(body.mid(from + 9, to - from - 9)));
    return u"HTTP %1"_s.arg(status);
}

struct CurlDeleter {
    void operator()(CURL *curl) const { curl_easy_cleanup(curl); }
};
struct ListDeleter {
    void operator()(curl_slist *list) const { curl_slist_free_all(list); }
};

// One signed request; the status and body, or why none came.
Result<std::pair<long, QByteArray>> signedRequest(const ObjectStoreConfig &config, const QUrl &url,
                                                  const char *method, const QByteArray *upload) {
    std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
    if (!curl)
        return fail(u"cannot start libcurl"_s);
    CURL *c = curl.get();
    const QByteArray address = url.toEncoded();
    const QByteArray provider = "aws:amz:" + config.region.toUtf8() + ":s3";
    const QByteArray credentials = config.accessKey.toUtf8() + ':' + config.secretKey.toUtf8();
    QByteArray body;
    curl_easy_setopt(c, CURLOPT_URL, address.constData());
    curl_easy_setopt(c, CURLOPT_AWS_SIGV4, provider.constData());
    curl_easy_setopt(c, CURLOPT_USERPWD, credentials.constData());
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 15L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L); // a store that stops answering fails
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (qstrcmp(method, "HEAD") == 0)
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    // S3 wants the payload's hash signed; libcurl signs the header given here.
    const QByteArray payloadHash =
        "x-amz-content-sha256: " + sha256Hex(upload ? *upload : QByteArray());
    std::unique_ptr<curl_slist, ListDeleter> headers(
        curl_slist_append(nullptr, payloadHash.constData()));
    if (upload) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, upload->constData());
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(upload->size()));
        headers.reset(curl_slist_append(headers.release(), "Content-Type: application/gzip"));
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
    if (const CURLcode code = curl_easy_perform(c); code != CURLE_OK)
        return fail(u"%1: %2"_s.arg(url.toString(QUrl::RemoveQuery),
                                    QString::fromUtf8(curl_easy_strerror(code))));
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    return std::pair{status, body};
}

} // namespace

QUrl ObjectStore::objectUrl(const QUrl &endpoint, const QString &key) const {
    // Every byte of the key but unreserved ones and '/' percent-encoded, as S3 signs paths.
    QByteArray url = endpoint.toEncoded(QUrl::RemoveQuery | QUrl::StripTrailingSlash);
    url += '/' + uriEncode(m_config.bucket, false) + '/' + uriEncode(key, true);
    return QUrl::fromEncoded(url, QUrl::StrictMode);
}

Result<bool> ObjectStore::exists(const QString &key) const {
    const QUrl url = objectUrl(m_config.endpoint, key);
    auto reply = signedRequest(m_config, url, "HEAD", nullptr);
    if (!reply)
        return fail(reply.error());
    if (reply->first == 200)
        return true;
    if (reply->first == 404)
        return false;
    return fail(u"%1: %2"_s.arg(url.toString(), s3Error(reply->first, reply->second)));
}

Status ObjectStore::put(const QString &key, const QByteArray &data) const {
    const QUrl url = objectUrl(m_config.endpoint, key);
    auto reply = signedRequest(m_config, url, "PUT", &data);
    if (!reply)
        return fail(reply.error());
    if (reply->first != 200)
        return fail(u"%1: %2"_s.arg(url.toString(), s3Error(reply->first, reply->second)));
    return success();
}

QUrl ObjectStore::presignedGet(const QString &key, int expirySeconds, const QDateTime &now) const {
    const QUrl endpoint = m_config.podEndpoint.isValid() ? m_config.podEndpoint : m_config.endpoint;
    QUrl url = objectUrl(endpoint, key);
    const QByteArray date = now.toUTC().toString(u"yyyyMMdd"_s).toLatin1();
    const QByteArray stamp = now.toUTC().toString(u"yyyyMMdd'T'HHmmss'Z'"_s).toLatin1();
    const QByteArray scope = date + '/' + m_config.region.toUtf8() + "/s3/aws4_request";
    // Sorted by name, as the canonical request wants them.
    const QList<std::pair<QByteArray, QByteArray>> query{
        {"X-Amz-Algorithm", "AWS4-HMAC-SHA256"},
        {"X-Amz-Credential", m_config.accessKey.toUtf8() + '/' + scope},
        {"X-Amz-Date", stamp},
        {"X-Amz-Expires", QByteArray::number(std::clamp(expirySeconds, 1, 7 * 24 * 3600))},
        {"X-Amz-SignedHeaders", "host"}};
    QByteArray canonicalQuery;
    for (const auto &[name, value] : query)
        canonicalQuery += (canonicalQuery.isEmpty() ? "" : "&") + name + '=' +
                          uriEncode(QString::fromUtf8(value), false);
    const QByteArray canonicalRequest = "GET\n" + url.path(QUrl::FullyEncoded).toLatin1() + '\n' +
                                        canonicalQuery + "\nhost:" + hostHeader(url) +
                                        "\n\nhost\nUNSIGNED-PAYLOAD";
    const QByteArray toSign =
        "AWS4-HMAC-SHA256\n" + stamp + '\n' + scope + '\n' + sha256Hex(canonicalRequest);
    QByteArray key4 = hmac("AWS4" + m_config.secretKey.toUtf8(), date);
    key4 = hmac(key4, m_config.region.toUtf8());
    key4 = hmac(key4, "s3");
    key4 = hmac(key4, "aws4_request");
    const QByteArray signature = hmac(key4, toSign).toHex();
    url.setQuery(QString::fromLatin1(canonicalQuery + "&X-Amz-Signature=" + signature),
                 QUrl::StrictMode);
    return url;
}

} // namespace sb
