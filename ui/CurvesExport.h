#pragma once

#include <QObject>
#include <QSize>
#include <QStringList>

class QWidget;

namespace sb {

class CollectorClient;
class CurveChart;
class RunLegend;

// The curves view's ways out: raw points as a file, one chart as an image, all charts as one.
// Dialogs ask what is not given; exported(path) when a file is written, failed(message) if not.
class CurvesExport final : public QObject {
    Q_OBJECT
public:
    // `dialogParent`: the widget its dialogs belong to.
    CurvesExport(CollectorClient *collector, QWidget *dialogParent);

    // Every point of these runs' metrics, streamed to a CSV or JSON Lines file (by its name's
    // ending); with no path, asks where.
    void points(const QString &path, const QStringList &runs, const QStringList &metrics);
    // One chart as an SVG or PNG file of `size` pixels; with no path, asks for both.
    void chart(CurveChart *chart, const QString &path = {}, QSize size = {});
    // A picture of these charts as they look, under the whole legend, without the charts' own
    // buttons; with no path, asks where.
    void picture(QWidget *charts, const RunLegend *legend, const QString &path = {});

Q_SIGNALS:
    void exported(const QString &path);
    void failed(const QString &message);

private:
    CollectorClient *m_collector;
    QWidget *m_dialogParent;
};

} // namespace sb
