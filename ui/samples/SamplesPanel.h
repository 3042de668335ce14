#pragma once

#include "client/SamplesFeed.h"
#include "metrics/CollectorApi.h"

#include <QDeadlineTimer>
#include <QHash>
#include <QImage>
#include <QList>
#include <QScrollArea>
#include <QSet>

#include <list>

class QCheckBox;
class QComboBox;
class QGridLayout;
class QLabel;
class QSlider;
class QVBoxLayout;

namespace sb {

class HistogramOverlay;
class SamplesFeed;

// Images the panel shows, decoded off the GUI thread from the blobs the feed fetches, the most
// recently shown kept up to a budget of memory. Decoding refuses an image of more than
// kMostDecodedBytes (Qt's allocation limit), whatever its header says.
class ImageCache final : public QObject {
    Q_OBJECT
public:
    static constexpr qint64 kBudget = qint64(256) << 20;
    static constexpr int kMostDecodedMiB = 256;
    static constexpr int kRetryMs = 5000;

    explicit ImageCache(SamplesFeed *feed, QObject *parent = nullptr);
    // The image, or null (then it is fetched and decoded: decoded() says when).
    const QImage *image(const QString &digest);
    // Why it cannot be shown, once it failed; empty otherwise.
    QString failure(const QString &digest) const { return m_failed.value(digest); }

Q_SIGNALS:
    void decoded(const QString &digest); // or failed

private:
    void keep(const QString &digest, const QImage &image);

    SamplesFeed *m_feed;
    QHash<QString, QImage> m_images;
    std::list<QString> m_recent; // most recently shown first
    qint64 m_bytes = 0;
    QHash<QString, QString> m_failed;
    QHash<QString, QDeadlineTimer> m_retryAt; // failures to fetch, asked again after a while
    QSet<QString> m_decoding;
};

// One tag of samples across the shown runs: a header, a slider over the steps any run logged
// it at, and a cell per run showing its item at the chosen step (its last at or before it).
class SampleSection final : public QWidget {
    Q_OBJECT
public:
    SampleSection(SampleKind kind, const QString &tag, SamplesFeed *feed, ImageCache *images,
                  QWidget *parent = nullptr);
    SampleKind kind() const { return m_kind; }
    const QString &tag() const { return m_tag; }
    void setRuns(const QStringList &runs);
    // The items changed (a run's came in): the steps and the cells follow.
    void update();
    // The step shown; steps() lists those the slider stops at.
    double step() const { return m_step; }
    const std::vector<double> &steps() const { return m_steps; }
    void setStep(double step);
    // The item a run's cell shows, or null.
    const SampleItem *shown(const QString &run) const;

Q_SIGNALS:
    void enlargeRequested(const QString &run, const QString &digest);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    struct Cell {
        QString run;
        QWidget *box = nullptr;
        QLabel *title = nullptr;
        QWidget *view = nullptr; // the kind's own widget
        QLabel *facts = nullptr;
    };
    Cell makeCell(const QString &run);
    int cellWidth() const;
    void placeCells(); // as many to a row as the width holds
    void showCell(Cell &cell);
    void showStepLabel();
    // Histograms: each run's at the step, overlaid in the runs' colours.
    void showOverlay();

    SampleKind m_kind;
    QString m_tag;
    SamplesFeed *m_feed;
    ImageCache *m_images;
    QSlider *m_slider;
    QLabel *m_stepLabel;
    QComboBox *m_histogramMode = nullptr; // distributions, or offset histograms
    HistogramOverlay *m_overlay = nullptr;
    QCheckBox *m_markdown = nullptr; // texts rendered as Markdown, when asked
    QGridLayout *m_cells;
    QList<Cell> m_cellList;
    std::vector<double> m_steps;
    double m_step = 0;
    bool m_atEnd = true; // follows the newest step as it comes
    int m_columns = 0;   // cells to a row, as placed
};

// The samples of the runs the curves view shows, a section per tag: images side by side at a
// step chosen with the tag's slider (click one to see it at full size, pixel for pixel), texts
// and tables as plain text, each histogram's distribution over the steps with the histogram at
// the chosen step, and audio clips to save.
class SamplesPanel final : public QScrollArea {
    Q_OBJECT
public:
    explicit SamplesPanel(SamplesFeed *feed, QWidget *parent = nullptr);
    // The runs shown, in the table's order.
    void setRuns(const QStringList &runs);
    // Whether any shown run has samples (the view shows the panel's tab only then).
    bool hasSamples() const { return !m_feed->tags().isEmpty(); }
    // Sections are made and kept up to date only while active (the tab in front).
    void setActive(bool active);
    SampleSection *section(const QString &tag) const;
    const QList<SampleSection *> &sections() const { return m_sectionList; }

Q_SIGNALS:
    void samplesChanged(); // tags came or went
    void problem(const QString &message);

private:
    void rebuildSections();
    void enlarge(const QString &run, const QString &digest);

    SamplesFeed *m_feed;
    ImageCache *m_images;
    QWidget *m_area;
    QVBoxLayout *m_layout;
    QLabel *m_empty;
    QHash<QString, SampleSection *> m_sections; // by tag
    QList<SampleSection *> m_sectionList;       // in kind, then tag order
    QStringList m_runs;
    bool m_active = false;
};

} // namespace sb
