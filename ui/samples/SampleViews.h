#pragma once

#include "metrics/CollectorApi.h"

#include <QImage>
#include <QWidget>

#include <array>
#include <functional>
#include <vector>

class QAudioSink;
class QBuffer;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QStackedWidget;
class QTableWidget;
class QTextEdit;

namespace sb {

class SamplesFeed;

// An image fitted to the cell (aspect kept), or a word in its place; a click asks for it whole.
class ImageView final : public QWidget {
    Q_OBJECT
public:
    explicit ImageView(QWidget *parent = nullptr);
    void showImage(const QImage &image);
    void showLoading();
    void showMessage(const QString &text); // plain text
    bool showsImage() const { return !m_image.isNull(); }
    const QString &message() const { return m_message; }
    QSize sizeHint() const override { return {220, 220}; }

Q_SIGNALS:
    void clicked();

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    QImage m_image;
    QString m_message;
};

// TensorBoard's two views of a histogram tag, for one run. Distribution: the bands between the
// percentiles 0, 6.7, 15.9, 30.9 and their mirrors, and the median (the normal distribution's
// ±1.5σ, ±1σ, ±0.5σ) over the steps, the chosen step marked, and under it the histogram at that
// step. Offset: the histograms of up to kOffsetSteps steps spread over the tag's, stacked, the
// earliest at the back, the chosen one drawn strong.
class HistogramView final : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Distribution, Offset };
    static constexpr int kOffsetSteps = 30;

    explicit HistogramView(QWidget *parent = nullptr);
    void show(const std::vector<SampleItem> &items, const SampleItem *chosen);
    void setMode(Mode mode);
    Mode mode() const { return m_mode; }
    QSize sizeHint() const override { return {360, 260}; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    void paintDistribution(QPainter &painter);
    void paintOffset(QPainter &painter);

    Mode m_mode = Mode::Distribution;
    std::vector<std::pair<double, HistogramPercentiles>> m_bands;          // by step
    std::vector<std::pair<double, std::vector<HistogramBucket>>> m_offset; // by step
    std::vector<HistogramBucket> m_chosen;
    double m_chosenStep = 0;
    bool m_hasChosen = false;
    const SampleItem *m_itemsData = nullptr; // the items the bands were made of
    std::size_t m_itemsCount = 0;
};

// The histograms of several runs at one step, overlaid: each run's as an outline in its colour.
class HistogramOverlay final : public QWidget {
    Q_OBJECT
public:
    struct Run {
        QColor color;
        std::vector<HistogramBucket> buckets;
    };
    explicit HistogramOverlay(QWidget *parent = nullptr);
    void setRuns(std::vector<Run> runs);
    QSize sizeHint() const override { return {600, 140}; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    std::vector<Run> m_runs;
};

// A text as plain text, or a table of plain-text cells. Markdown (TensorBoard renders a text
// as Markdown) only when the person asks for it: rendered with HTML off, no image or other
// resource ever loaded, links not followed.
class TextView final : public QWidget {
    Q_OBJECT
public:
    explicit TextView(QWidget *parent = nullptr);
    void show(const SampleItem *item);
    void setMarkdown(bool markdown);
    QSize sizeHint() const override { return {360, 160}; }

private:
    QStackedWidget *m_pages;
    QPlainTextEdit *m_text;
    QTableWidget *m_table;
    QTextEdit *m_rendered;
    QString m_shown; // the text (not a table) shown now
    QString m_blob;  // its digest
    bool m_markdown = false;
};

// An audio clip: played (its PCM samples to the default sound device, with Qt Multimedia's
// QAudioSink), or saved as its WAV file.
class AudioView final : public QWidget {
    Q_OBJECT
public:
    explicit AudioView(SamplesFeed *feed, QWidget *parent = nullptr);
    ~AudioView() override;
    void show(const QString &run, const QString &tag, const SampleItem *item);
    // What the player says: "playing", "stopped", or why it cannot play (plain text).
    QString state() const;

private:
    // The clip's bytes, then `use` them (once, for this clip).
    void withClip(const std::function<void(const QByteArray &)> &use);
    void play(const QByteArray &clip);
    void stop();

    SamplesFeed *m_feed;
    QPushButton *m_play;
    QPushButton *m_save;
    QLabel *m_status;
    QAudioSink *m_sink = nullptr;
    QBuffer *m_buffer = nullptr; // the samples the sink reads
    QString m_digest;
    QString m_suggested; // the file name offered
};

} // namespace sb
