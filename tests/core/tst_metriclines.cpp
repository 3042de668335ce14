#include "metrics/MetricLineParser.h"

#include <QTest>

#include <cmath>

using namespace Qt::StringLiterals;
using sb::MetricRecord;

class TestMetricLines final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void logLines_data();
    void logLines();
    void nestedAndSpecialValues();
    void formatRoundTrips();
    void reservedNamesAreEscaped();
    void csv_data();
    void csv();
    void csvQuotedFields();
    void appendRecordGroupsByMetric();
};

void TestMetricLines::logLines_data() {
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<bool>("isMetricLine");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<int>("values");
    QTest::addColumn<double>("step");

    QTest::newRow("ordinary output")
        << QByteArray("epoch 1 loss 0.5") << false << false << 0 << -1.0;
    QTest::newRow("empty") << QByteArray("") << false << false << 0 << -1.0;
    QTest::newRow("metric line") << QByteArray(
                                        R"(@signalbox {"step": 12, "loss": 0.25, "acc": 0.9})")
                                 << true << true << 2 << 12.0;
    QTest::newRow("no step") << QByteArray(R"(@signalbox {"loss": 1})") << true << true << 1
                             << -1.0;
    QTest::newRow("trailing newline and spaces")
        << QByteArray("  @signalbox {\"loss\": 1}  \r\n") << true << true << 1 << -1.0;
    QTest::newRow("after a progress bar")
        << QByteArray("50%|#####     |\r@signalbox {\"step\": 3, \"loss\": 2}") << true << true << 1
        << 3.0;
    QTest::newRow("truncated JSON")
        << QByteArray(R"(@signalbox {"loss": 0.)") << true << false << 0 << -1.0;
    QTest::newRow("not an object") << QByteArray("@signalbox [1, 2]") << true << false << 0 << -1.0;
    QTest::newRow("no numbers") << QByteArray(R"(@signalbox {"note": "hi"})") << true << false << 0
                                << -1.0;
    QTest::newRow("bad step") << QByteArray(R"(@signalbox {"step": "x", "loss": 1})") << true
                              << false << 0 << -1.0;
    QTest::newRow("prefix mid-line is ordinary")
        << QByteArray(R"(INFO @signalbox {"loss": 1})") << false << false << 0 << -1.0;
}

void TestMetricLines::logLines() {
    QFETCH(QByteArray, line);
    QFETCH(bool, isMetricLine);
    QFETCH(bool, valid);
    QFETCH(int, values);
    QFETCH(double, step);
    const auto parsed = sb::MetricLines::parseLogLine(line);
    QCOMPARE(parsed.has_value(), isMetricLine);
    if (!parsed)
        return;
    QCOMPARE(parsed->ok(), valid);
    if (!valid) {
        QVERIFY(!parsed->error().isEmpty());
        return;
    }
    QCOMPARE(static_cast<int>(parsed->value().values.size()), values);
    QCOMPARE(parsed->value().step.value_or(-1.0), step);
}

void TestMetricLines::nestedAndSpecialValues() {
    const auto record = sb::MetricLines::parseJsonObject(
        R"({"train": {"loss": 1.5, "inner": {"x": 2}}, "nan": "NaN", "inf": "-Infinity", "ok": true,
            "time": 1700000000.5, "run": "r1", "ignored": "text"})");
    QVERIFY2(record.ok(), qPrintable(record.error()));
    QCOMPARE(record->run, u"r1"_s);
    QCOMPARE(record->wall.value(), 1700000000.5);
    QHash<QString, double> values;
    for (const auto &[k, v] : record->values)
        values.insert(k, v);
    QCOMPARE(values.size(), 5);
    QCOMPARE(values.value(u"train/loss"_s), 1.5);
    QCOMPARE(values.value(u"train/inner/x"_s), 2.0);
    QVERIFY(std::isnan(values.value(u"nan"_s)));
    QVERIFY(std::isinf(values.value(u"inf"_s)) && values.value(u"inf"_s) < 0);
    QCOMPARE(values.value(u"ok"_s), 1.0);
}

void TestMetricLines::formatRoundTrips() {
    MetricRecord record;
    record.step = 7;
    record.values = {{u"loss"_s, 0.125}, {u"bad"_s, std::nan("")}};
    const QByteArray line = sb::MetricLines::format(record);
    QVERIFY(line.startsWith("@signalbox {"));
    const auto parsed = sb::MetricLines::parseLogLine(line);
    QVERIFY(parsed && parsed->ok());
    QCOMPARE(parsed->value().step.value(), 7.0);
    QCOMPARE(parsed->value().values.size(), std::size_t(2));
}

// Metrics named "step", "time", "run" or "batch" travel under "" and come back as metrics.
void TestMetricLines::reservedNamesAreEscaped() {
    const auto parsed = sb::MetricLines::parseLogLine(
        R"(@signalbox {"loss": 1, "": {"step": 2, "time": 3, "run": 4, "batch": 5}, "step": 7})");
    QVERIFY(parsed && parsed->ok());
    QCOMPARE(parsed->value().step.value(), 7.0);
    QHash<QString, double> values;
    for (const auto &[k, v] : parsed->value().values)
        values.insert(k, v);
    QCOMPARE(values,
             (QHash<QString, double>{
                 {u"loss"_s, 1}, {u"step"_s, 2}, {u"time"_s, 3}, {u"run"_s, 4}, {u"batch"_s, 5}}));
    const auto notObject = sb::MetricLines::parseLogLine(R"(@signalbox {"": 1, "loss": 1})");
    QVERIFY(notObject && !notObject->ok());

    MetricRecord record;
    record.step = 1;
    record.batch = u"b1"_s;
    record.values = {{u"step"_s, 10}, {u"time"_s, 20}, {u"run"_s, 30}, {u"batch"_s, 40}};
    const auto back = sb::MetricLines::parseLogLine(sb::MetricLines::format(record));
    QVERIFY(back && back->ok());
    QCOMPARE(back->value().step.value(), 1.0);
    QCOMPARE(back->value().batch, u"b1"_s);
    QCOMPARE(back->value().values.size(), std::size_t(4));
}

void TestMetricLines::csv_data() {
    QTest::addColumn<QByteArrayList>("lines");
    QTest::addColumn<int>("records");
    QTest::addColumn<int>("errors");
    QTest::newRow("plain") << QByteArrayList{"step,loss,acc", "0,1.0,0.1", "1,0.5,0.2"} << 2 << 0;
    QTest::newRow("missing cells") << QByteArrayList{"step,loss,acc", "0,,0.1", "1,,"} << 1 << 0;
    QTest::newRow("wall time column") << QByteArrayList{"wall_time,step,loss", "1.5,0,2"} << 1 << 0;
    QTest::newRow("wrong field count") << QByteArrayList{"step,loss", "0,1,2", "1,3"} << 1 << 1;
    QTest::newRow("garbage value") << QByteArrayList{"step,loss", "0,abc", "1,nan"} << 1 << 1;
    QTest::newRow("CRLF and blank lines") << QByteArrayList{"step,loss\r", "", "0,1\r"} << 1 << 0;
}

void TestMetricLines::csv() {
    QFETCH(QByteArrayList, lines);
    QFETCH(int, records);
    QFETCH(int, errors);
    sb::CsvMetricReader reader;
    int gotRecords = 0;
    int gotErrors = 0;
    for (const QByteArray &line : lines) {
        const auto result = reader.readLine(line);
        if (!result)
            ++gotErrors;
        else if (result.value())
            ++gotRecords;
    }
    QCOMPARE(gotRecords, records);
    QCOMPARE(gotErrors, errors);
}

void TestMetricLines::csvQuotedFields() {
    QCOMPARE(sb::splitCsvRow(R"(a,"b,c","say ""hi""",)"),
             (QStringList{u"a"_s, u"b,c"_s, u"say \"hi\""_s, QString()}));
    sb::CsvMetricReader reader;
    QVERIFY(reader.readLine(R"(step,"loss, train")").ok());
    const auto row = reader.readLine("3,0.5");
    QVERIFY(row.ok() && row.value());
    QCOMPARE(row.value()->values.front().first, u"loss, train"_s);
    QCOMPARE(row.value()->step.value(), 3.0);
}

void TestMetricLines::appendRecordGroupsByMetric() {
    std::vector<sb::SeriesPoints> series;
    MetricRecord a;
    a.values = {{u"loss"_s, 1}, {u"acc"_s, 0.5}};
    MetricRecord b;
    b.values = {{u"loss"_s, 0.5}};
    sb::appendRecord(a, 0, 10, &series);
    sb::appendRecord(b, 1, 11, &series);
    QCOMPARE(series.size(), std::size_t(2));
    QCOMPARE(series[0].metric, u"loss"_s);
    QCOMPARE(series[0].points.size(), std::size_t(2));
    QCOMPARE(series[0].points[1].step, 1.0);
    QCOMPARE(series[0].points[1].wall, 11.0);
}

QTEST_APPLESS_MAIN(TestMetricLines)
#include "tst_metriclines.moc"
