#include "QuitOnSignal.h"

#include <QCoreApplication>
#include <QSocketNotifier>

#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

namespace sb {

namespace {
int g_pipe[2] = {-1, -1};
}

void quitOnTerminationSignals() {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, g_pipe) != 0)
        return;
    auto *notifier = new QSocketNotifier(g_pipe[1], QSocketNotifier::Read, qApp);
    QObject::connect(notifier, &QSocketNotifier::activated, qApp, [] {
        char byte = 0;
        (void)::read(g_pipe[1], &byte, 1);
        // Not quit(): in Qt 6 it asks the windows first, and a signal is no time for questions
        // (the runs on this computer go on, as "Keep them running" would have them).
        QCoreApplication::exit(0);
    });
    struct sigaction action {};
    action.sa_handler = [](int) {
        const char byte = 1;
        (void)::write(g_pipe[0], &byte, 1);
    };
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
}

} // namespace sb
