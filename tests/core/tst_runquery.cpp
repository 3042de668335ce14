// The query language over runs: what each operator means on numbers, texts, lists, missing
// fields and non-finite values; where a bad query goes wrong; generated queries over generated
// runs against a brute-force reference; and /runs?where= on a real collector.
#include "collector/Collector.h"
#include "metrics/RunQuery.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <functional>
#include <limits>

using namespace Qt::StringLiterals;

namespace {

constexpr double kNow = 1'790'000'000; // 2026-09-21, the tests' "now"

sb::RunSummary run(const QString &name, const QJsonObject &config,
                   const QMap<QString, sb::MetricSummary> &metrics = {}) {
    sb::RunSummary summary;
    summary.info.name = name;
    summary.info.config = config;
    summary.metrics = metrics;
    return summary;
}

sb::MetricSummary metric(double last, std::optional<std::pair<double, double>> range = {},
                         qint64 count = 10, double step = 9) {
    return {count, sb::MetricPoint{step, last, kNow}, range};
}

// The names of the runs the query passes, in order; the parse error when it is refused.
QString matching(const QString &text, const QList<sb::RunSummary> &runs) {
    const auto query = sb::RunQuery::parse(text);
    if (!query)
        return u"error: "_s + query.error();
    QStringList names;
    for (const sb::RunSummary &summary : runs)
        if (query->matches(summary, kNow))
            names << summary.info.name;
    return names.join(u' ');
}

QList<sb::RunSummary> someRuns() {
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QList<sb::RunSummary> runs;
    runs << run(u"a"_s,
                {{u"lr"_s, 1e-4},
                 {u"optimizer"_s, u"adam"_s},
                 {u"model"_s, QJsonObject{{u"layers"_s, 12}, {u"name"_s, u"ViT-B"_s}}},
                 {u"warmup"_s, true},
                 {u"seeds"_s, QJsonArray{1, 2, 3}},
                 {u"opt.sched"_s, QJsonObject{{u"warm"_s, 5}}}},
                {{u"val/loss"_s, metric(0.4, std::pair(0.3, 2.0))},
                 {u"val/acc"_s, metric(0.9, std::pair(0.1, 0.92))}});
    runs.back().info.status = u"finished"_s;
    runs.back().info.tags = QStringList{u"baseline"_s, u"ablation"_s};
    runs.back().info.host = u"gpu-node-1"_s;
    runs.back().info.start = kNow - 3 * 86400;
    runs.back().info.end = kNow - 3 * 86400 + 7200;
    runs << run(u"b"_s,
                {{u"lr"_s, u"1e-2"_s}, // as an argument parser leaves it: a text
                 {u"optimizer"_s, u"SGD"_s},
                 {u"model.layers"_s, 24}, // a flattened key
                 {u"warmup"_s, false}},
                {{u"val/loss"_s, metric(inf, std::pair(0.5, 9.0))}, {u"loss"_s, metric(nan)}});
    runs.back().info.status = u"running"_s;
    runs.back().info.start = kNow - 600;
    runs.back().info.note = u"Diverged after the LR bump"_s;
    runs << run(u"c"_s, {{u"lr"_s, 3e-4}}, {{u"val/loss"_s, metric(0.2)}}); // range not read yet
    runs.back().info.status = u"failed"_s;
    runs.back().info.tags = QStringList{};
    runs.back().info.sweep = u"sw-7"_s;
    runs.back().info.archived = true;
    return runs;
}

} // namespace

class TestRunQuery final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void meaning_data();
    void meaning();
    void problems_data();
    void problems();
    void looksLikeQuery();
    void metricsItReads();
    void againstABruteForceReference();
    void collectorAnswersWhere();
};

void TestRunQuery::meaning_data() {
    QTest::addColumn<QString>("query");
    QTest::addColumn<QString>("expected");
    // Numbers, texts that read as numbers, and the issue's own example.
    QTest::newRow("number") << u"config.lr < 1e-3"_s << u"a c"_s;
    QTest::newRow("text read as a number") << u"config.lr >= 0.01"_s << u"b"_s;
    QTest::newRow("example") << u"config.lr < 1e-3 and val/loss < 0.5 and tags has \"baseline\""_s
                             << u"a"_s;
    QTest::newRow("equal number") << u"config.lr = 0.0003"_s << u"c"_s;
    QTest::newRow("quoted number") << u"config.lr = \"3e-4\""_s << u"c"_s;
    // Texts: equal without regard to case; ordered; bare words.
    QTest::newRow("bare word") << u"config.optimizer = sgd"_s << u"b"_s;
    QTest::newRow("text order") << u"config.optimizer < b"_s << u"a"_s;
    QTest::newRow("status in") << u"status in (running, failed)"_s << u"b c"_s;
    QTest::newRow("not in") << u"status not in (running, failed)"_s << u"a"_s;
    QTest::newRow("regex") << u"config.model.name ~ \"^vit-\""_s << u"a"_s;
    QTest::newRow("not regex: missing passes") << u"config.optimizer !~ adam"_s << u"b c"_s;
    QTest::newRow("note has") << u"note has \"lr bump\""_s << u"b"_s;
    QTest::newRow("host") << u"info.host = gpu-node-1"_s << u"a"_s;
    QTest::newRow("sweep") << u"sweep = sw-7"_s << u"c"_s;
    QTest::newRow("name regex") << u"name ~ \"^[ab]$\""_s << u"a b"_s;
    QTest::newRow("archived") << u"archived = true"_s << u"c"_s;
    // A pattern's backslashes stay; only \" and \\ are escapes in a quoted text.
    QTest::newRow("pattern with backslashes") << u"note ~ \"lr\\s+bump\""_s << u"b"_s;
    QTest::newRow("escaped quote") << u"note !~ \"\\\"\""_s << u"a b c"_s;
    QTest::newRow("pattern of a keyword") << u"name ~ nan"_s << QString();
    QTest::newRow("has as typed") << u"host has 1"_s << u"a"_s;
    QTest::newRow("a dotted key holding an object") << u"config.opt.sched.warm = 5"_s << u"a"_s;
    QTest::newRow("not archived") << u"archived = false"_s << u"a b"_s;
    // Nested and flattened keys.
    QTest::newRow("nested") << u"config.model.layers > 6"_s << u"a b"_s;
    QTest::newRow("object has key") << u"config.model has layers"_s << u"a"_s;
    QTest::newRow("list has") << u"config.seeds has 2"_s << u"a"_s;
    QTest::newRow("bool") << u"config.warmup = false"_s << u"b"_s;
    QTest::newRow("bool true") << u"config.warmup == true"_s << u"a"_s;
    // Missing fields: nothing compares, != and null do.
    QTest::newRow("missing compares false") << u"config.optimizer < zzz"_s << u"a b"_s;
    QTest::newRow("missing is null") << u"config.optimizer = null"_s << u"c"_s;
    QTest::newRow("present") << u"config.optimizer != null"_s << u"a b"_s;
    QTest::newRow("not equal passes missing") << u"config.optimizer != adam"_s << u"b c"_s;
    QTest::newRow("empty tags") << u"tags = null"_s << u"b"_s;
    // Metrics: last by default; min, max, best (a loss: its smallest) once ranges are known.
    QTest::newRow("last") << u"last(val/loss) <= 0.4"_s << u"a c"_s;
    QTest::newRow("best loss") << u"best(val/loss) < 0.4"_s << u"a"_s;
    QTest::newRow("best acc") << u"best(val/acc) > 0.91"_s << u"a"_s;
    QTest::newRow("max") << u"max(val/loss) > 5"_s << u"b"_s;
    QTest::newRow("range unknown") << u"min(val/loss) = null"_s << u"c"_s;
    QTest::newRow("count and step")
        << u"count(val/loss) = 10 and step(val/loss) = 9"_s << u"a b c"_s;
    QTest::newRow("quoted metric") << u"`val/acc` > 0.5"_s << u"a"_s;
    QTest::newRow("function of a quoted name") << u"last(\"val/acc\") > 0.5"_s << u"a"_s;
    // Non-finite values: a diverged run is found, and never passes as a small number.
    QTest::newRow("infinite") << u"val/loss = inf"_s << u"b"_s;
    QTest::newRow("infinite is large") << u"val/loss > 1e300"_s << u"b"_s;
    QTest::newRow("nan") << u"loss = nan"_s << u"b"_s;
    QTest::newRow("nan compares false") << u"loss < 1 or loss > 1"_s << QString();
    QTest::newRow("negative infinity") << u"val/loss > -inf"_s << u"a b c"_s;
    // Logic.
    QTest::newRow("or") << u"status = failed or config.warmup = true"_s << u"a c"_s;
    QTest::newRow("not") << u"not status = running"_s << u"a c"_s;
    QTest::newRow("symbols") << u"!(status == running) && (config.lr < 1 || tags has x)"_s
                             << u"a c"_s;
    QTest::newRow("precedence") << u"status = failed or status = finished and config.lr > 1"_s
                                << u"c"_s;
    QTest::newRow("keywords in capitals") << u"STATUS = failed OR NOT config.lr < 1"_s << u"c"_s;
    // Times: dates, durations and "ago"; a running run's duration runs to now.
    QTest::newRow("started within a day") << u"start > 1d ago"_s << u"b"_s;
    QTest::newRow("duration") << u"duration >= 2h"_s << u"a"_s;
    QTest::newRow("running duration") << u"duration < 11m and duration > 9m"_s << u"b"_s;
    const QString day =
        QDateTime::fromSecsSinceEpoch(qint64(kNow) - 2 * 86400).date().toString(Qt::ISODate);
    QTest::newRow("date") << u"start < %1"_s.arg(day) << u"a"_s;
    QTest::newRow("now") << u"start < now"_s << u"a b"_s;
}

void TestRunQuery::meaning() {
    QFETCH(QString, query);
    QFETCH(QString, expected);
    QCOMPARE(matching(query, someRuns()), expected);
}

void TestRunQuery::problems_data() {
    QTest::addColumn<QString>("query");
    QTest::addColumn<QString>("message"); // a part of it
    QTest::newRow("empty") << u"  "_s << u"empty"_s;
    QTest::newRow("no value") << u"config.lr <"_s << u"column 12: expected a value"_s;
    QTest::newRow("no operator") << u"config.lr"_s << u"column 1: expected an operator"_s;
    QTest::newRow("two fields") << u"status = a status = b"_s << u"column 12: expected “and”"_s;
    QTest::newRow("unclosed paren") << u"(status = a"_s << u"expected “)”"_s;
    QTest::newRow("unclosed text") << u"note has \"abc"_s << u"column 10: \" is never closed"_s;
    QTest::newRow("bad character") << u"config.lr ; 3"_s << u"unexpected character “;”"_s;
    QTest::newRow("bad regex") << u"name ~ \"(unclosed\""_s << u"not a regular expression"_s;
    QTest::newRow("bad date") << u"start > 2026-13-40"_s << u"is not a number, a duration"_s;
    QTest::newRow("not a function") << u"mean(loss) > 1"_s << u"is not a function"_s;
    QTest::newRow("keyword as field") << u"and = 3"_s << u"expected a field"_s;
    QTest::newRow("no key") << u"config. = 3"_s << u"names no key"_s;
    QTest::newRow("in without list") << u"status in running"_s << u"expected “(”"_s;
    QTest::newRow("dangling and") << u"status = a and"_s << u"expected a field"_s;
    QTest::newRow("too deep") << QString(100, u'(') + u"a = 1"_s + QString(100, u')')
                              << u"nested deeper than 64"_s;
    QTest::newRow("too long") << u"name = "_s + QString(5000, u'x') << u"more than 4096"_s;
}

void TestRunQuery::problems() {
    QFETCH(QString, query);
    QFETCH(QString, message);
    const auto parsed = sb::RunQuery::parse(query);
    QVERIFY(!parsed);
    QVERIFY2(parsed.error().contains(message), qPrintable(parsed.error()));
    QCOMPARE(parsed.errorCode(), sb::ErrorCode::InvalidInput);
}

void TestRunQuery::looksLikeQuery() {
    // Words to look for stay words; anything with an operator or a joining keyword is a query.
    for (const QString &words : {u"resnet"_s, u"baseline ablation"_s, u"sweep-3 adam"_s, u""_s})
        QVERIFY2(!sb::RunQuery::looksLikeQuery(words), qPrintable(words));
    for (const QString &query : {u"lr<1"_s, u"status = running"_s, u"tags has x"_s, u"name ~ a"_s,
                                 u"not x"_s, u"(a"_s, u"status in (a)"_s})
        QVERIFY2(sb::RunQuery::looksLikeQuery(query), qPrintable(query));
}

void TestRunQuery::metricsItReads() {
    const auto query = sb::RunQuery::parse(
        u"val/loss < 1 and (best(val/loss) < 0.5 or max(acc) > 0.9) and config.lr < 1 and "
        "count(steps) > 3"_s);
    QVERIFY(query);
    QCOMPARE(query->metrics(), (QStringList{u"val/loss"_s, u"acc"_s, u"steps"_s}));
    QCOMPARE(query->rangedMetrics(), (QStringList{u"val/loss"_s, u"acc"_s}));
}

// Random runs, random queries built from atoms whose meaning is written out a second time as a
// plain C++ predicate, joined with and, or and not: the query and the reference agree on every run.
void TestRunQuery::againstABruteForceReference() {
    QRandomGenerator random(20261126);
    const QStringList optimizers{u"adam"_s, u"sgd"_s, u"AdamW"_s, u"lion"_s};
    const QStringList statuses{u"running"_s, u"finished"_s, u"failed"_s, u"crashed"_s};
    const QStringList allTags{u"baseline"_s, u"ablation"_s, u"long"_s, u"v2"_s};
    QList<sb::RunSummary> runs;
    for (int i = 0; i < 400; ++i) {
        QJsonObject config;
        if (random.bounded(5) != 0)
            config[u"lr"_s] = std::pow(10.0, -random.bounded(2, 6)) * (1 + random.bounded(9));
        if (random.bounded(4) != 0)
            config[u"optimizer"_s] = optimizers[random.bounded(optimizers.size())];
        if (random.bounded(3) != 0)
            config[u"layers"_s] = 2 * random.bounded(1, 13);
        QMap<QString, sb::MetricSummary> metrics;
        if (random.bounded(6) != 0) {
            const double lo = random.generateDouble() * 2;
            const double last = random.bounded(30) == 0 ? std::numeric_limits<double>::quiet_NaN()
                                                        : lo + random.generateDouble();
            metrics[u"val/loss"_s] = metric(last, std::pair(lo, lo + 3));
        }
        sb::RunSummary summary = run(u"run-%1"_s.arg(i, 3, 10, QChar(u'0')), config, metrics);
        summary.info.status = statuses[random.bounded(statuses.size())];
        QStringList tags;
        for (const QString &tag : allTags)
            if (random.bounded(3) == 0)
                tags << tag;
        summary.info.tags = tags;
        runs << summary;
    }

    using Predicate = std::function<bool(const sb::RunSummary &)>;
    const auto number = [](const sb::RunSummary &r, const char16_t *key) -> std::optional<double> {
        const QJsonValue v = r.info.config.value(QStringView(key));
        return v.isDouble() ? std::optional(v.toDouble()) : std::nullopt;
    };
    const auto loss = [](const sb::RunSummary &r) -> std::optional<sb::MetricSummary> {
        const auto found = r.metrics.constFind(u"val/loss"_s);
        return found == r.metrics.constEnd() ? std::nullopt : std::optional(*found);
    };
    // Each atom: its text and its meaning, for a random constant.
    const std::vector<std::function<std::pair<QString, Predicate>()>> atoms{
        [&] {
            const double bound = std::pow(10.0, -random.bounded(2, 6)) * 5;
            return std::pair(u"config.lr < %1"_s.arg(bound, 0, 'g', 17), Predicate([=](auto &r) {
                                 const auto lr = number(r, u"lr");
                                 return lr && *lr < bound;
                             }));
        },
        [&] {
            const int layers = 2 * random.bounded(1, 13);
            return std::pair(u"config.layers >= %1"_s.arg(layers), Predicate([=](auto &r) {
                                 const auto n = number(r, u"layers");
                                 return n && *n >= layers;
                             }));
        },
        [&] {
            const QString &opt = optimizers[random.bounded(optimizers.size())];
            return std::pair(u"config.optimizer = %1"_s.arg(opt.toUpper()), Predicate([=](auto &r) {
                                 return r.info.config.value(u"optimizer"_s)
                                            .toString()
                                            .compare(opt, Qt::CaseInsensitive) == 0;
                             }));
        },
        [&] {
            const QString &opt = optimizers[random.bounded(optimizers.size())];
            return std::pair(u"config.optimizer != \"%1\""_s.arg(opt), Predicate([=](auto &r) {
                                 return r.info.config.value(u"optimizer"_s)
                                            .toString()
                                            .compare(opt, Qt::CaseInsensitive) != 0;
                             }));
        },
        [&] {
            const QString &a = statuses[random.bounded(statuses.size())];
            const QString &b = statuses[random.bounded(statuses.size())];
            return std::pair(u"status in (%1, \"%2\")"_s.arg(a, b), Predicate([=](auto &r) {
                                 return r.info.status == a || r.info.status == b;
                             }));
        },
        [&] {
            const QString &tag = allTags[random.bounded(allTags.size())];
            return std::pair(u"tags has %1"_s.arg(tag),
                             Predicate([=](auto &r) { return r.info.tags->contains(tag); }));
        },
        [&] {
            const double bound = random.generateDouble() * 3;
            return std::pair(u"val/loss < %1"_s.arg(bound, 0, 'g', 17), Predicate([=](auto &r) {
                                 const auto m = loss(r);
                                 return m && m->last.value < bound; // NaN: false
                             }));
        },
        [&] {
            const double bound = random.generateDouble() * 2;
            return std::pair(u"best(val/loss) <= %1"_s.arg(bound, 0, 'g', 17),
                             Predicate([=](auto &r) {
                                 const auto m = loss(r);
                                 return m && m->range->first <= bound;
                             }));
        },
        [&] {
            const int digit = random.bounded(10);
            return std::pair(u"name ~ \"%1$\""_s.arg(digit), Predicate([=](auto &r) {
                                 return r.info.name.endsWith(QString::number(digit));
                             }));
        },
        [&] {
            return std::pair(u"val/loss = nan"_s, Predicate([=](auto &r) {
                                 const auto m = loss(r);
                                 return m && std::isnan(m->last.value);
                             }));
        },
    };
    // A random expression of up to `depth` levels: its text (parenthesised) and its meaning.
    std::function<std::pair<QString, Predicate>(int)> expression = [&](int depth) {
        const int pick = depth == 0 ? 0 : random.bounded(4);
        if (pick == 0)
            return atoms[random.bounded(int(atoms.size()))]();
        if (pick == 1) {
            const auto inner = expression(depth - 1);
            const Predicate not_ = inner.second;
            return std::pair(u"not (%1)"_s.arg(inner.first),
                             Predicate([not_](auto &r) { return !not_(r); }));
        }
        const auto left = expression(depth - 1);
        const auto right = expression(depth - 1);
        const Predicate a = left.second;
        const Predicate b = right.second;
        if (pick == 2)
            return std::pair(u"(%1) and (%2)"_s.arg(left.first, right.first),
                             Predicate([=](auto &r) { return a(r) && b(r); }));
        return std::pair(u"(%1) or (%2)"_s.arg(left.first, right.first),
                         Predicate([=](auto &r) { return a(r) || b(r); }));
    };
    int nonTrivial = 0;
    for (int q = 0; q < 600; ++q) {
        const auto [text, reference] = expression(random.bounded(5));
        const auto query = sb::RunQuery::parse(text);
        QVERIFY2(query, qPrintable(text + u": "_s + query.error()));
        int passed = 0;
        for (const sb::RunSummary &summary : runs) {
            const bool expected = reference(summary);
            QVERIFY2(
                query->matches(summary, kNow) == expected,
                qPrintable(u"%1 on %2: expected %3"_s.arg(text, summary.info.name).arg(expected)));
            passed += expected;
        }
        nonTrivial += passed > 0 && passed < runs.size();
    }
    QVERIFY(nonTrivial > 300); // the generated queries do tell runs apart
}

// /runs?where= on a collector: only what passes, ranges summarized for min and best, a query that
// cannot be read refused with where it goes wrong, and the text filter still applying.
void TestRunQuery::collectorAnswersWhere() {
    QTemporaryDir dir;
    sb::Collector::Options options;
    options.dataDir = dir.path();
    auto started = sb::Collector::start(options);
    QVERIFY2(started, qPrintable(started.error()));
    auto collector = std::move(started).value();
    for (int i = 0; i < 30; ++i) {
        sb::RunInfo info;
        info.name = u"run-%1"_s.arg(i, 2, 10, QChar(u'0'));
        info.config = {{u"lr"_s, 1e-4 * (i + 1)}, {u"group"_s, i % 2 ? u"odd"_s : u"even"_s}};
        info.status = i < 5 ? u"running"_s : u"finished"_s;
        std::vector<sb::SeriesPoints> series(1);
        series[0].metric = u"val/loss"_s;
        for (int step = 0; step < 100; ++step)
            series[0].points.push_back({double(step), 1.0 / (step + 1) + i * 0.01, kNow + step});
        QVERIFY(collector->store().append(info.name, series, &info));
    }
    QNetworkAccessManager network;
    const auto ask = [&](const QString &query) {
        QUrl url = collector->url();
        url.setPath(u"/api/v1/runs"_s);
        url.setQuery(query);
        QNetworkReply *reply = network.get(QNetworkRequest(url));
        QDeadlineTimer deadline(10000);
        while (!reply->isFinished() && !deadline.hasExpired())
            QTest::qWait(5);
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QJsonDocument body = QJsonDocument::fromJson(reply->readAll());
        reply->deleteLater();
        QStringList names;
        for (const QJsonValue listed : body.array())
            names << listed[u"name"_s].toString();
        return std::pair(status, status == 200 ? names.join(u' ')
                                               : body.object().value(u"error"_s).toString());
    };
    const auto where = [](const QString &text) -> QString {
        return u"where="_s + QString::fromUtf8(QUrl::toPercentEncoding(text));
    };
    QCOMPARE(ask(where(u"config.lr < 3.5e-4"_s)), std::pair(200, u"run-00 run-01 run-02"_s));
    // best() of a loss is its smallest: 1/100 + i/100, summarized for the query.
    QCOMPARE(ask(where(u"best(val/loss) < 0.035 and config.group = even"_s)),
             std::pair(200, u"run-00 run-02"_s));
    QCOMPARE(ask(where(u"status = running and config.group = odd"_s) + u"&limit=1&offset=1"_s),
             std::pair(200, u"run-03"_s));
    QCOMPARE(ask(where(u"count(val/loss) = 100"_s) + u"&filter=run-2"_s).second.count(u' '), 9);
    const auto refused = ask(where(u"config.lr <"_s));
    QCOMPARE(refused.first, 400);
    QVERIFY2(refused.second.startsWith(u"where: column 12: expected a value"_s),
             qPrintable(refused.second));
}

QTEST_GUILESS_MAIN(TestRunQuery)
#include "tst_runquery.moc"
