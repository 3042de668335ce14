// signalbox-collector: the headless metrics collector, for a GPU node or a cluster.
#include "collector/Collector.h"
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
    parser.addOptions({listen, dataDir, token, tokenFile, watch, lostAfter, hostName});
    parser.process(app);

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
    options.watchDirs = parser.values(watch);
    options.hostNames = parser.values(hostName);
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
