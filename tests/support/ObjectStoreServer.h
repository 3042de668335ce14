#pragma once

// A real S3-compatible object store on loopback: versitygw (built from the Go module proxy by
// scripts/k8s-harness) serving a temporary directory, one bucket "code".
#include "code/ObjectStore.h"

#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QThread>

class ObjectStoreServer {
public:
    ObjectStoreServer() {
        QProcess harness;
        harness.start(QStringLiteral(SIGNALBOX_SOURCE_DIR "/scripts/k8s-harness"), {});
        harness.waitForFinished(1800000);
        const QList<QByteArray> lines = harness.readAllStandardOutput().trimmed().split('\n');
        if (harness.exitCode() != 0 || lines.isEmpty()) {
            m_error = QStringLiteral("scripts/k8s-harness failed: ") +
                      QString::fromUtf8(harness.readAllStandardError());
            return;
        }
        QTcpServer probe; // a free port
        probe.listen(QHostAddress::LocalHost);
        m_port = probe.serverPort();
        probe.close();
        QDir(m_root.path()).mkdir(QStringLiteral("code"));
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.start(QString::fromUtf8(lines.last()) + QStringLiteral("/versitygw-v1.8.0"),
                        {QStringLiteral("--access"), accessKey(), QStringLiteral("--secret"),
                         secretKey(), QStringLiteral("--port"),
                         QStringLiteral("127.0.0.1:%1").arg(m_port), QStringLiteral("posix"),
                         m_root.path()});
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 30000) {
            QTcpSocket socket;
            socket.connectToHost(QHostAddress::LocalHost, m_port);
            if (socket.waitForConnected(200))
                return;
            QThread::msleep(100);
        }
        m_error = QStringLiteral("versitygw did not start");
    }
    ~ObjectStoreServer() {
        m_process.terminate();
        m_process.waitForFinished(5000);
    }

    QString error() const { return m_error; }
    static QString accessKey() { return QStringLiteral("SIGNALBOXTESTKEY"); }
    static QString secretKey() { return QStringLiteral("signalbox/test+secret"); }
    sb::ObjectStoreConfig config() const {
        sb::ObjectStoreConfig config;
        config.endpoint = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_port));
        config.bucket = QStringLiteral("code");
        config.accessKey = accessKey();
        config.secretKey = secretKey();
        return config;
    }
    // Where the store keeps an object on disk.
    QString objectFile(const QString &key) const {
        return m_root.filePath(QStringLiteral("code/") + key);
    }

private:
    QTemporaryDir m_root;
    QProcess m_process;
    quint16 m_port = 0;
    QString m_error;
};
