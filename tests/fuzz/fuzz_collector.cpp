// libFuzzer target: the collector from the outside. The first byte picks a surface, the rest is
// the input: a raw HTTP request to a real listening collector, a push body (JSON, columns or
// samples), a /lines body, YAML with anchors and aliases (every loader), or arbitrary stored points
// under the M4 query path. Anything may be refused; nothing may crash, hang or trip a sanitizer.
#include "collector/Collector.h"
#include "config/Config.h"
#include "config/YamlFile.h"
#include "metrics/Downsampler.h"
#include "sweeps/SweepSpec.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QJsonDocument>
#include <QTcpSocket>
#include <QTemporaryDir>

#include <cstddef>
#include <cstdint>
#include <cstring>

using namespace Qt::StringLiterals;

namespace {

sb::Collector &collector() {
    static int argc = 1;
    static char name[] = "fuzz_collector";
    static char *argv[] = {name, nullptr};
    static QCoreApplication app(argc, argv);
    static QTemporaryDir dir;
    static auto started = [] {
        sb::Collector::Options options;
        options.dataDir = dir.path();
        return sb::Collector::start(options);
    }();
    if (!started)
        std::abort();
    return *started.value();
}

// Every metric of a run, queried on each axis.
void queryRun(sb::Collector &c, const QString &run) {
    {
        for (const auto &series : c.store().series(run)) {
            for (sb::XAxis axis : {sb::XAxis::Step, sb::XAxis::RelativeTime, sb::XAxis::WallTime}) {
                sb::SeriesWindow window;
                window.axis = axis;
                window.width = 17;
                (void)c.store().query(run, series.metric, window);
            }
        }
    }
}

void rawHttp(sb::Collector &c, QByteArrayView request) {
    QTcpSocket socket;
    socket.connectToHost(c.url().host(), static_cast<quint16>(c.url().port()));
    if (!socket.waitForConnected(2000))
        std::abort();
    socket.write(request.toByteArray());
    socket.flush();
    // Until the answer starts, the server closes, or a request that never ends has waited.
    const QDeadlineTimer deadline(10);
    while (!deadline.hasExpired() && socket.state() == QAbstractSocket::ConnectedState &&
           socket.bytesAvailable() == 0)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
}

void storedPoints(QByteArrayView bytes) {
    if (bytes.size() < 16)
        return;
    std::vector<sb::MetricPoint> points((bytes.size() - 16) / sizeof(sb::MetricPoint));
    if (!points.empty())
        std::memcpy(points.data(), bytes.data() + 16, points.size() * sizeof(sb::MetricPoint));
    sb::VectorPointSource source(&points);
    sb::SeriesSummary summary;
    summary.update(source);
    sb::SeriesWindow window;
    double bounds[2];
    std::memcpy(bounds, bytes.data(), sizeof bounds);
    window.axis = static_cast<sb::XAxis>(static_cast<unsigned>(bounds[0] != bounds[0]) % 3);
    window.from = bounds[0];
    window.to = bounds[1];
    window.width = 1 + static_cast<unsigned char>(bytes[0]) % 64;
    (void)sb::downsampleM4(source, summary, window);
    window.from.reset();
    window.to.reset();
    window.smoothing = 0.5;
    (void)sb::downsampleM4(source, summary, window);
}

// A push body as the HTTP API decodes it (JSON or columns), stored, and its run queried.
void push(sb::Collector &c, QByteArrayView body, bool columns) {
    auto decoded = columns ? sb::Collector::decodeColumns(body) : sb::Collector::decodePush(body);
    if (!decoded)
        return;
    const QString run = decoded->run;
    (void)c.storePush(std::move(decoded).value());
    queryRun(c, run);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size == 0)
        return 0;
    const QByteArrayView input(reinterpret_cast<const char *>(data) + 1,
                               static_cast<qsizetype>(size - 1));
    switch (data[0] % 7) {
    case 0:
        rawHttp(collector(), input);
        break;
    case 1:
        push(collector(), input, false);
        break;
    case 2:
        (void)collector().ingestLines(u"fuzz"_s, input);
        queryRun(collector(), u"fuzz"_s);
        break;
    case 3: {
        const QByteArray yaml = input.toByteArray();
        if (auto node = sb::parseYaml(yaml, u"fuzz.yaml"_s))
            (void)sb::yamlToJson(*node);
        (void)sb::parseYamlObjects(yaml, u"fuzz.yaml"_s);
        (void)sb::Config::parse(yaml, u"fuzz.yaml"_s);
        (void)sb::SweepSpec::parse(yaml, u"fuzz.yaml"_s);
        break;
    }
    case 4:
        storedPoints(input);
        break;
    case 5:
        push(collector(), input, true);
        break;
    case 6:
        if (auto samples = sb::Collector::decodeSamples(input)) {
            (void)collector().storeSamples(samples->run, samples->samples);
            for (const auto &tag : collector().store().sampleTags(samples->run))
                (void)collector().store().samples(samples->run, tag.tag, {}, {}, 0, 100);
        }
        break;
    }
    return 0;
}
