#include "CurvesExport.h"

#include "CurvesView.h" // its translations: these words were its own
#include "RunLegend.h"
#include "Settings.h"
#include "charts/CurveChart.h"
#include "client/CollectorClient.h"
#include "util/OffThread.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPainter>
#include <QSaveFile>
#include <QSpinBox>

#include <cmath>
#include <functional>
#include <memory>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

QByteArray csvField(const QString &text) {
    QByteArray field = text.toUtf8();
    if (field.contains(',') || field.contains('"') || field.contains('\n'))
        field = '"' + field.replace("\"", "\"\"") + '"';
    return field;
}

// One exported point from a line of the collector's CSV ("step,value,wall_time"), as a line of
// the long CSV or of JSON Lines (a value that is not finite is null there).
QByteArray exportLine(const QByteArray &csvLine, const QString &run, const QString &metric,
                      bool jsonLines) {
    const QList<QByteArray> fields = csvLine.split(',');
    if (fields.size() < 2)
        return {}; // the last, empty line
    if (!jsonLines)
        return csvField(run) + ',' + csvField(metric) + ',' + csvLine + '\n';
    auto number = [](const QByteArray &field) {
        bool ok = false;
        const double value = field.toDouble(&ok);
        return ok && std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
    };
    QJsonObject point{{u"run"_s, run},
                      {u"metric"_s, metric},
                      {u"step"_s, number(fields[0])},
                      {u"value"_s, number(fields[1])}};
    if (fields.size() > 2 && !fields[2].isEmpty())
        point.insert(u"wall_time"_s, number(fields[2]));
    return QJsonDocument(point).toJson(QJsonDocument::Compact) + '\n';
}

// A series' CSV from the collector as the exported file's lines.
QByteArray exportLines(const QByteArray &csv, const QString &run, const QString &metric,
                       bool jsonLines) {
    QByteArray lines;
    const QList<QByteArray> rows = csv.split('\n');
    for (qsizetype i = 1; i < rows.size(); ++i) // after the header
        lines += exportLine(rows[i], run, metric, jsonLines);
    return lines;
}

} // namespace

CurvesExport::CurvesExport(CollectorClient *collector, QWidget *dialogParent)
    : QObject(dialogParent)
    , m_collector(collector)
    , m_dialogParent(dialogParent) {
}

void CurvesExport::chart(CurveChart *chart, const QString &chosen, QSize chosenSize) {
    QSize size =
        chosenSize.isValid() ? chosenSize : readSetting(Setting::CurvesExportSize).toSize();
    QString path = chosen;
    if (path.isEmpty()) {
        // The size first (remembered: a paper's figures are alike), then where.
        QDialog dialog(m_dialogParent);
        dialog.setWindowTitle(CurvesView::tr("Export %1").arg(chart->metricName()));
        auto *width = new QSpinBox;
        auto *height = new QSpinBox;
        for (QSpinBox *box : {width, height}) {
            box->setRange(50, 20000);
            box->setSuffix(CurvesView::tr(" px"));
        }
        width->setValue(size.width());
        height->setValue(size.height());
        auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel);
        connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
        connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
        auto *form = new QFormLayout(&dialog);
        form->addRow(CurvesView::tr("Width"), width);
        form->addRow(CurvesView::tr("Height"), height);
        form->addRow(new QLabel(CurvesView::tr("SVG keeps the curves as lines; PNG is drawn at "
                                               "twice the size for sharp print.")));
        form->addRow(buttons);
        if (dialog.exec() != QDialog::Accepted)
            return;
        size = QSize(width->value(), height->value());
        writeSetting(Setting::CurvesExportSize, size);
        QString name = chart->metricName();
        name.replace(u'/', u'-');
        path = QFileDialog::getSaveFileName(
            m_dialogParent, CurvesView::tr("Export %1").arg(chart->metricName()), name + u".svg"_s,
            CurvesView::tr("SVG, vector (*.svg)") + u";;"_s + CurvesView::tr("PNG image (*.png)"));
        if (path.isEmpty())
            return;
    }
    if (const Status written = chart->exportImage(path, size); !written)
        Q_EMIT failed(written.error());
    else
        Q_EMIT exported(path);
}

void CurvesExport::picture(QWidget *charts, const RunLegend *legend, const QString &chosen) {
    const QString path =
        !chosen.isEmpty()
            ? chosen
            : QFileDialog::getSaveFileName(m_dialogParent, CurvesView::tr("Export charts"),
                                           u"curves.png"_s, CurvesView::tr("PNG images (*.png)"));
    if (path.isEmpty())
        return;
    // The charts' ⋯ buttons are for the screen, not the picture.
    QList<QWidget *> hidden;
    for (QWidget *button : charts->findChildren<QWidget *>(u"chartOptions"_s)) {
        if (button->isVisible()) {
            button->hide();
            hidden << button;
        }
    }
    const QPixmap grid = charts->grab();
    for (QWidget *button : std::as_const(hidden))
        button->show();
    // In logical pixels: on a high-density screen the grab and the legend are each finer.
    const QSizeF size = grid.deviceIndependentSize();
    const QImage names = legend->image(static_cast<int>(size.width()));
    const double namesHeight = names.deviceIndependentSize().height();
    QImage picture(
        (QSizeF(size.width(), namesHeight + size.height()) * grid.devicePixelRatio()).toSize(),
        QImage::Format_ARGB32_Premultiplied);
    picture.setDevicePixelRatio(grid.devicePixelRatio());
    picture.fill(charts->palette().color(QPalette::Window));
    {
        QPainter painter(&picture);
        painter.drawImage(QPointF(0, 0), names);
        painter.drawPixmap(QPointF(0, namesHeight), grid);
    }
    if (!picture.save(path)) {
        Q_EMIT failed(CurvesView::tr("Could not write %1").arg(path));
        return;
    }
    Q_EMIT exported(path);
}

void CurvesExport::points(const QString &chosen, const QStringList &runs,
                          const QStringList &metrics) {
    QString format;
    const QString path =
        !chosen.isEmpty()
            ? chosen
            : QFileDialog::getSaveFileName(m_dialogParent, CurvesView::tr("Export raw points"),
                                           u"curves.csv"_s,
                                           CurvesView::tr("CSV, one point a line (*.csv)") +
                                               u";;"_s + CurvesView::tr("JSON Lines (*.jsonl)"),
                                           &format);
    if (path.isEmpty())
        return;
    const bool jsonLines = path.endsWith(u".jsonl"_s) || format.contains(u"jsonl"_s);
    // Every point of every shown run and metric, fetched one pair after another and written as
    // it comes: the file never waits in memory whole.
    // A child: an export still under way when the view closes goes with it (its file unsaved),
    // and its answers with it, as they come to it.
    struct Export final : QObject {
        using QObject::QObject;
        QSaveFile file;
        QList<std::pair<QString, QString>> todo;
        bool failed = false;
        std::function<void()> next; // the next pair; it names its export, never itself
    };
    auto *job = new Export(this);
    job->file.setFileName(path);
    if (!job->file.open(QIODevice::WriteOnly)) {
        delete job;
        Q_EMIT failed(CurvesView::tr("Could not write %1").arg(path));
        return;
    }
    if (!jsonLines)
        job->file.write("run,metric,step,value,wall_time\n");
    for (const QString &run : runs) {
        for (const QString &metric : metrics)
            job->todo.append({run, metric});
    }
    job->next = [this, job, path, jsonLines] {
        if (job->todo.isEmpty()) {
            if (job->failed || !job->file.commit())
                Q_EMIT failed(CurvesView::tr("Could not write %1").arg(path));
            else
                Q_EMIT exported(path);
            job->deleteLater();
            return;
        }
        const auto [run, metric] = job->todo.takeFirst();
        m_collector->exportCsv(
            run, metric, job,
            [job, run = run, metric = metric, jsonLines](const Result<QByteArray> &csv) {
                if (!csv)
                    return job->next();
                // Converted on a worker: a series of millions of points is a large answer.
                runOffThread(
                    job,
                    [csv = *csv, run, metric, jsonLines] {
                        return exportLines(csv, run, metric, jsonLines);
                    },
                    [job](const QByteArray &lines) {
                        job->failed |= job->file.write(lines) != lines.size();
                        job->next();
                    });
            });
    };
    job->next();
}

} // namespace sb
