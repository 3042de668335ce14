#pragma once

#include "MainWindow.h"
#include "client/CollectorClient.h"
#include "collector/EmbeddedCollector.h"
#include "jobs/JobsModel.h"
#include "metrics/RunColors.h"
#include "monitor/NodeMonitor.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>

// A window's parts around a collector of their own (embedded, in a temporary data dir), with
// the curves view shown: a fresh start for each test of the curves.
struct WindowFixture {
    QTemporaryDir dir;
    std::unique_ptr<sb::EmbeddedCollector> embedded;
    std::unique_ptr<sb::CollectorClient> client;
    sb::BackendRegistry registry;
    sb::JobsModel jobs{&registry};
    sb::NodeMonitor monitor;
    WindowFixture() {
        QSettings().remove(QStringLiteral("curves"));
        QSettings().remove(QStringLiteral("remembered"));
        if (!sb::RunColors::shared().load(dir.filePath(QStringLiteral("run-colors.json"))))
            qFatal("cannot keep run colours");
        sb::Collector::Options options;
        options.dataDir = dir.path() + QStringLiteral("/collector");
        auto started = sb::EmbeddedCollector::start(options);
        if (!started)
            qFatal("no collector: %s", qPrintable(started.error()));
        embedded = std::move(started).value();
        client = std::make_unique<sb::CollectorClient>(embedded->url(), embedded->token());
    }
    // A push body, stored before it returns; false if the collector refused it.
    bool push(const QJsonObject &body) {
        std::optional<bool> stored;
        client->push(QJsonDocument(body).toJson(), client.get(),
                     [&stored](const sb::Result<qint64> &reply) { stored = reply.ok(); });
        return QTest::qWaitFor([&stored] { return stored.has_value(); }) && *stored;
    }
    std::unique_ptr<sb::MainWindow> window() {
        auto made = std::make_unique<sb::MainWindow>(
            client.get(), &jobs, &monitor, dir.path() + QStringLiteral("/signalbox.yaml"));
        made->resize(1400, 860);
        made->show();
        if (!QTest::qWaitForWindowExposed(made.get()))
            qFatal("the window was never shown");
        made->showView(QStringLiteral("curves"));
        return made;
    }
};
