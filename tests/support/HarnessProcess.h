#pragma once

// A test harness script of tests/harness/ run as a child process: it prints one JSON line
// describing what it started, then answers commands on stdin ("ok" or "error: ..."); closing
// its stdin stops everything it started.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

class HarnessProcess {
public:
    HarnessProcess(const QString &script, const QStringList &args, int startMs = 60000) {
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.start(QStringLiteral("python3"),
                        QStringList{QStringLiteral(SIGNALBOX_SOURCE_DIR "/tests/harness/") + script,
                                    m_dir.path()} +
                            args);
        if (!readLine(startMs)) {
            m_error = script + QStringLiteral(" did not start: ") + m_process.errorString();
            return;
        }
        m_description = QJsonDocument::fromJson(m_process.readLine()).object();
        if (m_description.isEmpty())
            m_error = script + QStringLiteral(" printed no description");
    }
    ~HarnessProcess() {
        m_process.closeWriteChannel();
        if (!m_process.waitForFinished(30000))
            m_process.kill();
    }
    HarnessProcess(const HarnessProcess &) = delete;
    HarnessProcess &operator=(const HarnessProcess &) = delete;

    QString error() const { return m_error; }
    const QJsonObject &description() const { return m_description; }
    QString dir() const { return m_dir.path(); }

    // Sends a command and waits for its answer; true on "ok".
    bool command(const QString &line, int timeoutMs = 120000) {
        m_process.write(line.toUtf8() + '\n');
        return readLine(timeoutMs) && m_process.readLine().trimmed() == "ok";
    }

private:
    bool readLine(int timeoutMs) {
        while (!m_process.canReadLine()) {
            if (!m_process.waitForReadyRead(timeoutMs))
                return false;
        }
        return true;
    }

    QTemporaryDir m_dir;
    QProcess m_process;
    QJsonObject m_description;
    QString m_error;
};
