#include "NodeCard.h"

#include <QDateTime>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QVBoxLayout>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

QColor usageColor(double percent) {
    if (percent > 90)
        return QColor(0xe15759);
    if (percent > 60)
        return QColor(0xf28e2b);
    return QColor(0x59a14f);
}

QString gib(quint64 kib) {
    return QString::number(static_cast<double>(kib) / (1024.0 * 1024.0), 'f', 1);
}

} // namespace

// Per-core utilization bars, htop style, laid out in as many rows as fit.
class CoreBars final : public QWidget {
public:
    void setUsage(std::vector<double> usage) {
        m_usage = std::move(usage);
        updateGeometry();
        update();
    }
    QSize sizeHint() const override {
        return {360, 14 * static_cast<int>((m_usage.size() + 1) / 2) + 4};
    }
    QSize minimumSizeHint() const override { return {200, sizeHint().height()}; }

protected:
    void paintEvent(QPaintEvent *) override {
        QPainter p(this);
        const int columns = 2;
        const int w = (width() - 8) / columns;
        for (std::size_t i = 0; i < m_usage.size(); ++i) {
            const int x = static_cast<int>(i % columns) * (w + 8);
            const int y = static_cast<int>(i / columns) * 14;
            const QRect label(x, y, 28, 12);
            const QRect bar(x + 30, y + 1, w - 72, 10);
            p.setPen(palette().color(QPalette::Text));
            p.drawText(label, Qt::AlignRight | Qt::AlignVCenter, QString::number(i));
            p.fillRect(bar, palette().color(QPalette::AlternateBase));
            QRect filled = bar;
            filled.setWidth(static_cast<int>(bar.width() * m_usage[i] / 100.0));
            p.fillRect(filled, usageColor(m_usage[i]));
            p.drawRect(bar.adjusted(0, 0, -1, -1));
            p.drawText(QRect(bar.right() + 4, y, 40, 12), Qt::AlignLeft | Qt::AlignVCenter,
                       u"%1%"_s.arg(m_usage[i], 0, 'f', 0));
        }
    }

private:
    std::vector<double> m_usage;
};

// One row per GPU, nvidia-smi's view: utilization and memory bars, temperature, power, clocks.
class GpuRows final : public QWidget {
public:
    void setGpus(std::vector<GpuReading> gpus, QString error) {
        m_gpus = std::move(gpus);
        m_error = std::move(error);
        updateGeometry();
        update();
    }
    QSize sizeHint() const override {
        const int rows = static_cast<int>(m_gpus.size()) + (m_error.isEmpty() ? 0 : 1);
        return {600, rows * 20 + (rows ? 4 : 0)};
    }

protected:
    void paintEvent(QPaintEvent *) override {
        QPainter p(this);
        int y = 0;
        const int barWidth = std::max(80, (width() - 560) / 2);
        auto bar = [&](int x, double percent, const QString &text) {
            const QRect r(x, y + 3, barWidth, 12);
            p.fillRect(r, palette().color(QPalette::AlternateBase));
            QRect filled = r;
            filled.setWidth(static_cast<int>(r.width() * std::clamp(percent, 0.0, 100.0) / 100.0));
            p.fillRect(filled, usageColor(percent));
            p.setPen(palette().color(QPalette::Text));
            p.drawRect(r.adjusted(0, 0, -1, -1));
            p.drawText(r, Qt::AlignCenter, text);
        };
        for (const GpuReading &gpu : m_gpus) {
            p.setPen(palette().color(QPalette::Text));
            p.drawText(QRect(0, y, 250, 18), Qt::AlignLeft | Qt::AlignVCenter,
                       u"GPU %1 · %2"_s.arg(gpu.index.value_or(-1)).arg(gpu.name));
            const double util = gpu.utilizationGpu.value_or(0);
            bar(255, util, gpu.utilizationGpu ? u"%1% busy"_s.arg(util, 0, 'f', 0) : u"util n/a"_s);
            const double used = gpu.memoryUsedMiB.value_or(0);
            const double total = gpu.memoryTotalMiB.value_or(0);
            bar(260 + barWidth, total > 0 ? 100 * used / total : 0,
                u"%1 / %2 GiB"_s.arg(used / 1024, 0, 'f', 1).arg(total / 1024, 0, 'f', 0));
            QStringList facts;
            if (gpu.temperatureC)
                facts << u"%1 °C"_s.arg(*gpu.temperatureC, 0, 'f', 0);
            if (gpu.powerDrawW)
                facts << (gpu.powerLimitW ? u"%1 / %2 W"_s.arg(*gpu.powerDrawW, 0, 'f', 0)
                                                .arg(*gpu.powerLimitW, 0, 'f', 0)
                                          : u"%1 W"_s.arg(*gpu.powerDrawW, 0, 'f', 0));
            if (gpu.smClockMHz)
                facts << u"%1 MHz"_s.arg(*gpu.smClockMHz, 0, 'f', 0);
            if (!gpu.pstate.isEmpty())
                facts << gpu.pstate;
            p.setPen(palette().color(QPalette::Text));
            p.drawText(QRect(268 + 2 * barWidth, y, width(), 18), Qt::AlignLeft | Qt::AlignVCenter,
                       facts.join(u" · "_s));
            y += 20;
        }
        if (!m_error.isEmpty()) {
            p.setPen(QColor(0xe15759));
            p.drawText(QRect(0, y, width(), 18), Qt::AlignLeft | Qt::AlignVCenter, m_error);
        }
    }

private:
    std::vector<GpuReading> m_gpus;
    QString m_error;
};

// CPU and memory percentages over the last ten minutes.
class Sparkline final : public QWidget {
public:
    static constexpr double kSpanSeconds = 600;
    void add(double time, double cpu, double memory) {
        m_points.push_back({time, cpu, memory});
        while (!m_points.empty() && m_points.front().time < time - kSpanSeconds)
            m_points.pop_front();
        update();
    }
    QSize sizeHint() const override { return {360, 70}; }

protected:
    void paintEvent(QPaintEvent *) override {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        const QRectF area = rect().adjusted(1, 1, -1, -14);
        p.fillRect(area, palette().color(QPalette::AlternateBase));
        if (m_points.size() < 2)
            return;
        const double end = m_points.back().time;
        auto trace = [&](auto value, const QColor &color) {
            QPainterPath path;
            for (std::size_t i = 0; i < m_points.size(); ++i) {
                const double x =
                    area.right() - (end - m_points[i].time) / kSpanSeconds * area.width();
                const double y = area.bottom() - value(m_points[i]) / 100.0 * area.height();
                i == 0 ? path.moveTo(x, y) : path.lineTo(x, y);
            }
            p.setPen(QPen(color, 1.5));
            p.drawPath(path);
        };
        trace([](const Point &pt) { return pt.cpu; }, QColor(0x4e79a7));
        trace([](const Point &pt) { return pt.memory; }, QColor(0xb07aa1));
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRectF(0, area.bottom() + 1, width(), 13), Qt::AlignLeft,
                   QObject::tr("CPU (blue) and memory (purple), last 10 minutes"));
    }

private:
    struct Point {
        double time, cpu, memory;
    };
    std::deque<Point> m_points;
};

NodeCard::NodeCard(const QString &node, QWidget *parent)
    : QFrame(parent)
    , m_title(new QLabel(u"<b>%1</b>"_s.arg(node.toHtmlEscaped())))
    , m_status(new QLabel(tr("connecting…")))
    , m_summary(new QLabel)
    , m_cores(new CoreBars)
    , m_gpus(new GpuRows)
    , m_history(new Sparkline) {
    setFrameShape(QFrame::StyledPanel);
    auto *header = new QHBoxLayout;
    header->addWidget(m_title);
    header->addStretch();
    header->addWidget(m_status);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(m_summary);
    layout->addWidget(m_gpus);
    layout->addWidget(m_cores);
    layout->addWidget(m_history);
}

void NodeCard::addSample(const NodeSample &sample) {
    if (!sample.error.isEmpty()) {
        m_status->setText(
            u"<span style='color:#e15759'>%1</span>"_s.arg(sample.error.toHtmlEscaped()));
        return;
    }
    m_status->setText(
        tr("connected · %1")
            .arg(QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(sample.time * 1000))
                     .toString(u"hh:mm:ss"_s)));
    const MemInfo &m = sample.memory;
    const quint64 used = m.totalKiB - m.availableKiB;
    const double memPercent =
        m.totalKiB ? 100.0 * static_cast<double>(used) / static_cast<double>(m.totalKiB) : 0;
    m_summary->setText(
        tr("CPU %1% of %2 cores · memory %3 / %4 GiB · swap %5 / %6 GiB · load %7 %8 %9")
            .arg(sample.cpuPercent, 0, 'f', 0)
            .arg(sample.corePercent.size())
            .arg(gib(used), gib(m.totalKiB))
            .arg(gib(m.swapTotalKiB - m.swapFreeKiB), gib(m.swapTotalKiB))
            .arg(sample.load.one, 0, 'f', 2)
            .arg(sample.load.five, 0, 'f', 2)
            .arg(sample.load.fifteen, 0, 'f', 2));
    m_cores->setUsage(sample.corePercent);
    m_gpus->setGpus(sample.gpus, sample.gpuError);
    m_history->add(sample.time, sample.cpuPercent, memPercent);
}

} // namespace sb
