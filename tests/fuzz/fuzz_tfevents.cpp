// libFuzzer target: arbitrary bytes as an event file (a crash, a bad disk or a hostile node may
// leave one) and as a lone Event message, whose every value is also decoded as each kind of
// sample. The follower must read what is intact, count the rest, never run past the file, and
// never crash.
#include "tensorboard/EventParser.h"
#include "tensorboard/LogdirFollower.h"
#include "tensorboard/Summaries.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Qt::StringLiterals;

namespace {

// The bytes as a logdir of one event file, growing in two steps like a file being written.
class MemoryLogdir final : public sb::LogdirSource {
public:
    QByteArray bytes;
    qint64 visible = 0;
    sb::Result<std::vector<File>> eventFiles() override {
        return std::vector<File>{{u"run/events.out.tfevents.1.fuzz"_s, visible}};
    }
    sb::Result<QByteArray> read(const QString &, qint64 offset, qint64 size) override {
        if (offset < 0 || offset > visible || size < 0)
            std::abort(); // the follower asked outside the file
        return bytes.mid(offset, std::min(size, visible - offset));
    }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const QByteArray bytes(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    sb::TfEvent event;
    if (sb::parseEvent(bytes, &event)) {
        for (const sb::TfEvent::Value &value : event.values) {
            for (const sb::SummaryKind kind :
                 {sb::SummaryKind::Image, sb::SummaryKind::Histogram, sb::SummaryKind::Text,
                  sb::SummaryKind::Audio, sb::SummaryKind::Hparams})
                (void)sb::decodeSample(value, kind);
        }
    }

    MemoryLogdir source;
    source.bytes = bytes;
    sb::LogdirFollower follower;
    qint64 points = 0;
    auto sink = [&](const QString &, std::vector<sb::SeriesPoints> &&series) -> sb::Status {
        for (const auto &s : series)
            points += static_cast<qint64>(s.points.size());
        return sb::success();
    };
    auto samples = [](const QString &, std::vector<sb::LogdirFollower::Sample> &&) {
        return sb::success();
    };
    for (const qint64 visible : {bytes.size() / 2, bytes.size()}) {
        source.visible = visible;
        for (bool more = true; more;) {
            auto progress = follower.poll(source, sink, 1024, samples);
            if (!progress)
                std::abort();
            more = progress->more;
        }
        const auto &state = follower.files().first();
        if (state.offset > visible || state.points != points)
            std::abort();
    }
    return 0;
}
