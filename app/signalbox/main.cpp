// signalbox: the desktop application. With no options it runs on its embedded default: this
// computer as a node, an embedded collector, and local runs.
#include "JobsView.h"
#include "Keychain.h"
#include "MainWindow.h"
#include "NodesView.h"
#include "SettingsDialog.h"
#include "SweepsView.h"
#include "Translations.h"
#include "client/CollectorClient.h"
#include "collector/EmbeddedCollector.h"
#include "config/Config.h"
#include "fleet/ClusterGpuWatch.h"
#include "fleet/SystemHistory.h"
#include "jobs/Backends.h"
#include "metrics/RunColors.h"
#include "net/TrustedCertificates.h"
#include "tensorboard/LogdirFeeds.h"
#include "util/Files.h"
#include "util/Log.h"
#include "util/Paths.h"
#include "util/PlainText.h"
#include "util/QuitOnSignal.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QRandomGenerator>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QTimer>

#include <cstdio>

using namespace Qt::StringLiterals;

namespace {

void startDemo(sb::JobBackend *backend, sb::MainWindow *window) {
    const QString script = sb::sharedFile(u"examples/train_mlp.py"_s);
    const QString client = sb::sharedFile(u"clients/python"_s);
    const QString python = QStandardPaths::findExecutable(u"python3"_s);
    if (script.isEmpty() || python.isEmpty()) {
        window->showError(QCoreApplication::translate(
            "main", "The demo needs python3 and examples/train_mlp.py; neither run started."));
        return;
    }
    // Two learning rates, so the curves view shows runs overlaid.
    for (const QString &lr : {u"0.05"_s, u"0.2"_s}) {
        sb::JobSpec spec;
        spec.name = u"demo-mlp-lr%1"_s.arg(lr);
        spec.command = QStringList{python, script, u"--lr"_s, lr, u"--steps"_s, u"4000"_s};
        spec.workingDirectory = QFileInfo(script).absolutePath();
        spec.environment[u"PYTHONPATH"_s] = client;
        if (const auto submitted = backend->submit(spec); !submitted)
            window->showError(submitted.error());
    }
}

} // namespace

int main(int argc, char *argv[]) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(u"Signalbox"_s);
    QApplication::setApplicationVersion(QStringLiteral(SIGNALBOX_VERSION));
    QApplication::setOrganizationDomain(u"signalbox.io"_s);
    QApplication::setDesktopFileName(QStringLiteral(SIGNALBOX_APP_ID));
    // The language chosen in Settings, else the system's, where Signalbox has it.
    const QString language = sb::SettingsDialog::language();
    sb::installTranslations(language.isEmpty() ? QLocale::system() : QLocale(language));
    qRegisterMetaType<sb::NodeSample>();
    qRegisterMetaType<sb::Job>();
    // A lab's CA besides the system's; without it an https collector is said to be untrusted.
    if (const sb::Status trusted = sb::trustCertificatesFromEnvironment(); !trusted)
        qCWarning(lcUi).noquote() << sb::printable(trusted.error());

    QCommandLineParser parser;
    parser.setApplicationDescription(u"One window on all the compute you train on."_s);
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption collector(u"collector"_s,
                                       u"Use the collector at URL instead of the embedded one; "
                                       u"k8s://CONTEXT/NAMESPACE/SERVICE:PORT "
                                       "reaches one in a cluster through the API server."_s,
                                       u"url"_s);
    const QCommandLineOption token(u"token"_s,
                                   u"Bearer token for --collector. Visible to every user in the "
                                   "process list: prefer --token-file or SIGNALBOX_TOKEN."_s,
                                   u"token"_s);
    const QCommandLineOption tokenFile(
        u"token-file"_s, u"Read the bearer token from the first line of file."_s, u"file"_s);
    const QCommandLineOption project(
        u"project"_s,
        u"The project to show and run in, on a lab's collector (default $SIGNALBOX_PROJECT, "
        "else the collector's own)."_s,
        u"name"_s);
    const QCommandLineOption dataDir(u"data-dir"_s, u"Where runs, logs and metrics are kept."_s,
                                     u"dir"_s);
    const QCommandLineOption demo(u"demo"_s, u"Start the example training runs."_s);
    const QCommandLineOption screenshot(u"screenshot"_s, u"Save the window as a PNG and exit."_s,
                                        u"file"_s);
    const QCommandLineOption after(
        u"after"_s, u"Seconds to wait before --screenshot (default 3)."_s, u"seconds"_s, u"3"_s);
    const QCommandLineOption view(u"view"_s, u"Open on curves, jobs, nodes or sweeps."_s,
                                  u"name"_s);
    const QCommandLineOption watch(
        u"watch"_s, u"Ingest *.jsonl, *.csv and TensorBoard event files under a directory."_s,
        u"dir"_s);
    const QCommandLineOption config(
        u"config"_s, u"The config file (default ~/.config/signalbox/signalbox.yaml)."_s, u"file"_s);
    const QCommandLineOption logdir(
        u"logdir"_s,
        u"Follow a TensorBoard logdir: a directory here, or NODE:PATH on an SSH node."_s,
        u"logdir"_s);
    const QCommandLineOption cluster(
        u"cluster"_s,
        u"Watch and run jobs on this kubeconfig context (repeatable; default: the current "
        "context of $KUBECONFIG or ~/.kube/config, if any)."_s,
        u"context"_s);
    const QCommandLineOption sweep(
        u"sweep"_s,
        u"Run a sweep (a W&B sweep YAML with a signalbox: section; repeatable). Sweeps of "
        "earlier sessions go on by themselves."_s,
        u"file"_s);
    parser.addOptions({collector, token, tokenFile, project, dataDir, demo, screenshot, after, view,
                       watch, config, logdir, cluster, sweep});
    parser.process(app);

    const QString data = parser.isSet(dataDir) ? parser.value(dataDir) : sb::defaultDataDir();
    // A log a user can attach to a bug report; without it, messages still reach stderr.
    if (const sb::Status logging = sb::LogFile::install(data + u"/logs"_s); !logging)
        std::fprintf(stderr, "signalbox: %s\n", qPrintable(logging.error()));
    qCInfo(lcUi).noquote() << u"Signalbox"_s << QApplication::applicationVersion()
                           << u"starting with data in"_s << data;
    std::unique_ptr<sb::EmbeddedCollector> embedded;
    std::unique_ptr<sb::KubeClient> collectorCluster; // for a collector in a cluster
    std::unique_ptr<sb::CollectorClient> collectorClient;
    const auto bearer = sb::bearerToken(parser.value(tokenFile), parser.value(token));
    if (!bearer) {
        std::fprintf(stderr, "signalbox: %s\n", qPrintable(bearer.error()));
        return 2;
    }
    QString collectorToken = bearer.value();
    const auto collectorProject = sb::collectorProject(parser.value(project));
    if (!collectorProject) {
        std::fprintf(stderr, "signalbox: %s\n", qPrintable(collectorProject.error()));
        QMessageBox::critical(
            nullptr, u"Signalbox"_s,
            QCoreApplication::translate("main", "--project: %1").arg(collectorProject.error()));
        return 2;
    }
    QUrl collectorUrl;
    if (const auto inCluster = sb::parseClusterCollector(parser.value(collector))) {
        // Through the API server's service proxy, with the kubeconfig's credentials.
        const auto kubeconfig = sb::KubeConfig::load();
        const auto context = kubeconfig ? kubeconfig->context(inCluster->context)
                                        : sb::Result<sb::KubeContext>(sb::fail(kubeconfig.error()));
        if (!context) {
            std::fprintf(stderr, "signalbox: --collector %s: %s\n",
                         qPrintable(parser.value(collector)), qPrintable(context.error()));
            return 1;
        }
        collectorCluster = std::make_unique<sb::KubeClient>(*context);
        collectorClient = std::make_unique<sb::CollectorClient>(collectorCluster.get(),
                                                                inCluster->service, collectorToken);
    } else if (parser.isSet(collector)) {
        collectorUrl = QUrl::fromUserInput(parser.value(collector));
    } else {
        sb::Collector::Options options;
        options.dataDir = data + u"/collector"_s;
        options.port = sb::kDefaultCollectorPort;
        options.watchDirs = parser.values(watch);
        auto started = sb::EmbeddedCollector::start(options);
        if (!started && started.errorCode() == sb::ErrorCode::AddressInUse) {
            options.port = 0; // the usual port is taken: any free one will do
            started = sb::EmbeddedCollector::start(options);
        }
        if (!started) {
            std::fprintf(stderr, "signalbox: %s\n", qPrintable(started.error()));
            QMessageBox::critical(
                nullptr, u"Signalbox"_s,
                QCoreApplication::translate("main", "The embedded collector could not start:\n%1")
                    .arg(started.error()));
            return 1;
        }
        embedded = std::move(started).value();
        collectorUrl = embedded->url();
        collectorToken = embedded->token();
        // The same user's scripts and signalbox-cli find it, and its secret, there.
        if (const sb::Status published = sb::publishCollector(collectorUrl, collectorToken);
            !published)
            qCWarning(lcUi).noquote()
                << u"the collector's address is not published:"_s << published.error();
    }
    const auto withdraw = qScopeGuard([&embedded, collectorUrl] {
        if (embedded)
            sb::withdrawCollector(collectorUrl);
    });

    if (!collectorClient)
        collectorClient = std::make_unique<sb::CollectorClient>(collectorUrl, collectorToken);
    sb::CollectorClient &client = *collectorClient;
    client.setProject(*collectorProject);
    // This computer, the config's SSH nodes and the kubeconfig's clusters. Runs here push to
    // the collector themselves when it is reachable without a cluster.
    const QString configPath =
        parser.isSet(config) ? parser.value(config) : sb::Config::defaultPath();
    sb::Backends backends(&client, {data, configPath, parser.values(cluster),
                                    collectorCluster ? QString() : collectorUrl.toString(), true,
                                    collectorToken});
    sb::KubeBackend &kube = backends.kube();

    sb::LogdirFeeds logdirs(&client, &backends.monitor(), data + u"/logdirs.json"_s);
    // Each run's colour, the same in every view and session: read before any view hands one out.
    const sb::Status colors = sb::RunColors::shared().load(data + u"/run-colors.json"_s);
    sb::MainWindow window(&client, &backends.jobs(), &backends.monitor(), configPath);
    if (!colors)
        window.showError(colors.error());
    window.setLogdirFeeds(&logdirs);
    const auto runsOn = [&backends](const QString &node) {
        return backends.runsOn(node);
    };
    window.nodes()->setRunLookup(runsOn);
    window.nodes()->setReservedGpusLookup(
        [&backends](const QString &node) { return backends.reservedGpus(node); });
    window.nodes()->setHistory(&client);
    // GPU and node history, and our runs' system series, kept in the collector.
    sb::SystemHistory history(&client, &backends.monitor(), runsOn);
    sb::ClusterGpuWatch clusterGpus(backends.registry().with(
        [](const sb::JobBackend::Capabilities &can) { return can.jobGpus; }));
    history.watch(&clusterGpus);
    window.nodes()->setClusterGpus(&clusterGpus);
    QObject::connect(&history, &sb::SystemHistory::problem, &window,
                     [&window](const QString &m) { window.showProblem(u"system history"_s, m); });
    // Nodes' history stays out of a lab's shared project, and of one this user may only read:
    // for a collector not the app's own, kept only once its health says it may.
    history.setStoring(embedded != nullptr);
    QObject::connect(&window, &sb::MainWindow::collectorHealth, &history,
                     [&history](const sb::Health &health) {
                         history.setStoring(!health.lab.value(u"serves"_s).toBool() &&
                                            health.access == u"write"_s);
                     });
    QObject::connect(&window, &sb::MainWindow::collectorTokenChanged, &backends.local(),
                     [&backends](const QString &typed) {
                         backends.local().setEnvironment(u"SIGNALBOX_TOKEN"_s, typed);
                     });
    // A token typed into the window at an earlier start, kept in the keychain: taken when the
    // keychain answers, as if typed again (the GUI thread never waits on it).
    if (!embedded && !collectorUrl.isEmpty() && collectorToken.isEmpty())
        sb::keychain::read(sb::keychain::collectorToken(collectorUrl.toString()), &window,
                           [&window](const std::optional<QString> &kept) {
                               if (kept && !kept->isEmpty())
                                   window.useCollectorToken(*kept, false);
                           });
    QObject::connect(&backends.forwarder(), &sb::MetricLineForwarder::problem, &window,
                     &sb::MainWindow::showError);
    for (const QString &problem : backends.problems())
        window.showError(problem);
    QObject::connect(
        &kube, &sb::KubeBackend::clusterChanged, &window, [&kube, &window](const QString &name) {
            const QString error = kube.clusterError(name);
            window.showProblem(u"cluster "_s + name,
                               error.isEmpty() ? QString() : u"Cluster %1: %2"_s.arg(name, error));
        });
    // Sweeps: the app is their controller. Those of earlier sessions go on where they were.
    window.sweeps()->setStateDirectory(data + u"/sweeps"_s);
    window.sweeps()->resumeAll();
    for (const QString &file : parser.values(sweep)) {
        if (const auto started =
                window.sweeps()->open(file, QRandomGenerator::global()->generate64());
            !started)
            window.showError(
                QCoreApplication::translate("main", "Sweep not started: %1").arg(started.error()));
        else
            window.showView(u"sweeps"_s);
    }
    if (parser.isSet(view))
        window.showView(parser.value(view));
    for (const QString &source : parser.values(logdir)) {
        // Already followed from an earlier start is fine; anything else is worth saying.
        if (const sb::Status followed = logdirs.follow(source);
            !followed && followed.errorCode() != sb::ErrorCode::AlreadyExists)
            window.showError(QCoreApplication::translate("main", "TensorBoard logdir: %1")
                                 .arg(followed.error()));
    }

    if (parser.isSet(demo))
        startDemo(&backends.local(), &window);
    if (parser.isSet(screenshot))
        window.resize(1400, 860); // a picture's size, whatever the screen (offscreen: 800×600)
    window.show();

    if (parser.isSet(screenshot)) {
        const QString file = parser.value(screenshot);
        QTimer::singleShot(static_cast<int>(parser.value(after).toDouble() * 1000), &window, [&] {
            const bool saved = window.grab().save(file);
            backends.local().stopAll(); // a picture's demo runs end with it
            std::fprintf(saved ? stdout : stderr, "signalbox: %s %s\n",
                         saved ? "saved screenshot" : "could not write", qPrintable(file));
            QApplication::exit(saved ? 0 : 1);
        });
    }
    sb::quitOnTerminationSignals();
    const int code = QApplication::exec();
    (void)sb::RunColors::shared().flush(); // colours handed out in the last second
    return code;
}
