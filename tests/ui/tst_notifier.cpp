// Desktop notifications of runs ending and stalling (a long wait shares the stall's check),
// through a real D-Bus daemon (a private `dbus-daemon --session` started here) to a notification
// server registered on it by this test (org.freedesktop.Notifications: no desktop's server runs
// here), on real local runs.
#include "Notifier.h"
#include "jobs/JobsModel.h"
#include "jobs/local/LocalBackend.h"

#include <QApplication>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

const QString kService = u"org.freedesktop.Notifications"_s;
const QString kPath = u"/org/freedesktop/Notifications"_s;

// The server side of the freedesktop notification spec, as much as Signalbox uses.
class NotificationServer final : public QObject {
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Notifications")
public:
    struct Shown {
        QString summary, body; // the summary without the isolate marks around it
        QStringList actions;
        QVariantMap hints;
        QString sent; // the summary as sent
    };
    QList<Shown> shown;

public Q_SLOTS:
    uint Notify(const QString &, uint, const QString &, const QString &summary, const QString &body,
                const QStringList &actions, const QVariantMap &hints, int) {
        QString plain = summary;
        plain.remove(QChar(0x2068)).remove(QChar(0x2069));
        shown.append({plain, body, actions, hints, summary});
        return static_cast<uint>(shown.size()) + 100;
    }
};

QString g_busAddress; // the private bus, started before the application
QProcess *g_bus = nullptr;

} // namespace

class TestNotifier final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(!g_busAddress.isEmpty(), "dbus-daemon did not start");
        m_connection = QDBusConnection::connectToBus(g_busAddress, u"server"_s);
        QVERIFY(m_connection.isConnected());
        QVERIFY(m_connection.registerService(kService));
        QVERIFY(m_connection.registerObject(kPath, &m_server, QDBusConnection::ExportAllSlots));
    }
    void runsEndingAndStalling();

private:
    QDBusConnection m_connection{u"none"_s};
    NotificationServer m_server;
};

void TestNotifier::runsEndingAndStalling() {
    QTemporaryDir dir;
    sb::LocalBackend local({dir.path(), 2000, {}});
    const auto old = local.submit({.name = u"old"_s, .command = {u"true"_s}});
    QTRY_VERIFY(sb::findJob(local.jobs(), *old)->finishedState());
    sb::BackendRegistry registry;
    sb::JobsModel jobs{&registry};
    registry.add(&local);
    sb::Notifier notifier(&jobs, {.waitMinutes = 1000, .stallMinutes = 0, .checkMs = 100});
    QSignalSpy notified(&notifier, &sb::Notifier::notified);
    QSignalSpy open(&notifier, &sb::Notifier::openRun);

    // A failure is said, urgently, with the way back to the run.
    const auto failing = local.submit(
        {.name = u"fails"_s, .command = {u"sh"_s, u"-c"_s, u"echo dying >&2; exit 3"_s}});
    QTRY_COMPARE(m_server.shown.size(), 1);
    const NotificationServer::Shown failed = m_server.shown.first();
    QCOMPARE(failed.summary, *failing + u" failed"_s);
    // Isolated for direction: a name's override reverses nothing after it.
    QCOMPARE(failed.sent, u"\u2068"_s + *failing + u" failed\u2069"_s);
    QVERIFY2(failed.body.contains(u"exit code 3"_s) || failed.body.contains(u"3"_s),
             qPrintable(failed.body));
    QCOMPARE(failed.hints.value(u"urgency"_s).toInt(), 2);
    QVERIFY(failed.actions.contains(u"default"_s));
    // Clicked: the notifier asks the window to show that run.
    QDBusMessage clicked = QDBusMessage::createSignal(kPath, kService, u"ActionInvoked"_s);
    clicked << uint(101) << u"default"_s;
    QVERIFY(m_connection.send(clicked));
    QTRY_COMPARE(open.size(), 1);
    QCOMPARE(open.first().at(0).toString(), u"local"_s);
    QCOMPARE(open.first().at(1).toString(), *failing);

    // A kind turned off says nothing; turned on again, it does.
    notifier.setEnabled(sb::Notifier::Kind::Succeeded, false);
    const auto quiet = local.submit({.name = u"quiet"_s, .command = {u"true"_s}});
    QTRY_VERIFY(sb::findJob(local.jobs(), *quiet)->finishedState());
    QTest::qWait(300);
    QCOMPARE(m_server.shown.size(), 1);
    notifier.setEnabled(sb::Notifier::Kind::Succeeded, true);
    const auto loud = local.submit({.name = u"loud"_s, .command = {u"true"_s}});
    QTRY_COMPARE(m_server.shown.size(), 2);
    QCOMPARE(m_server.shown.last().summary, *loud + u" succeeded"_s);

    // A run that printed and then went silent is said once (here at once: a 0-minute limit).
    const auto silent = local.submit(
        {.name = u"silent"_s, .command = {u"sh"_s, u"-c"_s, u"echo started; sleep 3"_s}});
    QTRY_VERIFY(std::any_of(m_server.shown.begin(), m_server.shown.end(), [&](const auto &s) {
        return s.summary == *silent + u" may have stalled"_s;
    }));
    QTest::qWait(400);
    QCOMPARE(std::count_if(m_server.shown.begin(), m_server.shown.end(),
                           [&](const auto &s) { return s.summary.startsWith(*silent); }),
             1);
    QVERIFY(local.stop(*silent));
    QTRY_VERIFY(std::any_of(m_server.shown.begin(), m_server.shown.end(), [&](const auto &s) {
        return s.summary == *silent + u" was stopped"_s;
    }));
    // The run from before this start was never news.
    QVERIFY(std::none_of(m_server.shown.begin(), m_server.shown.end(),
                         [&](const auto &s) { return s.summary.startsWith(*old); }));
    QCOMPARE(notified.size(), m_server.shown.size());
}

int main(int argc, char *argv[]) {
    // The bus first: the application must find it in its environment.
    QProcess bus;
    bus.start(u"dbus-daemon"_s, {u"--session"_s, u"--nofork"_s, u"--print-address=1"_s});
    if (bus.waitForStarted(5000) && bus.waitForReadyRead(5000))
        g_busAddress = QString::fromUtf8(bus.readLine()).trimmed();
    qputenv("DBUS_SESSION_BUS_ADDRESS", g_busAddress.toUtf8());
    g_bus = &bus;
    int result = 0;
    {
        QApplication app(argc, argv);
        TestNotifier test;
        result = QTest::qExec(&test, argc, argv);
    }
    bus.kill();
    bus.waitForFinished(3000);
    return result;
}

#include "tst_notifier.moc"
