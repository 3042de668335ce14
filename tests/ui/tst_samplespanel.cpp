// The curves view's Samples tab against a real (embedded) collector: images of two runs side by
// side at the step the slider chooses (each run's last at or before it), decoded off the GUI
// thread, opened whole and zoomed pixel for pixel; a histogram's distribution; text shown as
// plain text, never markup; an image the decoder cannot read said in its cell.
#include "../support/MediaBytes.h"
#include "../support/WindowFixture.h"
#include "CurvesView.h"
#include "client/SamplesFeed.h"
#include "samples/ImageViewer.h"
#include "samples/SampleViews.h"
#include "samples/SamplesPanel.h"

#include <QBuffer>
#include <QCheckBox>
#include <QComboBox>
#include <QImage>
#include <QJsonArray>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTest>
#include <QTextDocument>
#include <QTextEdit>

using namespace Qt::StringLiterals;

namespace {

// A real PNG, all one colour: its step in the red channel.
QByteArray stepImage(int step) {
    QImage image(12, 8, QImage::Format_RGB32);
    image.fill(QColor(step * 20, 100, 200));
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return png;
}

sb::Sample item(const QString &tag, sb::SampleKind kind, double step, QByteArray bytes,
                sb::SampleFacts facts = {}) {
    sb::Sample sample{tag, kind, step, 1.7e9 + step, 0, facts, std::move(bytes), {}};
    if (sb::Status checked = sb::checkSample(&sample); !checked)
        qFatal("not a valid sample: %s", qPrintable(checked.error()));
    return sample;
}

bool pushSamples(WindowFixture &f, const QString &run, const std::vector<sb::Sample> &samples) {
    for (const QByteArray &body : sb::samplesPushes(run, samples)) {
        std::optional<bool> stored;
        f.client->pushSamples(body, f.client.get(),
                              [&stored](const sb::Result<qint64> &reply) { stored = reply.ok(); });
        if (!QTest::qWaitFor([&stored] { return stored.has_value(); }) || !*stored)
            return false;
    }
    return true;
}

// The image views of a section, in the runs' order.
QList<sb::ImageView *> imageViews(sb::SampleSection *section) {
    return section->findChildren<sb::ImageView *>();
}

QColor centre(QWidget *widget) {
    return widget->grab().toImage().pixelColor(widget->width() / 2, widget->height() / 2);
}

} // namespace

class TestSamplesPanel final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settings.path());
    }
    void imagesSideBySideAtTheChosenStep();

private:
    QTemporaryDir m_settings;
};

void TestSamplesPanel::imagesSideBySideAtTheChosenStep() {
    WindowFixture f;
    // Run "a" logs an image at every step 0..9, "<i>b</i>" at the even ones; both a loss.
    for (const QString &run : {u"a"_s, u"<i>b</i>"_s}) {
        QVERIFY(f.push(
            {{u"run"_s, run},
             {u"series"_s, QJsonObject{{u"loss"_s, QJsonObject{{u"step"_s, QJsonArray{0}},
                                                               {u"value"_s, QJsonArray{1}}}}}}}));
        std::vector<sb::Sample> samples;
        for (int step = 0; step < 10; ++step) {
            if (run == u"a"_s || step % 2 == 0)
                samples.push_back(
                    item(u"samples/x"_s, sb::SampleKind::Image, step, stepImage(step)));
        }
        samples.push_back(item(u"note"_s, sb::SampleKind::Text, 3,
                               "<b>bold</b> *not* markup ![x](file:///etc/hostname)"));
        samples.push_back(item(u"w"_s, sb::SampleKind::Histogram, 3,
                               sb::encodeBuckets({{-1, 0, 2}, {0, 1, 6}}), {-1, 1, 8, 1}));
        samples.push_back(
            item(u"clip"_s, sb::SampleKind::Audio, 2, media_bytes::wav(8000, 1, 16000, 16000)));
        // A PNG whose header passes, whose pixels do not.
        samples.push_back(item(u"broken"_s, sb::SampleKind::Image, 1,
                               media_bytes::png(4, 4, "IDAT-that-is-no-zlib")));
        QVERIFY(pushSamples(f, run, samples));
    }
    auto window = f.window();
    sb::CurvesView *curves = window->curves();
    auto *tabs = curves->findChild<QTabWidget *>(u"curvesTabs"_s);
    QVERIFY(tabs);
    QTRY_VERIFY_WITH_TIMEOUT(tabs->isTabVisible(1), 20000); // shown once a run has samples
    curves->showSamplesTab();
    sb::SamplesPanel *panel = curves->samplesPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->section(u"samples/x"_s), 20000);
    sb::SampleSection *images = panel->section(u"samples/x"_s);
    QTRY_COMPARE_WITH_TIMEOUT(images->steps().size(), std::size_t(10), 20000);
    // Sections by kind, then tag: images first.
    QCOMPARE(panel->sections().front()->kind(), sb::SampleKind::Image);

    // At the newest step: each run's last at or before it.
    QCOMPARE(images->step(), 9.0);
    QCOMPARE(images->shown(u"a"_s)->step, 9.0);
    QCOMPARE(images->shown(u"<i>b</i>"_s)->step, 8.0);
    images->setStep(5);
    QCOMPARE(images->shown(u"a"_s)->step, 5.0);
    QCOMPARE(images->shown(u"<i>b</i>"_s)->step, 4.0);
    const QList<sb::ImageView *> views = imageViews(images);
    QCOMPARE(views.size(), 2);
    QTRY_VERIFY_WITH_TIMEOUT(views[0]->showsImage() && views[1]->showsImage(), 20000);
    // In the runs table's order, A to Z: "<i>b</i>" (its step 4), then "a" (its step 5).
    QTRY_COMPARE_WITH_TIMEOUT(centre(views[1]).red(), 5 * 20, 20000);
    QTRY_COMPARE_WITH_TIMEOUT(centre(views[0]).red(), 4 * 20, 20000);
    // The run's name is plain text, as it came.
    QVERIFY(!images->findChildren<QLabel *>().isEmpty());
    bool named = false;
    for (const QLabel *label : images->findChildren<QLabel *>())
        named = named || (label->text() == u"<i>b</i>"_s && label->textFormat() == Qt::PlainText);
    QVERIFY(named);

    // Opened whole: 100%, then zoomed by whole factors, each pixel a sharp square.
    QTest::mouseClick(views[1], Qt::LeftButton);
    sb::ImageViewer *viewer = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((viewer = panel->findChild<sb::ImageViewer *>()) != nullptr, 5000);
    auto *canvas = viewer->findChild<sb::ImageCanvas *>();
    QTRY_COMPARE_WITH_TIMEOUT(canvas->size(), QSize(12, 8), 5000);
    viewer->setZoom(8);
    QCOMPARE(canvas->size(), QSize(96, 64));
    const QImage zoomed = canvas->grab().toImage();
    QCOMPARE(zoomed.pixelColor(1, 1), zoomed.pixelColor(6, 6)); // one image pixel, 8x8 on screen
    QCOMPARE(zoomed.pixelColor(40, 30).red(), 5 * 20);
    viewer->close();

    // A histogram's distribution; a text as plain text; a broken image said in its cell.
    QTRY_VERIFY_WITH_TIMEOUT(panel->section(u"w"_s) && panel->section(u"note"_s), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(panel->section(u"w"_s)->shown(u"a"_s) != nullptr, 20000);
    QCOMPARE(panel->section(u"w"_s)->shown(u"a"_s)->buckets.size(), std::size_t(2));
    auto *text = panel->section(u"note"_s)->findChild<QPlainTextEdit *>(u"sampleText"_s);
    QTRY_COMPARE_WITH_TIMEOUT(text->toPlainText(),
                              u"<b>bold</b> *not* markup ![x](file:///etc/hostname)"_s, 20000);
    // Markdown only when asked: no HTML, and nothing it names is loaded.
    panel->section(u"note"_s)->findChild<QCheckBox *>(u"renderMarkdown"_s)->setChecked(true);
    auto *rendered = panel->section(u"note"_s)->findChild<QTextEdit *>(u"sampleMarkdown"_s);
    QVERIFY(rendered->isVisible());
    QVERIFY(rendered->toPlainText().contains(u"<b>bold</b> not markup"_s));
    QVERIFY(!rendered->document()
                 ->resource(QTextDocument::ImageResource, QUrl(u"file:///etc/hostname"_s))
                 .isValid());

    // Histograms: each run's at the step overlaid; the offset view of each run's steps.
    sb::SampleSection *weights = panel->section(u"w"_s);
    QVERIFY(weights->findChild<sb::HistogramOverlay *>()->isVisible());
    weights->findChild<QComboBox *>(u"histogramMode"_s)->setCurrentIndex(1);
    for (const sb::HistogramView *view : weights->findChildren<sb::HistogramView *>())
        QCOMPARE(view->mode(), sb::HistogramView::Mode::Offset);
    QVERIFY(!weights->grab().isNull()); // painted in that mode
    sb::SampleSection *broken = panel->section(u"broken"_s);
    QVERIFY(broken);
    QTRY_VERIFY_WITH_TIMEOUT(broken->shown(u"a"_s) != nullptr, 20000);
    sb::ImageView *brokenView = imageViews(broken).front();
    QTRY_VERIFY_WITH_TIMEOUT(brokenView->message().startsWith(u"cannot show it"_s), 20000);
    QVERIFY(!brokenView->showsImage());

    // A clip is fetched and handed to the player: it plays, or says why it cannot (a machine
    // with no sound device), never silently nothing.
    sb::SampleSection *clips = panel->section(u"clip"_s);
    QVERIFY(clips);
    QTRY_VERIFY_WITH_TIMEOUT(clips->shown(u"a"_s) != nullptr, 20000);
    auto *audio = clips->findChildren<sb::AudioView *>().front();
    QCOMPARE(audio->state(), u"stopped"_s);
    QTest::mouseClick(audio->findChild<QPushButton *>(u"playClip"_s), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(audio->state() != u"stopped"_s, 20000);
    qInfo() << "the player says:" << audio->state();
}

QTEST_MAIN(TestSamplesPanel)
#include "tst_samplespanel.moc"
