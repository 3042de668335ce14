// TensorBoard event files: the framing's checksums, the scalars of files written by real
// writers (tests/data/tfevents/generate.py), and what a follower does with files that grow,
// rotate, end mid-record or carry corrupt records.
#include "collector/Collector.h"
#include "tensorboard/EventParser.h"
#include "tensorboard/LogdirFollower.h"
#include "tensorboard/TfRecord.h"
#include "util/Crc32c.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdio>
#include <map>

using namespace Qt::StringLiterals;

namespace {

const QString kLogdir = QStringLiteral(SIGNALBOX_TEST_DATA "/tfevents/logdir");

// What a follower delivered: run -> tag -> points, in arrival order.
using Curves = std::map<QString, std::map<QString, std::vector<sb::MetricPoint>>>;

sb::LogdirFollower::Sink collect(Curves *curves) {
    return [curves](const QString &run, std::vector<sb::SeriesPoints> &&series) {
        for (const auto &s : series) {
            auto &points = (*curves)[run][s.metric];
            points.insert(points.end(), s.points.begin(), s.points.end());
        }
        return sb::success();
    };
}

Curves readAll(sb::LogdirFollower &follower, const QString &root) {
    Curves curves;
    sb::LocalLogdir source(root);
    for (bool more = true; more;) {
        auto progress = follower.poll(source, collect(&curves));
        if (!progress)
            qFatal("%s", qPrintable(progress.error()));
        more = progress->more;
    }
    return curves;
}

// A record framed as a TFRecord writer frames it.
QByteArray frame(const QByteArray &data) {
    QByteArray out;
    auto append = [&out](auto value) {
        out.append(reinterpret_cast<const char *>(&value), sizeof value);
    };
    const auto length = static_cast<std::uint64_t>(data.size());
    const QByteArray lengthBytes(reinterpret_cast<const char *>(&length), 8);
    append(length);
    append(sb::maskedCrc32c(lengthBytes));
    out.append(data);
    append(sb::maskedCrc32c(data));
    return out;
}

// The bit-at-a-time definition of CRC-32C, to check the fast paths against.
std::uint32_t referenceCrc32c(QByteArrayView data) {
    std::uint32_t crc = 0xFFFFFFFFu;
    for (char byte : data) {
        crc ^= static_cast<std::uint8_t>(byte);
        for (int k = 0; k < 8; ++k)
            crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    }
    return ~crc;
}

double loss(int step) {
    return 1.0 / std::pow(2.0, step % 8);
}

QByteArray readFile(const QString &path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return file.readAll();
}

void writeFile(const QString &path, const QByteArray &bytes,
               QIODevice::OpenMode mode = QIODevice::WriteOnly) {
    QFile file(path);
    if (!file.open(mode) || file.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(path));
}

QString simpleFile() {
    return QDir(kLogdir + u"/simple"_s)
        .entryInfoList({u"*tfevents*"_s}, QDir::Files, QDir::Name)
        .first()
        .filePath();
}

} // namespace

class TestTfEvents : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void crc32cVectors();
    void scalarsOfRealWriters();
    void tensorScalarsAndPlugins();
    void truncatedRecordWaitsForTheRest();
    void corruptRecordsAreSkippedAndCounted();
    void growingAndRotatedFilesAreTailed();
    void aReplacedFileIsReadFromItsStart();
    void budgetSplitsABacklog();
    void unfinishedRecordIsNoWorkLeft();
    void absurdLengthIsDamageAndReadingGoesOn();
    void largeRecordsArePassedOver();
    void aShortReadOfALargeRecordWaits();
    void refusedPointsAreReadAgain();
    void collectorFollowsLogdirAcrossRestarts();
    void malformedMessagesAreRejected();
    void aRestartedWriterPurgesLaterSteps();
};

void TestTfEvents::crc32cVectors() {
    // RFC 3720's test vectors, and the classic check value.
    QCOMPARE(sb::crc32c("123456789"), 0xE3069283u);
    QCOMPARE(sb::crc32c(QByteArray(32, '\0')), 0x8A9136AAu);
    QCOMPARE(sb::crc32c(QByteArray(32, '\xFF')), 0x62A8AB43u);
    QByteArray ascending;
    for (int i = 0; i < 32; ++i)
        ascending.append(static_cast<char>(i));
    QCOMPARE(sb::crc32c(ascending), 0x46DD794Eu);
    // Every length and alignment through the wide path and its tail.
    QByteArray random(300, '\0');
    for (char &c : random)
        c = static_cast<char>(QRandomGenerator::global()->bounded(256));
    for (int start = 0; start < 8; ++start) {
        for (int size = 0; size + start <= random.size(); size += 7) {
            const QByteArrayView view(random.constData() + start, size);
            QCOMPARE(sb::crc32c(view), referenceCrc32c(view));
        }
    }
    // Incremental use equals one pass.
    QCOMPARE(sb::crc32c(QByteArrayView(random).sliced(100),
                        sb::crc32c(QByteArrayView(random).first(100))),
             sb::crc32c(random));
    // TFRecord's mask: rotate right by 15, add a constant.
    const std::uint32_t crc = sb::crc32c("abc");
    QCOMPARE(sb::maskedCrc32c("abc"), ((crc >> 15) | (crc << 17)) + 0xa282ead8u);
}

void TestTfEvents::scalarsOfRealWriters() {
    sb::LogdirFollower follower;
    const Curves curves = readAll(follower, kLogdir);
    // Runs as TensorBoard names them: the directory under the logdir, "." for the logdir.
    QStringList runs;
    for (const auto &[run, tags] : curves)
        runs << run;
    QCOMPARE(runs, (QStringList{u"."_s, u"nested/a/b"_s, u"simple"_s, u"tensors"_s}));
    // tensorboardX's simple_value scalars, exact; the histogram, image and text are not curves.
    const auto &simple = curves.at(u"simple"_s);
    QCOMPARE(simple.size(), 2u);
    const auto &simpleLoss = simple.at(u"train/loss"_s);
    const auto &accuracy = simple.at(u"train/accuracy"_s);
    QCOMPARE(simpleLoss.size(), 64u);
    for (int step = 0; step < 64; ++step) {
        QCOMPARE(simpleLoss[step].step, double(step));
        QCOMPARE(simpleLoss[step].value, loss(step));
        QCOMPARE(simpleLoss[step].wall, 1.7e9 + step);
        QCOMPARE(accuracy[step].value, step / 128.0);
    }
    // Two files of one run, read one after the other: one curve of 64 steps in order.
    const auto &nested = curves.at(u"nested/a/b"_s).at(u"train/loss"_s);
    QCOMPARE(nested.size(), 64u);
    for (int step = 0; step < 64; ++step)
        QCOMPARE(nested[step].step, double(step));
    QCOMPARE(curves.at(u"."_s).at(u"train/loss"_s).size(), 8u);
    // The graph-less header record (file_version) of each file counts as a record, not a point.
    qint64 corrupt = 0;
    for (const auto &file : follower.files())
        corrupt += file.corrupt;
    QCOMPARE(corrupt, 0);
}

void TestTfEvents::tensorScalarsAndPlugins() {
    sb::LogdirFollower follower(u"lab"_s);
    const Curves curves = readAll(follower, kLogdir + u"/tensors"_s);
    // A prefix names the logdir's own run.
    QCOMPARE(curves.size(), 1u);
    const auto &tags = curves.at(u"lab"_s);
    // float_val, double_val and tensor_content all read; "notes" is a rank-0 float under the
    // text plugin (its metadata only on the first value), so never a curve.
    QCOMPARE(tags.size(), 3u);
    for (const QString &tag :
         {u"loss/float_val"_s, u"loss/double_val"_s, u"loss/tensor_content"_s}) {
        const auto &points = tags.at(tag);
        QCOMPARE(points.size(), 64u);
        for (int step = 0; step < 64; ++step)
            QCOMPARE(points[step].value, loss(step));
    }
}

void TestTfEvents::truncatedRecordWaitsForTheRest() {
    QTemporaryDir dir;
    const QByteArray whole = readFile(simpleFile());
    const QString path = dir.filePath(u"events.out.tfevents.1.host"_s);
    // Cut inside the last record's data: everything before it arrives, it waits.
    const qsizetype cut = whole.size() - 7;
    writeFile(path, whole.left(cut));
    sb::LogdirFollower follower;
    Curves curves = readAll(follower, dir.path());
    QCOMPARE(curves[u"."_s][u"train/loss"_s].size(), 64u);
    QCOMPARE(curves[u"."_s][u"train/accuracy"_s].size(), 63u);
    const qint64 waitingAt = follower.files().first().offset;
    QVERIFY(waitingAt < cut);
    // Cut inside the next header too: still waiting, nothing read twice.
    Curves again = readAll(follower, dir.path());
    QVERIFY(again.empty());
    writeFile(path, whole.mid(cut), QIODevice::Append);
    again = readAll(follower, dir.path());
    QCOMPARE(again[u"."_s][u"train/accuracy"_s].size(), 1u);
    QCOMPARE(again[u"."_s][u"train/accuracy"_s].front().step, 63.0);
    QCOMPARE(follower.files().first().offset, whole.size());
    QCOMPARE(follower.files().first().corrupt, 0);
}

void TestTfEvents::corruptRecordsAreSkippedAndCounted() {
    QTemporaryDir dir;
    const QByteArray a = frame("not an event, but intact");
    QByteArray bytes = readFile(simpleFile());
    // Flip a byte in the data of the 11th record, and one in the length of the 21st.
    auto recordStart = [&bytes](int index) {
        qsizetype pos = 0;
        for (int i = 0; i < index; ++i) {
            std::uint64_t length = 0;
            std::memcpy(&length, bytes.constData() + pos, 8);
            pos += 16 + static_cast<qsizetype>(length);
        }
        return pos;
    };
    const qsizetype data11 = recordStart(11) + 12 + 3;
    const qsizetype length21 = recordStart(21) + 1;
    bytes[data11] = static_cast<char>(bytes[data11] ^ 0x40);
    bytes[length21] = static_cast<char>(bytes[length21] ^ 0x01);
    writeFile(dir.filePath(u"events.out.tfevents.1.host"_s), bytes + a);
    sb::LogdirFollower follower;
    Curves curves = readAll(follower, dir.path());
    const auto &state = follower.files().first();
    // Two bad CRCs and one record that is no Event message: three skipped, never fatal.
    QCOMPARE(state.corrupt, 3);
    QCOMPARE(state.offset, bytes.size() + a.size());
    QCOMPARE(curves[u"."_s][u"train/loss"_s].size() + curves[u"."_s][u"train/accuracy"_s].size(),
             128u - 2u);
}

void TestTfEvents::growingAndRotatedFilesAreTailed() {
    QTemporaryDir dir;
    QDir(dir.path()).mkpath(u"run"_s);
    const QByteArray whole = readFile(simpleFile());
    const QString first = dir.filePath(u"run/events.out.tfevents.1000.host"_s);
    writeFile(first, whole.left(whole.size() / 2));
    sb::LogdirFollower follower;
    Curves seen = readAll(follower, dir.path());
    // The file grows, then the writer rotates to a new file: read in order, nothing twice.
    writeFile(first, whole.mid(whole.size() / 2), QIODevice::Append);
    writeFile(dir.filePath(u"run/events.out.tfevents.2000.host"_s), whole);
    const Curves later = readAll(follower, dir.path());
    auto &loss = seen[u"run"_s][u"train/loss"_s];
    const auto &more = later.at(u"run"_s).at(u"train/loss"_s);
    loss.insert(loss.end(), more.begin(), more.end());
    QCOMPARE(loss.size(), 128u);
    for (std::size_t i = 0; i < loss.size(); ++i)
        QCOMPARE(loss[i].step, double(i % 64));
    QCOMPARE(follower.files().size(), 2);
}

void TestTfEvents::aReplacedFileIsReadFromItsStart() {
    QTemporaryDir dir;
    QDir(dir.path()).mkpath(u"run"_s);
    const QByteArray whole = readFile(simpleFile());
    const QString path = dir.filePath(u"run/events.out.tfevents.1000.host"_s);
    writeFile(path, whole.left(whole.size() / 3));
    sb::LogdirFollower follower;
    Curves seen = readAll(follower, dir.path());
    const std::size_t first = seen[u"run"_s][u"train/loss"_s].size();
    QVERIFY(first > 0 && first < 64);
    // Rotated by a rename over it: another, longer file at the same path, read whole (before,
    // reading went on at the old offset, and the new file's first third was lost).
    const QString temporary = dir.filePath(u"run/.new"_s);
    writeFile(temporary, whole);
    QVERIFY(::rename(QFile::encodeName(temporary).constData(),
                     QFile::encodeName(path).constData()) == 0);
    const Curves later = readAll(follower, dir.path());
    QCOMPARE(later.at(u"run"_s).at(u"train/loss"_s).size(), 64u);
    QCOMPARE(later.at(u"run"_s).at(u"train/loss"_s).front().step, 0.0);
}

void TestTfEvents::budgetSplitsABacklog() {
    sb::LogdirFollower follower;
    sb::LocalLogdir source(kLogdir);
    Curves curves;
    int polls = 0;
    for (bool more = true; more; ++polls) {
        auto progress = follower.poll(source, collect(&curves), 4096);
        QVERIFY(progress);
        more = progress->more;
    }
    QVERIFY(polls > 3);
    sb::LogdirFollower whole;
    QCOMPARE(curves.size(), readAll(whole, kLogdir).size());
    QCOMPARE(curves[u"simple"_s][u"train/loss"_s].size(), 64u);
}

// A file that ends in half a record bigger than the budget: polling again would read the same
// half, so the poll must not ask for it, and the files after it must still be read.
void TestTfEvents::unfinishedRecordIsNoWorkLeft() {
    QTemporaryDir dir;
    const QByteArray events = readFile(simpleFile());
    const QByteArray big = frame(QByteArray(3 << 20, 'g'));
    writeFile(dir.filePath(u"a.events.out.tfevents.1.host"_s), big.left(1 << 20));
    writeFile(dir.filePath(u"b.events.out.tfevents.1.host"_s), events);
    sb::LogdirFollower follower;
    sb::LocalLogdir source(dir.path());
    Curves curves;
    auto progress = follower.poll(source, collect(&curves), 4096);
    QVERIFY(progress);
    QVERIFY(progress->more); // stopped in b's backlog
    for (int polls = 0; progress && progress->more; ++polls) {
        QVERIFY(polls < 1000);
        progress = follower.poll(source, collect(&curves), 4096);
    }
    QVERIFY(progress);
    QCOMPARE(curves[u"."_s][u"train/loss"_s].size(), 64u);
    QCOMPARE(follower.files().first().offset, 0); // a's record waits to be whole
}

// A header whose CRC checks out but whose length no record can have (2^63, 2^64 - 256: more than a
// protobuf message may hold) is damage: counted, and reading goes on at the next intact record,
// rather than waiting forever for the rest of a record that can never come.
void TestTfEvents::absurdLengthIsDamageAndReadingGoesOn() {
    for (const std::uint64_t length :
         {std::uint64_t(1) << 63, ~std::uint64_t(0xFF), std::uint64_t(0x80000000)}) {
        QTemporaryDir dir;
        const QByteArray events = readFile(simpleFile());
        QByteArray header(reinterpret_cast<const char *>(&length), 8);
        const std::uint32_t crc = sb::maskedCrc32c(header);
        header.append(reinterpret_cast<const char *>(&crc), 4);
        const QByteArray file = events + header + QByteArray(64, 'x') + events;
        writeFile(dir.filePath(u"events.out.tfevents.1.host"_s), file);
        sb::LogdirFollower follower;
        const Curves curves = readAll(follower, dir.path());
        QCOMPARE(curves.at(u"."_s).at(u"train/loss"_s).size(), 128u);
        QCOMPARE(follower.files().first().offset, file.size());
        QCOMPARE(follower.files().first().corrupt, 1);
    }
}

void TestTfEvents::largeRecordsArePassedOver() {
    QTemporaryDir dir;
    const QByteArray events = readFile(simpleFile());
    const QByteArray big = frame(QByteArray(3 << 20, 'g')); // a graph-sized record
    const QString path = dir.filePath(u"events.out.tfevents.1.host"_s);
    writeFile(path, events + big.left(1000));
    sb::LogdirFollower follower;
    Curves curves = readAll(follower, dir.path());
    QCOMPARE(curves[u"."_s][u"train/loss"_s].size(), 64u);
    QCOMPARE(follower.files().first().offset, events.size()); // waits for the whole record
    writeFile(path, big.mid(1000) + events, QIODevice::Append);
    curves = readAll(follower, dir.path());
    QCOMPARE(curves[u"."_s][u"train/loss"_s].size(), 64u);
    QCOMPARE(follower.files().first().skipped, 1);
    QCOMPARE(follower.files().first().corrupt, 0);
}

// A file listed larger than a read then finds it (cut, or replaced, since the listing; an SFTP
// read cut short): a record larger than a chunk is read whole once, then waits, never looping.
void TestTfEvents::aShortReadOfALargeRecordWaits() {
    class ShortReads final : public sb::LogdirSource {
    public:
        QByteArray bytes;
        int reads = 0;
        sb::Result<std::vector<File>> eventFiles() override {
            return std::vector<File>{{u"events.out.tfevents.1.host"_s, 40 << 20}};
        }
        sb::Result<QByteArray> read(const QString &, qint64 offset, qint64 size) override {
            ++reads;
            return bytes.mid(offset, std::min<qint64>(size, 1 << 20)); // never more than 1 MiB
        }
    } source;
    source.bytes = frame(QByteArray(20 << 20, 't')); // a 20 MiB record (an image batch)
    sb::LogdirFollower follower;
    Curves curves;
    const auto samples = [](const QString &, std::vector<sb::LogdirFollower::Sample> &&) {
        return sb::success();
    };
    const auto progress =
        follower.poll(source, collect(&curves), sb::LogdirFollower::kBudget, samples);
    QVERIFY(progress);
    QCOMPARE(follower.files().first().offset, 0);
    QCOMPARE(source.reads, 1); // the short read ends the poll: the file is looked at again later
    // Read whole, the same record is taken (and passed over: it is no event).
    class WholeReads final : public sb::LogdirSource {
    public:
        QByteArray bytes;
        sb::Result<std::vector<File>> eventFiles() override {
            return std::vector<File>{{u"events.out.tfevents.1.host"_s, bytes.size()}};
        }
        sb::Result<QByteArray> read(const QString &, qint64 offset, qint64 size) override {
            return bytes.mid(offset, size);
        }
    } whole;
    whole.bytes = source.bytes;
    QVERIFY(follower.poll(whole, collect(&curves), sb::LogdirFollower::kBudget, samples));
    QCOMPARE(follower.files().first().offset, whole.bytes.size());
    QCOMPARE(follower.files().first().corrupt, 1);
}

void TestTfEvents::refusedPointsAreReadAgain() {
    sb::LogdirFollower follower;
    sb::LocalLogdir source(kLogdir + u"/simple"_s);
    auto refused = follower.poll(source, [](const QString &, std::vector<sb::SeriesPoints> &&) {
        return sb::Status(sb::fail(u"disk full"_s));
    });
    QVERIFY(refused);
    // The scalars' file stays where it was; the file of histograms and images had none to give.
    QCOMPARE(follower.files().size(), 2);
    QCOMPARE(follower.files().first().offset, 0);
    QCOMPARE(follower.files().first().lastError, u"disk full"_s);
    QVERIFY(follower.files().last().offset > 0);
    Curves curves = readAll(follower, kLogdir + u"/simple"_s);
    QCOMPARE(curves[u"."_s][u"train/loss"_s].size(), 64u);
    QVERIFY(follower.files().first().lastError.isEmpty());
}

void TestTfEvents::collectorFollowsLogdirAcrossRestarts() {
    QTemporaryDir data;
    QTemporaryDir logdir;
    QDir(logdir.path()).mkpath(u"exp1"_s);
    const QByteArray whole = readFile(simpleFile());
    const QString file = logdir.filePath(u"exp1/events.out.tfevents.1.host"_s);
    writeFile(file, whole.left(whole.size() / 2));
    auto count = [](sb::Collector &collector) {
        qint64 points = 0;
        for (const auto &series : collector.store().series(u"exp1"_s))
            points += series.count;
        return points;
    };
    qint64 before = 0;
    {
        sb::Collector::Options options;
        options.dataDir = data.path();
        options.listen = false;
        options.watchDirs = {logdir.path()};
        auto collector = sb::Collector::start(options);
        QVERIFY2(collector, qPrintable(collector.error()));
        before = count(**collector);
        QVERIFY(before > 0 && before < 128);
    }
    // While the collector is down the run goes on; the next one resumes at the saved offset.
    writeFile(file, whole.mid(whole.size() / 2), QIODevice::Append);
    sb::Collector::Options options;
    options.dataDir = data.path();
    options.listen = false;
    options.watchDirs = {logdir.path()};
    auto collector = sb::Collector::start(options);
    QVERIFY(collector);
    QCOMPARE(count(**collector), 128);
    const QJsonArray sources = (*collector)->health().sources;
    QCOMPARE(sources.size(), 1);
    QCOMPARE(sources[0][u"run"_s].toString(), u"exp1"_s);
    QCOMPARE(sources[0][u"points"_s].toInteger(), 128 - before);
}

void TestTfEvents::aRestartedWriterPurgesLaterSteps() {
    // tensorboardX: steps 0-9, then a writer with purge_step=5 (a SessionLog.START at step 5)
    // logging steps 5-7 as 100 + step.
    const QString restarted = QStringLiteral(SIGNALBOX_TEST_DATA "/tfevents/restarted");
    std::vector<QString> order; // what the sinks were told, in order
    sb::LogdirFollower follower;
    sb::LocalLogdir source(restarted);
    bool failOnce = true; // the points after the restart are refused the first time
    QStringList keys;
    auto poll = [&] {
        return follower.poll(
            source,
            [&](const QString &, std::vector<sb::SeriesPoints> &&series) {
                if (series.front().points.front().step == 5 && std::exchange(failOnce, false)) {
                    order.push_back(u"refused"_s);
                    return sb::Status(sb::fail(u"a full disk"_s));
                }
                for (const auto &s : series)
                    order.push_back(u"%1 x%2 from %3"_s.arg(s.metric)
                                        .arg(s.points.size())
                                        .arg(s.points.front().step));
                return sb::success();
            },
            sb::LogdirFollower::kBudget, {}, 0,
            [&](const QString &run, double step, const QString &key) {
                order.push_back(u"restart of %1 at %2"_s.arg(run).arg(step));
                keys << key;
                return sb::success();
            });
    };
    QVERIFY(poll());
    QVERIFY(poll());
    // What came before the restart is told once; the restart, said again, has the same key.
    QCOMPARE(order,
             (std::vector<QString>{u"train/loss x10 from 0"_s, u"train/accuracy x10 from 0"_s,
                                   u"restart of . at 5"_s, u"refused"_s, u"restart of . at 5"_s,
                                   u"train/loss x3 from 5"_s}));
    QCOMPARE(keys.size(), 2);
    QCOMPARE(keys[0], keys[1]);
    // Its counts are those of a read that never failed: nothing counted twice.
    sb::LogdirFollower clean;
    QVERIFY(clean.poll(
        source, [](const QString &, std::vector<sb::SeriesPoints> &&) { return sb::success(); }));
    for (auto it = clean.files().begin(); it != clean.files().end(); ++it) {
        QCOMPARE(follower.files()[it.key()].records, it->records);
        QCOMPARE(follower.files()[it.key()].points, it->points);
        QCOMPARE(follower.files()[it.key()].offset, it->offset);
    }

    // A collector watching it drops what the first writer logged from step 5 on, as
    // TensorBoard does.
    QTemporaryDir data;
    QTemporaryDir logdir;
    QDir(logdir.path()).mkpath(u"exp"_s);
    for (const QFileInfo &file : QDir(restarted).entryInfoList(QDir::Files))
        QVERIFY(QFile::copy(file.filePath(), logdir.filePath(u"exp/"_s + file.fileName())));
    sb::Collector::Options options;
    options.dataDir = data.path();
    options.listen = false;
    options.watchDirs = {logdir.path()};
    auto collector = sb::Collector::start(options);
    QVERIFY2(collector, qPrintable(collector.error()));
    auto opened = (*collector)->store().openSeries(u"exp"_s, u"train/loss"_s);
    QVERIFY(opened);
    std::vector<sb::MetricPoint> points(std::size_t(opened->points->size()));
    opened->points->read(0, qint64(points.size()), points.data());
    std::vector<std::pair<double, double>> shown;
    shown.reserve(points.size());
    for (const auto &point : points)
        shown.emplace_back(point.step, point.value);
    QCOMPARE(shown, (std::vector<std::pair<double, double>>{{0, loss(0)},
                                                            {1, loss(1)},
                                                            {2, loss(2)},
                                                            {3, loss(3)},
                                                            {4, loss(4)},
                                                            {5, 105},
                                                            {6, 106},
                                                            {7, 107}}));
    QCOMPARE((*collector)->store().series(u"exp"_s)[0].count, 5); // accuracy: steps 0-4 shown
    QCOMPARE((*collector)->store().rewinds(u"exp"_s).size(), std::size_t(1));
}

void TestTfEvents::malformedMessagesAreRejected() {
    sb::TfEvent event;
    QVERIFY(parseEvent({}, &event));              // an empty Event is valid protobuf
    QVERIFY(!parseEvent("\x2a\x05\x0a", &event)); // summary longer than the record
    QVERIFY(!parseEvent("\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", &event)); // varint
    QVERIFY(!parseEvent(QByteArray("\x00\x01", 2), &event)); // field number 0
    QVERIFY(!parseEvent("\x0b", &event));                    // a group
    // step 3, Summary{Value{tag "x", simple_value 0.5}}
    const QByteArray good("\x10\x03\x2a\x0a\x0a\x08\x0a\x01x\x15\x00\x00\x00\x3f", 14);
    QVERIFY(parseEvent(good, &event));
    QCOMPARE(event.step, 3);
    QCOMPARE(event.values.size(), 1u);
    QCOMPARE(event.values[0].tag, "x");
    QCOMPARE(event.values[0].value, 0.5);
    QVERIFY(event.values[0].isScalar);
}

QTEST_GUILESS_MAIN(TestTfEvents)
#include "tst_tfevents.moc"
