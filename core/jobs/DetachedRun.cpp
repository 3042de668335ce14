#include "DetachedRun.h"

#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <csignal>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

QByteArray readSmallFile(const QString &path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.read(64).trimmed() : QByteArray();
}

} // namespace

QString detachedLaunchScript() {
    return uR"sh(d=$1 w=$2 c=$3
case $d in "~/"*) d="$HOME/${d#"~/"}" ;; esac
mkdir -p "$d" && cd "$d" || exit 1
cat > spec.json
cat /proc/sys/kernel/random/boot_id > boot 2>/dev/null
case $w in "" | "~") w=$HOME ;; "~/"*) w="$HOME/${w#"~/"}" ;; esac
setsid sh -c '
  d=$1 w=$2 c=$3
  if cd "$w" 2>> "$d/log"; then
    setsid sh -c "exec $c" < /dev/null >> "$d/log" 2>&1 &
    echo $! > "$d/pid"
    wait $!
    echo $? > "$d/exit.tmp"
  else
    echo "signalbox: cannot enter the working directory $w" >> "$d/log"
    echo 126 > "$d/exit.tmp"
  fi
  mv "$d/exit.tmp" "$d/exit"
' signalbox-run "$d" "$w" "$c" < /dev/null > /dev/null 2>&1 &
i=0
while [ ! -s pid ] && [ ! -e exit ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
cat pid 2>/dev/null || echo 0
)sh"_s;
}

QString detachedStopScript() {
    return uR"sh(kill -TERM "-$1" 2>/dev/null
setsid sh -c 'sleep "$2"; kill -KILL "-$1" 2>/dev/null' signalbox-stop "$1" "$2" < /dev/null > /dev/null 2>&1 &
exit 0)sh"_s;
}

void endDetachedRun(Job &job, std::optional<int> exitCode, bool stopped, const QString &why) {
    job.finished = QDateTime::currentDateTime();
    job.exitCode = exitCode;
    if (stopped) {
        job.state = JobState::Stopped;
        job.message = u"stopped"_s;
        return;
    }
    if (exitCode == 0) {
        job.state = JobState::Succeeded;
        job.message.clear();
        return;
    }
    job.state = JobState::Failed;
    job.message = !why.isEmpty() ? why
                  : !exitCode    ? u"it ended without an exit code (killed with SIGKILL, or its "
                                "computer restarted)"_s
                  : *exitCode == 127 || *exitCode == 126
                      ? u"could not start: %1 (exit code %2; see its output)"_s
                            .arg(*exitCode == 127 ? u"command not found"_s : u"not executable"_s)
                            .arg(*exitCode)
                  : *exitCode > 128 ? u"killed by signal %1"_s.arg(*exitCode - 128)
                                    : u"exited with code %1"_s.arg(*exitCode);
}

QString bootId() {
    return QString::fromLatin1(readSmallFile(u"/proc/sys/kernel/random/boot_id"_s));
}

DetachedStatus detachedStatus(const QString &dir) {
    DetachedStatus status;
    bool ok = false;
    status.processGroup = readSmallFile(dir + u"/pid"_s).toLongLong(&ok);
    if (const QByteArray code = readSmallFile(dir + u"/exit"_s); !code.isEmpty()) {
        status.state = DetachedStatus::Exited;
        bool numeric = false;
        if (const int value = code.toInt(&numeric); numeric)
            status.exitCode = value;
        return status;
    }
    if (!ok || status.processGroup <= 0)
        return status; // the wrapper has not written it yet
    // A process group from before a restart of this computer is gone, whatever has its number.
    const QString boot = QString::fromLatin1(readSmallFile(dir + u"/boot"_s));
    const bool sameBoot = boot.isEmpty() || boot == bootId();
    const bool alive =
        sameBoot && (::kill(static_cast<pid_t>(status.processGroup), 0) == 0 || errno == EPERM);
    status.state = alive ? DetachedStatus::Running : DetachedStatus::Lost;
    return status;
}

} // namespace sb
