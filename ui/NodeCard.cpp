#include "NodeCard.h"

#include "GpuDrawing.h"
#include "Theme.h"
#include "util/PlainText.h"

#include <QContextMenuEvent>
#include <QDateTime>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QPushButton>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <deque>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

double memoryPercent(const MemInfo &m) {
    return m.totalKiB ? 100.0 * static_cast<double>(m.totalKiB - m.availableKiB) /
                            static_cast<double>(m.totalKiB)
                      : 0;
}

QString gib(double kib) {
    return QString::number(kib / (1024.0 * 1024.0), 'f', 1);
}

} // namespace

// Ten minutes of two percentages (blue and purple), newest on the right.
class History {
public:
    static constexpr double kSpanSeconds = 600;
    void add(double time, double first, double second) {
        m_points.push_back({time, first, second});
        while (!m_points.empty() && m_points.front().time < time - kSpanSeconds)
            m_points.pop_front();
    }
    void paint(QPainter &p, const QRectF &area, const QPalette &palette) const {
        p.fillRect(area, palette.color(QPalette::AlternateBase));
        if (m_points.size() < 2)
            return;
        p.save();
        p.setRenderHint(QPainter::Antialiasing);
        const double end = m_points.back().time;
        // The axis grows with the data (at least a minute), up to ten minutes.
        const double spanSeconds = std::clamp(end - m_points.front().time, 60.0, kSpanSeconds);
        auto trace = [&](auto value, const QColor &color) {
            QPainterPath path;
            for (std::size_t i = 0; i < m_points.size(); ++i) {
                const double x =
                    area.right() - (end - m_points[i].time) / spanSeconds * area.width();
                const double y = area.bottom() -
                                 std::clamp(value(m_points[i]), 0.0, 100.0) / 100.0 * area.height();
                i == 0 ? path.moveTo(x, y) : path.lineTo(x, y);
            }
            p.setPen(QPen(color, 1.3));
            p.drawPath(path);
        };
        trace([](const Point &pt) { return pt.first; }, QColor(0x4e79a7));
        trace([](const Point &pt) { return pt.second; }, QColor(0xb07aa1));
        p.restore();
    }

private:
    struct Point {
        double time, first, second;
    };
    std::deque<Point> m_points;
};

class Sparkline final : public QWidget {
public:
    explicit Sparkline(QString legend)
        : m_legend(std::move(legend)) {}
    void add(double time, double first, double second) {
        m_history.add(time, first, second);
        update();
    }
    QSize sizeHint() const override { return {360, 64}; }

protected:
    void paintEvent(QPaintEvent *) override {
        QPainter p(this);
        const QRectF area = rect().adjusted(1, 1, -1, -14);
        m_history.paint(p, area, palette());
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRectF(0, area.bottom() + 1, width(), 13), Qt::AlignLeft, m_legend);
    }

private:
    QString m_legend;
    History m_history;
};

// Per-core utilization bars, htop style, in two columns.
class CoreBars final : public QWidget {
public:
    void setUsage(std::vector<double> usage) {
        m_usage = std::move(usage);
        updateGeometry();
        update();
    }
    QSize sizeHint() const override {
        const int columns = m_usage.size() > 16 ? 4 : 2;
        return {360, 14 * static_cast<int>((m_usage.size() + columns - 1) / columns) + 2};
    }
    QSize minimumSizeHint() const override { return {200, sizeHint().height()}; }

protected:
    void paintEvent(QPaintEvent *) override {
        QPainter p(this);
        QFont small = font();
        small.setPointSizeF(small.pointSizeF() * 0.85);
        p.setFont(small);
        const int columns = m_usage.size() > 16 ? 4 : 2;
        const int w = (width() - 8 * (columns - 1)) / columns;
        for (std::size_t i = 0; i < m_usage.size(); ++i) {
            const int x = static_cast<int>(i % columns) * (w + 8);
            const int y = static_cast<int>(i / columns) * 14;
            p.setPen(palette().color(QPalette::Text));
            p.drawText(QRect(x, y, 24, 12), Qt::AlignRight | Qt::AlignVCenter, QString::number(i));
            drawBar(p, QRect(x + 28, y + 1, w - 28, 11), m_usage[i],
                    u"%1%"_s.arg(m_usage[i], 0, 'f', 0), palette());
        }
    }

private:
    std::vector<double> m_usage;
};

// Every GPU as nvidia-smi sees it: a header line, utilization and memory bars, the facts, ten
// minutes of history, its processes, and an insight when there is one.
class GpuPanel final : public QWidget {
public:
    // Every sample goes into the history, shown or not.
    void record(const NodeSample &sample) {
        for (const GpuReading &gpu : sample.gpus) {
            const double total = gpu.memoryTotalMiB.value_or(0);
            m_history[gpu.uuid].add(sample.time, gpu.utilizationGpu.value_or(0),
                                    total > 0 ? 100 * gpu.memoryUsedMiB.value_or(0) / total : 0);
        }
    }
    void show(const NodeSample &sample, const std::vector<GpuInsight> &insights,
              const QHash<qint64, QString> &runs) {
        m_sample = sample;
        m_insights = insights;
        m_runs = runs;
        updateGeometry();
        update();
    }
    QSize sizeHint() const override { return {760, contentHeight()}; }
    QSize minimumSizeHint() const override { return {560, contentHeight()}; }

protected:
    void paintEvent(QPaintEvent *) override {
        QPainter p(this);
        const QFontMetrics fm(font());
        const int line = fm.height() + 2;
        int y = 0;
        for (const GpuReading &gpu : m_sample.gpus) {
            const auto insight = std::find_if(m_insights.begin(), m_insights.end(),
                                              [&](const auto &i) { return i.gpuUuid == gpu.uuid; });
            const int height = gpuHeight(gpu, line);
            if (insight != m_insights.end())
                p.fillRect(QRect(0, y, width(), height - 4), QColor(255, 190, 60, 60));
            // Header: index, name, facts.
            QStringList facts;
            if (gpu.temperatureC)
                facts << u"%1 °C"_s.arg(*gpu.temperatureC, 0, 'f', 0);
            if (gpu.powerDrawW)
                facts << (gpu.powerLimitW ? u"%1 / %2 W"_s.arg(*gpu.powerDrawW, 0, 'f', 0)
                                                .arg(*gpu.powerLimitW, 0, 'f', 0)
                                          : u"%1 W"_s.arg(*gpu.powerDrawW, 0, 'f', 0));
            if (gpu.smClockMHz)
                facts << NodeCard::tr("SM %1 MHz").arg(*gpu.smClockMHz, 0, 'f', 0);
            if (gpu.memoryClockMHz)
                facts << NodeCard::tr("memory %1 MHz").arg(*gpu.memoryClockMHz, 0, 'f', 0);
            if (gpu.fanPercent)
                facts << NodeCard::tr("fan %1%").arg(*gpu.fanPercent, 0, 'f', 0);
            if (!gpu.pstate.isEmpty())
                facts << gpu.pstate;
            if (gpu.fields.value(u"mig.mode.current"_s).toString() == u"Enabled"_s)
                facts << u"MIG"_s;
            if (gpu.eccUncorrectedVolatile && *gpu.eccUncorrectedVolatile > 0)
                facts << NodeCard::tr("ECC errors: %1").arg(*gpu.eccUncorrectedVolatile);
            if (!gpu.clockEventReasons.isEmpty())
                facts << NodeCard::tr("throttled: %1").arg(gpu.clockEventReasons.join(u", "_s));
            QFont bold = font();
            bold.setBold(true);
            p.setFont(bold);
            p.setPen(palette().color(QPalette::Text));
            const QString title = u"GPU %1  %2"_s.arg(gpu.index.value_or(-1)).arg(gpu.name);
            p.drawText(QRect(0, y, width(), line), Qt::AlignLeft | Qt::AlignVCenter, title);
            const int factsAt = QFontMetrics(bold).horizontalAdvance(title) + 16;
            p.setFont(font());
            p.drawText(QRect(factsAt, y, width() - factsAt, line), Qt::AlignLeft | Qt::AlignVCenter,
                       facts.join(u" · "_s));
            y += line;
            // Bars on the left, history on the right.
            const int half = (width() - 12) / 2;
            const double used = gpu.memoryUsedMiB.value_or(0);
            const double total = gpu.memoryTotalMiB.value_or(0);
            drawBar(p, QRect(0, y + 1, half / 2 - 4, line - 4), gpu.utilizationGpu.value_or(0),
                    gpu.utilizationGpu
                        ? u"%1% busy"_s.arg(*gpu.utilizationGpu, 0, 'f', 0)
                        : u"busy: %1"_s.arg(
                              gpu.unavailable.value(u"utilization.gpu"_s).toString(u"n/a"_s)),
                    palette());
            drawBar(p, QRect(half / 2, y + 1, half / 2, line - 4),
                    total > 0 ? 100 * used / total : 0,
                    u"%1 / %2 GiB"_s.arg(used / 1024, 0, 'f', 1).arg(total / 1024, 0, 'f', 0),
                    palette());
            m_history[gpu.uuid].paint(
                p, QRectF(half + 12, y + 1, width() - half - 13, line * 2 - 4), palette());
            y += line;
            p.setPen(palette().color(QPalette::PlaceholderText));
            p.drawText(QRect(0, y, half, line), Qt::AlignLeft | Qt::AlignVCenter,
                       QObject::tr("history: busy (blue), memory (purple), 10 min"));
            y += line;
            // Processes, each with what it uses.
            for (const GpuProcess *proc : processesOn(m_sample, gpu)) {
                p.setPen(palette().color(QPalette::Text));
                const QString text = processLabel(*proc, m_runs.value(proc->processGroup)) +
                                     u"  "_s + processFacts(*proc);
                p.drawText(QRect(12, y, width() - 12, line), Qt::AlignLeft | Qt::AlignVCenter,
                           fm.elidedText(text, Qt::ElideRight, width() - 12));
                y += line;
            }
            if (const QString reserved = reservationText(m_sample, gpu); !reserved.isEmpty()) {
                p.setPen(palette().color(QPalette::PlaceholderText));
                p.drawText(QRect(12, y, width() - 12, line), Qt::AlignLeft | Qt::AlignVCenter,
                           fm.elidedText(reserved, Qt::ElideRight, width() - 12));
                y += line;
            }
            if (insight != m_insights.end()) {
                p.setPen(warningColor(palette()));
                p.drawText(QRect(12, y, width() - 12, line * 2), Qt::AlignLeft | Qt::TextWordWrap,
                           u"⚠ "_s + insight->text);
                y += line * 2;
            }
            y += 4;
        }
        if (!m_sample.gpuError.isEmpty()) {
            p.setPen(problemColor(palette()));
            p.drawText(QRect(0, y, width(), line * 2), Qt::AlignLeft | Qt::TextWordWrap,
                       QObject::tr("GPUs: %1").arg(m_sample.gpuError));
        }
    }

private:
    int gpuHeight(const GpuReading &gpu, int line) const {
        const auto processes = static_cast<int>(processesOn(m_sample, gpu).size()) +
                               (reservationText(m_sample, gpu).isEmpty() ? 0 : 1);
        const bool insight = std::any_of(m_insights.begin(), m_insights.end(),
                                         [&](const auto &i) { return i.gpuUuid == gpu.uuid; });
        return line * (3 + processes + (insight ? 2 : 0)) + 4;
    }
    int contentHeight() const {
        const int line = QFontMetrics(font()).height() + 2;
        int h = 0;
        for (const GpuReading &gpu : m_sample.gpus)
            h += gpuHeight(gpu, line);
        return h + (m_sample.gpuError.isEmpty() ? 0 : line * 2);
    }

    NodeSample m_sample;
    std::vector<GpuInsight> m_insights;
    QHash<qint64, QString> m_runs; // process group -> our run
    QHash<QString, History> m_history;
};

NodeCard::NodeCard(const QString &node, const QString &address, QWidget *parent)
    : QFrame(parent)
    , m_node(node)
    , m_title(
          new QLabel(u"<b style='font-size:large'>%1</b> <span style='color:gray'>%2</span>"_s.arg(
              htmlOf(node), htmlOf(address))))
    , m_statusLabel(new QLabel)
    , m_action(new QPushButton)
    , m_summary(new QLabel)
    , m_gpus(new GpuPanel)
    , m_cores(new CoreBars)
    , m_history(new Sparkline(tr("CPU (blue) and memory (purple), last 10 minutes")))
    , m_top(new QTableWidget(0, 6)) {
    setObjectName(u"node-"_s + node);
    setFrameShape(QFrame::StyledPanel);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    m_action->hide();
    connect(m_action, &QPushButton::clicked, this,
            [this] { Q_EMIT actionRequested(m_node, m_status.state); });
    auto *header = new QHBoxLayout;
    header->addWidget(m_title);
    header->addStretch();
    header->addWidget(m_statusLabel);
    header->addWidget(m_action);

    m_top->setHorizontalHeaderLabels(
        {tr("PID"), tr("User"), tr("CPU%"), tr("MEM%"), tr("Time"), tr("Command")});
    m_top->verticalHeader()->hide();
    m_top->verticalHeader()->setDefaultSectionSize(QFontMetrics(font()).height() + 4);
    m_top->horizontalHeader()->setStretchLastSection(true);
    m_top->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_top->setSelectionMode(QAbstractItemView::NoSelection);
    m_top->setFocusPolicy(Qt::NoFocus);
    m_top->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_top->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Fixed widths: sizing columns to their contents would measure every cell every second.
    const QFontMetrics metrics(font());
    const QStringList widest{u"4194304"_s, u"researcher"_s, u"100.0"_s, u"100.0"_s,
                             u"1-00:00:00"_s};
    for (int c = 0; c < 5; ++c) {
        m_top->horizontalHeader()->setSectionResizeMode(c, QHeaderView::Fixed);
        m_top->setColumnWidth(c, metrics.horizontalAdvance(widest[c]) + 14);
    }

    auto *cpu = new QVBoxLayout;
    cpu->addWidget(m_cores);
    cpu->addWidget(m_history);
    cpu->addStretch();
    auto *lower = new QHBoxLayout;
    lower->addLayout(cpu, 2);
    lower->addWidget(m_top, 3, Qt::AlignTop);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(m_summary);
    layout->addWidget(m_gpus);
    layout->addLayout(lower);
    m_top->hide();
    setStatus(m_status);
}

void NodeCard::setStatus(const NodeStatus &status) {
    using State = NodeStatus::State;
    m_status = status;
    // A connected node is live; the time of its last sample matters once it stops answering.
    const QString seen =
        status.lastSeen.isValid() && status.state != State::Connected
            ? tr(" · last seen %1").arg(status.lastSeen.toLocalTime().toString(u"hh:mm:ss"_s))
            : QString();
    QString color = u"#59a14f"_s;
    switch (status.state) {
    case State::Connected:
        break;
    case State::Connecting:
        color = u"#f28e2b"_s;
        break;
    default:
        color = u"#e15759"_s;
    }
    QString text = u"<span style='color:%1'>●</span> %2"_s.arg(color, status.stateName());
    if (!status.message.isEmpty())
        text += u": "_s + htmlOf(status.message);
    if (m_statusLabel->text() == text + seen)
        return; // nothing changed: spare the rich-text layout
    m_statusLabel->setText(text + seen);
    m_statusLabel->setToolTip(richTextOf(status.message));
    m_statusLabel->setWordWrap(status.message.size() > 60);
    m_statusLabel->setMaximumWidth(720);
    const QHash<State, QString> actions{{State::HostKeyUnknown, tr("Trust host key…")},
                                        {State::NeedsPassphrase, tr("Enter passphrase…")},
                                        {State::Unreachable, tr("Retry now")},
                                        {State::AuthFailed, tr("Retry")}};
    m_action->setText(actions.value(status.state));
    m_action->setVisible(actions.contains(status.state));
}

void NodeCard::addSample(const NodeSample &sample, const std::vector<GpuInsight> &insights,
                         const QHash<qint64, QString> &runs) {
    m_runs = runs;
    if (!sample.error.isEmpty()) {
        m_summary->setText(tr("cannot read the node: %1").arg(sample.error));
        return;
    }
    m_last = sample;
    m_insights = insights;
    // A sample is the best sign of life: the status line says when the last one came.
    m_status.lastSeen = QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(sample.time * 1000));
    if (m_status.state == NodeStatus::State::Connecting) {
        m_status.state = NodeStatus::State::Connected;
        setStatus(m_status);
    }
    m_gpus->record(sample);
    m_history->add(sample.time, sample.cpuPercent, memoryPercent(sample.memory));
    // Fifty nodes at 1 Hz: only cards on screen lay out text; the rest catch up when shown.
    if (visibleRegion().isEmpty()) {
        m_stale = true;
        return;
    }
    refresh();
}

void NodeCard::showEvent(QShowEvent *event) {
    QFrame::showEvent(event);
    if (m_stale)
        refresh();
}

void NodeCard::paintEvent(QPaintEvent *event) {
    if (m_stale) // scrolled into view: lay out after this paint
        QTimer::singleShot(0, this, &NodeCard::refresh);
    QFrame::paintEvent(event);
}

void NodeCard::refresh() {
    if (!m_stale && m_refreshed == m_last.time)
        return;
    m_stale = false;
    m_refreshed = m_last.time;
    const NodeSample &sample = m_last;
    const MemInfo &m = sample.memory;
    const double used = static_cast<double>(m.totalKiB - m.availableKiB);
    const int gpus = static_cast<int>(sample.gpus.size());
    const QString gpuSummary = !sample.hasNvidiaSmi
                                   ? tr("no GPUs (no nvidia-smi)")
                                   : tr("%1 of %2 GPUs free").arg(freeGpus()).arg(gpus);
    m_summary->setText(
        tr("CPU %1% of %2 cores · memory %3 / %4 GiB · swap %5 / %6 GiB · load %7 %8 %9 · %10")
            .arg(sample.cpuPercent, 0, 'f', 0)
            .arg(sample.corePercent.size())
            .arg(gib(used), gib(static_cast<double>(m.totalKiB)))
            .arg(gib(static_cast<double>(m.swapTotalKiB - m.swapFreeKiB)),
                 gib(static_cast<double>(m.swapTotalKiB)))
            .arg(sample.load.one, 0, 'f', 2)
            .arg(sample.load.five, 0, 'f', 2)
            .arg(sample.load.fifteen, 0, 'f', 2)
            .arg(gpuSummary));
    m_gpus->show(sample, m_insights, m_runs);
    m_cores->setUsage(sample.corePercent);

    const int rows = static_cast<int>(std::min<std::size_t>(sample.topCpu.size(), 8));
    m_top->setRowCount(rows);
    for (int r = 0; r < rows; ++r) {
        const ProcessRow &proc = sample.topCpu[static_cast<std::size_t>(r)];
        const QStringList cells{QString::number(proc.pid),
                                proc.user,
                                QString::number(proc.cpuPercent, 'f', 1),
                                QString::number(proc.memoryPercent, 'f', 1),
                                proc.cpuTime,
                                proc.command};
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = m_top->item(r, c);
            if (!item) {
                item = new QTableWidgetItem;
                m_top->setItem(r, c, item);
            }
            item->setText(cells[c]);
            item->setToolTip(c == 5 ? proc.command : QString());
            if (c >= 2 && c <= 3)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        }
    }
    m_top->setVisible(rows > 0);
    m_top->setFixedHeight(m_top->horizontalHeader()->height() +
                          rows * m_top->verticalHeader()->defaultSectionSize() + 4);
}

int NodeCard::freeGpus() const {
    return static_cast<int>(
        std::count_if(m_last.gpus.begin(), m_last.gpus.end(),
                      [this](const GpuReading &gpu) { return isFreeGpu(gpu, m_last); }));
}

double NodeCard::gpuBusyPercent() const {
    if (m_last.gpus.empty())
        return -1;
    double sum = 0;
    for (const GpuReading &gpu : m_last.gpus)
        sum += gpu.utilizationGpu.value_or(0);
    return sum / static_cast<double>(m_last.gpus.size());
}

void NodeCard::contextMenuEvent(QContextMenuEvent *event) {
    QMenu menu(this);
    menu.addAction(tr("History…"), this, [this] { Q_EMIT historyRequested(m_node); });
    if (m_node != u"localhost"_s) {
        menu.addAction(tr("Edit node…"), this, [this] { Q_EMIT editRequested(m_node); });
        menu.addAction(tr("Remove node"), this, [this] { Q_EMIT removeRequested(m_node); });
    }
    menu.exec(event->globalPos());
}

} // namespace sb
