// Objects in a real S3-compatible store (versitygw on loopback): SigV4-signed PUT and HEAD over
// libcurl, refusals in plain words, and presigned GET URLs that plain curl can fetch, unsigned,
// until they expire.
#include "../support/ObjectStoreServer.h"

#include <QTest>

using namespace Qt::StringLiterals;

class TestObjectStore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void putHeadAndPresignedGet();
    void refusalsSayWhy();
};

namespace {

// What plain curl gets from `url`: the body, or "HTTP <status>".
QByteArray curlGet(const QUrl &url) {
    QProcess curl;
    curl.start(u"curl"_s,
               {u"-s"_s, u"-w"_s, u"\n%{http_code}"_s, url.toString(QUrl::FullyEncoded)});
    curl.waitForFinished();
    QByteArray out = curl.readAllStandardOutput();
    const qsizetype cut = out.lastIndexOf('\n');
    const QByteArray status = out.mid(cut + 1);
    return status == "200" ? out.left(cut) : "HTTP " + status;
}

} // namespace

void TestObjectStore::putHeadAndPresignedGet() {
    ObjectStoreServer server;
    QVERIFY2(server.error().isEmpty(), qPrintable(server.error()));
    const sb::ObjectStore store(server.config());
    const QString key = u"signalbox/code/abc 123+x.tar.gz"_s; // spaces and plus signs survive
    const auto absent = store.exists(key);
    QVERIFY2(absent, qPrintable(absent.error()));
    QCOMPARE(absent.value(), false);
    QByteArray data(3 << 20, '\0');
    for (qsizetype i = 0; i < data.size(); ++i)
        data[i] = static_cast<char>(i * 7919 % 251);
    const sb::Status put = store.put(key, data);
    QVERIFY2(put, qPrintable(put.error()));
    QCOMPARE(store.exists(key).value(), true);
    QFile stored(server.objectFile(key));
    QVERIFY(stored.open(QIODevice::ReadOnly));
    QCOMPARE(stored.readAll(), data);

    QCOMPARE(curlGet(store.presignedGet(key, 600)), data);
    // Signed an hour ago for ten minutes: expired.
    QCOMPARE(curlGet(store.presignedGet(key, 600, QDateTime::currentDateTimeUtc().addSecs(-3600))),
             QByteArray("HTTP 403"));
    QUrl tampered = store.presignedGet(key, 600);
    tampered.setPath(tampered.path().replace(u"abc"_s, u"abd"_s));
    QCOMPARE(curlGet(tampered), QByteArray("HTTP 403"));
}

void TestObjectStore::refusalsSayWhy() {
    ObjectStoreServer server;
    QVERIFY2(server.error().isEmpty(), qPrintable(server.error()));
    sb::ObjectStoreConfig wrong = server.config();
    wrong.secretKey = u"not-the-secret"_s;
    const sb::Status put = sb::ObjectStore(wrong).put(u"x"_s, "data");
    QVERIFY(!put);
    QVERIFY2(put.error().contains(u"HTTP 403"_s) &&
                 put.error().contains(u"signature"_s, Qt::CaseInsensitive),
             qPrintable(put.error()));
    sb::ObjectStoreConfig closed = server.config();
    closed.endpoint = QUrl(u"http://127.0.0.1:9"_s);
    const auto exists = sb::ObjectStore(closed).exists(u"x"_s);
    QVERIFY(!exists);
    QVERIFY2(exists.error().contains(u"Couldn't connect"_s) ||
                 exists.error().contains(u"connect"_s, Qt::CaseInsensitive),
             qPrintable(exists.error()));
}

QTEST_GUILESS_MAIN(TestObjectStore)
#include "tst_objectstore.moc"
