#include "KubeGpus.h"

#include <QHash>
#include <QJsonArray>
#include <QMap>

#include <algorithm>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

const QString kGpu = u"nvidia.com/gpu"_s;

// A quantity of whole devices ("8"); anything else (a fraction, garbage) counts as none.
int devices(const QJsonValue &quantity) {
    bool ok = false;
    const int n = quantity.isDouble() ? quantity.toInt() : quantity.toString().toInt(&ok);
    return quantity.isDouble() || ok ? std::clamp(n, 0, 1 << 20) : 0;
}

int containerGpus(const QJsonObject &container) {
    const QJsonObject resources = container.value(u"resources"_s).toObject();
    const QJsonValue limit = resources.value(u"limits"_s).toObject().value(kGpu);
    return devices(limit.isUndefined() ? resources.value(u"requests"_s).toObject().value(kGpu)
                                       : limit);
}

} // namespace

int podGpus(const QJsonObject &pod) {
    const QJsonObject spec = pod.value(u"spec"_s).toObject();
    int sum = 0;
    for (const QJsonValue c : spec.value(u"containers"_s).toArray())
        sum += containerGpus(c.toObject());
    int init = 0;
    for (const QJsonValue c : spec.value(u"initContainers"_s).toArray())
        init = std::max(init, containerGpus(c.toObject()));
    return std::max(sum, init);
}

QList<KubeGpuNode> kubeGpuNodes(const QJsonObject &nodes, const QJsonObject &pods) {
    QHash<QString, int> allocated;
    for (const QJsonValue value : pods.value(u"items"_s).toArray()) {
        const QJsonObject pod = value.toObject();
        const QString phase = pod.value(u"status"_s).toObject().value(u"phase"_s).toString();
        const QString node = pod.value(u"spec"_s).toObject().value(u"nodeName"_s).toString();
        if (!node.isEmpty() && phase != u"Succeeded"_s && phase != u"Failed"_s)
            allocated[node] += podGpus(pod);
    }
    QList<KubeGpuNode> gpuNodes;
    for (const QJsonValue value : nodes.value(u"items"_s).toArray()) {
        const QJsonObject node = value.toObject();
        const QJsonObject metadata = node.value(u"metadata"_s).toObject();
        const QJsonObject status = node.value(u"status"_s).toObject();
        KubeGpuNode gpus;
        gpus.name = metadata.value(u"name"_s).toString();
        gpus.allocatable = devices(status.value(u"allocatable"_s).toObject().value(kGpu));
        if (gpus.allocatable == 0)
            continue;
        gpus.product =
            metadata.value(u"labels"_s).toObject().value(kGpu + u".product"_s).toString();
        gpus.allocated = allocated.value(gpus.name);
        bool ready = false;
        for (const QJsonValue c : status.value(u"conditions"_s).toArray())
            if (c[u"type"_s].toString() == u"Ready"_s)
                ready = c[u"status"_s].toString() == u"True"_s;
        gpus.schedulable =
            ready && !node.value(u"spec"_s).toObject().value(u"unschedulable"_s).toBool();
        gpuNodes << gpus;
    }
    std::sort(gpuNodes.begin(), gpuNodes.end(),
              [](const auto &a, const auto &b) { return a.name < b.name; });
    return gpuNodes;
}

QList<KueueQueue> kueueQueues(const QJsonObject &clusterQueues) {
    QList<KueueQueue> queues;
    for (const QJsonValue value : clusterQueues.value(u"items"_s).toArray()) {
        const QJsonObject queue = value.toObject();
        KueueQueue q;
        q.name = queue.value(u"metadata"_s).toObject().value(u"name"_s).toString();
        const QJsonObject spec = queue.value(u"spec"_s).toObject();
        for (const QJsonValue group : spec.value(u"resourceGroups"_s).toArray())
            for (const QJsonValue flavor : group[u"flavors"_s].toArray())
                for (const QJsonValue resource : flavor[u"resources"_s].toArray())
                    if (resource[u"name"_s].toString() == kGpu)
                        q.quota += devices(resource[u"nominalQuota"_s]);
        const QJsonObject status = queue.value(u"status"_s).toObject();
        for (const QJsonValue flavor : status.value(u"flavorsUsage"_s).toArray())
            for (const QJsonValue resource : flavor[u"resources"_s].toArray())
                if (resource[u"name"_s].toString() == kGpu)
                    q.used += devices(resource[u"total"_s]);
        q.pending = status.value(u"pendingWorkloads"_s).toInt();
        q.admitted = status.value(u"admittedWorkloads"_s).toInt();
        queues << q;
    }
    return queues;
}

QString KubeGpuInventory::summary() const {
    struct Product {
        int free = 0, total = 0, nodes = 0;
    };
    QMap<QString, Product> products;
    for (const KubeGpuNode &node : nodes) {
        Product &p = products[node.product.isEmpty() ? u"GPU"_s : node.product];
        p.total += node.allocatable;
        p.free += node.schedulable ? std::max(0, node.allocatable - node.allocated) : 0;
        ++p.nodes;
    }
    QStringList parts;
    for (auto it = products.begin(); it != products.end(); ++it)
        parts << u"%1: %2 of %3 free on %4 node%5"_s.arg(it.key())
                     .arg(it->free)
                     .arg(it->total)
                     .arg(it->nodes)
                     .arg(it->nodes == 1 ? QString() : u"s"_s);
    if (parts.isEmpty())
        parts << u"no GPU nodes"_s;
    for (const KueueQueue &q : queues)
        parts << u"queue %1: %2 of %3 GPUs in use%4"_s.arg(q.name).arg(q.used).arg(q.quota).arg(
            q.pending > 0 ? u", %1 waiting"_s.arg(q.pending) : QString());
    return parts.join(u" · "_s);
}

} // namespace sb
