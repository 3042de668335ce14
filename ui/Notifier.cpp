#include "Notifier.h"

#include "jobs/JobsModel.h"

#include "Settings.h"
#include "util/Duration.h"
#include "util/PlainText.h"
#include <QApplication>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QPainter>
#include <QSystemTrayIcon>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

const QString kService = u"org.freedesktop.Notifications"_s;
const QString kPath = u"/org/freedesktop/Notifications"_s;

QString keyOf(const Job &job) {
    return job.backend + u'/' + job.id;
}

// "4:05" under an hour, then "1 h 4 min".
QString clock(qint64 seconds) {
    return formatDuration(seconds * 1000,
                          seconds < 3600 ? DurationStyle::Clock : DurationStyle::Words);
}

QString where(const Job &job) {
    return job.node.isEmpty() ? job.backend : job.node;
}

} // namespace

QList<Notifier::Kind> Notifier::kinds() {
    return {Kind::Succeeded, Kind::Failed, Kind::Stopped, Kind::WaitsLong, Kind::Stalled};
}

QString Notifier::describe(Kind kind) {
    switch (kind) {
    case Kind::Succeeded:
        return tr("A run succeeded");
    case Kind::Failed:
        return tr("A run failed");
    case Kind::Stopped:
        return tr("A run was stopped");
    case Kind::WaitsLong:
        return tr("A run waits long for a place to run");
    case Kind::Stalled:
        return tr("A run stopped printing (stalled)");
    }
    return {};
}

QString Notifier::settingsKey(Kind kind) {
    return settingKey(Setting::Notify, QString::number(static_cast<int>(kind)));
}

void Notifier::loadSettings() {
    for (const Kind kind : kinds())
        setEnabled(kind,
                   readSetting(Setting::Notify, QString::number(static_cast<int>(kind))).toBool());
    setWaitMinutes(readSetting(Setting::NotifyWaitMinutes).toInt());
    setStallMinutes(readSetting(Setting::NotifyStallMinutes).toInt());
}

Notifier::Notifier(JobsModel *jobs, Options options, QObject *parent)
    : QObject(parent)
    , m_jobs(jobs)
    , m_options(options) {
    for (JobBackend *backend : jobs->registry()->backends()) {
        for (const Job &job : backend->jobs()) { // what happened before this start is not news
            if (!job.foreign)
                m_known.insert(keyOf(job), job);
        }
        connect(backend, &JobBackend::jobChanged, this, &Notifier::changed);
        connect(backend, &JobBackend::jobRemoved, this, [this, backend](const QString &id) {
            const QString key = backend->name() + u'/' + id;
            m_known.remove(key);
            m_lastOutput.remove(key);
            updateTray();
        });
        connect(backend, &JobBackend::logAppended, this, [this, backend](const QString &id) {
            const QString key = backend->name() + u'/' + id;
            m_lastOutput.insert(key, QDateTime::currentDateTime());
            m_toldStalled.remove(key); // it printed again: a later stall is news again
        });
    }
    QDBusConnection::sessionBus().connect(kService, kPath, kService, u"ActionInvoked"_s, this,
                                          SLOT(actionInvoked(uint, QString)));
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        m_tray = new QSystemTrayIcon(QApplication::windowIcon(), this);
        m_tray->show();
    }
    updateTray();
    m_check.setInterval(m_options.checkMs);
    connect(&m_check, &QTimer::timeout, this, &Notifier::check);
    m_check.start();
}

void Notifier::setEnabled(Kind kind, bool enabled) {
    if (enabled)
        m_off.remove(kind);
    else
        m_off.insert(kind);
}

void Notifier::changed(const Job &job) {
    if (job.foreign)
        return; // someone else's cluster job: never news here (and thousands of them)
    const QString key = keyOf(job);
    const auto before = m_known.constFind(key);
    const bool wasEnded = before != m_known.cend() && isFinished(before->state);
    const bool isNew = before == m_known.cend();
    m_known.insert(key, job);
    updateTray();
    if (wasEnded || !isFinished(job.state) ||
        (isNew && job.finished.isValid() && job.finished.secsTo(QDateTime::currentDateTime()) > 60))
        return; // old news, or not an ending
    const QString ran = job.started.isValid() ? clock(job.started.secsTo(job.finished)) : QString();
    switch (job.state) {
    case JobState::Succeeded:
        return notify(Kind::Succeeded, job, tr("%1 succeeded").arg(job.id),
                      tr("on %1, after %2").arg(where(job), ran));
    case JobState::Failed:
        return notify(Kind::Failed, job, tr("%1 failed").arg(job.id),
                      job.message.isEmpty() ? tr("on %1").arg(where(job))
                                            : tr("on %1: %2").arg(where(job), job.message));
    case JobState::Stopped:
        return notify(Kind::Stopped, job, tr("%1 was stopped").arg(job.id),
                      ran.isEmpty() ? tr("before it started") : tr("after %1").arg(ran));
    default:
        return;
    }
}

void Notifier::check() {
    const QDateTime now = QDateTime::currentDateTime();
    for (const Job &job : std::as_const(m_known)) {
        const QString key = keyOf(job);
        if (job.state == JobState::Queued && job.submitted.isValid() &&
            job.submitted.secsTo(now) >= m_options.waitMinutes * 60 &&
            !m_toldWaiting.contains(key)) {
            m_toldWaiting.insert(key);
            notify(Kind::WaitsLong, job, tr("%1 is still waiting").arg(job.id),
                   tr("for %1: %2").arg(clock(job.submitted.secsTo(now)), job.message));
        }
        const auto printed = m_lastOutput.constFind(key);
        if (job.state == JobState::Running && printed != m_lastOutput.cend() &&
            printed->secsTo(now) >= m_options.stallMinutes * 60 && !m_toldStalled.contains(key)) {
            m_toldStalled.insert(key);
            notify(Kind::Stalled, job, tr("%1 may have stalled").arg(job.id),
                   tr("no output for %1 on %2").arg(clock(printed->secsTo(now)), where(job)));
        }
    }
}

void Notifier::notify(Kind kind, const Job &job, const QString &title, const QString &body) {
    if (!isEnabled(kind))
        return;
    Q_EMIT notified(kind, title, body);
    // A job's name and message come from outside: the summary is plain text to the server, the
    // body may be read as markup (with images), so it is escaped.
    const QString summary = isolated(title);
    const QString markup = htmlOf(body);
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected()) {
        if (m_tray)
            m_tray->showMessage(summary, isolated(body),
                                kind == Kind::Failed ? QSystemTrayIcon::Warning
                                                     : QSystemTrayIcon::Information);
        return;
    }
    QDBusMessage call = QDBusMessage::createMethodCall(kService, kPath, kService, u"Notify"_s);
    const uchar urgency = kind == Kind::Failed ? 2 : 1; // critical: it stays until seen
    call << u"Signalbox"_s << uint(0) << u"signalbox"_s << summary << markup
         << QStringList{u"default"_s, tr("Show")}
         << QVariantMap{{u"urgency"_s, QVariant::fromValue(urgency)},
                        {u"desktop-entry"_s, QApplication::desktopFileName()}}
         << int(-1);
    // Asynchronous: a notification server that hangs never holds the window.
    auto *watcher = new QDBusPendingCallWatcher(bus.asyncCall(call), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this,
            [this, watcher, key = keyOf(job), summary, body, kind] {
                watcher->deleteLater();
                const QDBusPendingReply<uint> reply = *watcher;
                if (!reply.isError())
                    m_byNotification.insert(reply.value(), key);
                else if (m_tray) // no notification server: the tray says it
                    m_tray->showMessage(summary, isolated(body),
                                        kind == Kind::Failed ? QSystemTrayIcon::Warning
                                                             : QSystemTrayIcon::Information);
            });
}

void Notifier::actionInvoked(uint notification, const QString &action) {
    const QString key = m_byNotification.take(notification);
    if (key.isEmpty() || action != "default"_L1)
        return;
    Q_EMIT openRun(key.section(u'/', 0, 0), key.section(u'/', 1));
}

void Notifier::updateTray() {
    if (!m_tray)
        return;
    const auto running = std::count_if(m_known.cbegin(), m_known.cend(), [](const Job &job) {
        return job.state == JobState::Running;
    });
    if (running == std::exchange(m_trayCount, running))
        return; // a job's words changed, not the count
    m_tray->setToolTip(running == 0 ? tr("Signalbox: nothing running")
                                    : tr("Signalbox: %n running", nullptr, int(running)));
    QPixmap icon = QApplication::windowIcon().pixmap(64, 64);
    if (running > 0) { // the count, as a badge
        QPainter painter(&icon);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setBrush(QColor(0x00, 0x72, 0xb2));
        painter.setPen(Qt::NoPen);
        painter.drawEllipse(QRect(28, 28, 36, 36));
        painter.setPen(Qt::white);
        QFont font = painter.font();
        font.setPixelSize(24);
        font.setBold(true);
        painter.setFont(font);
        painter.drawText(QRect(28, 28, 36, 36), Qt::AlignCenter,
                         running > 99 ? u"99+"_s : QString::number(running));
    }
    m_tray->setIcon(QIcon(icon));
}

} // namespace sb
