#include "ParallelCoordinates.h"

#include "sweeps/Sweep.h"
#include "sweeps/TrialCommand.h"
#include "sweeps/TrialsModel.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// One axis: where a value sits on it, from 0 (bottom) to 1 (top).
struct Axis {
    QString name;
    bool categorical = false;
    bool log = false;
    double low = 0;
    double high = 1;
    QStringList categories;

    double position(const QJsonValue &value) const {
        if (categorical) {
            const qsizetype i = categories.indexOf(argumentValue(value));
            return categories.size() < 2 ? 0.5 : static_cast<double>(i) / (categories.size() - 1);
        }
        double v = value.toDouble();
        double lo = low;
        double hi = high;
        if (log) {
            v = std::log(v);
            lo = std::log(lo);
            hi = std::log(hi);
        }
        return hi > lo ? (v - lo) / (hi - lo) : 0.5;
    }
    QString label(double where) const {
        if (categorical)
            return {};
        const double v = log ? std::exp(std::log(low) + where * (std::log(high) - std::log(low)))
                             : low + where * (high - low);
        return QString::number(v, 'g', 3);
    }
};

Axis axisFor(const QString &name, const QList<QJsonValue> &values, bool logScale) {
    Axis axis;
    axis.name = name;
    bool numbers = !values.isEmpty();
    for (const QJsonValue &v : values)
        numbers = numbers && v.isDouble();
    if (!numbers) {
        axis.categorical = true;
        for (const QJsonValue &v : values)
            if (!axis.categories.contains(argumentValue(v)))
                axis.categories << argumentValue(v);
        return axis;
    }
    axis.low = axis.high = values.first().toDouble();
    for (const QJsonValue &v : values) {
        axis.low = std::min(axis.low, v.toDouble());
        axis.high = std::max(axis.high, v.toDouble());
    }
    axis.log = logScale && axis.low > 0 && axis.high > axis.low;
    return axis;
}

bool logDistributed(const QList<SweepParameter> &parameters, const QString &path) {
    const QString head = path.section(u'.', 0, 0);
    for (const SweepParameter &p : parameters) {
        if (p.name != head)
            continue;
        if (p.kind == SweepParameter::Kind::Nested)
            return logDistributed(p.children, path.section(u'.', 1));
        return p.distribution.contains("log"_L1);
    }
    return false;
}

QColor mix(const QColor &a, const QColor &b, double t) {
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

} // namespace

ParallelCoordinates::ParallelCoordinates(QWidget *parent)
    : QWidget(parent) {
    setMinimumHeight(200);
    setAutoFillBackground(true);
    QPalette p = palette();
    p.setColor(QPalette::Window, Qt::white);
    setPalette(p);
}

void ParallelCoordinates::setSweep(Sweep *sweep) {
    if (m_sweep)
        disconnect(m_sweep, nullptr, this, nullptr);
    m_sweep = sweep;
    if (sweep)
        connect(sweep, &Sweep::changed, this, qOverload<>(&QWidget::update));
    update();
}

void ParallelCoordinates::paintEvent(QPaintEvent *) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    m_lines = 0;
    if (!m_sweep)
        return;
    const SweepSpec &spec = m_sweep->spec();
    const bool maximize = spec.maximize;
    // The trials that have a metric value, with it.
    QList<std::pair<const Trial *, double>> trials;
    for (const Trial &trial : m_sweep->trials())
        if (const auto best = trial.best(maximize))
            trials.append({&trial, *best});
    if (trials.isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter,
                         tr("The parallel coordinates appear when trials log %1")
                             .arg(spec.metric.isEmpty() ? tr("a metric") : spec.metric));
        return;
    }
    QList<Axis> axes;
    for (const QString &name : flatParameterNames(*m_sweep)) {
        QList<QJsonValue> values;
        for (const auto &[trial, metric] : trials)
            values << flatParameter(trial->parameters, name);
        if (std::all_of(values.begin(), values.end(),
                        [&](const QJsonValue &v) { return v == values.first(); }))
            continue; // a constant tells nothing apart
        axes << axisFor(name, values, logDistributed(spec.parameters, name));
    }
    QList<QJsonValue> metrics;
    double lowest = trials.first().second;
    double highest = lowest;
    for (const auto &[trial, metric] : trials) {
        metrics << metric;
        lowest = std::min(lowest, metric);
        highest = std::max(highest, metric);
    }
    // A metric spanning decades (a loss) reads better on a log axis.
    const Axis metricAxis = axisFor(spec.metric, metrics, lowest > 0 && highest / lowest > 30);
    axes << metricAxis;

    const QFontMetrics fm(font());
    const QRectF plot = QRectF(rect()).adjusted(40, fm.height() * 2.5, -60, -fm.height() * 1.5);
    const auto xOf = [&](qsizetype i) {
        return axes.size() < 2 ? plot.center().x()
                               : plot.left() + plot.width() * static_cast<double>(i) /
                                                   static_cast<double>(axes.size() - 1);
    };
    const auto yOf = [&](double where) {
        return plot.bottom() - where * plot.height();
    };

    const int best = m_sweep->bestTrial();
    const auto draw = [&](const Trial &trial, double metric) {
        QPainterPath path;
        for (qsizetype i = 0; i < axes.size(); ++i) {
            const QJsonValue value = i + 1 < axes.size()
                                         ? flatParameter(trial.parameters, axes[i].name)
                                         : QJsonValue(metric);
            const QPointF point(xOf(i), yOf(axes[i].position(value)));
            if (i == 0)
                path.moveTo(point);
            else
                path.lineTo(point);
        }
        // Best (0) to worst (1) along the metric's axis.
        double rank = metricAxis.position(metric);
        if (!maximize)
            rank = 1 - rank;
        const QColor color = mix(QColor(0xd9, 0x5f, 0x02), QColor(0x1f, 0x5f, 0xa8), rank);
        QPen pen(trial.number == best ? QColor(0x11, 0x11, 0x11) : color);
        pen.setWidthF(trial.number == best ? 3.0 : 1.4);
        painter.setPen(pen);
        painter.setOpacity(trial.number == best ? 1.0 : 0.7);
        painter.drawPath(path);
        ++m_lines;
    };
    for (const auto &[trial, metric] : trials)
        if (trial->number != best)
            draw(*trial, metric);
    for (const auto &[trial, metric] : trials)
        if (trial->number == best)
            draw(*trial, metric);
    painter.setOpacity(1.0);

    const QColor ink = palette().color(QPalette::WindowText);
    for (qsizetype i = 0; i < axes.size(); ++i) {
        const double x = xOf(i);
        painter.setPen(QPen(ink, 1));
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        QFont bold = font();
        bold.setBold(true);
        painter.setFont(bold);
        const QString title = i + 1 < axes.size() ? axes[i].name : spec.metric;
        painter.drawText(QRectF(x - 80, 2, 160, fm.height() * 1.2), Qt::AlignCenter, title);
        painter.setFont(font());
        painter.setPen(palette().color(QPalette::PlaceholderText));
        if (axes[i].categorical) {
            for (qsizetype c = 0; c < axes[i].categories.size(); ++c) {
                const double where = axes[i].categories.size() < 2
                                         ? 0.5
                                         : static_cast<double>(c) /
                                               static_cast<double>(axes[i].categories.size() - 1);
                painter.drawText(QPointF(x + 4, yOf(where) + fm.ascent() / 2.0),
                                 fm.elidedText(axes[i].categories[c], Qt::ElideRight, 80));
            }
        } else {
            painter.drawText(QRectF(x - 60, plot.top() - fm.height() * 1.2, 120, fm.height()),
                             Qt::AlignCenter, axes[i].label(1));
            painter.drawText(QRectF(x - 60, plot.bottom() + 2, 120, fm.height()), Qt::AlignCenter,
                             axes[i].label(0));
        }
    }
}

} // namespace sb
