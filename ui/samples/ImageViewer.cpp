#include "ImageViewer.h"

#include "samples/SamplesPanel.h"
#include "util/PlainText.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPaintEvent>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <cmath>
#include <functional>

namespace sb {

using namespace Qt::StringLiterals;

namespace {
constexpr double kMostZoom = 32;
} // namespace

ImageCanvas::ImageCanvas(QWidget *parent)
    : QWidget(parent) {
    setObjectName(u"imageCanvas"_s);
}

void ImageCanvas::setImage(const QImage &image, double scale) {
    m_image = image;
    m_scale = scale;
    resize((QSizeF(image.size()) * scale).toSize().expandedTo({1, 1}));
    update();
}

void ImageCanvas::paintEvent(QPaintEvent *event) {
    if (m_image.isNull())
        return;
    QPainter painter(this);
    // The exposed part only, from the image pixels under it.
    const QRectF exposed = event->rect();
    const QRectF source(exposed.topLeft() / m_scale, exposed.size() / m_scale);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, m_scale < 1);
    painter.drawImage(exposed, m_image, source);
}

ImageViewer::ImageViewer(ImageCache *images, const QString &digest, QWidget *parent)
    : QDialog(parent)
    , m_images(images)
    , m_digest(digest)
    , m_scroll(new QScrollArea)
    , m_canvas(new ImageCanvas)
    , m_status(new QLabel) {
    setObjectName(u"imageViewer"_s);
    resize(900, 700);
    m_status->setTextFormat(Qt::PlainText); // the collector's and the decoder's words
    m_scroll->setWidget(m_canvas);
    m_scroll->setAlignment(Qt::AlignCenter);
    m_scroll->viewport()->installEventFilter(this);
    auto *buttons = new QHBoxLayout;
    auto button = [&](const QString &text, const std::function<void()> &act) {
        auto *made = new QPushButton(text);
        connect(made, &QPushButton::clicked, this, act);
        buttons->addWidget(made);
    };
    button(tr("Fit"), [this] { setZoom(0); });
    button(tr("100%"), [this] { setZoom(1); });
    button(tr("Zoom out"), [this] { setZoom(std::max(1.0, m_zoom / 2)); });
    button(tr("Zoom in"), [this] { setZoom(std::max(1.0, m_zoom) * 2); });
    buttons->addStretch();
    buttons->addWidget(m_status);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_scroll, 1);
    layout->addLayout(buttons);
    connect(images, &ImageCache::decoded, this, [this](const QString &decoded) {
        if (decoded == m_digest)
            showImage();
    });
    showImage();
}

void ImageViewer::showImage() {
    if (const QImage *image = m_images->image(m_digest)) {
        m_image = *image;
        setZoom(m_zoom);
    } else if (const QString failure = m_images->failure(m_digest); !failure.isEmpty()) {
        m_status->setText(tr("It cannot be shown: %1").arg(printable(failure)));
    } else {
        m_status->setText(tr("loading…"));
    }
}

double ImageViewer::scale() const {
    if (m_zoom != 0 || m_image.isNull())
        return m_zoom;
    const QSize area = m_scroll->viewport()->size();
    return std::min(
        {1.0, double(area.width()) / m_image.width(), double(area.height()) / m_image.height()});
}

void ImageViewer::setZoom(double zoom) {
    m_zoom = zoom == 0 ? 0 : std::clamp(std::round(zoom), 1.0, kMostZoom);
    if (m_image.isNull())
        return;
    m_canvas->setImage(m_image, scale());
    m_status->setText(tr("%1 × %2 pixels, %3")
                          .arg(m_image.width())
                          .arg(m_image.height())
                          .arg(m_zoom == 0 ? tr("fitted") : u"%1%"_s.arg(m_zoom * 100)));
}

bool ImageViewer::eventFilter(QObject *watched, QEvent *event) {
    // The wheel zooms by twos; the scroll bars (or a drag of them) move.
    if (watched == m_scroll->viewport() && event->type() == QEvent::Wheel) {
        const int delta = static_cast<QWheelEvent *>(event)->angleDelta().y();
        if (delta != 0)
            setZoom(delta > 0 ? std::max(1.0, m_zoom) * 2 : std::max(1.0, m_zoom / 2));
        return true;
    }
    return QDialog::eventFilter(watched, event);
}

void ImageViewer::resizeEvent(QResizeEvent *event) {
    QDialog::resizeEvent(event);
    if (m_zoom == 0)
        setZoom(0);
}

} // namespace sb
