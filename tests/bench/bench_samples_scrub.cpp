// Scrubbing a step slider over 16 runs side by side: 16 runs x STEPS steps of 256 x 256 images
// (PNG) in a real embedded collector, the Samples panel showing them. Printed, for every step
// in turn:
//   - dragging: the GUI thread's frame (the slider moved, the cells repainted with what is at
//     hand), as frames per second and the longest frame;
//   - settling: from the slider's move until all 16 cells show that step's image (fetched over
//     HTTP and decoded off the GUI thread the first time; from memory after), median and
//     longest, first pass and second.
// Target: 60 fps while dragging; every step reachable (no reservoir). Asserts nothing.
#include "BenchUtil.h"
#include "client/CollectorClient.h"
#include "client/SamplesFeed.h"
#include "collector/EmbeddedCollector.h"
#include "samples/SamplesPanel.h"

#include <QApplication>
#include <QBuffer>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace Qt::StringLiterals;

namespace {

constexpr int kRuns = 16;

QByteArray picture(int run, int step) {
    QImage image(256, 256, QImage::Format_RGB32);
    QPainter painter(&image);
    QLinearGradient gradient(0, 0, 256, 256);
    gradient.setColorAt(0, QColor::fromHsv((run * 23 + step) % 360, 200, 240));
    gradient.setColorAt(1, QColor::fromHsv((run * 23 + step * 3 + 120) % 360, 255, 120));
    painter.fillRect(image.rect(), gradient);
    painter.setPen(Qt::white);
    painter.drawText(image.rect(), Qt::AlignCenter, u"run %1\nstep %2"_s.arg(run).arg(step));
    painter.end();
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return png;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0 : values[values.size() / 2];
}

} // namespace

int main(int argc, char *argv[]) {
    QApplication app(argc, argv);
    const int steps = bench::scaled(200, 40);
    QTemporaryDir dir;
    sb::Collector::Options options;
    options.dataDir = dir.path() + u"/collector"_s;
    auto embedded = sb::EmbeddedCollector::start(options);
    if (!embedded) {
        std::fprintf(stderr, "no collector: %s\n", qPrintable(embedded.error()));
        return 1;
    }
    sb::CollectorClient client((*embedded)->url(), (*embedded)->token());
    QStringList runs;
    for (int run = 0; run < kRuns; ++run) {
        const QString name = u"run-%1"_s.arg(run, 2, 10, QChar(u'0'));
        runs << name;
        std::vector<sb::Sample> samples;
        for (int step = 0; step < steps; ++step) {
            sb::Sample sample{u"samples"_s,
                              sb::SampleKind::Image,
                              double(step),
                              1.7e9 + step,
                              0,
                              {},
                              picture(run, step),
                              {}};
            (void)sb::checkSample(&sample);
            samples.push_back(std::move(sample));
        }
        for (const QByteArray &body : sb::samplesPushes(name, samples)) {
            bool done = false;
            client.pushSamples(body, &client, [&done](const sb::Result<qint64> &) { done = true; });
            (void)QTest::qWaitFor([&done] { return done; }, 60000);
        }
    }
    sb::SamplesFeed feed(&client);
    sb::SamplesPanel panel(&feed);
    panel.resize(1600, 1200);
    panel.show();
    panel.setRuns(runs);
    panel.setActive(true); // as the tab in front
    feed.setActive(true);
    sb::SampleSection *section = nullptr;
    (void)QTest::qWaitFor(
        [&] {
            section = panel.section(u"samples"_s);
            return section && section->steps().size() == std::size_t(steps);
        },
        120000);
    if (!section) {
        std::fprintf(stderr, "the panel never showed the images\n");
        return 1;
    }
    auto *cache = panel.findChild<sb::ImageCache *>();
    auto settled = [&] {
        for (const QString &run : std::as_const(runs)) {
            const sb::SampleItem *item = section->shown(run);
            if (!item || !cache->image(item->blob))
                return false;
        }
        return true;
    };
    std::printf("samples scrubbing: %d runs side by side, %d steps of 256 x 256 PNG images each "
                "(%d images)\n",
                kRuns, steps, kRuns * steps);
    for (int pass = 1; pass <= 2; ++pass) {
        std::vector<double> frames;
        std::vector<double> settle;
        for (int step = 0; step < steps; ++step) {
            QElapsedTimer timer;
            timer.start();
            section->setStep(step);
            section->repaint();
            frames.push_back(double(timer.nsecsElapsed()) / 1e6);
            (void)QTest::qWaitFor(settled, 30000);
            settle.push_back(double(timer.nsecsElapsed()) / 1e6);
        }
        double total = 0;
        for (const double frame : frames)
            total += frame;
        std::printf("  pass %d: dragging %.0f fps (mean frame %.2f ms, longest %.2f ms; target "
                    "60 fps: %.1fx); every cell at the step's image: median %.1f ms, longest "
                    "%.1f ms\n",
                    pass, 1000.0 * double(frames.size()) / total, total / double(frames.size()),
                    *std::max_element(frames.begin(), frames.end()),
                    1000.0 * double(frames.size()) / total / 60, median(settle),
                    *std::max_element(settle.begin(), settle.end()));
    }
    std::printf("  (every step reachable: %zu of %d)\n", section->steps().size(), steps);
    return 0;
}
