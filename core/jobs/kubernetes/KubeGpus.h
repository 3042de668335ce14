#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

namespace sb {

// A cluster's GPUs as its API server accounts for them: what researchers weigh before
// submitting, and what the dashboard shows beside the SSH nodes.
struct KubeGpuNode {
    QString name;
    QString product;         // the nvidia.com/gpu.product label; empty when the node has none
    int allocatable = 0;     // nvidia.com/gpu
    int allocated = 0;       // requested by the pods bound to it that have not ended
    bool schedulable = true; // Ready and not cordoned
};
struct KueueQueue {
    QString name;
    int quota = 0; // nominal nvidia.com/gpu over its flavors
    int used = 0;  // in use by admitted workloads
    int pending = 0;
    int admitted = 0;
};
struct KubeGpuInventory {
    QList<KubeGpuNode> nodes; // only nodes with GPUs
    bool kueue = false;       // ClusterQueues could be listed
    QList<KueueQueue> queues;
    // "H100: 9 of 16 free on 2 nodes · queue team-a: 8 of 16 GPUs in use, 1 waiting"
    QString summary() const;
};

// GPUs a pod asks for: its containers' nvidia.com/gpu (limits, else requests), summed, or its
// largest init container's if that is more (they run one at a time, before the others).
int podGpus(const QJsonObject &pod);
// From a NodeList and a PodList (the pods that have not ended) as the API server sends them.
QList<KubeGpuNode> kubeGpuNodes(const QJsonObject &nodes, const QJsonObject &pods);
// From Kueue's ClusterQueueList (kueue.x-k8s.io/v1beta1).
QList<KueueQueue> kueueQueues(const QJsonObject &clusterQueues);

} // namespace sb
