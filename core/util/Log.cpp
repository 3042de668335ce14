#include "util/Log.h"

#include "util/PlainText.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QMutex>

#include <memory>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcCollector, "signalbox.collector", QtInfoMsg)
Q_LOGGING_CATEGORY(lcConfig, "signalbox.config", QtInfoMsg)
Q_LOGGING_CATEGORY(lcJobs, "signalbox.jobs", QtInfoMsg)
Q_LOGGING_CATEGORY(lcKube, "signalbox.kube", QtInfoMsg)
Q_LOGGING_CATEGORY(lcMonitor, "signalbox.monitor", QtInfoMsg)
Q_LOGGING_CATEGORY(lcSlurm, "signalbox.slurm", QtInfoMsg)
Q_LOGGING_CATEGORY(lcSsh, "signalbox.ssh", QtInfoMsg)
Q_LOGGING_CATEGORY(lcSweeps, "signalbox.sweeps", QtInfoMsg)
Q_LOGGING_CATEGORY(lcTensorboard, "signalbox.tensorboard", QtInfoMsg)
Q_LOGGING_CATEGORY(lcUi, "signalbox.ui", QtInfoMsg)

namespace sb {
namespace {

struct Sink {
    QMutex mutex;
    std::unique_ptr<QFile> file;
    qint64 maxBytes = LogFile::kDefaultMaxBytes;
    QtMessageHandler previous = nullptr;
    bool installed = false;
};

Sink &sink() {
    static Sink instance;
    return instance;
}

const char *levelName(QtMsgType type) {
    switch (type) {
    case QtDebugMsg:
        return "debug";
    case QtInfoMsg:
        return "info";
    case QtWarningMsg:
        return "warning";
    case QtCriticalMsg:
        return "critical";
    case QtFatalMsg:
        return "fatal";
    }
    return "?";
}

// Moves a full log aside; called with the mutex held.
void rotate(Sink &s) {
    const QString path = s.file->fileName();
    s.file->close();
    QFile::remove(path + u".1"_s);
    QFile::rename(path, path + u".1"_s);
    s.file->open(QIODevice::WriteOnly | QIODevice::Append);
}

void handle(QtMsgType type, const QMessageLogContext &context, const QString &message) {
    Sink &s = sink();
    QtMessageHandler previous = nullptr;
    {
        QMutexLocker lock(&s.mutex);
        previous = s.previous;
        if (s.file && s.file->isOpen()) {
            const QByteArray record =
                LogFile::format(type, context.category, message, QDateTime::currentDateTimeUtc());
            if (s.file->size() + record.size() > s.maxBytes)
                rotate(s);
            // A full disk loses log lines, never the app. Not written to a file that did not
            // reopen: QIODevice would warn, and the warning would come back here.
            if (s.file->isOpen() && s.file->write(record) == record.size())
                s.file->flush();
        }
    }
    if (previous)
        previous(type, context, LogFile::escaped(message));
}

// Installs the handler once; called with the mutex held, which it gives up meanwhile.
void installHandler(Sink &s, QMutexLocker<QMutex> &lock) {
    if (s.installed)
        return;
    s.installed = true;
    lock.unlock(); // the handler takes the mutex
    QtMessageHandler previous = qInstallMessageHandler(handle);
    lock.relock();
    s.previous = previous;
}

} // namespace

QString LogFile::escaped(const QString &message) {
    QStringList lines = message.split(u'\n');
    for (QString &line : lines)
        line = printable(line);
    return lines.join(u"\n    "_s);
}

QByteArray LogFile::format(QtMsgType type, const char *category, const QString &message,
                           const QDateTime &when) {
    return when.toUTC().toString(Qt::ISODateWithMs).toUtf8() + ' ' + levelName(type) + ' ' +
           (category ? category : "default") + ": " + escaped(message).toUtf8() + '\n';
}

Status LogFile::install(const QString &directory, qint64 maxBytes) {
    escapeStderr(); // without a file too
    if (!QDir().mkpath(directory))
        return fail(u"cannot make the log folder %1"_s.arg(directory));
    auto file = std::make_unique<QFile>(QDir(directory).filePath(u"signalbox.log"_s));
    if (!file->open(QIODevice::WriteOnly | QIODevice::Append))
        return fail(u"cannot write %1: %2"_s.arg(file->fileName(), file->errorString()));
    Sink &s = sink();
    QMutexLocker lock(&s.mutex);
    s.file = std::move(file);
    s.maxBytes = maxBytes;
    installHandler(s, lock);
    return success();
}

void LogFile::escapeStderr() {
    Sink &s = sink();
    QMutexLocker lock(&s.mutex);
    installHandler(s, lock);
}

QString LogFile::path() {
    Sink &s = sink();
    QMutexLocker lock(&s.mutex);
    return s.file ? s.file->fileName() : QString();
}

void LogFile::uninstall() {
    Sink &s = sink();
    QMutexLocker lock(&s.mutex);
    s.file.reset();
}

} // namespace sb
