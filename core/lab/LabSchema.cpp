#include "LabSchema.h"

#include <QRegularExpression>

namespace sb::LabSchema {

using namespace Qt::StringLiterals;

QString local(const ClickHouse::Options &server, const char *table) {
    return QLatin1StringView(table) + (server.cluster.isEmpty() ? QString() : u"_local"_s);
}

std::vector<ClickHouse> everyServer(const ClickHouse::Options &server) {
    if (server.cluster.isEmpty() || server.servers.isEmpty())
        return {ClickHouse(server)};
    std::vector<ClickHouse> out;
    for (const QUrl &url : server.servers) {
        ClickHouse::Options one = server;
        one.url = url;
        out.emplace_back(one);
    }
    return out;
}

Result<QStringList> migrate(const ClickHouse &server) {
    const QString database = server.options().database;
    const QString cluster = server.options().cluster;
    static const QRegularExpression identifier(u"^[A-Za-z_][A-Za-z0-9_]{0,63}$"_s);
    if (!identifier.match(database).hasMatch())
        return fail(
            u"the lab's database must be named with letters, digits and _ (not \"%1\")"_s.arg(
                database),
            ErrorCode::InvalidInput);
    if (!cluster.isEmpty() && !identifier.match(cluster).hasMatch())
        return fail(
            u"the lab's cluster must be named with letters, digits and _ (not \"%1\")"_s.arg(
                cluster),
            ErrorCode::InvalidInput);
    const auto table = [&](const char *name) {
        return local(server.options(), name);
    };
    QString shard; // which shard of a cluster this server is
    ClickHouse::Options bare = server.options();
    bare.database.clear(); // the database may not be there yet
    const ClickHouse root(bare);
    const auto version = root.version();
    if (!version)
        return version.failure();
    if (!version->atLeast(kMinimum.major, kMinimum.minor))
        return fail(
            u"ClickHouse %1.%2 is older than the lab store needs (%3.%4)"_s.arg(version->major)
                .arg(version->minor)
                .arg(kMinimum.major)
                .arg(kMinimum.minor));
    if (!cluster.isEmpty()) {
        // Every server of it named, once, a shard each: each holds its part of the runs, and
        // deletes reach each.
        const auto servers = root.query(
            u"SELECT count(), max(replica_num), uniqExact(host_address, port), countIf(is_local), "
            "maxIf(shard_num, is_local) FROM system.clusters WHERE cluster = %1"_s.arg(
                ClickHouse::quoted(cluster)));
        if (!servers)
            return servers.failure();
        const QList<QByteArray> facts = servers->trimmed().split('\t');
        const auto fact = [&facts](int i) {
            return i < facts.size() ? facts[i].toLongLong() : 0;
        };
        const QString host = server.options().url.host();
        const qsizetype named = server.options().servers.size();
        const auto refuse = [](const QString &why) {
            return fail(why, ErrorCode::InvalidInput);
        };
        if (fact(0) == 0)
            return refuse(
                u"ClickHouse at %1 has no cluster %2 in its remote_servers"_s.arg(host, cluster));
        if (fact(0) != named)
            return refuse(u"the cluster %1 has %2 servers, and %3 were named: name each (one "
                          "--clickhouse URL a server)"_s.arg(cluster, QString::number(fact(0)),
                                                             QString::number(named)));
        if (fact(1) > 1 || fact(2) != fact(0))
            return refuse(u"the cluster %1 must list each server once, a shard each (replicas "
                          "need ZooKeeper, which the lab store does not use)"_s.arg(cluster));
        if (fact(3) != 1)
            return refuse(u"ClickHouse at %1 is not a server of the cluster %2 (by its "
                          "remote_servers)"_s.arg(host, cluster));
        shard = u"shard %1 of the cluster %2"_s.arg(QString::number(fact(4)), cluster);
    }
    const bool codecs = version->atLeast(kCodecs.major, kCodecs.minor);
    const auto codec = [codecs](const char *what) {
        return codecs ? u" CODEC(%1)"_s.arg(QLatin1StringView(what)) : QString();
    };
    const QString points =
        u"CREATE TABLE IF NOT EXISTS %1.%6 (project String, run String, metric String, "
        "source String, idx UInt64%2, step Float64%3, value Float64%4, wall Float64%5) "
        "ENGINE = MergeTree ORDER BY (project, run, metric, idx)"_s.arg(
            database, codec("Delta, ZSTD"), codec("Gorilla, ZSTD"), codec("Gorilla, ZSTD"),
            codec("Gorilla, ZSTD"), table("points"));
    const QString series =
        u"CREATE TABLE IF NOT EXISTS %1.%2 (project String, run String, metric String, "
        "points AggregateFunction(count), next AggregateFunction(max, UInt64), "
        "last AggregateFunction(argMax, Tuple(Float64, Float64, Float64), UInt64), "
        "finite AggregateFunction(count), low AggregateFunction(min, Float64), "
        "high AggregateFunction(max, Float64), "
        "low_step AggregateFunction(min, Float64), high_step AggregateFunction(max, Float64), "
        "low_wall AggregateFunction(min, Float64), high_wall AggregateFunction(max, Float64)) "
        "ENGINE = AggregatingMergeTree ORDER BY (project, run, metric)"_s.arg(database,
                                                                              table("series"));
    const QString seriesView =
        u"CREATE MATERIALIZED VIEW IF NOT EXISTS %1.series_mv TO %1.%2 AS SELECT project, "
        "run, metric, countState() AS points, maxState(idx + 1) AS next, "
        "argMaxState((step, value, wall), idx) AS last, countStateIf(isFinite(value)) AS finite, "
        "minStateIf(value, isFinite(value)) AS low, maxStateIf(value, isFinite(value)) AS high, "
        // A NaN step or time (refused at the push; a guard) is in no window: ClickHouse's min
        // would keep it, were it first.
        "minStateIf(step, NOT isNaN(step)) AS low_step, maxStateIf(step, NOT isNaN(step)) AS "
        "high_step, minStateIf(wall, NOT isNaN(wall)) AS low_wall, maxStateIf(wall, NOT "
        "isNaN(wall)) AS high_wall FROM %1.%3 GROUP BY project, run, metric"_s.arg(
            database, table("series"), table("points"));
    // A block's numbers, as LabForwarder writes them: plain columns, read whole (no merge of
    // states); a block written twice (a batch sent again) is one row once merged, and reads take
    // any of its rows meanwhile.
    QString blockPoints;
    for (const char *point : {"first", "last", "low", "high"})
        blockPoints += u"%1_idx UInt64, %1_step Float64, %1_value Float64, %1_wall Float64, "_s.arg(
            QLatin1StringView(point));
    const QString blocks =
        u"CREATE TABLE IF NOT EXISTS %1.%3 (project String, run String, metric String, "
        "source String, block UInt64, points UInt64, finite UInt64, %2min_step Float64, "
        "max_step Float64, min_wall Float64, max_wall Float64) ENGINE = ReplacingMergeTree "
        "ORDER BY (project, run, metric, block, source)"_s.arg(database, blockPoints,
                                                               table("blocks"));
    const QString runs =
        u"CREATE TABLE IF NOT EXISTS %1.%2 (project String, name String, info String, "
        "version UInt64, rewinds String) ENGINE = ReplacingMergeTree(version) ORDER BY "
        "(project, name)"_s.arg(database, table("runs"));
    QStringList statements{u"CREATE DATABASE IF NOT EXISTS %1"_s.arg(database),
                           points,
                           series,
                           seriesView,
                           blocks,
                           runs};
    // On a cluster, the lab's names over every server's tables, a run on one server.
    if (!cluster.isEmpty()) {
        for (const char *name : {"points", "series", "blocks", "runs"})
            statements << u"CREATE TABLE IF NOT EXISTS %1.%2 AS %1.%3 ENGINE = Distributed(%4, "
                          "%1, %3, cityHash64(project, %5))"_s.arg(
                              database, QLatin1StringView(name), table(name), cluster,
                              qstrcmp(name, "runs") == 0 ? u"name"_s : u"run"_s);
    }
    QStringList done{
        u"ClickHouse %1.%2%3"_s.arg(version->major)
            .arg(version->minor)
            .arg(codecs ? u", with column codecs"_s : u", without column codecs (from 19.11)"_s)};
    for (const QString &statement : std::as_const(statements)) {
        if (auto answer = root.query(statement); !answer)
            return answer.failure();
        done << statement.section(u" ("_s, 0, 0).section(u" AS "_s, 0, 0);
    }
    // Tables of the first lab stores gain what came later (18.16 has no ADD COLUMN IF NOT
    // EXISTS): runs their rewinds (2026-11-27), points the collector that shipped them
    // (2026-11-28; '' for those shipped before).
    for (const auto &[name, column, after] :
         {std::tuple{"runs", "rewinds", ""}, std::tuple{"points", "source", " AFTER metric"}}) {
        const auto there = root.query(
            u"SELECT count() FROM system.columns WHERE database = %1 AND table = '%2' AND name = "
            "'%3'"_s.arg(ClickHouse::quoted(database), table(name), QLatin1StringView(column)));
        if (!there)
            return there.failure();
        if (there->trimmed() == "1")
            continue;
        const QString added = u"ALTER TABLE %1.%2 ADD COLUMN %3 String%4"_s.arg(
            database, table(name), QLatin1StringView(column), QLatin1StringView(after));
        if (auto answer = root.query(added); !answer)
            return answer.failure();
        done << added;
    }
    // A series table of the first lab store (2026-11-26) lacks what reads need; it is a view of
    // points, so it can be made again, by hand: shipping goes on meanwhile.
    const auto current = root.query(
        u"SELECT count() FROM system.columns WHERE database = %1 AND table = '%2' AND name = "
        "'low_step'"_s.arg(ClickHouse::quoted(database), table("series")));
    if (!current)
        return current.failure();
    if (current->trimmed() != "1")
        return fail(u"%1.series was made by an earlier Signalbox and lacks the columns reads "
                    "need: DROP TABLE %1.series_mv, DROP TABLE %1.series, run --migrate again, "
                    "then fill it from the points with INSERT INTO %1.series SELECT ... (the "
                    "view's SELECT)"_s.arg(database));
    // A lab moved onto a cluster, or a collector that was not told of one: the tables say which.
    const auto engines = root.query(
        u"SELECT name, engine FROM system.tables WHERE database = %1 AND name IN ('points', "
        "'series', 'blocks', 'runs')"_s.arg(ClickHouse::quoted(database)));
    if (!engines)
        return engines.failure();
    for (const QByteArray &line : engines->trimmed().split('\n')) {
        const QList<QByteArray> row = line.split('\t');
        if (row.size() == 2 && (row[1] == "Distributed") != !cluster.isEmpty())
            return fail(
                cluster.isEmpty()
                    ? u"%1.%2 is spread over a cluster: name it with --clickhouse-cluster, and "
                      "each server with --clickhouse"_s.arg(database, QString::fromUtf8(row[0]))
                    : u"%1.%2 is a table of a lab on one server: to spread it over the cluster, "
                      "rename it to %2_local on its server first"_s.arg(database,
                                                                        QString::fromUtf8(row[0])),
                ErrorCode::InvalidInput);
    }
    if (!shard.isEmpty())
        done << shard;
    return done;
}

Result<QStringList> fillBlocks(const ClickHouse &server) {
    // Series with fewer blocks than whole blocks of points.
    const auto lacking = server.query(
        u"SELECT s.project, s.run, s.metric FROM (SELECT project, run, metric, "
        "intDiv(countMerge(points), %1) AS whole FROM series GROUP BY project, run, metric) AS s "
        "GLOBAL ANY LEFT JOIN (SELECT project, run, metric, uniqExact(block) AS held FROM blocks "
        "GROUP BY project, run, metric) AS b USING (project, run, metric) WHERE held < whole "
        "FORMAT "
        "RowBinary"_s.arg(kBlockPoints));
    if (!lacking)
        return lacking.failure();
    // A block's row as LabForwarder writes it: a NaN step or time makes its range NaN, and a
    // block of no finite value gives its first point as its low and high.
    QString points;
    for (const char *point : {"f", "l", "lo", "hi"})
        for (int part = 1; part <= 4; ++part)
            points += u"%1.%2, "_s.arg(QLatin1StringView(point)).arg(part);
    const auto range = [](const char *column, const char *low, const char *high) {
        return u"if(countIf(isNaN(%1)) > 0, nan, min(%1)) AS %2, if(countIf(isNaN(%1)) > 0, nan, "
               "max(%1)) AS %3"_s.arg(QLatin1StringView(column), QLatin1StringView(low),
                                      QLatin1StringView(high));
    };
    const QString whole = QString::number(kBlockPoints);
    QStringList done;
    RowBinaryReader rows(*lacking);
    while (!rows.atEnd() && !rows.failed()) {
        const QString project = ClickHouse::quoted(rows.string());
        const QString run = ClickHouse::quoted(rows.string());
        const QString metric = ClickHouse::quoted(rows.string());
        const QString key = // one pass: names hold %N
            u"project = %1 AND run = %2 AND metric = %3"_s.arg(project, run, metric);
        // Concatenated after the key: names hold %N.
        const QString sql =
            u"INSERT INTO blocks SELECT project, run, metric, source, block, n, nf, %1s0, s1, w0, "
            "w1 FROM (SELECT project, run, metric, source, intDiv(idx, %2) AS block, count() AS "
            "n, countIf(isFinite(value)) AS nf, argMin((idx, step, value, wall), idx) AS f, "
            "argMax((idx, step, value, wall), idx) AS l, if(nf > 0, argMinIf((idx, step, value, "
            "wall), (value, idx), isFinite(value)), f) AS lo, if(nf > 0, argMaxIf((idx, step, "
            "value, wall), (value, -toInt64(idx)), isFinite(value)), f) AS hi, %3, %4 FROM "
            "points WHERE "_s.arg(points, whole, range("step", "s0", "s1"),
                                  range("wall", "w0", "w1")) +
            key + u" AND intDiv(idx, "_s + whole +
            u") GLOBAL NOT IN (SELECT block FROM blocks WHERE "_s + key +
            u") GROUP BY project, run, metric, source, block HAVING n = "_s + whole + u')';
        if (auto filled = server.query(sql); !filled)
            return filled.failure();
        done << u"blocks of %1 %2 %3"_s.arg(project, run, metric);
    }
    if (rows.failed())
        return fail(u"ClickHouse's list of series was cut short"_s);
    return done;
}

Result<QStringList> migrateAll(const ClickHouse::Options &options) {
    QStringList done;
    QStringList shards;
    for (const ClickHouse &server : everyServer(options)) {
        auto lines = migrate(server);
        if (!lines)
            return lines.failure();
        if (options.servers.size() > 1)
            done << server.options().url.toString(QUrl::RemoveUserInfo) + u':';
        if (!options.cluster.isEmpty()) {
            if (shards.contains(lines->constLast()))
                return fail(u"two of the servers named are one (%1)"_s.arg(lines->constLast()),
                            ErrorCode::InvalidInput);
            shards << lines->constLast();
        }
        done << *lines;
    }
    return done;
}

} // namespace sb::LabSchema
