#pragma once

#include <QDialog>
#include <QImage>

class QLabel;
class QScrollArea;

namespace sb {

class ImageCache;

// An image drawn at a zoom: fitted (scaled down smoothly), or each image pixel a sharp square of
// whole screen pixels. Only what is exposed is drawn, so a large image at 32× costs no memory.
class ImageCanvas final : public QWidget {
    Q_OBJECT
public:
    explicit ImageCanvas(QWidget *parent = nullptr);
    void setImage(const QImage &image, double scale);
    double scale() const { return m_scale; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QImage m_image;
    double m_scale = 1;
};

// One image at full size: pixel for pixel at 100%, zoomed by whole factors with the wheel or the
// buttons (never blurred), or fitted to the window.
class ImageViewer final : public QDialog {
    Q_OBJECT
public:
    ImageViewer(ImageCache *images, const QString &digest, QWidget *parent = nullptr);
    // The zoom: screen pixels per image pixel (1 is 100%); 0 fits the image to the window.
    double zoom() const { return m_zoom; }
    void setZoom(double zoom);
    // The scale it is drawn at now (the fitted one when fitted).
    double scale() const;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void showImage();

    ImageCache *m_images;
    QString m_digest;
    QScrollArea *m_scroll;
    ImageCanvas *m_canvas;
    QLabel *m_status;
    QImage m_image;
    double m_zoom = 1;
};

} // namespace sb
