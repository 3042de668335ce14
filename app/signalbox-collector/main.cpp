// signalbox-collector: the headless metrics collector, for a GPU node or a cluster.
#include "UsersCommand.h"
#include "collector/Collector.h"
#include "lab/LabSchema.h"
#include "util/Files.h"
#include "util/Log.h"
#include "util/Paths.h"
#include "util/PlainText.h"
#include "util/QuitOnSignal.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QLoggingCategory>

#include <cstdio>

using namespace Qt::StringLiterals;

int main(int argc, char *argv[]) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(u"signalbox-collector"_s);
    // Its warnings carry run names, hosts and peers' words: escaped on the way to stderr.
    sb::LogFile::escapeStderr();
    // Its output is for scripts: only warnings unless QT_LOGGING_RULES asks for more.
    QLoggingCategory::setFilterRules(u"signalbox.*.info=false"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(SIGNALBOX_VERSION));
    if (app.arguments().value(1) == u"users"_s)
        return runUsersCommand(app.arguments());

    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Signalbox metrics collector: stores training metrics and serves downsampled curves."_s);
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption listen(
        u"listen"_s,
        u"Address and port to listen on (default 127.0.0.1:%1; port 0 picks one)."_s.arg(
            sb::kDefaultCollectorPort),
        u"host:port"_s);
    const QCommandLineOption dataDir(u"data-dir"_s, u"Store directory."_s, u"dir"_s);
    const QCommandLineOption token(
        u"token"_s,
        u"Bearer token clients must send; required off loopback. Visible to every user in the "
        "process list: prefer --token-file or SIGNALBOX_TOKEN."_s,
        u"token"_s);
    const QCommandLineOption tokenFile(
        u"token-file"_s, u"Read the bearer token from the first line of file."_s, u"file"_s);
    const QCommandLineOption users(
        u"users"_s,
        u"Users with tokens of their own and rights per project, instead of one token: see "
        "`signalbox-collector users` (read again whenever it changes)."_s,
        u"file"_s);
    const QCommandLineOption watch(
        u"watch"_s, u"Ingest *.jsonl and *.csv files under a directory."_s, u"dir"_s);
    const QCommandLineOption hostName(
        u"host-name"_s,
        u"On loopback, answer requests for this name too (repeatable; localhost and loopback "
        "addresses always are; any other Host is refused, as DNS rebinding would send it)."_s,
        u"name"_s);
    const QCommandLineOption lostAfter(
        u"lost-after"_s,
        u"Seconds a running run may stay silent (no push, metric line or heartbeat) before it "
        "is judged lost (default %1; 0: never)."_s.arg(sb::Collector::kLostAfterSeconds),
        u"seconds"_s);
    const QCommandLineOption clickhouse(
        u"clickhouse"_s,
        u"Ship every stored point to a lab's ClickHouse at this URL (http(s)://host:8123); its "
        "password from SIGNALBOX_CLICKHOUSE_PASSWORD. With --clickhouse-cluster, once for each "
        "server of the cluster (the first is written to and read from)."_s,
        u"url"_s);
    const QCommandLineOption cluster(
        u"clickhouse-cluster"_s,
        u"The cluster (in ClickHouse's remote_servers, one shard a server) the lab's tables are "
        "spread over, by run."_s,
        u"name"_s);
    const QCommandLineOption database(u"clickhouse-database"_s,
                                      u"The lab's database in ClickHouse (default signalbox)."_s,
                                      u"name"_s, u"signalbox"_s);
    const QCommandLineOption project(
        u"project"_s,
        u"The project this collector's runs belong to (default \"default\"); a request for "
        "another is read from the lab's store (with --serve-lab)."_s,
        u"name"_s, u"default"_s);
    const QCommandLineOption migrate(
        u"migrate"_s, u"Create the lab's tables in ClickHouse where missing, say what was done, "
                      "and exit (with --clickhouse)."_s);
    const QCommandLineOption fillBlocks(
        u"fill-blocks"_s,
        u"With --migrate: write the blocks of series shipped before there were blocks, series by "
        "series (safe while collectors ship)."_s);
    const QCommandLineOption serveLab(
        u"serve-lab"_s,
        u"Answer /runs, /metrics, /series, /groups and /export from ClickHouse: every run of "
        "the project, whichever collector shipped it (with --clickhouse)."_s);
    const QCommandLineOption reader(
        u"clickhouse-reader"_s,
        u"The ClickHouse user that --serve-lab reads as (best one of readonly = 2, with limits); "
        "its password from SIGNALBOX_CLICKHOUSE_READER_PASSWORD. Default: the writing user."_s,
        u"user"_s);
    const QCommandLineOption summariesFrom(
        u"clickhouse-summaries-from"_s,
        u"With --serve-lab: a chart of a series of this many points or more reads its 256-point "
        "block summaries where a pixel column holds 16 blocks or more (default 1000000)."_s,
        u"points"_s);
    const QCommandLineOption tlsCertificate(
        u"tls-certificate"_s,
        u"Speak TLS (https) with this PEM certificate, its chain after it (with --tls-key)."_s,
        u"file"_s);
    const QCommandLineOption tlsKey(u"tls-key"_s, u"The PEM key of --tls-certificate."_s,
                                    u"file"_s);
    parser.addOptions({listen, dataDir, token, tokenFile, users, watch, lostAfter, hostName,
                       clickhouse, cluster, database, project, migrate, fillBlocks, serveLab,
                       reader, summariesFrom, tlsCertificate, tlsKey});
    parser.process(app);

    std::optional<sb::LabForwarder::Options> lab;
    if (parser.isSet(clickhouse)) {
        lab.emplace();
        for (const QString &value : parser.values(clickhouse)) {
            const QUrl url(value, QUrl::StrictMode);
            const QString scheme = url.scheme();
            if (!url.isValid() || (scheme != u"http"_s && scheme != u"https"_s) ||
                url.host().isEmpty()) {
                std::fprintf(stderr, "signalbox-collector: --clickhouse wants a URL such as "
                                     "http://127.0.0.1:8123\n");
                return 2;
            }
            lab->server.servers << url;
        }
        lab->server.url = lab->server.servers.front();
        lab->server.cluster = parser.value(cluster);
        lab->server.database = parser.value(database);
        lab->server.password = qEnvironmentVariable("SIGNALBOX_CLICKHOUSE_PASSWORD");
        lab->project = parser.value(project);
        if (lab->project.isEmpty()) {
            std::fprintf(stderr, "signalbox-collector: --project wants a name\n");
            return 2;
        }
        if (lab->server.servers.size() > 1 && lab->server.cluster.isEmpty()) {
            std::fprintf(stderr, "signalbox-collector: several --clickhouse servers are a "
                                 "cluster: name it with --clickhouse-cluster\n");
            return 2;
        }
    } else if (parser.isSet(cluster)) {
        std::fprintf(stderr, "signalbox-collector: --clickhouse-cluster needs --clickhouse URL\n");
        return 2;
    }
    if (parser.isSet(fillBlocks) && !parser.isSet(migrate)) {
        std::fprintf(stderr, "signalbox-collector: --fill-blocks is for --migrate\n");
        return 2;
    }
    if (parser.isSet(migrate)) {
        if (!lab) {
            std::fprintf(stderr, "signalbox-collector: --migrate needs --clickhouse URL\n");
            return 2;
        }
        auto done = sb::LabSchema::migrateAll(lab->server);
        if (done && parser.isSet(fillBlocks)) {
            auto filled = sb::LabSchema::fillBlocks(sb::ClickHouse(lab->server));
            done = filled ? *done + *filled : filled;
        }
        if (!done) {
            std::fprintf(stderr, "signalbox-collector: %s\n",
                         qUtf8Printable(sb::printable(done.error())));
            return 1;
        }
        for (const QString &line : *done)
            std::printf("%s\n", qUtf8Printable(sb::printable(line)));
        return 0;
    }

    sb::Collector::Options options;
    options.dataDir =
        parser.isSet(dataDir) ? parser.value(dataDir) : sb::defaultDataDir() + u"/collector"_s;
    options.port = sb::kDefaultCollectorPort;
    if (parser.isSet(listen)) {
        const QString value = parser.value(listen);
        const qsizetype colon = value.lastIndexOf(u':');
        bool ok = colon > 0;
        const uint port = ok ? value.mid(colon + 1).toUInt(&ok) : 0;
        QHostAddress address(value.left(colon).remove(u'[').remove(u']'));
        if (!ok || port > 65535 || address.isNull()) {
            std::fprintf(stderr,
                         "signalbox-collector: --listen wants host:port, e.g. 127.0.0.1:7410\n");
            return 2;
        }
        options.address = address;
        options.port = static_cast<quint16>(port);
    }
    const auto bearer = sb::bearerToken(parser.value(tokenFile), parser.value(token));
    if (!bearer) {
        std::fprintf(stderr, "signalbox-collector: %s\n",
                     qUtf8Printable(sb::printable(bearer.error())));
        return 2;
    }
    options.token = bearer.value();
    options.usersFile = parser.value(users);
    if (parser.isSet(users) && options.usersFile.isEmpty()) {
        std::fprintf(stderr, "signalbox-collector: --users wants a file\n");
        return 2;
    }
    options.project = parser.value(project);
    options.watchDirs = parser.values(watch);
    options.hostNames = parser.values(hostName);
    options.lab = lab;
    options.tlsCertificate = parser.value(tlsCertificate);
    options.tlsKey = parser.value(tlsKey);
    if (parser.isSet(summariesFrom) && !parser.isSet(serveLab)) {
        std::fprintf(stderr, "signalbox-collector: --clickhouse-summaries-from is for "
                             "--serve-lab\n");
        return 2;
    }
    if (parser.isSet(serveLab) || parser.isSet(reader)) {
        if (!lab) {
            std::fprintf(stderr, "signalbox-collector: --serve-lab needs --clickhouse URL\n");
            return 2;
        }
        sb::LabReader::Options reads;
        reads.server = lab->server;
        reads.project = lab->project;
        if (parser.isSet(reader)) {
            reads.server.url.setUserInfo({});
            reads.server.user = parser.value(reader);
            reads.server.password = qEnvironmentVariable("SIGNALBOX_CLICKHOUSE_READER_PASSWORD");
        }
        if (parser.isSet(summariesFrom)) {
            bool ok = false;
            reads.summariesFrom = parser.value(summariesFrom).toLongLong(&ok);
            if (!ok || reads.summariesFrom < 1) {
                std::fprintf(stderr, "signalbox-collector: --clickhouse-summaries-from wants a "
                                     "number of points, e.g. 1000000\n");
                return 2;
            }
        }
        options.labReads = reads;
    }
    if (parser.isSet(lostAfter)) {
        bool ok = false;
        options.lostAfterSeconds = parser.value(lostAfter).toDouble(&ok);
        if (!ok || !(options.lostAfterSeconds >= 0)) {
            std::fprintf(stderr, "signalbox-collector: --lost-after wants seconds, e.g. 300\n");
            return 2;
        }
    }

    auto collector = sb::Collector::start(options);
    if (!collector) {
        std::fprintf(stderr, "signalbox-collector: %s\n",
                     qUtf8Printable(sb::printable(collector.error())));
        return 1;
    }
    for (const QString &note : (*collector)->store().recoveryNotes())
        std::fprintf(stderr, "signalbox-collector: recovered: %s\n",
                     qUtf8Printable(sb::printable(note)));
    std::printf("signalbox-collector listening on %s (data: %s)\n",
                qUtf8Printable(sb::printable((*collector)->url().toString())),
                qUtf8Printable(sb::printable(options.dataDir)));
    std::fflush(stdout);
    sb::quitOnTerminationSignals();
    return app.exec();
}
