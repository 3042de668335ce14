#include "NodeHistory.h"

#include "OutsideText.h"
#include "charts/CurveChart.h"
#include "client/CollectorClient.h"
#include "monitor/SystemSeries.h"

#include <QComboBox>
#include <QDateTime>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QTimer>
#include <QVBoxLayout>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// Tableau 10: GPU i gets colour i, the same on every chart.
QColor gpuColor(int index) {
    static const QList<QColor> colors{
        QColor(0x4e79a7), QColor(0xf28e2b), QColor(0xe15759), QColor(0x76b7b2), QColor(0x59a14f),
        QColor(0xedc948), QColor(0xb07aa1), QColor(0xff9da7), QColor(0x9c755f), QColor(0xbab0ac)};
    return colors[index % colors.size()];
}

} // namespace

NodeHistory::NodeHistory(CollectorClient *collector, const QString &node, QWidget *parent)
    : QDialog(parent)
    , m_collector(collector)
    , m_node(node)
    , m_span(new QComboBox)
    , m_status(plainLabel())
    , m_utilization(new CurveChart(tr("GPU utilization (%)")))
    , m_memory(new CurveChart(tr("GPU memory in use (%)")))
    , m_host(new CurveChart(tr("CPU and memory (%)"))) {
    setWindowTitle(tr("%1: history").arg(node));
    setObjectName(u"nodeHistory"_s);
    for (auto [label, seconds] : {std::pair{tr("Last hour"), 3600},
                                  {tr("Last 6 hours"), 21600},
                                  {tr("Last day"), 86400},
                                  {tr("Last week"), 604800}})
        m_span->addItem(label, seconds);
    auto *again = new QPushButton(tr("Refresh"));
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_span);
    bar->addWidget(again);
    bar->addWidget(m_status, 1);
    auto *grid = new QGridLayout;
    grid->addWidget(m_utilization, 0, 0);
    grid->addWidget(m_memory, 0, 1);
    grid->addWidget(m_host, 1, 0, 1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addLayout(grid, 1);
    for (CurveChart *chart : charts()) {
        chart->setXUnits(TickUnits::Clock);
        chart->setXTitle(tr("time"));
        chart->setMinimumSize(420, 240);
    }
    connect(m_span, &QComboBox::currentIndexChanged, this, &NodeHistory::refresh);
    connect(again, &QPushButton::clicked, this, &NodeHistory::refresh);
    resize(1100, 700);
    refresh();
}

QList<CurveChart *> NodeHistory::charts() const {
    return {m_utilization, m_memory, m_host};
}

QString NodeHistory::statusText() const {
    return m_status->text();
}

void NodeHistory::setSpan(int seconds) {
    m_span->setCurrentIndex(std::max(0, m_span->findData(seconds)));
}

void NodeHistory::refresh() {
    const quint64 asked = ++m_asked;
    // Said only when the answer is slow to come: a word that flashes for 20 ms is noise, and
    // each change of it lays the window out again.
    QTimer::singleShot(500, this, [this, asked] {
        if (asked == m_asked && m_drawn != asked)
            m_status->setText(tr("Loading…"));
    });
    m_collector->metrics(
        {nodeHistoryRun(m_node)}, this, [this, asked](const Result<QStringList> &metrics) {
            if (asked != m_asked)
                return; // a later refresh (another span) is on its way
            if (!metrics) {
                m_status->setText(tr("The collector could not be asked: %1").arg(metrics.error()));
                m_drawn = asked;
                return Q_EMIT refreshed();
            }
            if (metrics->isEmpty()) {
                m_status->setText(tr("No history of %1 yet: it is kept from the first sample on, "
                                     "a point every %2 s.")
                                      .arg(m_node)
                                      .arg(SystemSeries::kDefaultResolution));
                m_drawn = asked;
                return Q_EMIT refreshed();
            }
            load(*metrics, asked);
        });
}

void NodeHistory::load(const QStringList &metrics, quint64 asked) {
    const double now = static_cast<double>(QDateTime::currentSecsSinceEpoch());
    SeriesWindow window;
    window.axis = XAxis::WallTime;
    window.from = now - m_span->currentData().toDouble();
    window.to = now;
    window.width = std::max(200, m_utilization->plotWidth());
    // What each chart draws: metric -> (chart, curve name, colour).
    struct Wanted {
        CurveChart *chart;
        QString name;
        QColor color;
    };
    QHash<QString, Wanted> wanted;
    static const QRegularExpression gpuMetric(u"^gpu(\\d+)/(utilization|memory)$"_s);
    for (const QString &metric : metrics) {
        const auto match = gpuMetric.match(metric);
        if (match.hasMatch()) {
            const int index = match.captured(1).toInt();
            wanted.insert(metric, {match.captured(2) == u"utilization"_s ? m_utilization : m_memory,
                                   tr("GPU %1").arg(index), gpuColor(index)});
        }
    }
    wanted.insert(u"cpu"_s, {m_host, tr("CPU"), QColor(0x4e79a7)});
    wanted.insert(u"memory"_s, {m_host, tr("memory"), QColor(0xb07aa1)});
    // All of the node's series in one request: one pass over HTTP, one answer to draw.
    m_collector->seriesOfMetrics(
        nodeHistoryRun(m_node), wanted.keys(), window, this,
        [this, wanted, asked](const Result<SeriesReplies> &reply) {
            if (asked != m_asked)
                return;
            if (!reply) {
                m_status->setText(tr("The collector could not be asked: %1").arg(reply.error()));
                m_drawn = asked;
                return Q_EMIT refreshed();
            }
            QHash<CurveChart *, QList<Curve>> curves;
            qsizetype points = 0;
            for (const SeriesReply &s : reply->series) {
                const auto want = wanted.constFind(s.metric);
                if (want == wanted.cend() || !s.error.isEmpty())
                    continue;
                Curve curve{.run = want->name, .color = want->color};
                for (size_t i = 0; i < s.x.size(); ++i)
                    curve.points << QPointF(s.x[i], s.y[i]);
                points += curve.points.size();
                curves[want->chart] << curve;
            }
            for (CurveChart *chart : charts()) {
                QList<Curve> drawn = curves.value(chart);
                std::sort(drawn.begin(), drawn.end(),
                          [](const Curve &a, const Curve &b) { return a.run < b.run; });
                chart->setCurves(drawn);
                chart->resetZoom();
            }
            m_status->setText(points == 0 ? tr("Nothing recorded in this span.")
                                          : tr("A point every %1 s, at most one a pixel.")
                                                .arg(SystemSeries::kDefaultResolution));
            m_drawn = asked;
            Q_EMIT refreshed();
        });
}

} // namespace sb
