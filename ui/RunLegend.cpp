#include "RunLegend.h"

#include "CurvesView.h" // its translations: these words were its own
#include "charts/CurveLayer.h"
#include "util/PlainText.h"

#include <QApplication>
#include <QPainter>
#include <QPixmap>
#include <QScrollBar>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr int kMostNameWidth = 260; // pixels of a name before it is elided

QIcon markerIcon(const QColor &color, int marker) {
    const qreal scale = qApp->devicePixelRatio();
    QPixmap pixmap(QSize(14, 14) * scale);
    pixmap.setDevicePixelRatio(scale);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    drawMarker(&painter, QPointF(7, 7), marker, color, 4.5);
    return QIcon(pixmap);
}

} // namespace

RunLegend::RunLegend(QWidget *parent)
    : QListWidget(parent) {
    setObjectName(u"legend"_s);
    setFlow(QListView::LeftToRight);
    setWrapping(true);
    setResizeMode(QListView::Adjust);
    setSpacing(1);
    setIconSize(QSize(14, 14));
    setTextElideMode(Qt::ElideMiddle);
    setSelectionMode(QAbstractItemView::NoSelection);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setFrameShape(QFrame::NoFrame);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    QPalette transparent = palette(); // on the window, as a line of text would be
    transparent.setColor(QPalette::Base, Qt::transparent);
    setPalette(transparent);
    connect(this, &QListWidget::itemClicked, this, [this](QListWidgetItem *item) {
        if (const QString group = item->data(Qt::UserRole).toString(); !group.isEmpty())
            Q_EMIT groupToggled(group);
    });
}

void RunLegend::setEntries(const QList<Entry> &entries, qsizetype more) {
    const auto same = [](const Entry &a, const Entry &b) {
        return a.text == b.text && a.color == b.color && a.marker == b.marker && a.group == b.group;
    };
    if (more == m_more &&
        std::equal(entries.begin(), entries.end(), m_entries.begin(), m_entries.end(), same))
        return; // a redraw with the same runs: the list and its scroll stay as they are
    m_entries = entries;
    m_more = more;
    clear();
    const QFontMetrics metrics(font());
    for (const Entry &entry : entries) {
        auto *item = new QListWidgetItem(
            entry.color.isValid() ? markerIcon(entry.color, entry.marker) : QIcon(),
            oneLine(metrics.elidedText(entry.text, Qt::ElideMiddle, kMostNameWidth)), this);
        item->setToolTip(
            entry.group.isEmpty()
                ? richTextOf(entry.text)
                : u"<qt>"_s +
                      CurvesView::tr("%1: click to fold or unfold").arg(htmlOf(entry.text)) +
                      u"</qt>"_s);
        item->setData(Qt::UserRole, entry.group);
        if (!entry.group.isEmpty()) {
            QFont link = font();
            link.setUnderline(true);
            item->setFont(link);
        }
    }
    if (more > 0) {
        auto *rest = new QListWidgetItem(CurvesView::tr("and %1 more").arg(more), this);
        rest->setFlags(Qt::ItemIsEnabled);
    }
    fitHeight();
}

QStringList RunLegend::texts() const {
    QStringList texts;
    for (const Entry &entry : m_entries)
        texts << entry.text;
    return texts;
}

QImage RunLegend::image(int width) const {
    const QFontMetrics metrics(font());
    const int line = std::max(metrics.height(), 14) + 6;
    // Each entry's place: flowing left to right, a new row where the next would not fit.
    QList<QPoint> places;
    QPoint at(6, 4);
    for (int i = 0; i < count(); ++i) {
        const int wide = 20 + metrics.horizontalAdvance(item(i)->text()) + 14;
        if (at.x() > 6 && at.x() + wide > width) {
            at = QPoint(6, at.y() + line);
        }
        places << at;
        at.rx() += wide;
    }
    const int height = count() == 0 ? 0 : at.y() + line + 4;
    QImage image(QSize(std::max(1, width), std::max(1, height)) * devicePixelRatio(),
                 QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(devicePixelRatio());
    image.fill(palette().color(QPalette::Window));
    if (count() == 0)
        return image.copy(0, 0, 1, 0);
    QPainter painter(&image);
    painter.setFont(font());
    painter.setPen(palette().color(QPalette::WindowText));
    for (int i = 0; i < count(); ++i) {
        const QPoint place = places[i];
        item(i)->icon().paint(&painter,
                              QRect(place + QPoint(0, (line - 14) / 2 - 2), QSize(14, 14)));
        painter.drawText(place + QPoint(20, metrics.ascent() + 1), item(i)->text());
    }
    return image;
}

QSize RunLegend::sizeHint() const {
    const int row =
        sizeHintForRow(0) > 0 ? sizeHintForRow(0) + 2 * spacing() : fontMetrics().height() + 6;
    const int rows = count() == 0 ? 0 : kMostRows;
    const int content = contentsSize().height();
    return {QListWidget::sizeHint().width(),
            std::min(content > 0 ? content : row, row * rows) + 2 * frameWidth()};
}

void RunLegend::fitHeight() {
    doItemsLayout(); // the rows the names wrap into, at this width
    setFixedHeight(sizeHint().height());
}

void RunLegend::resizeEvent(QResizeEvent *event) {
    QListWidget::resizeEvent(event);
    fitHeight();
}

} // namespace sb
