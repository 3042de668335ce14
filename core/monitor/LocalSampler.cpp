#include "LocalSampler.h"

#include "SampleScript.h"

#include <QDateTime>
#include <QProcess>

namespace sb {

using namespace Qt::StringLiterals;

LocalSampler::LocalSampler(QString procRoot, int intervalMs, QString nvidiaSmi)
    : m_procRoot(std::move(procRoot))
    , m_nvidiaSmi(nvidiaSmi.isEmpty() ? u"nvidia-smi"_s : std::move(nvidiaSmi)) {
    m_timer.setParent(this); // moves to the worker thread with us
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, [this] { Q_EMIT sampled(sampleNow()); });
}

void LocalSampler::start() {
    m_timer.start();
    Q_EMIT sampled(sampleNow());
}

NodeSample LocalSampler::sampleNow() {
    // The script a remote node runs in a loop, run here once: the same sections, the same parsers.
    const QStringList command = SampleScript::command(0, m_nvidiaSmi, m_procRoot);
    QProcess script;
    script.setProcessChannelMode(QProcess::SeparateChannels);
    script.start(command.front(), command.mid(1));
    NodeSample failed;
    failed.time = static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    if (!script.waitForFinished(10000)) {
        script.kill();
        script.waitForFinished(1000);
        failed.error = u"sampling this computer did not finish within 10 s"_s;
        return failed;
    }
    SampleFrameReader reader;
    reader.feed(script.readAllStandardOutput());
    const auto frame = reader.next();
    if (!frame) {
        failed.error = u"the sampling script failed: %1"_s.arg(
            QString::fromLocal8Bit(script.readAllStandardError()).trimmed());
        return failed;
    }
    return m_builder.build(*frame);
}

} // namespace sb
