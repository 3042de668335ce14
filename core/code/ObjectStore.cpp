#include "ObjectStore.h"

#include "net/CurlRequest.h"

#include <QCryptographicHash>
#include <QMessageAuthenticationCode>
#include <QUrlQuery>

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

// The S3 error's <Message>, or the HTTP status.
QString s3Error(long status, const QByteArray &body) {
    const qsizetype from = body.indexOf("<Message>");
    const qsizetype to = body.indexOf("</Message>");
    if (from >= 0 && to > from)
        return u"HTTP %1: %2"_s.arg(status).arg(
            QString::fromUtf8(body.mid(from + 9, to - from - 9)));
    return u"HTTP %1"_s.arg(status);
}

// One signed request; the status and body, or why none came.
Result<CurlReply> signedRequest(const ObjectStoreConfig &config, const QUrl &url,
                                const char *method, const QByteArray *upload) {
    CurlRequest request;
    request.method = method;
    request.url = url;
    request.awsSigV4 = "aws:amz:" + config.region.toUtf8() + ":s3";
    request.credentials = config.accessKey.toUtf8() + ':' + config.secretKey.toUtf8();
    // S3 wants the payload's hash signed; libcurl signs the header given here.
    request.headers << "x-amz-content-sha256: " + sha256Hex(upload ? *upload : QByteArray());
    if (upload) {
        request.body = upload;
        request.headers << "Content-Type: application/gzip";
    }
    return perform(request);
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
    if (reply->status == 200)
        return true;
    if (reply->status == 404)
        return false;
    return fail(u"%1: %2"_s.arg(url.toString(), s3Error(reply->status, reply->body)));
}

Status ObjectStore::put(const QString &key, const QByteArray &data) const {
    const QUrl url = objectUrl(m_config.endpoint, key);
    auto reply = signedRequest(m_config, url, "PUT", &data);
    if (!reply)
        return fail(reply.error());
    if (reply->status != 200)
        return fail(u"%1: %2"_s.arg(url.toString(), s3Error(reply->status, reply->body)));
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
