// libFuzzer target: arbitrary bytes as a kubeconfig (every context resolved) and as a Job or Pod
// object from a hostile or broken API server (turned into a jobs-table row). Either gives a
// clear error or a row, and never crashes.
#include "jobs/kubernetes/KubeGpus.h"
#include "jobs/kubernetes/KubeJobs.h"
#include "kube/KubeConfig.h"
#include "kube/KubeExec.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cstddef>
#include <cstdint>

using namespace Qt::StringLiterals;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const QByteArray bytes(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    if (auto config = sb::KubeConfig::parse(bytes, u"/fuzz/kubeconfig"_s)) {
        for (const auto &[name, context] : config->contexts)
            (void)config->context(name);
    }
    const QJsonDocument json = QJsonDocument::fromJson(bytes);
    const QJsonObject object = json.isArray() ? json.array().first().toObject() : json.object();
    QList<QJsonObject> pods;
    if (json.isArray()) {
        for (const QJsonValue pod : json.array())
            pods << pod.toObject();
    }
    const sb::Job job = sb::jobFromKube(object, pods, u"fuzz"_s);
    (void)job.toJson();
    // The same bytes as the GPU inventory's lists and an exec status channel.
    (void)sb::podGpus(object);
    (void)sb::kubeGpuNodes(object, object);
    (void)sb::kueueQueues(object);
    (void)sb::kubeExecExitCode(bytes);
    return 0;
}
