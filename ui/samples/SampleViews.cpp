#include "SampleViews.h"

#include "client/SamplesFeed.h"
#include "util/Files.h"
#include "util/MediaHeaders.h"
#include "util/PlainText.h"

#include <QAudioDevice>
#include <QAudioFormat>
#include <QAudioSink>
#include <QBuffer>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QMediaDevices>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
#include <QStackedWidget>
#include <QTableWidget>
#include <QTextDocument>
#include <QTextEdit>
#include <QVBoxLayout>

#include <cmath>

namespace sb {

using namespace Qt::StringLiterals;

namespace {
// A document that loads nothing a text names: an image of "/etc/shadow" or of a URL is not read.
class InertDocument final : public QTextDocument {
public:
    using QTextDocument::QTextDocument;

protected:
    QVariant loadResource(int, const QUrl &) override { return {}; }
};

// The value range of histograms' buckets and their densest bucket (count per unit of value,
// so histograms binned differently compare).
struct Extent {
    double left = INFINITY;
    double right = -INFINITY;
    double most = 0;
    void add(const std::vector<HistogramBucket> &buckets) {
        for (const HistogramBucket &bucket : buckets) {
            left = std::min(left, bucket.left);
            right = std::max(right, bucket.right);
            most = std::max(most, bucket.count / std::max(1e-300, bucket.right - bucket.left));
        }
    }
    bool drawable() const { return left < right && most > 0; }
};

// A histogram's outline standing on `base`, the densest bucket of `extent` `height` tall.
QPainterPath outline(const std::vector<HistogramBucket> &buckets, const Extent &extent,
                     const QRectF &area, double base, double height) {
    auto x = [&](double value) {
        return area.left() + (value - extent.left) / (extent.right - extent.left) * area.width();
    };
    QPainterPath path(QPointF(area.left(), base));
    for (const HistogramBucket &bucket : buckets) {
        const double density = bucket.count / std::max(1e-300, bucket.right - bucket.left);
        const double y = base - density / extent.most * height;
        path.lineTo(x(bucket.left), base);
        path.lineTo(x(bucket.left), y);
        path.lineTo(x(bucket.right), y);
        path.lineTo(x(bucket.right), base);
    }
    path.lineTo(area.right(), base);
    return path;
}
} // namespace

ImageView::ImageView(QWidget *parent)
    : QWidget(parent) {
    setObjectName(u"imageView"_s);
    setMinimumSize(200, 200);
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("Click to see it at full size"));
}

void ImageView::showImage(const QImage &image) {
    m_image = image;
    m_message.clear();
    QWidget::update();
}

void ImageView::showLoading() {
    // The image shown before stays while the next one comes (a slider being dragged).
    if (m_image.isNull())
        m_message = tr("loading…");
    QWidget::update();
}

void ImageView::showMessage(const QString &text) {
    m_image = {};
    m_message = text;
    QWidget::update();
}

void ImageView::paintEvent(QPaintEvent *) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().alternateBase());
    if (m_image.isNull()) {
        painter.setPen(palette().placeholderText().color());
        painter.drawText(rect().adjusted(6, 6, -6, -6), Qt::AlignCenter | Qt::TextWordWrap,
                         m_message);
        return;
    }
    // Fitted, aspect kept; a small image is enlarged by whole pixels, so that it stays sharp.
    const QSizeF size = m_image.size();
    double scale = std::min(width() / size.width(), height() / size.height());
    if (scale >= 1)
        scale = std::floor(scale);
    const QSizeF drawn = size * scale;
    const QRectF target(QPointF((width() - drawn.width()) / 2, (height() - drawn.height()) / 2),
                        drawn);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, scale < 1);
    painter.drawImage(target, m_image);
}

void ImageView::mouseReleaseEvent(QMouseEvent *event) {
    if (event->button() == Qt::LeftButton && !m_image.isNull())
        Q_EMIT clicked();
}

HistogramView::HistogramView(QWidget *parent)
    : QWidget(parent) {
    setObjectName(u"histogramView"_s);
    setMinimumSize(200, 160);
}

void HistogramView::show(const std::vector<SampleItem> &items, const SampleItem *chosen) {
    m_hasChosen = chosen != nullptr;
    m_chosen = chosen ? chosen->buckets : std::vector<HistogramBucket>{};
    m_chosenStep = chosen ? chosen->step : 0;
    // The bands and ridges change only with the items: a slider's move only moves the marker.
    if (items.data() == m_itemsData && items.size() == m_itemsCount) {
        QWidget::update();
        return;
    }
    m_itemsData = items.data();
    m_itemsCount = items.size();
    m_bands.clear();
    m_offset.clear();
    m_bands.reserve(items.size());
    std::vector<const SampleItem *> firsts; // a step's first histogram (a batch holds one)
    for (const SampleItem &item : items) {
        if (item.index == 0) {
            m_bands.emplace_back(item.step, histogramPercentiles(item.buckets));
            firsts.push_back(&item);
        }
    }
    // The offset view: kOffsetSteps of them, evenly over the steps, the last one among them.
    const std::size_t count = firsts.size();
    const std::size_t shown = std::min<std::size_t>(count, kOffsetSteps);
    for (std::size_t i = 0; i < shown; ++i) {
        const SampleItem *item = firsts[shown == 1 ? count - 1 : i * (count - 1) / (shown - 1)];
        m_offset.emplace_back(item->step, item->buckets);
    }
    QWidget::update();
}

void HistogramView::setMode(Mode mode) {
    m_mode = mode;
    QWidget::update();
}

void HistogramView::paintEvent(QPaintEvent *) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(rect(), palette().base());
    if (m_bands.empty()) {
        painter.setPen(palette().placeholderText().color());
        painter.drawText(rect(), Qt::AlignCenter, tr("no histograms yet"));
        return;
    }
    if (m_mode == Mode::Offset)
        paintOffset(painter);
    else
        paintDistribution(painter);
}

void HistogramView::paintOffset(QPainter &painter) {
    // x the value; each step's histogram a ridge, one row lower per later step.
    Extent extent;
    for (const auto &[step, buckets] : m_offset)
        extent.add(buckets);
    if (!extent.drawable())
        return;
    const QRectF area(36, 8, width() - 44, height() - 28);
    const double rows = double(std::max<std::size_t>(1, m_offset.size()));
    const double rise = area.height() * 0.45; // the tallest ridge
    const double stride = (area.height() - rise) / std::max(1.0, rows - 1);
    const QColor ink = palette().text().color();
    for (std::size_t row = 0; row < m_offset.size(); ++row) {
        const auto &[step, buckets] = m_offset[row];
        const QPainterPath ridge =
            outline(buckets, extent, area, area.top() + rise + double(row) * stride, rise);
        const bool chosen = m_hasChosen && step == m_chosenStep;
        // Filled, so it hides the ridges behind it, as TensorBoard's offset view.
        painter.fillPath(ridge, palette().base());
        QColor line = chosen ? palette().highlight().color() : ink;
        line.setAlphaF(chosen ? 1.0 : 0.25 + 0.6 * double(row + 1) / rows);
        painter.strokePath(ridge, QPen(line, chosen ? 2 : 1));
    }
    painter.setPen(ink);
    painter.drawText(QRectF(area.left(), area.bottom() + 4, area.width(), 14), Qt::AlignLeft,
                     QString::number(extent.left, 'g', 4));
    painter.drawText(QRectF(area.left(), area.bottom() + 4, area.width(), 14), Qt::AlignRight,
                     QString::number(extent.right, 'g', 4));
    painter.drawText(QRectF(0, area.top(), 34, 14), Qt::AlignRight,
                     QString::number(m_offset.front().first, 'g', 6));
    painter.drawText(QRectF(0, area.bottom() - 14, 34, 14), Qt::AlignRight,
                     QString::number(m_offset.back().first, 'g', 6));
}

void HistogramView::paintDistribution(QPainter &painter) {
    const QColor ink = palette().text().color();
    QColor band = palette().highlight().color();
    const QRectF top(36, 4, width() - 40, height() * 0.58 - 8);
    const QRectF bottom(36, height() * 0.58 + 4, width() - 40, height() * 0.42 - 20);
    // The distribution: x the step, y the value.
    double low = INFINITY;
    double high = -INFINITY;
    for (const auto &[step, lines] : m_bands) {
        if (std::isfinite(lines.front()))
            low = std::min(low, lines.front());
        if (std::isfinite(lines.back()))
            high = std::max(high, lines.back());
    }
    if (!(low <= high)) {
        low = 0;
        high = 1;
    }
    if (low == high) {
        low -= 0.5;
        high += 0.5;
    }
    const double firstStep = m_bands.front().first;
    const double lastStep = m_bands.back().first;
    auto x = [&](double step) {
        return lastStep > firstStep
                   ? top.left() + (step - firstStep) / (lastStep - firstStep) * top.width()
                   : top.center().x();
    };
    auto y = [&](double value) {
        return top.bottom() - (value - low) / (high - low) * top.height();
    };
    painter.setPen(ink);
    painter.drawText(QRectF(0, top.top() - 2, 34, 14), Qt::AlignRight,
                     QString::number(high, 'g', 3));
    painter.drawText(QRectF(0, top.bottom() - 12, 34, 14), Qt::AlignRight,
                     QString::number(low, 'g', 3));
    // Four bands between mirrored percentiles, darker towards the median.
    for (std::size_t outer = 0; outer < 4; ++outer) {
        QPainterPath path;
        bool started = false;
        for (const auto &[step, lines] : m_bands) {
            if (!std::isfinite(lines[outer]))
                continue;
            const QPointF point(x(step), y(lines[outer]));
            started ? path.lineTo(point) : path.moveTo(point);
            started = true;
        }
        for (auto it = m_bands.rbegin(); it != m_bands.rend(); ++it) {
            if (std::isfinite(it->second[8 - outer]))
                path.lineTo(x(it->first), y(it->second[8 - outer]));
        }
        band.setAlphaF(0.15 + 0.15 * double(outer));
        painter.fillPath(path, band);
    }
    QPainterPath median;
    bool started = false;
    for (const auto &[step, lines] : m_bands) {
        if (!std::isfinite(lines[4]))
            continue;
        const QPointF point(x(step), y(lines[4]));
        started ? median.lineTo(point) : median.moveTo(point);
        started = true;
    }
    painter.strokePath(median, QPen(palette().highlight().color().darker(130), 1.5));
    if (!m_hasChosen)
        return;
    painter.setPen(QPen(ink, 1, Qt::DashLine));
    painter.drawLine(QPointF(x(m_chosenStep), top.top()), QPointF(x(m_chosenStep), top.bottom()));
    // The histogram at the chosen step: each bucket's count, its width its edges.
    double most = 0;
    double left = INFINITY;
    double right = -INFINITY;
    for (const HistogramBucket &bucket : m_chosen) {
        most = std::max(most, bucket.count);
        left = std::min(left, bucket.left);
        right = std::max(right, bucket.right);
    }
    if (m_chosen.empty() || !(most > 0))
        return;
    if (left == right) {
        left -= 0.5;
        right += 0.5;
    }
    auto bx = [&](double value) {
        return bottom.left() + (value - left) / (right - left) * bottom.width();
    };
    QColor bars = palette().highlight().color();
    bars.setAlphaF(0.7);
    for (const HistogramBucket &bucket : m_chosen) {
        const double h = bucket.count / most * bottom.height();
        const double x0 = bx(bucket.left);
        const double x1 = std::max(bx(bucket.right), x0 + 1);
        painter.fillRect(QRectF(x0, bottom.bottom() - h, x1 - x0, h), bars);
    }
    painter.setPen(ink);
    painter.drawText(QRectF(bottom.left(), bottom.bottom() + 2, bottom.width(), 14), Qt::AlignLeft,
                     QString::number(left, 'g', 4));
    painter.drawText(QRectF(bottom.left(), bottom.bottom() + 2, bottom.width(), 14), Qt::AlignRight,
                     QString::number(right, 'g', 4));
}

HistogramOverlay::HistogramOverlay(QWidget *parent)
    : QWidget(parent) {
    setObjectName(u"histogramOverlay"_s);
    setMinimumHeight(120);
}

void HistogramOverlay::setRuns(std::vector<Run> runs) {
    m_runs = std::move(runs);
    QWidget::update();
}

void HistogramOverlay::paintEvent(QPaintEvent *) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(rect(), palette().base());
    Extent extent;
    for (const Run &run : m_runs)
        extent.add(run.buckets);
    if (!extent.drawable())
        return;
    const QRectF area(36, 6, width() - 44, height() - 26);
    for (const Run &run : m_runs) {
        const QPainterPath path = outline(run.buckets, extent, area, area.bottom(), area.height());
        QColor fill = run.color;
        fill.setAlphaF(0.12);
        painter.fillPath(path, fill);
        painter.strokePath(path, QPen(run.color, 1.5));
    }
    painter.setPen(palette().text().color());
    painter.drawText(QRectF(area.left(), area.bottom() + 4, area.width(), 14), Qt::AlignLeft,
                     QString::number(extent.left, 'g', 4));
    painter.drawText(QRectF(area.left(), area.bottom() + 4, area.width(), 14), Qt::AlignRight,
                     QString::number(extent.right, 'g', 4));
}

TextView::TextView(QWidget *parent)
    : QWidget(parent)
    , m_pages(new QStackedWidget)
    , m_text(new QPlainTextEdit)
    , m_table(new QTableWidget)
    , m_rendered(new QTextEdit) {
    setObjectName(u"textView"_s);
    m_rendered->setObjectName(u"sampleMarkdown"_s);
    m_rendered->setReadOnly(true);
    m_rendered->setTextInteractionFlags(Qt::TextSelectableByMouse); // links are not followed
    m_rendered->setDocument(new InertDocument(m_rendered));
    m_text->setReadOnly(true);
    m_text->setObjectName(u"sampleText"_s);
    m_table->setObjectName(u"sampleTable"_s);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_pages->addWidget(m_text);
    m_pages->addWidget(m_table);
    m_pages->addWidget(m_rendered);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_pages);
}

void TextView::show(const SampleItem *item) {
    const QString blob = item ? item->blob : QString();
    if (blob == m_blob && !blob.isEmpty())
        return; // the same text: a table is not parsed and laid out again
    m_blob = blob;
    // Rows of cells when it is a table of more than one cell; plain text always (a run's text
    // is never markup).
    if (item && item->facts[0] * item->facts[1] > 1 && item->text && !item->textCut) {
        const QJsonArray rows = QJsonDocument::fromJson(item->text->toUtf8()).array();
        m_table->clear();
        m_table->setRowCount(int(rows.size()));
        m_table->setColumnCount(int(item->facts[1]));
        for (int r = 0; r < rows.size(); ++r) {
            const QJsonArray cells = rows[r].toArray();
            for (int c = 0; c < cells.size() && c < m_table->columnCount(); ++c)
                m_table->setItem(r, c, new QTableWidgetItem(printable(cells[c].toString())));
        }
        m_table->resizeRowsToContents();
        m_pages->setCurrentWidget(m_table);
        return;
    }
    QString text = item ? item->text.value_or(QString()) : QString();
    if (item && item->facts[0] * item->facts[1] == 1) // a table of one cell: its text
        text = QJsonDocument::fromJson(text.toUtf8()).array().at(0).toArray().at(0).toString();
    m_shown = text;
    m_text->setPlainText(text);
    setMarkdown(m_markdown);
}

void TextView::setMarkdown(bool markdown) {
    m_markdown = markdown;
    if (m_pages->currentWidget() == m_table)
        return;
    if (markdown) // no HTML: a run's text never becomes markup beyond Markdown's own
        m_rendered->document()->setMarkdown(
            m_shown, QTextDocument::MarkdownFeatures(QTextDocument::MarkdownDialectGitHub |
                                                     QTextDocument::MarkdownNoHTML));
    m_pages->setCurrentWidget(markdown ? static_cast<QWidget *>(m_rendered) : m_text);
}

AudioView::AudioView(SamplesFeed *feed, QWidget *parent)
    : QWidget(parent)
    , m_feed(feed)
    , m_play(new QPushButton(tr("Play")))
    , m_save(new QPushButton(tr("Save as WAV…")))
    , m_status(new QLabel) {
    setObjectName(u"audioView"_s);
    m_play->setObjectName(u"playClip"_s);
    m_status->setTextFormat(Qt::PlainText);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_play);
    buttons->addWidget(m_save);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    layout->addStretch();
    m_play->setEnabled(false);
    m_save->setEnabled(false);
    connect(m_play, &QPushButton::clicked, this, [this] {
        if (m_sink) {
            stop();
            return;
        }
        const QString digest = m_digest;
        withClip([this, digest](const QByteArray &clip) {
            if (digest == m_digest) // the slider may have moved on meanwhile
                play(clip);
        });
    });
    connect(m_save, &QPushButton::clicked, this, [this] {
        const QPointer<AudioView> alive(this); // the dialog's event loop may delete the cell
        const QString path =
            QFileDialog::getSaveFileName(this, tr("Save the clip"), m_suggested, u"WAV (*.wav)"_s);
        if (!alive || path.isEmpty())
            return;
        withClip([this, path](const QByteArray &clip) {
            if (Status written = writeFileAtomically(path, clip); !written)
                QMessageBox::warning(this, tr("The clip was not saved"),
                                     printable(written.error()));
        });
    });
}

AudioView::~AudioView() {
    stop(); // the sink stops before the buffer it reads goes
}

QString AudioView::state() const {
    return m_sink ? u"playing"_s : m_status->text().isEmpty() ? u"stopped"_s : m_status->text();
}

void AudioView::withClip(const std::function<void(const QByteArray &)> &use) {
    const QString digest = m_digest;
    auto *once = new QObject(this); // the answer for this click only
    connect(m_feed, &SamplesFeed::blobFetched, once,
            [once, digest, use](const QString &fetched, const QByteArray &bytes) {
                if (fetched != digest)
                    return;
                once->deleteLater();
                use(bytes);
            });
    connect(m_feed, &SamplesFeed::blobFailed, once,
            [this, once, digest](const QString &failed, const QString &why) {
                if (failed != digest)
                    return;
                once->deleteLater();
                m_status->setText(tr("cannot fetch it: %1").arg(printable(why)));
            });
    connect(m_feed, &SamplesFeed::blobDropped, once, [once, digest](const QString &dropped) {
        if (dropped == digest)
            once->deleteLater(); // another click asks again
    });
    m_feed->fetchBlob(digest);
}

void AudioView::play(const QByteArray &clip) {
    stop();
    const auto header = wavHeader(clip);
    if (!header) {
        m_status->setText(tr("cannot play it: %1").arg(header.error()));
        return;
    }
    // WAV's integer PCM (8-bit unsigned, 16- and 32-bit signed) and 32-bit float, as they are.
    QAudioFormat format;
    format.setSampleRate(int(header->sampleRate));
    format.setChannelCount(int(header->channels));
    if (header->encoding != 1 && header->encoding != 3) {
        m_status->setText(tr("cannot play it: a WAV of encoding %1 (only PCM and float are played)")
                              .arg(header->encoding));
        return;
    }
    const bool isFloat = header->encoding == 3;
    format.setSampleFormat(isFloat && header->bitsPerSample == 32 ? QAudioFormat::Float
                           : isFloat                              ? QAudioFormat::Unknown
                           : header->bitsPerSample == 8           ? QAudioFormat::UInt8
                           : header->bitsPerSample == 16          ? QAudioFormat::Int16
                           : header->bitsPerSample == 32          ? QAudioFormat::Int32
                                                                  : QAudioFormat::Unknown);
    const QAudioDevice device = QMediaDevices::defaultAudioOutput();
    if (format.sampleFormat() == QAudioFormat::Unknown) {
        m_status->setText(tr("cannot play it: %1-bit samples of encoding %2")
                              .arg(header->bitsPerSample)
                              .arg(header->encoding));
        return;
    }
    if (device.isNull()) {
        m_status->setText(tr("cannot play it: this computer has no sound device"));
        return;
    }
    if (!device.isFormatSupported(format)) {
        m_status->setText(tr("cannot play it: the sound device does not take %1 Hz, %2 channels")
                              .arg(header->sampleRate)
                              .arg(header->channels));
        return;
    }
    m_buffer = new QBuffer(this);
    m_buffer->setData(clip.sliced(header->dataOffset, header->dataBytes));
    m_buffer->open(QIODevice::ReadOnly);
    m_sink = new QAudioSink(device, format, this);
    connect(m_sink, &QAudioSink::stateChanged, this, [this](QAudio::State state) {
        if (state == QAudio::IdleState || state == QAudio::StoppedState) {
            const bool failed = m_sink && m_sink->error() != QAudio::NoError &&
                                m_sink->error() != QAudio::UnderrunError;
            stop();
            if (failed)
                m_status->setText(tr("cannot play it: the sound device failed"));
        }
    });
    m_sink->start(m_buffer);
    m_play->setText(tr("Stop"));
    m_status->clear();
}

void AudioView::stop() {
    if (m_sink) {
        m_sink->disconnect(this);
        m_sink->stop();
        m_sink->deleteLater();
        m_sink = nullptr;
    }
    if (m_buffer) {
        m_buffer->deleteLater();
        m_buffer = nullptr;
    }
    m_play->setText(tr("Play"));
}

void AudioView::show(const QString &run, const QString &tag, const SampleItem *item) {
    const QString digest = item ? item->blob : QString();
    if (digest != m_digest)
        stop(); // another step: its clip, not this one's
    m_digest = digest;
    m_play->setEnabled(item != nullptr);
    m_save->setEnabled(item != nullptr);
    if (item) {
        QString name = run + u'-' + tag + u"-step" + QString::number(item->step, 'g', 15);
        name.replace(QRegularExpression(u"[^A-Za-z0-9._-]+"_s), u"_"_s);
        m_suggested = name + u".wav";
    }
}

} // namespace sb
