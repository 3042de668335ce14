// The curves view while 600 live runs are polled (more than a page of the listing, so paging
// and its de-duplication run): every run is listed and charted, a run that grows is drawn anew,
// answers are turned into points off the GUI thread, and the window keeps painting throughout. The
// longest gap between the GUI thread's timer ticks is printed (a figure, not asserted: machines
// differ).
#include "../support/WindowFixture.h"
#include "CurvesView.h"
#include "charts/CurveChart.h"
#include "client/CurvesFeed.h"
#include "metrics/RunsModel.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace {

constexpr int kRuns = 600;
constexpr int kPoints = 500;

// `count` points of loss and accuracy from `first` on.
QJsonObject points(int run, int first, int count) {
    QJsonArray steps, loss, accuracy;
    for (int step = first; step < first + count; ++step) {
        steps.append(step);
        loss.append(2.0 / (1 + step * 0.01) + run * 0.001);
        accuracy.append(1.0 - 1.0 / (1 + step * 0.01));
    }
    return {{u"loss"_s, QJsonObject{{u"step"_s, steps}, {u"value"_s, loss}}},
            {u"accuracy"_s, QJsonObject{{u"step"_s, steps}, {u"value"_s, accuracy}}}};
}

QString runName(int run) {
    return u"run-%1"_s.arg(run, 3, 10, QChar(u'0'));
}

// Paints of the window's widgets, and the longest wait between two ticks of a GUI-thread timer.
class Watch final : public QObject {
public:
    explicit Watch(QWidget *window)
        : m_window(window) {
        qApp->installEventFilter(this);
        m_tick.setInterval(10);
        connect(&m_tick, &QTimer::timeout, this, [this] {
            if (m_since.isValid())
                m_longestMs = std::max(m_longestMs, m_since.elapsed());
            m_since.restart();
            ++m_ticks;
            m_window->update(); // a frame asked for on every tick
        });
        m_tick.start();
    }
    ~Watch() override { qApp->removeEventFilter(this); }
    qint64 longestGapMs() const { return m_longestMs; }
    int ticks() const { return m_ticks; }
    int paints() const { return m_paints; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override {
        if (event->type() == QEvent::Paint && watched == m_window)
            ++m_paints;
        return false;
    }

private:
    QWidget *m_window;
    QTimer m_tick;
    QElapsedTimer m_since;
    qint64 m_longestMs = 0;
    int m_ticks = 0;
    int m_paints = 0;
};

// The curves of `metric` drawn now, by run.
QHash<QString, sb::Curve> drawn(sb::CurvesView *view, const QString &metric) {
    QHash<QString, sb::Curve> curves;
    for (const sb::CurveChart *chart : view->charts()) {
        if (chart->metricName() == metric) {
            for (const sb::Curve &curve : chart->curves())
                curves.insert(curve.run, curve);
        }
    }
    return curves;
}

} // namespace

class TestCurvesView final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settings.path());
    }
    void sixHundredRunsPolledWhileTheWindowPaints();

private:
    QTemporaryDir m_settings;
};

void TestCurvesView::sixHundredRunsPolledWhileTheWindowPaints() {
    WindowFixture f;
    for (int run = 0; run < kRuns; ++run)
        QVERIFY(f.push({{u"run"_s, runName(run)}, {u"series"_s, points(run, 0, kPoints)}}));
    auto window = f.window();
    sb::CurvesView *curves = window->curves();
    Watch watch(curves);

    // Every run listed and drawn on both charts.
    QTRY_COMPARE_WITH_TIMEOUT(curves->runsModel()->rowCount(), kRuns, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(curves->charts().size(), 2, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(drawn(curves, u"loss"_s).size(), kRuns, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(drawn(curves, u"accuracy"_s).size(), kRuns, 30000);

    // Live runs: every second, ten of them log more; the polls bring each one's new points.
    for (int second = 0; second < 4; ++second) {
        for (int run = second * 10; run < second * 10 + 10; ++run)
            QVERIFY(f.push(
                {{u"run"_s, runName(run)}, {u"series"_s, points(run, kPoints + second * 10, 10)}}));
        QTest::qWait(1000);
    }
    auto lastStep = [&](const QString &run) {
        const QList<QPointF> points = drawn(curves, u"loss"_s).value(run).points;
        return points.isEmpty() ? -1.0 : points.last().x();
    };
    QTRY_VERIFY_WITH_TIMEOUT(lastStep(runName(39)) >= kPoints + 39, 30000);
    QCOMPARE(curves->runsModel()->pointCount(runName(0), u"loss"_s), kPoints + 10);
    QCOMPARE(curves->runsModel()->rowCount(), kRuns);
    QCOMPARE(drawn(curves, u"loss"_s).size(), kRuns);

    // Every answer was turned into points on a worker thread, never on the GUI thread.
    const auto *feed = curves->findChild<sb::CurvesFeed *>();
    QVERIFY(feed);
    QVERIFY(feed->convertedOffThread() > 0);
    QCOMPARE(feed->convertedOnCallerThread(), 0);

    // The window kept processing events and painting while the runs were polled.
    QVERIFY(watch.ticks() > 0);
    QVERIFY(watch.paints() > 0);
    qInfo("%d runs polled: %d timer ticks, %d paints of the view, longest gap between ticks "
          "%lld ms",
          kRuns, watch.ticks(), watch.paints(), watch.longestGapMs());
}

QTEST_MAIN(TestCurvesView)
#include "tst_curvesview.moc"
