#include "FleetTable.h"

#include "GpuDrawing.h"
#include "Theme.h"
#include "util/PlainText.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace sb {

using namespace Qt::StringLiterals;
using State = NodeStatus::State;

namespace {

constexpr int kIndent = 16;
constexpr int kBusyBar = 90;
constexpr int kMemoryBar = 130;

bool isDown(const NodeStatus &status) {
    return status.state != State::Connected && status.state != State::Connecting;
}

int freeCount(const NodeSample &sample) {
    return static_cast<int>(std::count_if(sample.gpus.begin(), sample.gpus.end(),
                                          [&](const auto &gpu) { return isFreeGpu(gpu, sample); }));
}

double gib(quint64 kib) {
    return static_cast<double>(kib) / (1024.0 * 1024.0);
}

} // namespace

QString gpuModels(const std::vector<GpuReading> &gpus) {
    QStringList models;
    QHash<QString, int> counts;
    for (const GpuReading &gpu : gpus)
        if (counts[gpu.name]++ == 0)
            models << gpu.name;
    for (QString &model : models)
        model = u"%1 × %2"_s.arg(counts.value(model)).arg(model);
    return models.join(u", "_s);
}

QString fleetSummary(const std::vector<FleetTable::Node> &nodes) {
    int gpus = 0;
    int free = 0;
    int up = 0;
    int down = 0;
    for (const FleetTable::Node &node : nodes) {
        if (isDown(node.status)) {
            ++down;
            continue;
        }
        ++up;
        gpus += static_cast<int>(node.sample.gpus.size());
        free += freeCount(node.sample);
    }
    QString text = (up == 1 ? FleetTable::tr("%1 of %2 GPUs free on %3 node")
                            : FleetTable::tr("%1 of %2 GPUs free on %3 nodes"))
                       .arg(free)
                       .arg(gpus)
                       .arg(up);
    if (down > 0)
        text += FleetTable::tr(" · %1 unreachable").arg(down);
    return text;
}

FleetTable::FleetTable(QWidget *parent)
    : QWidget(parent) {
    setMouseTracking(true);
    setObjectName(u"fleetTable"_s);
    setToolTip(tr("Double-click a node for its history"));
}

void FleetTable::setNodes(std::vector<Node> nodes) {
    m_nodes = std::move(nodes);
    m_rows.clear();
    for (int n = 0; n < static_cast<int>(m_nodes.size()); ++n) {
        const Node &node = m_nodes[static_cast<size_t>(n)];
        m_rows.push_back({Row::Kind::Node, n});
        if (isDown(node.status))
            continue; // one line says it all
        for (int g = 0; g < static_cast<int>(node.sample.gpus.size()); ++g)
            m_rows.push_back({Row::Kind::Gpu, n, g});
        if (!node.sample.gpuError.isEmpty() || !node.sample.error.isEmpty())
            m_rows.push_back({Row::Kind::Problem, n});
    }
    updateGeometry();
    update();
}

int FleetTable::rowHeight() const {
    return fontMetrics().height() + 4;
}

QSize FleetTable::sizeHint() const {
    return {900, static_cast<int>(m_rows.size()) * rowHeight() + 4};
}

QString FleetTable::nodeText(const Node &node) const {
    const NodeSample &s = node.sample;
    if (isDown(node.status)) {
        QString text =
            node.status.message.isEmpty() ? node.status.stateName() : node.status.message;
        if (node.status.lastSeen.isValid())
            text += tr(" · last seen %1").arg(node.status.lastSeen.toString(u"MMM d HH:mm"_s));
        return text;
    }
    if (s.time <= 0)
        return tr("connecting…");
    QStringList facts;
    if (!s.gpus.empty())
        facts << gpuModels(s.gpus) << tr("%1 of %2 free").arg(freeCount(s)).arg(s.gpus.size());
    else if (!s.hasNvidiaSmi)
        facts << tr("no GPUs");
    facts << tr("CPU %1% of %2").arg(s.cpuPercent, 0, 'f', 0).arg(s.corePercent.size())
          << tr("memory %1 / %2 GiB")
                 .arg(gib(s.memory.totalKiB - s.memory.availableKiB), 0, 'f', 0)
                 .arg(gib(s.memory.totalKiB), 0, 'f', 0)
          << tr("load %1").arg(s.load.one, 0, 'f', 1);
    return facts.join(u" · "_s);
}

QString FleetTable::gpuFacts(const GpuReading &gpu) const {
    QStringList facts;
    facts << (gpu.temperatureC ? u"%1°C"_s.arg(*gpu.temperatureC, 0, 'f', 0) : u"–°C"_s);
    facts << (gpu.powerDrawW ? u"%1 W"_s.arg(*gpu.powerDrawW, 0, 'f', 0) : u"– W"_s);
    return facts.join(u"  "_s);
}

QStringList FleetTable::rowTexts() const {
    QStringList texts;
    for (const Row &row : m_rows) {
        const Node &node = m_nodes[static_cast<size_t>(row.node)];
        if (row.kind == Row::Kind::Node) {
            texts << node.name + u"  "_s + nodeText(node);
        } else if (row.kind == Row::Kind::Problem) {
            texts << (node.sample.error.isEmpty() ? tr("GPUs: %1").arg(node.sample.gpuError)
                                                  : node.sample.error);
        } else {
            const GpuReading &gpu = node.sample.gpus[static_cast<size_t>(row.gpu)];
            QStringList processes;
            for (const GpuProcess *p : processesOn(node.sample, gpu))
                processes << processLabel(*p, node.runs.value(p->processGroup));
            texts << u"%1  %2%  %3 / %4 MiB  %5  %6"_s.arg(gpu.index.value_or(-1))
                         .arg(gpu.utilizationGpu.value_or(0), 0, 'f', 0)
                         .arg(gpu.memoryUsedMiB.value_or(0), 0, 'f', 0)
                         .arg(gpu.memoryTotalMiB.value_or(0), 0, 'f', 0)
                         .arg(gpuFacts(gpu), isFreeGpu(gpu, node.sample) ? tr("free")
                                             : processes.isEmpty()
                                                 ? reservationText(node.sample, gpu)
                                                 : processes.join(u", "_s));
        }
    }
    // The isolates around names are for the painter; a copy is read as text.
    texts.replaceInStrings(QString(QChar(0x2068)), QString());
    texts.replaceInStrings(QString(QChar(0x2069)), QString());
    return texts;
}

void FleetTable::paintEvent(QPaintEvent *event) {
    QPainter p(this);
    const QPalette &pal = palette();
    const QFontMetrics fm = fontMetrics();
    const int h = rowHeight();
    const int digit = fm.horizontalAdvance(u'0');
    m_hits.clear();
    QFont bold = font();
    bold.setBold(true);
    QFont link = font();
    link.setUnderline(true);
    int y = 2;
    for (const Row &row : m_rows) {
        const QRect line(0, y, width(), h);
        y += h;
        if (!event->rect().intersects(line))
            continue;
        const Node &node = m_nodes[static_cast<size_t>(row.node)];
        if (row.kind == Row::Kind::Node) {
            p.setFont(bold);
            p.setPen(pal.color(QPalette::Text));
            const int nameWidth = QFontMetrics(bold).horizontalAdvance(node.name) + 12;
            p.drawText(line.adjusted(4, 0, 0, 0), Qt::AlignVCenter, node.name);
            p.setFont(font());
            p.setPen(isDown(node.status) ? problemColor(pal)
                                         : pal.color(QPalette::PlaceholderText));
            p.drawText(line.adjusted(4 + nameWidth, 0, 0, 0), Qt::AlignVCenter,
                       fm.elidedText(nodeText(node), Qt::ElideRight, width() - nameWidth - 8));
            continue;
        }
        if (row.kind == Row::Kind::Problem) {
            p.setPen(problemColor(pal));
            p.drawText(line.adjusted(kIndent, 0, 0, 0), Qt::AlignVCenter,
                       node.sample.error.isEmpty() ? tr("GPUs: %1").arg(node.sample.gpuError)
                                                   : node.sample.error);
            continue;
        }
        const GpuReading &gpu = node.sample.gpus[static_cast<size_t>(row.gpu)];
        const bool insight = std::any_of(node.insights.begin(), node.insights.end(),
                                         [&](const auto &i) { return i.gpuUuid == gpu.uuid; });
        int x = kIndent;
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRect(x, line.y(), digit * 2, h), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(gpu.index.value_or(-1)));
        x += digit * 3;
        const double total = gpu.memoryTotalMiB.value_or(0);
        const double used = gpu.memoryUsedMiB.value_or(0);
        drawBar(p, QRect(x, line.y() + 1, kBusyBar, h - 2), gpu.utilizationGpu.value_or(0),
                gpu.utilizationGpu ? u"%1%"_s.arg(*gpu.utilizationGpu, 0, 'f', 0) : u"n/a"_s, pal);
        x += kBusyBar + 6;
        drawBar(p, QRect(x, line.y() + 1, kMemoryBar, h - 2), total > 0 ? 100 * used / total : 0,
                u"%1 / %2 GiB"_s.arg(used / 1024, 0, 'f', 1).arg(total / 1024, 0, 'f', 0), pal);
        x += kMemoryBar + 8;
        p.setPen(pal.color(QPalette::Text));
        const QString facts = gpuFacts(gpu);
        p.drawText(QRect(x, line.y(), digit * 12, h), Qt::AlignVCenter, facts);
        x += digit * 12;
        if (insight) {
            const auto found = std::find_if(node.insights.begin(), node.insights.end(),
                                            [&](const auto &i) { return i.gpuUuid == gpu.uuid; });
            p.setPen(warningColor(pal));
            const QRect mark(x, line.y(), fm.horizontalAdvance(u"⚠ "_s), h);
            p.drawText(mark, Qt::AlignVCenter, u"⚠"_s);
            m_hits.push_back({mark, {}, found->text});
            x = mark.right() + 1;
        }
        if (isFreeGpu(gpu, node.sample)) {
            p.setPen(usageColor(0));
            p.drawText(QRect(x, line.y(), width() - x, h), Qt::AlignVCenter, tr("free"));
            continue;
        }
        if (const QString reserved = reservationText(node.sample, gpu); !reserved.isEmpty()) {
            p.setPen(pal.color(QPalette::PlaceholderText));
            p.drawText(QRect(x, line.y(), width() - x, h), Qt::AlignVCenter,
                       fm.elidedText(reserved, Qt::ElideRight, width() - x));
            continue;
        }
        for (const GpuProcess *process : processesOn(node.sample, gpu)) {
            if (x >= width())
                break;
            const QString run = node.runs.value(process->processGroup);
            const QString label = processLabel(*process, run);
            p.setFont(run.isEmpty() ? font() : link);
            p.setPen(run.isEmpty() ? pal.color(QPalette::Text) : pal.color(QPalette::Link));
            const QFontMetrics metrics(p.font());
            const int full = metrics.horizontalAdvance(label) + 1; // elidedText's rounding
            const int w = std::min(full, width() - x);
            const QRect at(x, line.y(), w, h);
            p.drawText(at, Qt::AlignVCenter,
                       w < full ? metrics.elidedText(label, Qt::ElideRight, w) : label);
            m_hits.push_back({at, run, processDetail(*process, run)});
            x += w + digit * 2;
        }
        p.setFont(font());
    }
}

const FleetTable::Hit *FleetTable::hitAt(const QPoint &point) const {
    const auto hit = std::find_if(m_hits.begin(), m_hits.end(),
                                  [&](const Hit &h) { return h.rect.contains(point); });
    return hit == m_hits.end() ? nullptr : &*hit;
}

bool FleetTable::event(QEvent *event) {
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        if (const Hit *hit = hitAt(help->pos()))
            QToolTip::showText(help->globalPos(), richTextOf(hit->detail), this, hit->rect);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void FleetTable::mouseMoveEvent(QMouseEvent *event) {
    const Hit *hit = hitAt(event->position().toPoint());
    setCursor(hit && !hit->run.isEmpty() ? Qt::PointingHandCursor : Qt::ArrowCursor);
}

void FleetTable::mousePressEvent(QMouseEvent *event) {
    if (const Hit *hit = hitAt(event->position().toPoint()); hit && !hit->run.isEmpty())
        Q_EMIT runActivated(hit->run);
}

void FleetTable::mouseDoubleClickEvent(QMouseEvent *event) {
    const auto row = static_cast<size_t>((event->position().y() - 2) / rowHeight());
    if (row < m_rows.size() && m_rows[row].kind == Row::Kind::Node)
        Q_EMIT historyRequested(m_nodes[static_cast<size_t>(m_rows[row].node)].name);
}

} // namespace sb
