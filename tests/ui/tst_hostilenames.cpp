// Text from outside, through every view of the window: run, metric and job names, tags, notes,
// config values, hosts, process command lines and node messages carrying markup (an image of
// /dev/zero, which a rich-text label would read until memory runs out), terminal escapes and
// right-to-left overrides. Each must be shown as the text it is. Also a loss that diverges in an
// open window, and a run with 20,000 metrics: the window keeps answering.
#include "../support/WindowFixture.h"
#include "CurvesView.h"
#include "FleetTable.h"
#include "JobsView.h"
#include "MainWindow.h"
#include "NodeCard.h"
#include "NodesView.h"
#include "RunLegend.h"
#include "charts/CurveChart.h"
#include "client/CollectorClient.h"
#include "collector/EmbeddedCollector.h"
#include "jobs/JobsModel.h"
#include "jobs/local/LocalBackend.h"
#include "metrics/RunColors.h"
#include "metrics/RunsModel.h"
#include "monitor/NodeMonitor.h"
#include "util/PlainText.h"

#include <QAbstractItemView>
#include <QDir>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QHelpEvent>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>
#include <QToolTip>

#include <cmath>

using namespace Qt::StringLiterals;

namespace {

// What an attacker names things. Each would render as something other than itself if taken as
// markup; the override would reverse every later name in a shared label.
const QString kImage = u"<img src=\"/dev/zero\">"_s;
const QString kUnderline = u"<u>underlined</u>"_s;
const QString kOverride = u"abc\u202Edef"_s;
const QString kEscapes = u"\x1b]0;retitled\x07\x1b[2Jcleared"_s;
const QString kPlaceholders = u"%1%2 & <b"_s;
const QStringList kHostile{kImage, kUnderline, kOverride, kEscapes, kPlaceholders};

// Shown as markup: rich text that still holds a tag of ours, or a right-to-left override that
// was not isolated away.
bool rendersOutsideText(const QString &shown, bool rich) {
    if (rich && (shown.contains(u"<img"_s) || shown.contains(u"<u>"_s)))
        return true;
    return rich && shown.contains(QChar(0x202E));
}

struct Found {
    QStringList problems;
    int checked = 0;
    void check(const QString &where, const QString &shown, bool rich) {
        ++checked;
        if (rendersOutsideText(shown, rich))
            problems << where + u": "_s + shown.left(200);
    }
};

// Every label, tooltip, chart title and item view tooltip under `root`.
void inspect(QWidget *root, Found &found) {
    QList<QWidget *> widgets = root->findChildren<QWidget *>();
    widgets.prepend(root);
    for (QWidget *widget : std::as_const(widgets)) {
        const QString name =
            QString::fromLatin1(widget->metaObject()->className()) + u" "_s + widget->objectName();
        if (!widget->toolTip().isEmpty())
            found.check(name + u" tooltip"_s, widget->toolTip(),
                        Qt::mightBeRichText(widget->toolTip()));
        if (auto *label = qobject_cast<QLabel *>(widget))
            found.check(
                name, label->text(),
                label->textFormat() == Qt::RichText ||
                    (label->textFormat() == Qt::AutoText && Qt::mightBeRichText(label->text())));
        if (auto *chart = qobject_cast<QChartView *>(widget)) {
            found.check(name + u" title"_s, chart->chart()->title(), true);
            for (QAbstractAxis *axis : chart->chart()->axes())
                found.check(name + u" axis"_s, axis->titleText(), true);
            for (QGraphicsItem *item : chart->scene()->items())
                if (auto *text = dynamic_cast<QGraphicsTextItem *>(item))
                    found.check(name + u" text item"_s, text->toHtml(), true);
        }
        auto *view = qobject_cast<QAbstractItemView *>(widget);
        if (!view || !view->model() || !view->isVisible())
            continue;
        // The tooltip a hover shows, through the view's own event handling.
        const auto hover = [&](QPoint at, const QString &where) {
            QToolTip::hideText();
            QHelpEvent help(QEvent::ToolTip, at, view->viewport()->mapToGlobal(at));
            QApplication::sendEvent(view->viewport(), &help);
            if (QToolTip::isVisible() || !QToolTip::text().isEmpty())
                found.check(where, QToolTip::text(), Qt::mightBeRichText(QToolTip::text()));
        };
        if (auto *header = qobject_cast<QHeaderView *>(view)) {
            for (int s = 0; s < std::min(header->count(), 40); ++s)
                hover(header->orientation() == Qt::Horizontal
                          ? QPoint(header->sectionViewportPosition(s) + 4, header->height() / 2)
                          : QPoint(header->width() / 2, header->sectionViewportPosition(s) + 4),
                      name + u" header tip"_s);
            continue;
        }
        QAbstractItemModel *model = view->model();
        for (int row = 0; row < std::min(model->rowCount(), 40); ++row)
            for (int column = 0; column < std::min(model->columnCount(), 12); ++column) {
                const QRect cell = view->visualRect(model->index(row, column));
                if (cell.isValid() && view->viewport()->rect().contains(cell.center()))
                    hover(cell.center(), name + u" cell tip"_s);
            }
    }
}

// Items drawn by a chart: axis labels, titles, curves. Bounded for any range.
qsizetype sceneItems(sb::CurveChart *chart) {
    return chart->scene()->items().size();
}

} // namespace

class TestHostileNames final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void outsideTextIsPlainInEveryView();
    void aDivergingLossInAnOpenWindow();
    void longUnbrokenTextWrapsInRichText();
    void twentyThousandMetricsShowAPageOfCharts();

private:
    QTemporaryDir m_settings;
};

// The window on a collector of its own, and runs on this computer.
struct Fixture : WindowFixture {
    sb::LocalBackend local{{dir.path(), 2000, {}}};
    Fixture() { registry.add(&local); }
};

void TestHostileNames::initTestCase() {
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settings.path());
}

void TestHostileNames::outsideTextIsPlainInEveryView() {
    Fixture f;
    // A run for each hostile name, with hostile metric names, tags, note, config and host.
    for (const QString &name : kHostile) {
        QJsonObject series;
        for (const QString &metric : kHostile)
            series.insert(u"m/"_s + metric, QJsonObject{{u"step"_s, QJsonArray{0, 1, 2}},
                                                        {u"value"_s, QJsonArray{1.0, 0.5, 0.25}}});
        QJsonObject config;
        for (const QString &key : kHostile)
            config.insert(key, name);
        const QJsonObject info{{u"config"_s, config},
                               {u"host"_s, name},
                               {u"status"_s, u"running"_s},
                               {u"tags"_s, QJsonArray::fromStringList(kHostile)},
                               {u"note"_s, kHostile.join(u'\n')}};
        QVERIFY(f.push({{u"run"_s, name}, {u"info"_s, info}, {u"series"_s, series}}));
    }
    // A job whose name and command line are hostile, and whose output is too.
    const auto job =
        f.local.submit({.name = kUnderline,
                        .command = {u"/bin/sh"_s, u"-c"_s, u"echo '"_s + kImage + u"'; exit 3"_s}});
    QVERIFY(job.ok());

    auto window = f.window();
    // A node whose message and processes (another user's command lines) are hostile.
    sb::NodeSample sample;
    sample.time = QDateTime::currentSecsSinceEpoch();
    sample.cpuPercent = 12;
    sample.corePercent = {12, 12};
    sample.hasNvidiaSmi = true;
    sb::GpuReading gpu;
    gpu.index = 0;
    gpu.name = kImage;
    gpu.uuid = u"GPU-1"_s;
    gpu.utilizationGpu = 97;
    gpu.memoryTotalMiB = 81920;
    gpu.memoryUsedMiB = 40000;
    sample.gpus.push_back(gpu);
    for (const QString &command : kHostile) {
        sb::GpuProcess process;
        process.gpuUuid = u"GPU-1"_s;
        process.pid = 1000 + sample.gpuProcesses.size();
        process.processName = command;
        process.command = command;
        process.user = kUnderline;
        process.usedMemoryMiB = 1000;
        sample.gpuProcesses.push_back(process);
        sb::ProcessRow row;
        row.pid = process.pid;
        row.user = kOverride;
        row.command = command;
        row.cpuTime = u"00:01:00"_s;
        sample.topCpu.push_back(row);
        sample.topMemory.push_back(row);
    }
    window->nodes()->addSample(kImage, sample);
    sb::NodeStatus status;
    status.state = sb::NodeStatus::State::Unreachable;
    status.message = kImage + kOverride;
    window->nodes()->setStatus(kUnderline, status);

    Found found;
    for (const QString &view : {u"curves"_s, u"jobs"_s, u"nodes"_s, u"sweeps"_s}) {
        window->showView(view);
        if (view == u"curves"_s) {
            QTRY_VERIFY_WITH_TIMEOUT(window->curves()->runsModel()->rowCount() == kHostile.size(),
                                     20000);
            QTRY_VERIFY_WITH_TIMEOUT(window->curves()->charts().size() == kHostile.size(), 20000);
            // Every chart drawn, and a readout over one (it lists the runs by name).
            QTRY_VERIFY_WITH_TIMEOUT(
                std::all_of(window->curves()->charts().cbegin(), window->curves()->charts().cend(),
                            [](sb::CurveChart *c) { return c->drawnLines() >= kHostile.size(); }),
                20000);
            // The legend names every run, and the hover readout too.
            auto *legend = window->curves()->findChild<sb::RunLegend *>(u"legend"_s);
            QTRY_VERIFY_WITH_TIMEOUT(legend->texts().size() == kHostile.size(), 20000);
            sb::CurveChart *chart = window->curves()->charts().first();
            QTRY_VERIFY_WITH_TIMEOUT(chart->chart()->plotArea().width() > 100, 20000);
            const QPoint middle = chart->chart()->plotArea().center().toPoint();
            QTest::mouseMove(chart->viewport(), middle);
            QTRY_VERIFY_WITH_TIMEOUT(!chart->readoutText().isEmpty(), 20000);
        }
        if (view == u"nodes"_s) {
            for (const QString &layout : {u"cards"_s, u"compact"_s}) {
                window->nodes()->setLayoutMode(layout);
                QApplication::processEvents();
                // The compact table draws tips of its own: hover it all over.
                for (auto *table : window->nodes()->findChildren<sb::FleetTable *>()) {
                    if (!table->isVisible())
                        continue;
                    for (int y = 2; y < table->height(); y += 6)
                        for (int x = 2; x < table->width(); x += 12) {
                            QToolTip::hideText();
                            QHelpEvent help(QEvent::ToolTip, QPoint(x, y),
                                            table->mapToGlobal(QPoint(x, y)));
                            QApplication::sendEvent(table, &help);
                            if (!QToolTip::text().isEmpty())
                                found.check(u"fleet table tip"_s, QToolTip::text(),
                                            Qt::mightBeRichText(QToolTip::text()));
                        }
                }
                inspect(window.get(), found);
                QVERIFY(window->grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) +
                                            u"/screenshots/hostile-names-nodes-"_s + layout +
                                            u".png"_s));
            }
            continue;
        }
        QApplication::processEvents();
        inspect(window.get(), found);
        // Painted whole, names and all; saved to be looked at.
        const QString shots = QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots"_s;
        QVERIFY(QDir().mkpath(shots));
        QVERIFY(window->grab().save(shots + u"/hostile-names-"_s + view + u".png"_s));
    }
    QVERIFY2(found.problems.isEmpty(), qPrintable(found.problems.join(u"\n"_s)));
    QVERIFY(found.checked > 100);
}

void TestHostileNames::aDivergingLossInAnOpenWindow() {
    Fixture f;
    // A loss from about 1 to 1e8 over 1,000 steps (finite all along), as a blown-up run logs.
    QJsonArray steps, values;
    for (int i = 0; i < 1000; ++i) {
        steps.append(i);
        values.append(std::exp(i * std::log(1e8) / 999.0));
    }
    QVERIFY(f.push({{u"run"_s, u"diverges"_s},
                    {u"series"_s, QJsonObject{{u"loss"_s, QJsonObject{{u"step"_s, steps},
                                                                      {u"value"_s, values}}}}}}));
    auto window = f.window();
    window->showView(u"curves"_s);
    QTRY_VERIFY_WITH_TIMEOUT(window->curves()->charts().size() == 1, 20000);
    sb::CurveChart *chart = window->curves()->charts().first();
    QTRY_VERIFY_WITH_TIMEOUT(chart->drawnLines() >= 1, 20000);
    QApplication::processEvents();
    const qsizetype fitted = sceneItems(chart);
    QVERIFY2(fitted < 400, qPrintable(QString::number(fitted)));
    // Zoomed into the flat start (a rubber band over its first tenth, near the bottom), then
    // fitted again: each a handful of ticks.
    const QRectF plot = chart->chart()->plotArea();
    const QPoint from = plot.bottomLeft().toPoint() + QPoint(3, -30);
    const QPoint to = QPoint(static_cast<int>(plot.left() + plot.width() / 10),
                             static_cast<int>(plot.bottom()) - 3);
    QTest::mousePress(chart->viewport(), Qt::LeftButton, {}, from);
    QTest::mouseMove(chart->viewport(), to);
    QTest::mouseRelease(chart->viewport(), Qt::LeftButton, {}, to);
    QVERIFY(chart->xRange());
    QApplication::processEvents();
    QVERIFY2(sceneItems(chart) < 400, qPrintable(QString::number(sceneItems(chart))));
    QTest::mouseClick(chart->viewport(), Qt::RightButton, {}, plot.center().toPoint());
    QApplication::processEvents();
    QVERIFY(!chart->xRange());
    QVERIFY2(sceneItems(chart) < 400, qPrintable(QString::number(sceneItems(chart))));
    // It keeps diverging while shown: points at 1e200 and beyond arrive.
    QVERIFY(f.push({{u"run"_s, u"diverges"_s},
                    {u"series"_s,
                     QJsonObject{{u"loss"_s, QJsonObject{{u"step"_s, QJsonArray{1000, 1001, 1002}},
                                                         {u"value"_s,
                                                          QJsonArray{1e200, 1e300, 1.7e308}}}}}}}));
    QTRY_VERIFY_WITH_TIMEOUT(chart->drawnPoints() > 0 &&
                                 chart->curves().value(0).points.size() > 0 &&
                                 chart->curves().first().points.last().x() >= 1002,
                             20000);
    QApplication::processEvents();
    QVERIFY2(sceneItems(chart) < 400, qPrintable(QString::number(sceneItems(chart))));
    QVERIFY(window->grab().save(QStringLiteral(SIGNALBOX_BINARY_DIR) +
                                u"/screenshots/hostile-diverging-loss.png"_s));
}

void TestHostileNames::twentyThousandMetricsShowAPageOfCharts() {
    Fixture f;
    constexpr int kMetrics = 20000;
    for (int start = 0; start < kMetrics; start += 2000) {
        QJsonObject series;
        for (int m = start; m < start + 2000; ++m)
            series.insert(
                u"layer%1/grad_norm"_s.arg(m, 5, 10, QChar(u'0')),
                QJsonObject{{u"step"_s, QJsonArray{0, 1}}, {u"value"_s, QJsonArray{1.0, 0.5}}});
        QVERIFY(f.push({{u"run"_s, u"wide"_s}, {u"series"_s, series}}));
    }
    auto window = f.window();
    window->showView(u"curves"_s);
    auto *more = window->curves()->findChild<QPushButton *>(u"moreCharts"_s);
    QVERIFY(more);
    QTRY_VERIFY_WITH_TIMEOUT(more->isVisible(), 60000);
    QCOMPARE(window->curves()->charts().size(), sb::CurvesView::kChartsAPage);
    QVERIFY2(more->text().contains(QString::number(kMetrics - sb::CurvesView::kChartsAPage)),
             qPrintable(more->text()));
    more->click();
    QTRY_COMPARE_WITH_TIMEOUT(window->curves()->charts().size(), 2 * sb::CurvesView::kChartsAPage,
                              20000);
    // The window still answers: a zero-time timer fires within the event loop's next turns.
    bool turned = false;
    QTimer::singleShot(0, [&turned] { turned = true; });
    QTRY_VERIFY_WITH_TIMEOUT(turned, 20000);
    QVERIFY(window->grab().width() > 0);
}

// A 2,000-character value without spaces (a path, a hash) breaks into lines in a tooltip's rich
// text instead of one line 17,000 px wide, and reads the same once the breaks are taken out.
void TestHostileNames::longUnbrokenTextWrapsInRichText() {
    QString value;
    for (int i = 0; i < 2000; ++i)
        value += QChar(u'a' + i % 26);
    value += u"\U0001F600<b>"_s; // a character of two halves, and markup, at the end
    // A tooltip is a word-wrapped label: it breaks at word boundaries only.
    QLabel label(sb::richTextOf(value));
    label.setWordWrap(true);
    QVERIFY2(label.minimumSizeHint().width() < 1000,
             qPrintable(QString::number(label.minimumSizeHint().width())));
    QTextDocument document;
    document.setHtml(sb::richTextOf(value));
    QString plain = document.toPlainText();
    plain.remove(QChar(0x200B));
    QCOMPARE(plain, sb::isolated(value));
}

QTEST_MAIN(TestHostileNames)
#include "tst_hostilenames.moc"
