#include "LabForwarder.h"

#include "LabSchema.h"
#include "metrics/store/MetricStore.h"
#include "util/OffThread.h"

#include "util/Files.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QUuid>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace sb {

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcLab, "signalbox.lab")

namespace {

const QStringList kPointColumns{u"project"_s, u"run"_s,  u"metric"_s, u"source"_s,
                                u"idx"_s,     u"step"_s, u"value"_s,  u"wall"_s};
const QStringList kRunColumns{u"project"_s, u"name"_s, u"info"_s, u"version"_s, u"rewinds"_s};
const QStringList kBlockColumns = [] {
    QStringList columns{u"project"_s, u"run"_s,    u"metric"_s, u"source"_s,
                        u"block"_s,   u"points"_s, u"finite"_s};
    for (const char *point : {"first", "last", "low", "high"})
        for (const char *part : {"idx", "step", "value", "wall"})
            columns << u"%1_%2"_s.arg(QLatin1StringView(point), QLatin1StringView(part));
    return columns << u"min_step"_s << u"max_step"_s << u"min_wall"_s << u"max_wall"_s;
}();

// The `blocks` row (LabSchema) of kBlockPoints points of a series, the first at `first`, after
// the names' bytes: as the embedded store's summary picks extremes, the first of equals.
void writeBlock(RowBinary *out, const QByteArray &names, qint64 first, const MetricPoint *points) {
    const qint64 n = LabSchema::kBlockPoints;
    qint64 low = -1, high = -1, finite = 0;
    double minStep = points[0].step, maxStep = minStep;
    double minWall = points[0].wall, maxWall = minWall;
    // A NaN step or time (refused at the push; a guard) makes its range NaN: no reader takes
    // such a block for its points.
    const auto widen = [](double x, double *least, double *most) {
        if (std::isnan(x) || std::isnan(*least)) {
            *least = *most = std::numeric_limits<double>::quiet_NaN();
            return;
        }
        *least = std::min(*least, x);
        *most = std::max(*most, x);
    };
    for (qint64 i = 0; i < n; ++i) {
        const MetricPoint &p = points[i];
        widen(p.step, &minStep, &maxStep);
        widen(p.wall, &minWall, &maxWall);
        if (!std::isfinite(p.value))
            continue;
        ++finite;
        if (low < 0 || p.value < points[low].value)
            low = i;
        if (high < 0 || p.value > points[high].value)
            high = i;
    }
    out->bytes(names);
    out->uint64(quint64(first / n));
    out->uint64(quint64(n));
    out->uint64(quint64(finite));
    for (const qint64 at :
         {qint64(0), n - 1, std::max<qint64>(low, 0), std::max<qint64>(high, 0)}) {
        out->uint64(quint64(first + at));
        out->float64(points[at].step);
        out->float64(points[at].value);
        out->float64(points[at].wall);
    }
    for (const double bound : {minStep, maxStep, minWall, maxWall})
        out->float64(bound);
}

// A run's rewinds as the lab's runs table keeps them (LabSchema): the list /runs shows, and
// the stored points each series hides; empty while it has none.
QString rewindsText(const MetricStore &store, const QString &run) {
    const std::vector<Rewind> &rewinds = store.rewinds(run);
    if (rewinds.empty())
        return {};
    RunSummary summary;
    for (const Rewind &rewind : rewinds)
        summary.rewinds.push_back(
            {rewind.id, rewind.step, rewind.inclusive, rewind.wall, rewind.points, rewind.samples});
    QJsonObject hidden;
    const auto points = store.hiddenPoints(run);
    for (auto it = points.cbegin(); it != points.cend(); ++it) {
        QJsonArray ranges;
        for (const IndexRange &range : it.value())
            ranges << range.first << range.end;
        hidden[it.key()] = ranges;
    }
    return QString::fromUtf8(
        QJsonDocument(QJsonObject{{u"rewinds"_s, summary.toJson().value(u"rewinds"_s)},
                                  {u"hidden"_s, hidden}})
            .toJson(QJsonDocument::Compact));
}

} // namespace

LabForwarder::LabForwarder(MetricStore *store, Options options, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_options(std::move(options)) {
    m_store->setAppendListener([this](const QString &run) { m_dirty.insert(run); });
    m_pool.setMaxThreadCount(1);
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &LabForwarder::tick);
    const QString idPath = m_store->directory() + u"/lab-id"_s;
    if (QFile file(idPath); file.open(QIODevice::ReadOnly))
        m_id = QString::fromLatin1(file.readAll().trimmed());
    static const QRegularExpression hex(u"^[0-9a-f]{32}$"_s);
    if (!hex.match(m_id).hasMatch()) {
        m_id = QUuid::createUuid().toString(QUuid::Id128);
        if (Status saved = writeFileAtomically(idPath, m_id.toLatin1()); !saved)
            // A new one each start: a killed collector's INSERT still running is then not ended
            // before the read. Said, for the operator to see.
            qCWarning(lcLab).noquote() << saved.error();
    }
    if (QFile file(deletingPath()); file.open(QIODevice::ReadOnly)) {
        for (const QJsonValue run : QJsonDocument::fromJson(file.readAll()).array())
            if (run.isString())
                m_deleting << run.toString();
    }
    resume({});
}

QString LabForwarder::deletingPath() const {
    return m_store->directory() + u"/lab-deleting.json"_s;
}

Status LabForwarder::saveDeleting() const {
    if (m_deleting.isEmpty()) {
        QFile::remove(deletingPath());
        return success();
    }
    return writeFileAtomically(deletingPath(),
                               QJsonDocument(QJsonArray::fromStringList(m_deleting)).toJson());
}

Status LabForwarder::noteDeleting(const QStringList &runs) {
    const QStringList before = m_deleting;
    for (const QString &run : runs)
        if (!m_deleting.contains(run))
            m_deleting << run;
    if (Status saved = saveDeleting(); !saved) {
        m_deleting = before;
        return fail(
            u"the lab's list of runs to delete could not be written: %1"_s.arg(saved.error()),
            ErrorCode::StorageFailed);
    }
    for (const QString &run : runs)
        m_dirty.remove(run);
    if (m_ready && !m_inFlight)
        resume({}); // the deletes first, then what ClickHouse holds
    return success();
}

LabForwarder::~LabForwarder() {
    m_store->setAppendListener({});
}

QString LabForwarder::keyOf(const QString &run, const QString &metric) {
    return QString::number(run.size()) + u':' + run + metric; // names may hold any character
}

QJsonObject LabForwarder::state() const {
    QJsonObject state{{u"project"_s, m_options.project},
                      {u"shipped"_s, m_shippedHere},
                      {u"caught_up"_s, caughtUp()}};
    if (!m_error.isEmpty())
        state[u"error"_s] = m_error;
    return state;
}

void LabForwarder::resume(const QStringList &asked) {
    m_ready = false;
    // After deletes, or for many runs, all of it is read again (both are rare).
    const QStringList runs = m_deleting.isEmpty() && asked.size() <= 1000 ? asked : QStringList();
    const ClickHouse server(m_options.server);
    // Only this collector's points (and those shipped before points named their source): a run
    // of the same name that another collector ships holds up or deletes nothing of ours.
    const QString project = ClickHouse::quoted(m_options.project);
    const QString ours = u"source IN (%1, '')"_s.arg(ClickHouse::quoted(source()));
    QString sql = u"SELECT run, metric, max(idx) + 1 FROM points WHERE project = %1 AND %2"_s.arg(
        project, ours);
    if (!runs.isEmpty())
        sql += u" AND run IN (%1)"_s.arg(ClickHouse::quotedLists(runs).join(u", "_s));
    sql += u" GROUP BY run, metric FORMAT RowBinary"_s;
    const bool migrate = !m_migrated;
    const QStringList deleting =
        m_deleting.isEmpty() ? QStringList() : ClickHouse::quotedLists(m_deleting);
    const QStringList deleted = m_deleting;
    // On a cluster, the server written to sends each shard its part and waits for it: ending
    // ours there ends those (until a shard's answer is past receive_timeout, 300 s).
    const QString ended = u"KILL QUERY WHERE query_id LIKE '%1-%' SYNC"_s.arg(m_id);
    // Rows are deleted on each server of a cluster.
    const std::vector<ClickHouse> servers = LabSchema::everyServer(m_options.server);
    const std::array<QString, 4> tables{
        LabSchema::local(m_options.server, "points"), LabSchema::local(m_options.server, "blocks"),
        LabSchema::local(m_options.server, "series"), LabSchema::local(m_options.server, "runs")};
    runOffThread(
        &m_pool, this,
        [server, servers, sql, migrate, deleting, ended, project, tables,
         own = ClickHouse::quoted(source())]() -> Result<QByteArray> {
            if (migrate) {
                if (auto migrated = LabSchema::migrateAll(server.options()); !migrated)
                    return migrated.failure();
            }
            if (auto killed = server.query(ended); !killed) // what it holds stays as it is read
                return killed.failure();
            for (const QString &list : deleting) {
                // Names another collector ships too: their summary and info are shared, and
                // points from before sources were named may be its.
                auto answer = server.query(
                    u"SELECT DISTINCT run FROM points WHERE project = %1 AND source NOT IN (%2, "
                    "'') AND run IN (%3) FORMAT RowBinary"_s.arg(project, own, list));
                if (!answer)
                    return answer.failure();
                QStringList shared;
                for (RowBinaryReader rows(*answer); !rows.atEnd() && !rows.failed();)
                    shared << rows.string();
                const QStringList keep =
                    shared.isEmpty() ? QStringList() : ClickHouse::quotedLists(shared);
                const auto only = [&keep](const char *column) { // concatenated: names hold %N
                    QString clause;
                    for (const QString &names : keep)
                        clause +=
                            u" AND "_s + QLatin1StringView(column) + u" NOT IN ("_s + names + u')';
                    return clause;
                };
                const QString ownPoints =
                    u" DELETE WHERE project = %1 AND run IN (%2) AND (source = %3 OR (source = "
                    "''%4))"_s.arg(project, list, own, only("run"));
                const QString statements[] = {
                    u"ALTER TABLE "_s + tables[0] + ownPoints,
                    u"ALTER TABLE "_s + tables[1] + ownPoints,
                    u"ALTER TABLE "_s + tables[2] +
                        u" DELETE WHERE project = %1 AND run IN (%2)%3"_s.arg(project, list,
                                                                              only("run")),
                    u"ALTER TABLE "_s + tables[3] +
                        u" DELETE WHERE project = %1 AND name IN (%2)%3"_s.arg(project, list,
                                                                               only("name"))};
                for (const QString &statement : statements) {
                    for (const ClickHouse &each : servers) {
                        if (auto done = each.query(statement); !done)
                            return done.failure();
                    }
                }
            }
            return server.query(sql);
        },
        [this, runs, deleted](const Result<QByteArray> &answer) {
            if (!answer) {
                failed(answer.error(), runs);
                return;
            }
            m_migrated = true;
            RowBinaryReader rows(*answer);
            QHash<QString, qint64> held;
            // A delete is done in the background: what it deletes may still be read here. A
            // deleted run holds nothing (nothing of a new one of its name was sent meanwhile).
            const QSet<QString> gone(deleted.cbegin(), deleted.cend());
            while (!rows.atEnd() && !rows.failed()) {
                const QString run = rows.string();
                const QString metric = rows.string();
                const auto next = qint64(rows.uint64());
                if (!gone.contains(run))
                    held.insert(keyOf(run, metric), next);
            }
            if (rows.failed()) {
                failed(u"ClickHouse's list of what it holds was cut short"_s, runs);
                return;
            }
            if (!deleted.isEmpty()) {
                for (const QString &run : deleted) {
                    m_deleting.removeOne(run);
                    m_runRows.remove(run); // a new run of its name sends its own
                }
                // Not saved, it is sent again at the next start, and would then delete a new
                // run of the same name shipped meanwhile: said, for the operator to see.
                if (Status saved = saveDeleting(); !saved)
                    qCWarning(lcLab).noquote() << saved.error();
            }
            if (runs.isEmpty()) {
                m_shipped = std::move(held);
                for (const RunInfo &run : m_store->runsByName())
                    m_dirty.insert(run.name);
            } else {
                for (const QString &run : runs) {
                    for (const auto &series : m_store->series(run))
                        m_shipped.insert(keyOf(run, series.metric),
                                         held.value(keyOf(run, series.metric)));
                    m_dirty.insert(run);
                }
            }
            m_ready = true;
            m_error.clear();
            m_timer.start(0);
        });
}

void LabForwarder::failed(const QString &why, const QStringList &runs) {
    if (why != m_error)
        qCWarning(lcLab).noquote() << why;
    m_error = why;
    m_ready = false; // nothing is sent until what ClickHouse holds is read again
    m_pauseMs = std::clamp(m_pauseMs * 2, 500, m_options.longestPauseMs);
    // Whether what failed was stored is read back before anything else is sent.
    QTimer::singleShot(m_pauseMs, this, [this, runs] { resume(runs); });
}

LabForwarder::Batch LabForwarder::nextBatch() {
    Batch batch;
    RowBinary points;
    RowBinary runs;
    RowBinary blocks;
    const qint64 version = QDateTime::currentMSecsSinceEpoch();
    constexpr qint64 kNumberBytes = 32; // a row's idx, step, value and wall
    const QStringList dirty(m_dirty.cbegin(), m_dirty.cend());
    points.reserve(m_options.mostBatchBytes + (qint64(64) << 10));
    for (const QString &run : dirty) {
        if (points.size() >= m_options.mostBatchBytes)
            break;
        if (m_deleting.contains(run))
            continue; // a new run of a deleted one's name: once the delete is sent
        const auto info = m_store->run(run);
        if (!info) { // deleted meanwhile
            m_dirty.remove(run);
            continue;
        }
        // The run's row only when it changed since the one stored: a live run's batches come
        // five times a second, and its rewinds may be long.
        const QString infoText =
            QString::fromUtf8(QJsonDocument(info->toJson()).toJson(QJsonDocument::Compact));
        const QString rewinds = rewindsText(*m_store, run);
        QCryptographicHash digest(QCryptographicHash::Sha1);
        digest.addData(infoText.toUtf8());
        digest.addData(QByteArrayView("\0", 1));
        digest.addData(rewinds.toUtf8());
        if (QByteArray row = digest.result(); m_runRows.value(run) != row) {
            runs.string(m_options.project);
            runs.string(run);
            runs.string(infoText);
            runs.uint64(quint64(version));
            runs.string(rewinds);
            batch.runRows.insert(run, row);
        }
        batch.runNames.insert(run);
        bool whole = true;
        for (const auto &series : m_store->series(run)) {
            const QString key = keyOf(run, series.metric);
            const qint64 from = m_shipped.value(key);
            // The names' bytes once a series, then each row's numbers.
            RowBinary names;
            names.string(m_options.project);
            names.string(run);
            names.string(series.metric);
            names.string(source());
            const QByteArray prefix = names.take();
            const qint64 room =
                (m_options.mostBatchBytes - points.size()) / (prefix.size() + kNumberBytes);
            if (room <= 0) {
                whole = false;
                break;
            }
            auto stored = m_store->storedPoints(run, series.metric, from, room);
            // The blocks this batch completes are summarized from their every point: the first
            // one's, shipped before, read again (once per block, not per batch).
            const qint64 block = LabSchema::kBlockPoints;
            const qint64 blockStart = from - from % block;
            std::vector<MetricPoint> firstBlock;
            if (stored && from > blockStart &&
                from + qint64(stored->points.size()) >= blockStart + block) {
                auto head =
                    m_store->storedPoints(run, series.metric, blockStart, from - blockStart);
                if (head && qint64(head->points.size()) != from - blockStart)
                    head = fail(u"the store holds fewer points of %1/%2 than were shipped"_s.arg(
                        run, series.metric));
                if (!head)
                    stored = head.failure();
                else
                    firstBlock = std::move(head).value().points;
            }
            if (!stored) { // the store's own problem, said there; tried again later
                qCWarning(lcLab).noquote() << stored.error();
                whole = false;
                batch.unreadable = true;
                continue;
            }
            for (std::size_t i = 0; i < stored->points.size(); ++i) {
                const MetricPoint &p = stored->points[i];
                points.bytes(prefix);
                points.uint64(quint64(from) + i);
                points.float64(p.step);
                points.float64(p.value);
                points.float64(p.wall);
            }
            const qint64 end = from + qint64(stored->points.size());
            for (qint64 at = blockStart; at + block <= end; at += block) {
                if (at < from) {
                    firstBlock.insert(firstBlock.end(), stored->points.begin(),
                                      stored->points.begin() + (at + block - from));
                    writeBlock(&blocks, prefix, at, firstBlock.data());
                } else {
                    writeBlock(&blocks, prefix, at, stored->points.data() + (at - from));
                }
            }
            if (end != from)
                batch.ends.insert(key, end);
            batch.count += end - from;
            whole = whole && end >= stored->total;
        }
        if (whole)
            m_dirty.remove(run);
    }
    batch.points = points.take();
    batch.runs = runs.take();
    batch.blocks = blocks.take();
    return batch;
}

void LabForwarder::tick() {
    if (!m_ready || m_inFlight)
        return;
    if (!m_deleting.isEmpty()) {
        resume({});
        return;
    }
    if (m_dirty.isEmpty()) {
        m_timer.start(m_options.everyMs);
        return;
    }
    Batch batch = nextBatch();
    m_inFlight = true;
    const ClickHouse server(m_options.server);
    const auto points = batch.points;
    const auto runs = batch.runs;
    const auto blocks = batch.blocks;
    const QString name = u"%1-%2"_s.arg(m_id).arg(++m_inserts);
    runOffThread(
        &m_pool, this,
        // The runs first: a rewind that hides points is there before the points it hides. The
        // blocks before their points: what a series' count says is summarized is.
        [server, points, runs, blocks, name]() -> Status {
            if (Status stored = server.insert(u"runs"_s, kRunColumns, runs, name + u"-runs"_s);
                !stored)
                return stored;
            if (Status stored =
                    server.insert(u"blocks"_s, kBlockColumns, blocks, name + u"-blocks"_s);
                !stored)
                return stored;
            return server.insert(u"points"_s, kPointColumns, points, name);
        },
        [this, batch = std::move(batch)](const Status &stored) {
            m_inFlight = false;
            if (!stored) {
                for (const QString &run : batch.runNames) {
                    m_dirty.insert(run);
                    m_runRows.remove(run); // perhaps not stored: sent again
                }
                failed(stored.error(), QStringList(batch.runNames.cbegin(), batch.runNames.cend()));
                return;
            }
            for (auto it = batch.ends.cbegin(); it != batch.ends.cend(); ++it)
                m_shipped.insert(it.key(), it.value());
            for (auto it = batch.runRows.cbegin(); it != batch.runRows.cend(); ++it)
                m_runRows.insert(it.key(), it.value());
            m_shippedHere += batch.count;
            m_error.clear();
            m_pauseMs = 0;
            Q_EMIT shipped(batch.count);
            // Straight on while there is more; a pause while a series cannot be read.
            m_timer.start(m_dirty.isEmpty()  ? m_options.everyMs
                          : batch.unreadable ? m_options.everyMs * 5
                                             : 0);
        });
}

} // namespace sb
