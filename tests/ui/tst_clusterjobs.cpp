// Cluster jobs in the one jobs table, beside a run on this computer: the new-run dialog offers
// the kubeconfig's cluster with its own fields, the runs go through a real control plane
// (tests/harness/k8scluster.py) and the table shows their states and reasons. The table is saved
// as <build>/screenshots/jobs-cluster-and-local.png.
#include "../support/K8sCluster.h"
#include "JobsView.h"
#include "MainWindow.h"
#include "NewRunDialog.h"
#include "jobs/JobsModel.h"
#include "jobs/KubeBackend.h"
#include "jobs/LocalBackend.h"
#include "metrics/CollectorClient.h"
#include "metrics/EmbeddedCollector.h"
#include "monitor/NodeMonitor.h"

#include <QComboBox>
#include <QDir>
#include <QFormLayout>
#include <QLineEdit>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

class TestClusterJobs final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void dialogOffersTheCluster();
    void tableShowsClusterAndLocalRuns();
};

void TestClusterJobs::dialogOffersTheCluster() {
    sb::NewRunDialog dialog({}, {u"gpu-box"_s}, {u"lab"_s});
    auto *where = dialog.findChild<QComboBox *>(u"where"_s);
    auto *image = dialog.findChild<QLineEdit *>(u"image"_s);
    QVERIFY(where && image);
    QCOMPARE(where->count(), 4); // this computer, any node, the node, the cluster
    dialog.show();
    QVERIFY(!image->isVisible()); // this computer: no image
    where->setCurrentIndex(3);
    QVERIFY(image->isVisible());
    image->setText(u"pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime"_s);
    dialog.findChild<QLineEdit *>(u"command"_s)->setText(u"torchrun train.py --lr \"1e-3\""_s);
    dialog.findChild<QSpinBox *>(u"gpus"_s)->setValue(8);
    dialog.findChild<QSpinBox *>(u"workers"_s)->setValue(4);
    dialog.findChild<QLineEdit *>(u"memory"_s)->setText(u"64Gi"_s);
    const sb::JobSpec spec = dialog.spec();
    QCOMPARE(spec.backendName(), u"kubernetes"_s);
    QCOMPARE(spec.cluster, u"lab"_s);
    QCOMPARE(spec.node, QString());
    QCOMPARE(spec.image, u"pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime"_s);
    QCOMPARE(spec.command, QStringList({u"torchrun"_s, u"train.py"_s, u"--lr"_s, u"1e-3"_s}));
    QCOMPARE(spec.gpus, 8);
    QCOMPARE(spec.workers, 4);
    QCOMPARE(spec.memory, u"64Gi"_s);
    // Resubmitting a cluster run opens on its cluster.
    sb::NewRunDialog again(spec, {u"gpu-box"_s}, {u"lab"_s});
    QCOMPARE(again.spec().cluster, u"lab"_s);
    QCOMPARE(again.spec().workers, 4);
}

void TestClusterJobs::tableShowsClusterAndLocalRuns() {
    K8sCluster cluster;
    QVERIFY2(cluster.error().isEmpty(), qPrintable(cluster.error()));
    auto context = cluster.context(u"cert"_s);
    QVERIFY2(context, qPrintable(context.error()));
    context.value().name = u"lab"_s;

    QTemporaryDir dir;
    sb::Collector::Options options;
    options.dataDir = dir.filePath(u"collector"_s);
    auto embedded = sb::EmbeddedCollector::start(options);
    QVERIFY2(embedded, qPrintable(embedded.error()));
    sb::CollectorClient client((*embedded)->url(), {});
    sb::LocalBackend local({dir.path(), 10000, {}});
    sb::KubeBackend kube({});
    kube.addCluster(*context);
    sb::JobsModel jobs;
    jobs.addBackend(&local);
    jobs.addBackend(&kube);
    sb::NodeMonitor monitor;
    sb::MainWindow window(&client, &jobs, &monitor, dir.filePath(u"config.yaml"_s));
    window.resize(1400, 700);
    window.showView(u"jobs"_s);
    window.show();

    sb::JobSpec run;
    run.name = u"baseline on this laptop"_s;
    run.command = {u"sh"_s, u"-c"_s, u"echo step 1 loss 0.9; sleep 60"_s};
    QVERIFY(local.submit(run));
    sb::JobSpec spec;
    spec.cluster = u"lab"_s;
    spec.image = u"pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime"_s;
    spec.command = {u"torchrun"_s, u"train.py"_s, u"--lr"_s, u"3e-4"_s};
    spec.gpus = 8;
    spec.name = u"ddp 2x8 H100"_s;
    spec.workers = 2;
    spec.environment[u"HARNESS_RUN"_s] = u"600s"_s;
    auto ddp = kube.submit(spec);
    spec.name = u"lr sweep 1e-3"_s;
    spec.workers = 1;
    spec.gpus = 1;
    spec.environment[u"HARNESS_RUN"_s] = u"1s"_s;
    auto small = kube.submit(spec);
    spec.name = u"too big"_s;
    spec.gpus = 16;
    auto big = kube.submit(spec);
    QVERIFY(ddp && small && big);

    auto stateOf = [&](const QString &id) {
        for (const sb::Job &job : kube.jobs()) {
            if (job.id == id)
                return job;
        }
        return sb::Job{};
    };
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(*ddp).state, sb::JobState::Running, 60000);
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(*small).state, sb::JobState::Succeeded, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(stateOf(*big).message.startsWith(u"unschedulable"_s), 60000);
    QCOMPARE(jobs.rowCount(), 4);
    QStringList backends;
    for (int row = 0; row < jobs.rowCount(); ++row)
        backends << jobs.data(jobs.index(row, sb::JobsModel::Backend)).toString();
    QCOMPARE(backends.count(u"kubernetes"_s), 3);
    QCOMPARE(backends.count(u"local"_s), 1);

    const QString shots = QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots"_s;
    QDir().mkpath(shots);
    QVERIFY(window.grab().save(shots + u"/jobs-cluster-and-local.png"_s));
    QVERIFY(kube.stop(*ddp));
    for (const sb::Job &job : local.jobs())
        (void)local.stop(job.id);
}

QTEST_MAIN(TestClusterJobs)
#include "tst_clusterjobs.moc"
