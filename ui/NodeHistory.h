#pragma once

#include <QDialog>

class QComboBox;
class QLabel;

namespace sb {

class CollectorClient;
class CurveChart;

// A node's history from the collector on a time axis: each GPU's utilization and memory, and the
// node's CPU and memory, over the last hour, six hours, day or week (downsampled by the
// collector to the charts' width, so a week draws as fast as an hour).
class NodeHistory final : public QDialog {
    Q_OBJECT
public:
    NodeHistory(CollectorClient *collector, const QString &node, QWidget *parent = nullptr);
    // Seconds back from now: 3600, 21600, 86400 or 604800.
    void setSpan(int seconds);
    void refresh();
    QList<CurveChart *> charts() const;
    QString statusText() const;

Q_SIGNALS:
    void refreshed(); // every chart has the latest refresh's answer (a superseded one says nothing)

private:
    void load(const QStringList &metrics, quint64 asked);
    CollectorClient *m_collector;
    QString m_node;
    QComboBox *m_span;
    QLabel *m_status;
    CurveChart *m_utilization;
    CurveChart *m_memory;
    CurveChart *m_host;
    quint64 m_asked = 0; // refreshes asked for: only the latest one's answer is drawn
    quint64 m_drawn = 0; // the refresh last answered
};

} // namespace sb
