#include "collector/Collector.h"
#include "collector/EmbeddedCollector.h"
#include "metrics/CollectorClient.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

std::unique_ptr<sb::Collector> startCollector(const QString &dir, const QString &token = {},
                                              const QStringList &watch = {}) {
    sb::Collector::Options options;
    options.dataDir = dir;
    options.token = token;
    options.watchDirs = watch;
    auto collector = sb::Collector::start(options);
    if (!collector)
        qFatal("collector: %s", qPrintable(collector.error()));
    return std::move(collector).value();
}

// Sends a request through a real socket and waits for the answer (tests may block).
struct Reply {
    int status = 0;
    QByteArray body;
    QJsonValue json() const {
        const auto doc = QJsonDocument::fromJson(body);
        return doc.isArray() ? QJsonValue(doc.array()) : QJsonValue(doc.object());
    }
};

Reply send(const QUrl &base, const QString &pathAndQuery, const QByteArray &post = {},
           const QByteArray &token = {}) {
    static QNetworkAccessManager network;
    QUrl url = base;
    const qsizetype q = pathAndQuery.indexOf(u'?');
    url.setPath(pathAndQuery.left(q));
    if (q >= 0)
        url.setQuery(pathAndQuery.mid(q + 1));
    QNetworkRequest request(url);
    if (!token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + token);
    request.setHeader(QNetworkRequest::ContentTypeHeader, u"application/json"_s);
    QNetworkReply *reply = post.isNull() ? network.get(request) : network.post(request, post);
    QDeadlineTimer deadline(10000);
    while (!reply->isFinished() && !deadline.hasExpired())
        QTest::qWait(5);
    Reply out{reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll()};
    reply->deleteLater();
    return out;
}

} // namespace

class TestCollector final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pushQueryExport();
    void rejectsMalformedPushes_data();
    void rejectsMalformedPushes();
    void groups();
    void metricLines();
    void tokenRequired();
    void refusesOpenNetworkWithoutToken();
    void watchedDirectory();
    void embeddedOnItsOwnThread();
};

void TestCollector::pushQueryExport() {
    QTemporaryDir dir;
    auto collector = startCollector(dir.path());
    const QUrl url = collector->url();
    QCOMPARE(url.host(), u"127.0.0.1"_s);
    Reply r = send(url, u"/api/v1/push"_s,
                   R"({"run": "r1", "info": {"config": {"lr": 0.1}, "status": "running"},
        "series": {"loss": {"step": [0, 1, 2], "value": [3, 2, "NaN"], "time": [10, 11, 12]}},
        "records": [{"step": 3, "loss": 1.5, "acc": 0.5}]})");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.json().toObject().value(u"accepted"_s).toInt(), 5);

    r = send(url, u"/api/v1/runs?filter=lr"_s);
    QCOMPARE(r.status, 200);
    const QJsonObject run = r.json().toArray().at(0).toObject();
    QCOMPARE(run.value(u"name"_s).toString(), u"r1"_s);
    QCOMPARE(
        run.value(u"metrics"_s).toObject().value(u"loss"_s).toObject().value(u"count"_s).toInt(),
        4);
    QCOMPARE(send(url, u"/api/v1/runs?filter=nomatch"_s).json().toArray().size(), 0);
    // Each metric's smallest and largest finite values (the NaN is no value).
    const QJsonObject loss = run.value(u"metrics"_s).toObject().value(u"loss"_s).toObject();
    QCOMPARE(loss.value(u"min"_s).toDouble(), 1.5);
    QCOMPARE(loss.value(u"max"_s).toDouble(), 3.0);
    // The researcher's tags and note: kept, found by the filter, left alone by later updates.
    QCOMPARE(send(url, u"/api/v1/push"_s,
                  R"({"run": "r1", "info": {"tags": ["baseline", " ", "baseline"],
                      "note": "tried warmup"}})")
                 .status,
             200);
    QCOMPARE(
        send(url, u"/api/v1/push"_s, R"({"run": "r1", "info": {"status": "finished"}})").status,
        200);
    const QJsonArray tagged = send(url, u"/api/v1/runs?filter=warmup"_s).json().toArray();
    QCOMPARE(tagged.size(), 1);
    const sb::RunSummary annotated = sb::RunSummary::fromJson(tagged.at(0).toObject());
    QCOMPARE(annotated.info.tags, QStringList{u"baseline"_s});
    QCOMPARE(annotated.info.note, u"tried warmup"_s);
    QCOMPARE(annotated.info.status, u"finished"_s);
    // A note of a megabyte, or a thousand tags, would travel with every listing: refused.
    const QJsonObject longNote{{u"run"_s, u"r1"_s},
                               {u"info"_s, QJsonObject{{u"note"_s, QString(70000, u'x')}}}};
    r = send(url, u"/api/v1/push"_s, QJsonDocument(longNote).toJson());
    QCOMPARE(r.status, 400);
    QVERIFY(r.json().toObject().value(u"error"_s).toString().contains(u"note"_s));
    QJsonArray manyTags;
    for (int i = 0; i < 101; ++i)
        manyTags.append(u"t%1"_s.arg(i));
    const QJsonObject tooManyTags{{u"run"_s, u"r1"_s},
                                  {u"info"_s, QJsonObject{{u"tags"_s, manyTags}}}};
    QCOMPARE(send(url, u"/api/v1/push"_s, QJsonDocument(tooManyTags).toJson()).status, 400);
    QCOMPARE(sb::RunSummary::fromJson(
                 send(url, u"/api/v1/runs?filter=warmup"_s).json().toArray().at(0).toObject())
                 .info.note,
             u"tried warmup"_s); // nothing of a refused push was kept

    QCOMPARE(send(url, u"/api/v1/metrics"_s).json().toArray(), QJsonArray({u"acc"_s, u"loss"_s}));
    QCOMPARE(send(url, u"/api/v1/metrics?run=ghost"_s).json().toArray(), QJsonArray());

    r = send(url, u"/api/v1/series?run=r1&run=ghost&metric=loss&width=100&smoothing=0.5"_s);
    const QJsonArray series = r.json().toObject().value(u"series"_s).toArray();
    QCOMPARE(series.size(), 2);
    QCOMPARE(series[0].toObject().value(u"x"_s).toArray().size(), 4);
    QVERIFY(series[0].toObject().value(u"y"_s).toArray().at(2).isNull()); // NaN travels as null
    QCOMPARE(series[0].toObject().value(u"rawY"_s).toArray().at(0).toDouble(), 3.0);
    QVERIFY(series[1].toObject().contains(u"error"_s));

    r = send(url, u"/api/v1/export?run=r1&metric=acc"_s);
    QCOMPARE(r.status, 200);
    QVERIFY(r.body.startsWith("step,value,wall_time\n3,0.5,"));
    QCOMPARE(send(url, u"/api/v1/export?run=r1&metric=nope"_s).status, 404);
    QCOMPARE(send(url, u"/api/v1/nothing"_s).status, 404);
    QCOMPARE(send(url, u"/api/v1/series?run=r1&metric=loss&x=sideways"_s).status, 400);
    // A running average instead of the EMA: over 3 points at 0.5; NaN passes, 1.5 averages 3, 2.
    r = send(url, u"/api/v1/series?run=r1&metric=loss&smoothing=0.5&smoothing_kind=average"_s);
    const QJsonArray averaged =
        r.json().toObject().value(u"series"_s).toArray().at(0).toObject().value(u"y"_s).toArray();
    QCOMPARE(averaged.size(), 4);
    QCOMPARE(averaged.at(1).toDouble(), 2.5);
    QCOMPARE(averaged.at(3).toDouble(), (3 + 2 + 1.5) / 3);
    QCOMPARE(
        send(url, u"/api/v1/series?run=r1&metric=loss&smoothing=0.5&smoothing_kind=x"_s).status,
        400);
}

void TestCollector::groups() {
    QTemporaryDir dir;
    auto collector = startCollector(dir.path());
    const QUrl url = collector->url();
    // Two seeds whose steps do not line up, and a third run that stops at step 4.
    QCOMPARE(send(url, u"/api/v1/push"_s,
                  R"({"run": "s1", "series": {"loss": {"step": [0, 2, 4, 6, 8],
                      "value": [5, 4, 3, 2, 1], "time": [0, 1, 2, 3, 4]}}})")
                 .status,
             200);
    QCOMPARE(send(url, u"/api/v1/push"_s,
                  R"({"run": "s2", "series": {"loss": {"step": [1, 3, 5, 7],
                      "value": [6, 4, 2, 0], "time": [0, 1, 2, 3]}}})")
                 .status,
             200);
    QCOMPARE(send(url, u"/api/v1/push"_s,
                  R"({"run": "short", "series": {"loss": {"step": [0, 4], "value": [9, 9],
                      "time": [0, 1]}}})")
                 .status,
             200);
    Reply r = send(url, u"/api/v1/groups"_s,
                   R"({"metric": "loss", "width": 4, "center": "mean", "band": "minmax",
                       "groups": [{"name": "seeds", "runs": ["s1", "s2", "ghost", "s1"]},
                                  {"name": "alone", "runs": ["short"]}]})");
    QCOMPARE(r.status, 200);
    const sb::GroupReplies replies = sb::GroupReplies::fromJson(r.json().toObject());
    QCOMPARE(replies.groups.size(), std::size_t(2));
    const sb::GroupReply &seeds = replies.groups[0];
    QCOMPARE(seeds.runs, QStringList({u"s1"_s, u"s2"_s})); // s1 counts once
    QCOMPARE(seeds.missing, QStringList({u"ghost"_s}));
    // Columns of width 2 over 0..8: s1 has 5, 4, 3, then (2 + 1) / 2 (steps 6 and 8 share the
    // last); s2 has 6, 4, 2, 0.
    QCOMPARE(seeds.curve.x, std::vector<double>({1, 3, 5, 7}));
    QCOMPARE(seeds.curve.center, std::vector<double>({5.5, 4, 2.5, 0.75}));
    QCOMPARE(seeds.curve.lower, std::vector<double>({5, 4, 2, 0}));
    QCOMPARE(seeds.curve.upper, std::vector<double>({6, 4, 3, 1.5}));
    QCOMPARE(seeds.curve.members, std::vector<int>({2, 2, 2, 2}));
    // The short run ends in the third column: it is not drawn past its end.
    QCOMPARE(replies.groups[1].curve.x, std::vector<double>({1, 3, 5}));

    QCOMPARE(send(url, u"/api/v1/groups"_s, "[1, 2]").status, 400);
    QCOMPARE(send(url, u"/api/v1/groups"_s, R"({"metric": "loss", "band": "quartiles"})").status,
             400);
    QCOMPARE(send(url, u"/api/v1/groups"_s, R"({"groups": []})").status, 400);
    // A group's values are held at once: a request beyond what that allows is refused, clearly.
    QByteArray lines;
    QJsonArray many;
    for (int i = 0; i < 1001; ++i) {
        lines +=
            "@signalbox {\"run\": \"m" + QByteArray::number(i) + "\", \"step\": 0, \"loss\": 1}\n";
        many.append(u"m%1"_s.arg(i));
    }
    QCOMPARE(send(url, u"/api/v1/lines?run=m0"_s, lines).status, 200);
    const QJsonObject huge{
        {u"metric"_s, u"loss"_s},
        {u"width"_s, 20000},
        {u"groups"_s, QJsonArray{QJsonObject{{u"name"_s, u"all"_s}, {u"runs"_s, many}}}}};
    r = send(url, u"/api/v1/groups"_s, QJsonDocument(huge).toJson());
    QCOMPARE(r.status, 400);
    QVERIFY(r.json().toObject().value(u"error"_s).toString().contains(u"fewer columns"_s));
    r = send(url, u"/api/v1/groups"_s, R"({"metric": "nothing", "groups": [{"runs": ["s1"]}]})");
    QCOMPARE(r.status, 200);
    QCOMPARE(sb::GroupReplies::fromJson(r.json().toObject()).groups.at(0).missing,
             QStringList({u"s1"_s}));
}

void TestCollector::rejectsMalformedPushes_data() {
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("message");
    QTest::newRow("not JSON") << QByteArray("{\"run\": ") << u"not a JSON object"_s;
    QTest::newRow("no run") << QByteArray(R"({"series": {}})") << u"no \"run\""_s;
    QTest::newRow("lengths differ")
        << QByteArray(R"({"run": "r", "series": {"a": {"step": [1], "value": [1, 2]}}})")
        << u"same length"_s;
    QTest::newRow("string value")
        << QByteArray(R"({"run": "r", "series": {"a": {"step": [1], "value": ["x"]}}})")
        << u"not a number"_s;
    QTest::newRow("good series, record of another run")
        << QByteArray(
               R"({"run": "r", "series": {"a": {"step": [1], "value": [1]}}, "records": [{"run": "x", "b": 1}]})")
        << u"names run"_s;
    QTest::newRow("bad record") << QByteArray(
                                       R"({"run": "r", "records": [{"loss": 1}, {"note": "x"}]})")
                                << u"record 1"_s;
}

void TestCollector::rejectsMalformedPushes() {
    QFETCH(QByteArray, body);
    QFETCH(QString, message);
    QTemporaryDir dir;
    auto collector = startCollector(dir.path());
    const Reply r = send(collector->url(), u"/api/v1/push"_s, body);
    QCOMPARE(r.status, 400);
    QVERIFY2(r.json().toObject().value(u"error"_s).toString().contains(message),
             r.body.constData());
    QCOMPARE(collector->store().totalPoints(), 0);
}

void TestCollector::metricLines() {
    QTemporaryDir dir;
    auto collector = startCollector(dir.path());
    const Reply r =
        send(collector->url(), u"/api/v1/lines?run=job-1"_s,
             "epoch 1\n@signalbox {\"loss\": 1}\n@signalbox {\"loss\": 0.5}\n"
             "@signalbox {broken\nplain text\n@signalbox {\"step\": 10, \"loss\": 0.25}\n");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.json().toObject().value(u"accepted"_s).toInt(), 3);
    QCOMPARE(r.json().toObject().value(u"errors"_s).toArray().size(), 1);
    const auto q = collector->store().query(u"job-1"_s, u"loss"_s, {});
    QCOMPARE(q->x, (std::vector<double>{0, 1, 10})); // missing steps count up from the last one
}

void TestCollector::tokenRequired() {
    QTemporaryDir dir;
    auto collector = startCollector(dir.path(), u"s3cret"_s);
    QCOMPARE(send(collector->url(), u"/api/v1/health"_s).status, 401);
    QCOMPARE(send(collector->url(), u"/api/v1/health"_s, {}, "wrong!").status, 401);
    QCOMPARE(send(collector->url(), u"/api/v1/health"_s, {}, "s3cret").status, 200);
}

void TestCollector::refusesOpenNetworkWithoutToken() {
    QTemporaryDir dir;
    sb::Collector::Options options;
    options.dataDir = dir.path();
    options.address = QHostAddress::Any;
    const auto refused = sb::Collector::start(options);
    QVERIFY(!refused.ok());
    QVERIFY(refused.error().contains(u"token"_s));
}

void TestCollector::watchedDirectory() {
    QTemporaryDir data, logs;
    QDir().mkpath(logs.path() + u"/sweep"_s);
    auto write = [](const QString &path, const QByteArray &text) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::Append));
        f.write(text);
    };
    write(logs.path() + u"/sweep/a.jsonl"_s,
          "{\"step\": 0, \"loss\": 1}\n{\"step\": 1, \"loss\": 0.5}\n{\"step\": 2, ");
    write(logs.path() + u"/b.csv"_s, "step,loss,acc\n0,2,0.1\n1,oops,0.2\n");
    {
        auto collector = startCollector(data.path(), {}, {logs.path()});
        QTRY_COMPARE(collector->store().totalPoints(), 4); // a: 2 lines; b: one good row of 2
        write(logs.path() + u"/sweep/a.jsonl"_s, "\"loss\": 0.25}\n");
        QTRY_COMPARE(collector->store().series(u"sweep/a"_s).at(0).count, 3);
        const QJsonArray sources = collector->health().sources;
        bool sawError = false;
        for (const auto &s : sources)
            sawError |= s.toObject().value(u"lastError"_s).toString().contains(u"oops"_s);
        QVERIFY(sawError);
    }
    write(logs.path() + u"/b.csv"_s, "2,1,0.3\n");
    auto collector = startCollector(data.path(), {}, {logs.path()});
    QTRY_COMPARE(collector->store().totalPoints(), 7); // only the new row, nothing twice
}

void TestCollector::embeddedOnItsOwnThread() {
    QTemporaryDir dir;
    sb::Collector::Options options;
    options.dataDir = dir.path();
    auto embedded = sb::EmbeddedCollector::start(options);
    QVERIFY(embedded.ok());
    QCOMPARE(send((*embedded)->url(), u"/api/v1/health"_s).status, 200);
    // The store is locked while it runs: a second collector on the same data is refused.
    const auto second = sb::EmbeddedCollector::start(options);
    QVERIFY(!second.ok());
    QVERIFY(second.error().contains(u"in use"_s));
    // A taken port says so by its code, so the app can pick another one.
    QTemporaryDir other;
    options.dataDir = other.path();
    options.port = static_cast<quint16>((*embedded)->url().port());
    const auto taken = sb::EmbeddedCollector::start(options);
    QVERIFY(!taken.ok());
    QCOMPARE(taken.errorCode(), sb::ErrorCode::AddressInUse);
}

QTEST_GUILESS_MAIN(TestCollector)
#include "tst_collector.moc"
