#pragma once

#include "util/Result.h"

#include <QByteArray>
#include <QList>
#include <QUrl>

namespace sb {

// One HTTP request over libcurl, which verifies TLS. It blocks: run it off the GUI thread.
struct CurlRequest {
    QByteArray method = "GET";
    QUrl url;
    QList<QByteArray> headers; // "Name: value"
    const QByteArray *body = nullptr;
    QByteArray credentials; // "user:password": basic authentication, or the AWS key and secret
    QByteArray awsSigV4;    // "aws:amz:REGION:SERVICE": the request signed with AWS SigV4
    long connectTimeoutS = 15;
    long stalledAfterS = 60; // a peer that sends nothing for this long fails the request
    qint64 mostAnswerBytes = qint64(256) << 20; // a longer answer fails the request
};

struct CurlReply {
    long status = 0;
    QByteArray body;
};

// The status and body, or why none came (the URL without its query and credentials first).
Result<CurlReply> perform(const CurlRequest &request);

} // namespace sb
