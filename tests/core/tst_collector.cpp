#include "client/CollectorClient.h"
#include "collector/Collector.h"
#include "collector/EmbeddedCollector.h"
#include "lab/ClickHouse.h"

#include <QBuffer>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QtEndian>

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

// A columnar push body: each group is {metrics, rows of {step, time, values...}}; `time` false
// leaves the time column out.
struct ColumnGroup {
    QStringList metrics;
    std::vector<std::vector<double>> rows; // step, [time], one value per metric
    bool time = true;
    QJsonValue declaredRows = QJsonValue::Null; // what the header says, when not rows.size()
};
// The magic, the header's length, the header and the padding before the columns.
QByteArray columnsHeader(const QByteArray &text) {
    QByteArray body = "SBC1";
    char size[4];
    qToLittleEndian<quint32>(quint32(text.size()), size);
    body.append(size, 4).append(text);
    return body.append(QByteArray((8 - body.size() % 8) % 8, '\0'));
}
QByteArray columnsBody(const QJsonObject &fields, const std::vector<ColumnGroup> &groups) {
    QJsonObject header = fields;
    QJsonArray list;
    for (const ColumnGroup &g : groups)
        list.append(
            QJsonObject{{u"rows"_s, g.declaredRows.isNull() ? QJsonValue(qint64(g.rows.size()))
                                                            : g.declaredRows},
                        {u"metrics"_s, QJsonArray::fromStringList(g.metrics)},
                        {u"time"_s, g.time}});
    header[u"groups"_s] = list;
    QByteArray body = columnsHeader(QJsonDocument(header).toJson(QJsonDocument::Compact));
    for (const ColumnGroup &g : groups) {
        const std::size_t columns = g.rows.empty() ? 0 : g.rows.front().size();
        for (std::size_t c = 0; c < columns; ++c) {
            for (const auto &row : g.rows) {
                char value[8];
                qToLittleEndian<double>(row[c], value);
                body.append(value, 8);
            }
        }
    }
    return body;
}

} // namespace

class TestCollector final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pushQueryExport();
    void rejectsMalformedPushes_data();
    void rejectsMalformedPushes();
    void columnarPush();
    void groups();
    void metricLines();
    void tokenRequired();
    void refusesOpenNetworkWithoutToken();
    void watchedDirectory();
    void embeddedOnItsOwnThread();
    void manyRunsAreAskedForInParts();
    void seriesAnswersWrittenAndReadAsText();
    void runsAnswersWrittenAndReadAsText();
    void labRowsReadBackAsWritten();
    void aStatusIsOneWord();
    void aDataFileCutShortIsAnError();
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
    // An integer past 64 bits (simdjson refuses it; Qt reads it as a double) is stored too.
    r = send(
        url, u"/api/v1/push"_s,
        R"({"run": "zz-huge", "series": {"loss": {"step": [1], "value": [123456789012345678901234567890]}}})");
    QCOMPARE(r.json()[u"accepted"_s].toInteger(), 1);
    QCOMPARE(collector->store().series(u"zz-huge"_s).at(0).last.value, 1.2345678901234568e29);
    // Pages in name order: r1 and five more runs.
    for (const char *name : {"p1", "p2", "p3", "p4", "p5"})
        QCOMPARE(send(url, u"/api/v1/push"_s,
                      QByteArray("{\"run\": \"") + name + "\", \"info\": {\"host\": \"pager\"}}")
                     .status,
                 200);
    auto names = [&](const QString &query) {
        QStringList out;
        for (const QJsonValue listed : send(url, u"/api/v1/runs?"_s + query).json().toArray())
            out << listed[u"name"_s].toString();
        return out;
    };
    QCOMPARE(names(u"limit=2"_s), (QStringList{u"p1"_s, u"p2"_s}));
    QCOMPARE(names(u"limit=2&offset=4"_s), (QStringList{u"p5"_s, u"r1"_s}));
    QCOMPARE(names(u"filter=pager&offset=3&limit=10"_s), (QStringList{u"p4"_s, u"p5"_s}));
    QCOMPARE(names(u"limit=0"_s), QStringList());
    QCOMPARE(names(u"limit=-5&offset=-3"_s).size(), 0); // a negative limit is none
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

void TestCollector::columnarPush() {
    QTemporaryDir dir;
    auto collector = startCollector(dir.path());
    const QUrl url = collector->url();
    const QString path = QString::fromLatin1(sb::CollectorApi::kPushColumns);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // Two stretches of rows with different metrics: "loss" gets its points in group order.
    const QByteArray body =
        columnsBody({{u"run"_s, u"c1"_s},
                     {u"batch"_s, u"b1"_s},
                     {u"info"_s, QJsonObject{{u"status"_s, u"running"_s}}}},
                    {{{u"loss"_s, u"acc"_s}, {{0, 10, 3, 0.1}, {1, 11, 2, nan}}},
                     {{u"loss"_s}, {{2, 12, 1}}},
                     {{u"lr"_s}, {{5, 1e-3}}, false}});
    Reply r = send(url, path, body);
    QCOMPARE(r.status, 200);
    QCOMPARE(r.json()[u"accepted"_s].toInteger(), 6);
    QCOMPARE(send(url, path, body).json()[u"accepted"_s].toInteger(), 6); // a retry: stored once
    QByteArray csv;
    QBuffer out(&csv);
    out.open(QIODevice::WriteOnly);
    QVERIFY(collector->store().exportCsv(u"c1"_s, u"loss"_s, &out));
    QCOMPARE(csv,
             QByteArray("step,value,wall_time\n0,3,10.000000\n1,2,11.000000\n2,1,12.000000\n"));
    const auto series = collector->store().series(u"c1"_s);
    QCOMPARE(series.size(), 3u);
    QVERIFY(std::isnan(series[0].last.value)); // acc
    QCOMPARE(series[1].metric, u"loss"_s);
    QCOMPARE(series[1].count, 3);
    QVERIFY(series[2].last.wall > 1.7e9); // lr: no time column, the time of arrival
    QCOMPARE(collector->store().run(u"c1"_s)->status, u"running"_s);

    // Hostile bodies: each refused with 400 and nothing stored.
    QByteArray headerPastEnd = body;
    qToLittleEndian<quint32>(0xFFFFFFF0u, headerPastEnd.data() + 4);
    const QByteArray good = columnsBody({{u"run"_s, u"h"_s}}, {{{u"x"_s}, {{1, 2, 3}, {2, 3, 4}}}});
    auto declaring = [](double rows) {
        return columnsBody({{u"run"_s, u"h"_s}}, {{{u"x"_s}, {{1, 2, 3}, {2, 3, 4}}, true, rows}});
    };
    const QByteArray hugeRows = declaring(9e18), negativeRows = declaring(-2),
                     fractionalRows = declaring(1.5);
    const struct {
        const char *what;
        QByteArray body;
        const char *says;
    } hostile[] = {
        {"empty", QByteArray(""), "not a columnar push"},
        {"JSON", "{\"run\":\"h\"}", "not a columnar push"},
        {"header past the end", headerPastEnd, "runs past the body"},
        {"truncated column", good.chopped(3), "run past the body"},
        {"bytes past the end", good + QByteArray(8, '\0'), "past its last column"},
        {"rows 9e18", hugeRows, "run past the body"},
        {"negative rows", negativeRows, "needs \"rows\""},
        {"fractional rows", fractionalRows, "needs \"rows\""},
        {"no groups", columnsHeader("{\"run\":\"h\"}"), "needs \"groups\""},
        {"a header that is no object", columnsHeader("[1]"), "not a JSON object"},
        {"no run", columnsBody({}, {{{u"x"_s}, {{1, 2, 3}}}}), "names no \"run\""},
        {"a name twice", columnsBody({{u"run"_s, u"h"_s}}, {{{u"x"_s, u"x"_s}, {{1, 2, 3, 4}}}}),
         "once per group"},
        {"an empty name", columnsBody({{u"run"_s, u"h"_s}}, {{{u""_s}, {{1, 2, 3}}}}),
         "non-empty string"},
        {"series in the header",
         columnsBody({{u"run"_s, u"h"_s}, {u"series"_s, QJsonObject()}}, {}), "in columns"},
        {"a NaN step", columnsBody({{u"run"_s, u"h"_s}}, {{{u"x"_s}, {{nan, 2, 3}}}}),
         "step nan is not a finite number"},
        {"a step past 2^53", columnsBody({{u"run"_s, u"h"_s}}, {{{u"x"_s}, {{1e300, 2, 3}}}}),
         "within +-2^53"},
    };
    for (const auto &h : hostile) {
        r = send(url, path, h.body);
        QVERIFY2(r.status == 400, h.what);
        QVERIFY2(r.json()[u"error"_s].toString().contains(QLatin1StringView(h.says)),
                 qPrintable(QLatin1StringView(h.what) + u": "_s + r.json()[u"error"_s].toString()));
    }
    QVERIFY(!collector->store().run(u"h"_s));
    QCOMPARE(send(url, path, good).status, 200);
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
    QJsonObject huge{
        {u"metric"_s, u"loss"_s},
        {u"width"_s, 20000},
        {u"groups"_s, QJsonArray{QJsonObject{{u"name"_s, u"all"_s}, {u"runs"_s, many}}}}};
    r = send(url, u"/api/v1/groups"_s, QJsonDocument(huge).toJson());
    QCOMPARE(r.status, 400); // past the widest chart
    QVERIFY(r.json().toObject().value(u"error"_s).toString().contains(u"width must be"_s));
    // The members of all groups count together: 3 × 1,001 runs × 10,000 columns is too much.
    huge[u"width"_s] = 10000;
    const QJsonObject all{{u"name"_s, u"all"_s}, {u"runs"_s, many}};
    huge[u"groups"_s] = QJsonArray{all, all, all};
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
    // Its secret is required: without it 401, with it 200.
    QCOMPARE((*embedded)->token().size(), 64);
    QCOMPARE(send((*embedded)->url(), u"/api/v1/health"_s).status, 401);
    QCOMPARE(
        send((*embedded)->url(), u"/api/v1/health"_s, {}, (*embedded)->token().toUtf8()).status,
        200);
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

// One chart of 1,200 runs at 2,000 pixels is more than the collector answers at once (runs ×
// width ≤ 1,000,000): the client asks in parts and hands on every run's curve, in order.
void TestCollector::manyRunsAreAskedForInParts() {
    QTemporaryDir dir;
    sb::Collector::Options options;
    options.dataDir = dir.path();
    auto embedded = sb::EmbeddedCollector::start(options);
    QVERIFY(embedded.ok());
    sb::CollectorClient client((*embedded)->url(), (*embedded)->token());
    QStringList runs;
    int pushed = 0;
    int refused = 0;
    for (int i = 0; i < 1200; ++i) {
        runs << u"seed-%1"_s.arg(i);
        const QJsonObject series{
            {u"loss"_s, QJsonObject{{u"step"_s, QJsonArray{0}}, {u"value"_s, QJsonArray{i}}}}};
        client.push(
            QJsonDocument(QJsonObject{{u"run"_s, runs.last()}, {u"series"_s, series}}).toJson(),
            &client, [&](const sb::Result<qint64> &stored) { ++(stored ? pushed : refused); });
    }
    QTRY_VERIFY_WITH_TIMEOUT(pushed + refused == 1200, 60000);
    QCOMPARE(refused, 0);
    sb::SeriesWindow window;
    window.width = 2000;
    std::optional<sb::Result<sb::SeriesReplies>> answer;
    client.series(runs, u"loss"_s, window, false, &client,
                  [&](const sb::Result<sb::SeriesReplies> &got) { answer = got; });
    QTRY_VERIFY_WITH_TIMEOUT(answer.has_value(), 20000);
    QVERIFY2(answer->ok(), answer->ok() ? "" : qPrintable(answer->error()));
    QCOMPARE((*answer)->series.size(), size_t(1200));
    for (size_t i = 0; i < 1200; ++i) {
        QCOMPARE((*answer)->series[i].run, runs[static_cast<qsizetype>(i)]);
        QCOMPARE((*answer)->series[i].y, std::vector<double>{double(i)});
    }
}

// A data file cut short (here while an export streams, after its 200 went out): the export ends
// without its last chunk, so the client sees a cut body, and /series and /groups answer 500 with
// the reason, never points of zeros.
void TestCollector::aDataFileCutShortIsAnError() {
    QTemporaryDir dir;
    auto collector = startCollector(dir.path());
    const QUrl url = collector->url();
    sb::SeriesPoints loss{u"loss"_s, {}};
    for (int i = 0; i < 1'000'000; ++i) // far more CSV than the sockets hold
        loss.points.push_back({double(i), i * 0.5, 1.7e9 + i});
    QVERIFY(collector->store().append(u"r"_s, {loss}).ok());

    QTcpSocket socket;
    socket.setReadBufferSize(1 << 16);
    socket.connectToHost(url.host(), quint16(url.port()));
    QTRY_VERIFY(socket.state() == QAbstractSocket::ConnectedState);
    socket.write("GET /api/v1/export?run=r&metric=loss HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    QTRY_VERIFY(socket.bytesAvailable() > 0);
    QByteArray received = socket.readAll();
    QVERIFY2(received.startsWith("HTTP/1.1 200"), received.left(200).constData());
    const QDir data(dir.path() + u"/data"_s);
    const QStringList files = data.entryList(QDir::Files);
    QCOMPARE(files.size(), 1);
    QFile file(data.filePath(files.first()));
    QVERIFY(file.resize(16 + 10 * 24)); // the header and the first 10 points are left
    socket.setReadBufferSize(0);
    QTRY_VERIFY_WITH_TIMEOUT(
        (received += socket.readAll(), socket.state() == QAbstractSocket::UnconnectedState), 30000);
    received += socket.readAll();
    QVERIFY(!received.endsWith("0\r\n\r\n")); // no last chunk: the body is cut
    QVERIFY(received.size() < qsizetype(loss.points.size()) * 20);

    Reply r = send(url, u"/api/v1/series?run=r&metric=loss&width=100"_s);
    QCOMPARE(r.status, 500);
    QVERIFY2(r.json()[u"error"_s].toString().contains(u"cut short"_s), r.body.constData());
    r = send(url, u"/api/v1/groups"_s,
             R"({"metric": "loss", "width": 10, "groups": [{"name": "g", "runs": ["r"]}]})");
    QCOMPARE(r.status, 500);
    QVERIFY2(r.json()[u"error"_s].toString().contains(u"cut short"_s), r.body.constData());
}

void TestCollector::seriesAnswersWrittenAndReadAsText() {
    // The /series answer is written and read without Qt's JSON objects: what any JSON reader
    // reads of it, and what comes back, is what was sent, names and numbers alike.
    sb::SeriesReplies sent;
    sent.metric = u"val/loss \"quoted\" \\ back"_s;
    const QString hostile = u"run\n\t\x01\u2028 名前 </script>"_s;
    const double tiny = std::numeric_limits<double>::denorm_min();
    sent.series.push_back({.run = hostile,
                           .metric = sent.metric,
                           .total = 5,
                           .inRange = 4,
                           .x = {0, 1e300, -2.5, tiny, 0x1p64, -1.2345678901234567e19},
                           .y = {qQNaN(), qInf(), -qInf(), 1.0 / 3, -0.0, 7}});
    sent.series.push_back({.run = u"r2"_s, .metric = u"acc"_s, .error = u"no such metric"_s});
    sent.series.push_back(
        {.run = u"r3"_s, .metric = u"acc"_s, .x = {1}, .y = {2}, .rawX = {1, 1.5}, .rawY = {3, 4}});
    const QByteArray text = sent.toJsonText();
    QJsonParseError error{};
    const QJsonObject qt = QJsonDocument::fromJson(text, &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(qt.value(u"metric"_s).toString(), sent.metric);
    const QJsonObject first = qt.value(u"series"_s).toArray().at(0).toObject();
    QCOMPARE(first.value(u"run"_s).toString(), hostile);
    QVERIFY(first.value(u"y"_s).toArray().at(0).isNull()); // NaN and infinities: null
    QCOMPARE(first.value(u"x"_s).toArray().at(3).toDouble(), tiny);
    for (const sb::SeriesReplies &back :
         {sb::SeriesReplies::fromJsonText(text).value(), sb::SeriesReplies::fromJson(qt)}) {
        QCOMPARE(back.metric, sent.metric);
        QCOMPARE(back.series.size(), size_t(3));
        QCOMPARE(back.series[0].run, hostile);
        QCOMPARE(back.series[0].total, 5);
        QCOMPARE(back.series[0].x, sent.series[0].x);
        QVERIFY(std::isnan(back.series[0].y[0]) && std::isnan(back.series[0].y[1]));
        QCOMPARE(back.series[0].y[3], 1.0 / 3);
        QCOMPARE(back.series[1].error, u"no such metric"_s);
        QCOMPARE(back.series[1].metric, u"acc"_s);
        QCOMPARE(back.series[2].rawY, (std::vector<double>{3, 4}));
    }
    for (const QByteArray &bad :
         {QByteArray("[1,2]"), QByteArray("{\"series\": 3}"), QByteArray("{\"series\": [1]}"),
          QByteArray("{\"metric\""), QByteArray("{}")}) {
        const auto read = sb::SeriesReplies::fromJsonText(bad);
        QVERIFY2(!read && read.error().contains(u"could not be read"_s), bad.constData());
    }
}

void TestCollector::runsAnswersWrittenAndReadAsText() {
    // /runs is written and read as text too: Qt's reader and the app's read back what was sent.
    sb::RunSummary full;
    const QString hostile = u"run\n\t\x01\u2028 名前 </script> \"q\" \\"_s;
    full.info = sb::RunInfo::fromJson(
        hostile, QJsonDocument::fromJson(R"({"status": "running", "host": "gpu-1", "start": 1.7e9,
            "end": 1.8e9, "last_seen": 1.75e9, "sweep": "s", "tags": ["a", "b c"], "note": "<b>n</b>",
            "archived": true, "code": {"commit": "abc"}, "environment": {"python": "3.12"},
            "forked_from": {"run": "p", "step": 10},
            "config": {"lr": 0.001, "big": 9007199254740993, "neg": -1e308, "flag": false,
                       "none": null, "nested": {"list": [1, "x", null, {"k": []}]}, "": "empty",
                       "least": -9223372036854775808}})")
                     .object());
    full.metrics.insert(u"loss"_s, {12, {11, 0.25, 1.7e9 + 0.5}, {{-1e300, 4}}});
    full.metrics.insert(u"nan"_s, {3, {2, qQNaN(), 1.7e9}, std::nullopt});
    full.metrics.insert(u"inf"_s, {1, {0, -qInf(), 1.7e9}, std::nullopt});
    full.metrics.insert(hostile, {1, {0.5, 1.0 / 3, 0}, {{1.0 / 3, 1.0 / 3}}});
    full.rewinds.push_back({7, 100, true, 1.7e9, 42, 3});
    sb::RunSummary bare;
    bare.info.name = u"bare"_s;
    const QList<sb::RunSummary> sent{full, bare};
    const QByteArray text = sb::runSummariesJsonText(sent);
    QJsonParseError error{};
    const QJsonArray qt = QJsonDocument::fromJson(text, &error).array();
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(qt.size(), 2);
    const QJsonObject config = qt.at(0).toObject().value(u"config"_s).toObject();
    QCOMPARE(config.value(u"big"_s).toInteger(), 9007199254740993LL); // every digit
    QCOMPARE(config.value(u"least"_s).toInteger(1), std::numeric_limits<qint64>::min());
    for (const QList<sb::RunSummary> &back :
         {sb::runSummariesFromJsonText(text).value(), sb::runSummariesFromJson(qt)}) {
        QCOMPARE(back.size(), 2);
        QCOMPARE(back[0].info, full.info);
        QCOMPARE(back[0].info.config.value(u"least"_s).toInteger(1),
                 std::numeric_limits<qint64>::min());
        QCOMPARE(back[0].rewinds, full.rewinds);
        QCOMPARE(back[0].metrics.keys(), full.metrics.keys());
        QCOMPARE(back[0].metrics[u"loss"_s], full.metrics[u"loss"_s]);
        QCOMPARE(back[0].metrics[hostile], full.metrics[hostile]);
        QVERIFY(std::isnan(back[0].metrics[u"nan"_s].last.value)); // NaN by name
        QCOMPARE(back[0].metrics[u"inf"_s].last.value, -qInf());
        QCOMPARE(back[1], bare);
    }
    for (const QByteArray &bad :
         {QByteArray("{}"), QByteArray("[1]"), QByteArray("[{\"metrics\": 3}]"),
          QByteArray("[{\"metrics\": {\"m\": [1]}}]"), QByteArray("[{\"name\""),
          QByteArray(2000, '[')}) {
        const auto read = sb::runSummariesFromJsonText(bad);
        QVERIFY2(!read && read.error().contains(u"could not be read"_s), bad.constData());
    }
}

void TestCollector::labRowsReadBackAsWritten() {
    // RowBinary, as the lab store sends points to ClickHouse and reads back what it holds.
    const QString hostile = u"r'\\\"\t\n\x01名前"_s;
    const QString longName(20000, u'x'); // a length of three bytes
    sb::RowBinary rows;
    rows.string(hostile);
    rows.string(longName);
    rows.string(QString());
    rows.uint64(std::numeric_limits<quint64>::max());
    rows.float64(-0.0);
    rows.float64(qQNaN());
    rows.float64(-qInf());
    rows.float64(5e-324);
    const QByteArray bytes = rows.take();
    sb::RowBinaryReader read(bytes);
    QCOMPARE(read.string(), hostile);
    QCOMPARE(read.string(), longName);
    QCOMPARE(read.string(), QString());
    QCOMPARE(read.uint64(), std::numeric_limits<quint64>::max());
    const double zero = read.float64();
    QVERIFY(zero == 0 && std::signbit(zero));
    QVERIFY(std::isnan(read.float64()));
    QCOMPARE(read.float64(), -qInf());
    QCOMPARE(read.float64(), 5e-324);
    QVERIFY(read.atEnd() && !read.failed());
    // Cut short anywhere, or a length past the end: failed, never read beyond.
    for (qsizetype cut = 0; cut < 40; ++cut) {
        sb::RowBinaryReader shorter(QByteArrayView(bytes).first(cut));
        (void)shorter.string();
        (void)shorter.string();
        QVERIFY(shorter.failed() || cut >= hostile.toUtf8().size() + 1);
    }
    const QByteArray huge("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01x", 11);
    sb::RowBinaryReader lying(huge);
    QCOMPARE(lying.string(), QString());
    QVERIFY(lying.failed());
    QCOMPARE(sb::ClickHouse::quoted(u"a'b\\c"_s), u"'a\\'b\\\\c'"_s);
}

void TestCollector::aStatusIsOneWord() {
    sb::RunInfo info;
    info.name = u"r"_s;
    info.status = u"running"_s;
    QVERIFY(sb::Collector::infoProblem(info).isEmpty());
    for (const QString &status : {u"running\u0000"_s, u"fin\nished"_s, u"\x1b[31mfailed"_s}) {
        info.status = status;
        QVERIFY2(sb::Collector::infoProblem(info).contains(u"control character"_s),
                 qPrintable(sb::Collector::infoProblem(info)));
    }
}

QTEST_GUILESS_MAIN(TestCollector)
#include "tst_collector.moc"
