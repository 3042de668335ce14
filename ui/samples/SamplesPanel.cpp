#include "SamplesPanel.h"

#include "OutsideText.h"
#include "Swatches.h"
#include "client/SamplesFeed.h"
#include "samples/ImageViewer.h"
#include "samples/SampleViews.h"
#include "util/OffThread.h"
#include "util/PlainText.h"

#include <QBuffer>
#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QImageReader>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>

namespace sb {

using namespace Qt::StringLiterals;

ImageCache::ImageCache(SamplesFeed *feed, QObject *parent)
    : QObject(parent)
    , m_feed(feed) {
    connect(feed, &SamplesFeed::blobFetched, this,
            [this](const QString &digest, const QByteArray &bytes) {
                if (!m_decoding.contains(digest))
                    return; // another kind's blob
                runOffThread(
                    this,
                    [bytes] {
                        QBuffer buffer;
                        buffer.setData(bytes);
                        QImageReader reader(&buffer);
                        reader.setAllocationLimit(kMostDecodedMiB);
                        QImage image = reader.read();
                        return std::pair(image, image.isNull() ? reader.errorString() : QString());
                    },
                    [this, digest](const std::pair<QImage, QString> &decoded) {
                        m_decoding.remove(digest);
                        if (decoded.first.isNull())
                            m_failed.insert(digest, decoded.second);
                        else
                            keep(digest, decoded.first);
                        Q_EMIT this->decoded(digest);
                    });
            });
    connect(feed, &SamplesFeed::blobFailed, this,
            [this](const QString &digest, const QString &why) {
                if (!m_decoding.remove(digest))
                    return;
                // Not fetched (a timeout, a collector restarting): said, and asked again later.
                m_failed.insert(digest, why);
                m_retryAt.insert(digest, QDeadlineTimer(kRetryMs));
                Q_EMIT decoded(digest);
            });
    connect(feed, &SamplesFeed::blobDropped, this,
            [this](const QString &digest) { m_decoding.remove(digest); });
}

const QImage *ImageCache::image(const QString &digest) {
    const auto found = m_images.constFind(digest);
    if (found != m_images.constEnd()) {
        m_recent.remove(digest);
        m_recent.push_front(digest);
        return &*found;
    }
    if (const auto retry = m_retryAt.constFind(digest);
        retry != m_retryAt.constEnd() && retry->hasExpired()) {
        m_failed.remove(digest);
        m_retryAt.remove(digest);
    }
    if (!m_failed.contains(digest) && !m_decoding.contains(digest)) {
        m_decoding.insert(digest);
        m_feed->fetchBlob(digest);
    }
    return nullptr;
}

void ImageCache::keep(const QString &digest, const QImage &image) {
    if (m_images.contains(digest))
        return;
    m_bytes += image.sizeInBytes();
    m_images.insert(digest, image);
    m_recent.push_front(digest);
    while (m_bytes > kBudget && m_recent.size() > 1) {
        m_bytes -= m_images.take(m_recent.back()).sizeInBytes();
        m_recent.pop_back();
    }
}

SampleSection::SampleSection(SampleKind kind, const QString &tag, SamplesFeed *feed,
                             ImageCache *images, QWidget *parent)
    : QWidget(parent)
    , m_kind(kind)
    , m_tag(tag)
    , m_feed(feed)
    , m_images(images)
    , m_slider(new QSlider(Qt::Horizontal))
    , m_stepLabel(new QLabel)
    , m_cells(new QGridLayout) {
    setObjectName(u"sampleSection"_s);
    auto *layout = new QVBoxLayout(this);
    auto *header = new QHBoxLayout;
    QLabel *name = plainLabel(tag);
    QFont bold = name->font();
    bold.setBold(true);
    name->setFont(bold);
    header->addWidget(name);
    header->addWidget(plainLabel(QString(sampleKindName(kind))));
    header->addStretch();
    if (kind == SampleKind::Histogram) {
        m_histogramMode = new QComboBox;
        m_histogramMode->setObjectName(u"histogramMode"_s);
        m_histogramMode->addItems({tr("Distributions"), tr("Histograms (offset)")});
        connect(m_histogramMode, &QComboBox::currentIndexChanged, this, [this](int mode) {
            for (const Cell &cell : std::as_const(m_cellList))
                static_cast<HistogramView *>(cell.view)->setMode(
                    mode == 1 ? HistogramView::Mode::Offset : HistogramView::Mode::Distribution);
        });
        header->addWidget(m_histogramMode);
    } else if (kind == SampleKind::Text) {
        m_markdown = new QCheckBox(tr("Markdown"));
        m_markdown->setObjectName(u"renderMarkdown"_s);
        m_markdown->setToolTip(tr("Render the texts as Markdown, as TensorBoard does (no HTML; "
                                  "nothing they name is loaded)"));
        connect(m_markdown, &QCheckBox::toggled, this, [this](bool on) {
            for (const Cell &cell : std::as_const(m_cellList))
                static_cast<TextView *>(cell.view)->setMarkdown(on);
        });
        header->addWidget(m_markdown);
    }
    header->addWidget(m_stepLabel);
    layout->addLayout(header);
    m_slider->setObjectName(u"stepSlider"_s);
    m_slider->setToolTip(tr("The step shown: each run's last item at or before it"));
    // The wheel scrolls the panel past a slider; it moves one only once clicked.
    m_slider->setFocusPolicy(Qt::StrongFocus);
    m_slider->installEventFilter(this);
    layout->addWidget(m_slider);
    if (kind == SampleKind::Histogram) {
        m_overlay = new HistogramOverlay;
        m_overlay->setToolTip(tr("Each run's histogram at the step, in its colour"));
        layout->addWidget(m_overlay);
    }
    layout->addLayout(m_cells);
    connect(m_slider, &QSlider::valueChanged, this, [this](int index) {
        if (index < 0 || index >= int(m_steps.size()))
            return;
        m_step = m_steps[std::size_t(index)];
        m_atEnd = index == int(m_steps.size()) - 1;
        showStepLabel();
        for (Cell &cell : m_cellList)
            showCell(cell);
        showOverlay();
    });
    connect(images, &ImageCache::decoded, this, [this](const QString &digest) {
        for (Cell &cell : m_cellList) {
            if (const SampleItem *item = shown(cell.run); item && item->blob == digest)
                showCell(cell);
        }
    });
}

void SampleSection::setRuns(const QStringList &runs) {
    QStringList current;
    for (const Cell &cell : std::as_const(m_cellList))
        current << cell.run;
    if (current == runs)
        return;
    // Cells of runs still shown are kept (a dialog one of them opened may be waiting on it).
    QList<Cell> cells;
    for (const QString &run : runs) {
        const auto kept = std::find_if(m_cellList.begin(), m_cellList.end(),
                                       [&run](const Cell &cell) { return cell.run == run; });
        if (kept != m_cellList.end()) {
            cells.append(*kept);
            m_cellList.erase(kept);
        } else {
            cells.append(makeCell(run));
        }
    }
    for (const Cell &gone : std::as_const(m_cellList)) {
        gone.box->hide();
        gone.box->deleteLater();
    }
    m_cellList = cells;
    m_columns = 0;
    placeCells();
    update();
}

int SampleSection::cellWidth() const {
    return m_kind == SampleKind::Image ? 300 : 460;
}

void SampleSection::placeCells() {
    // As many cells to a row as the width holds, each its own width; the column after the last
    // takes what is left.
    const int spacing = std::max(0, m_cells->horizontalSpacing());
    const int columns = std::max(1, (width() + spacing) / (cellWidth() + spacing));
    if (columns == m_columns)
        return;
    for (const Cell &cell : std::as_const(m_cellList))
        m_cells->removeWidget(cell.box);
    for (int column = 0; column <= std::max(columns, m_columns); ++column)
        m_cells->setColumnStretch(column, 0);
    m_columns = columns;
    for (qsizetype at = 0; at < m_cellList.size(); ++at)
        m_cells->addWidget(m_cellList[at].box, int(at / columns), int(at % columns));
    m_cells->setColumnStretch(columns, 1);
}

void SampleSection::resizeEvent(QResizeEvent *event) {
    QWidget::resizeEvent(event);
    placeCells();
}

SampleSection::Cell SampleSection::makeCell(const QString &run) {
    Cell cell;
    cell.run = run;
    cell.box = new QWidget;
    cell.box->setFixedWidth(cellWidth());
    auto *layout = new QVBoxLayout(cell.box);
    layout->setContentsMargins(0, 0, 0, 0);
    cell.title = plainLabel(run);
    auto *title = new QHBoxLayout;
    auto *swatch = new QLabel;
    swatch->setPixmap(swatchIcon(runColor(run), SwatchShape::Square).pixmap(12, 12));
    title->addWidget(swatch);
    title->addWidget(cell.title, 1);
    layout->addLayout(title);
    switch (m_kind) {
    case SampleKind::Image: {
        auto *view = new ImageView;
        connect(view, &ImageView::clicked, this, [this, run] {
            if (const SampleItem *item = shown(run))
                Q_EMIT enlargeRequested(run, item->blob);
        });
        cell.view = view;
        break;
    }
    case SampleKind::Histogram: {
        auto *view = new HistogramView;
        view->setMode(m_histogramMode->currentIndex() == 1 ? HistogramView::Mode::Offset
                                                           : HistogramView::Mode::Distribution);
        cell.view = view;
        break;
    }
    case SampleKind::Text: {
        auto *view = new TextView;
        view->setMarkdown(m_markdown->isChecked());
        cell.view = view;
        break;
    }
    case SampleKind::Audio:
        cell.view = new AudioView(m_feed);
        break;
    }
    layout->addWidget(cell.view, 1);
    cell.facts = plainLabel();
    cell.facts->setObjectName(u"sampleFacts"_s);
    layout->addWidget(cell.facts);
    return cell;
}

void SampleSection::update() {
    std::vector<double> steps;
    for (const Cell &cell : std::as_const(m_cellList)) {
        for (const SampleItem &item : m_feed->items(cell.run, m_tag))
            steps.push_back(item.step);
    }
    std::sort(steps.begin(), steps.end());
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
    const bool changed = steps != m_steps;
    m_steps = std::move(steps);
    if (changed) {
        const QSignalBlocker quiet(m_slider);
        m_slider->setRange(0, std::max(0, int(m_steps.size()) - 1));
        // At the newest step, it stays there as steps come; else at the step it showed.
        const auto at =
            m_atEnd ? m_steps.end() : std::upper_bound(m_steps.begin(), m_steps.end(), m_step);
        const int index = std::max(0, int(at - m_steps.begin()) - 1);
        m_slider->setValue(index);
        if (!m_steps.empty())
            m_step = m_steps[std::size_t(index)];
        m_slider->setEnabled(m_steps.size() > 1);
    }
    showStepLabel();
    for (Cell &cell : m_cellList)
        showCell(cell);
    showOverlay();
}

void SampleSection::showOverlay() {
    if (!m_overlay)
        return;
    std::vector<HistogramOverlay::Run> runs;
    for (const Cell &cell : std::as_const(m_cellList)) {
        if (const SampleItem *item = shown(cell.run))
            runs.push_back({runColor(cell.run), item->buckets});
    }
    m_overlay->setVisible(m_cellList.size() > 1);
    m_overlay->setRuns(std::move(runs));
}

bool SampleSection::eventFilter(QObject *watched, QEvent *event) {
    if (watched == m_slider && event->type() == QEvent::Wheel && !m_slider->hasFocus()) {
        event->ignore(); // to the scroll area
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

void SampleSection::setStep(double step) {
    const auto at = std::upper_bound(m_steps.begin(), m_steps.end(), step);
    m_slider->setValue(std::max(0, int(at - m_steps.begin()) - 1));
}

void SampleSection::showStepLabel() {
    m_stepLabel->setText(m_steps.empty() ? tr("no items yet")
                                         : tr("step %1 (%2 of %3)")
                                               .arg(QString::number(m_step, 'g', 15))
                                               .arg(m_slider->value() + 1)
                                               .arg(m_steps.size()));
}

const SampleItem *SampleSection::shown(const QString &run) const {
    const std::vector<SampleItem> &items = m_feed->items(run, m_tag);
    // Its last item at or before the step: the first of that step's batch (index 0).
    auto after =
        std::upper_bound(items.begin(), items.end(), m_step,
                         [](double step, const SampleItem &item) { return step < item.step; });
    if (after == items.begin())
        return nullptr;
    const double step = std::prev(after)->step;
    return &*std::lower_bound(items.begin(), after, step,
                              [](const SampleItem &item, double s) { return item.step < s; });
}

void SampleSection::showCell(Cell &cell) {
    const SampleItem *item = shown(cell.run);
    const std::vector<SampleItem> &items = m_feed->items(cell.run, m_tag);
    const auto batch =
        item ? std::count_if(items.begin(), items.end(),
                             [item](const SampleItem &other) { return other.step == item->step; })
             : 0;
    QString facts;
    if (item) {
        facts = tr("step %1").arg(QString::number(item->step, 'g', 15));
        if (batch > 1)
            facts += tr(", the first of %1").arg(batch);
    } else {
        facts = items.empty() ? tr("no items") : tr("nothing at or before this step");
    }
    switch (m_kind) {
    case SampleKind::Image: {
        auto *view = static_cast<ImageView *>(cell.view);
        if (!item) {
            view->showMessage(facts);
            break;
        }
        facts += tr(", %1 × %2").arg(item->facts[0]).arg(item->facts[1]);
        if (const QImage *image = m_images->image(item->blob))
            view->showImage(*image);
        else if (const QString failure = m_images->failure(item->blob); !failure.isEmpty())
            view->showMessage(tr("cannot show it: %1").arg(printable(failure)));
        else
            view->showLoading();
        break;
    }
    case SampleKind::Histogram:
        static_cast<HistogramView *>(cell.view)->show(items, item);
        if (item)
            facts += tr(", %1 values from %2 to %3")
                         .arg(item->facts[2])
                         .arg(item->facts[0], 0, 'g', 4)
                         .arg(item->facts[1], 0, 'g', 4);
        break;
    case SampleKind::Text:
        static_cast<TextView *>(cell.view)->show(item);
        if (item && item->textCut)
            facts += tr(", the first 64 KiB of %1 bytes").arg(item->bytes);
        break;
    case SampleKind::Audio:
        static_cast<AudioView *>(cell.view)->show(cell.run, m_tag, item);
        if (item)
            facts +=
                tr(", %1 Hz, %2 s, %3")
                    .arg(item->facts[0])
                    .arg(item->facts[1] / std::max(1.0, item->facts[0]), 0, 'f', 2)
                    .arg(item->facts[2] == 1 ? tr("mono") : tr("%1 channels").arg(item->facts[2]));
        break;
    }
    cell.facts->setText(facts);
}

SamplesPanel::SamplesPanel(SamplesFeed *feed, QWidget *parent)
    : QScrollArea(parent)
    , m_feed(feed)
    , m_images(new ImageCache(feed, this))
    , m_area(new QWidget)
    , m_layout(new QVBoxLayout(m_area))
    , m_empty(plainLabel(tr("None of the shown runs has logged images, histograms, text or "
                            "audio.\nLog them with signalbox.Image, Histogram, Text or Audio "
                            "(see the README), or follow a TensorBoard logdir that has them."))) {
    setObjectName(u"samplesPanel"_s);
    setWidgetResizable(true);
    setWidget(m_area);
    m_empty->setAlignment(Qt::AlignCenter);
    m_layout->addWidget(m_empty);
    m_layout->addStretch();
    connect(feed, &SamplesFeed::tagsChanged, this, &SamplesPanel::rebuildSections);
    connect(feed, &SamplesFeed::itemsChanged, this, [this](const QString &, const QString &tag) {
        if (SampleSection *found = section(tag))
            found->update();
    });
    connect(feed, &SamplesFeed::problem, this, &SamplesPanel::problem);
}

void SamplesPanel::setRuns(const QStringList &runs) {
    m_runs = runs;
    m_feed->setRuns(runs);
    rebuildSections();
}

void SamplesPanel::setActive(bool active) {
    if (active == m_active)
        return;
    m_active = active;
    rebuildSections();
}

SampleSection *SamplesPanel::section(const QString &tag) const {
    return m_sections.value(tag, nullptr);
}

void SamplesPanel::rebuildSections() {
    // Behind another tab, only whether there is anything: sections (which fetch their items
    // and images) are made once the tab is in front.
    if (!m_active) {
        Q_EMIT samplesChanged();
        return;
    }
    // A section per tag, its kind the first run's (a tag is one kind in each run).
    QMap<std::pair<SampleKind, QString>, QStringList> tags;
    QHash<QString, SampleKind> kindOf;
    for (const SampleTagSummary &tag : m_feed->tags()) {
        const SampleKind kind = kindOf.value(tag.tag, tag.kind);
        kindOf.insert(tag.tag, kind);
        if (kind == tag.kind)
            tags[{kind, tag.tag}] << tag.run;
    }
    QHash<QString, SampleSection *> kept;
    m_sectionList.clear();
    for (auto it = tags.cbegin(); it != tags.cend(); ++it) {
        SampleSection *found = m_sections.take(it.key().second);
        if (found && found->kind() != it.key().first) {
            delete found;
            found = nullptr;
        }
        if (!found) {
            found = new SampleSection(it.key().first, it.key().second, m_feed, m_images);
            connect(found, &SampleSection::enlargeRequested, this, &SamplesPanel::enlarge);
        }
        // The runs in the table's order.
        QStringList runs;
        for (const QString &run : std::as_const(m_runs)) {
            if (it.value().contains(run))
                runs << run;
        }
        found->setRuns(runs);
        kept.insert(it.key().second, found);
        m_sectionList << found;
    }
    qDeleteAll(m_sections); // tags no shown run has
    m_sections = kept;
    for (SampleSection *section : std::as_const(m_sectionList))
        m_layout->removeWidget(section);
    for (int i = 0; i < m_sectionList.size(); ++i)
        m_layout->insertWidget(i, m_sectionList[i]);
    m_empty->setVisible(m_sectionList.isEmpty());
    Q_EMIT samplesChanged();
}

void SamplesPanel::enlarge(const QString &run, const QString &digest) {
    auto *viewer = new ImageViewer(m_images, digest, this);
    viewer->setWindowTitle(printable(run));
    viewer->setAttribute(Qt::WA_DeleteOnClose);
    viewer->show();
}

} // namespace sb
