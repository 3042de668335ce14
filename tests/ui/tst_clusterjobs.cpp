// Cluster jobs in the one jobs table, beside a run on this computer: the new-run dialog offers
// the kubeconfig's cluster with its own fields, the runs go through a real control plane
// (tests/harness/k8scluster.py) and the table shows their states and reasons. The table is saved
// as <build>/screenshots/jobs-cluster-and-local.png.
#include "../support/K8sCluster.h"
#include "../support/SshNodes.h"
#include "FleetTable.h"
#include "JobsView.h"
#include "MainWindow.h"
#include "NewRunDialog.h"
#include "NodesView.h"
#include "client/CollectorClient.h"
#include "collector/EmbeddedCollector.h"
#include "fleet/ClusterGpuWatch.h"
#include "jobs/JobsModel.h"
#include "jobs/kubernetes/KubeBackend.h"
#include "jobs/local/LocalBackend.h"
#include "jobs/slurm/SlurmBackend.h"
#include "jobs/ssh/SshBackend.h"
#include "monitor/NodeMonitor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

class TestClusterJobs final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void dialogOffersTheCluster();
    void dialogOffersASlurmCluster();
    void dialogChecksTheManifestWithTheApiServer();
    void dialogPacksTheCodeBeforeRun();
    void tableShowsClusterAndLocalRuns();

private:
    std::unique_ptr<K8sCluster> m_cluster;
    std::unique_ptr<sb::KubeBackend> m_kube;
    sb::BackendRegistry m_backends; // the cluster's, for the New-run dialog
};

void TestClusterJobs::initTestCase() {
    qRegisterMetaType<sb::Job>();
    m_cluster = std::make_unique<K8sCluster>();
    auto context = m_cluster->context(u"cert"_s);
    QVERIFY2(context, qPrintable(context.error()));
    context.value().name = u"lab"_s;
    sb::JobTemplate h100;
    h100.name = u"h100"_s;
    h100.nodeSelector = {{u"nvidia.com/gpu.product"_s, u"H100"_s}};
    m_kube = std::make_unique<sb::KubeBackend>(sb::KubeBackend::Options{{}, false, {h100}});
    m_kube->addCluster(*context);
    m_backends.add(m_kube.get());
}

void TestClusterJobs::dialogOffersTheCluster() {
    sb::NewRunDialog dialog({}, {u"gpu-box"_s}, &m_backends);
    auto *where = dialog.findChild<QComboBox *>(u"where"_s);
    auto *image = dialog.findChild<QLineEdit *>(u"image"_s);
    QVERIFY(where && image);
    QCOMPARE(where->count(), 4); // this computer, any node, the node, the cluster
    dialog.show();
    QVERIFY(!image->isVisible()); // this computer: no image
    QVERIFY(!dialog.findChild<QPushButton *>(u"showManifest"_s)->isVisible());
    where->setCurrentIndex(3);
    QVERIFY(image->isVisible());
    image->setText(u"pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime"_s);
    dialog.findChild<QLineEdit *>(u"command"_s)->setText(u"torchrun train.py --lr \"1e-3\""_s);
    dialog.findChild<QSpinBox *>(u"gpus"_s)->setValue(8);
    dialog.findChild<QSpinBox *>(u"workers"_s)->setValue(4);
    dialog.findChild<QCheckBox *>(u"tfConfig"_s)->setChecked(true);
    dialog.findChild<QLineEdit *>(u"memory"_s)->setText(u"64Gi"_s);
    dialog.findChild<QComboBox *>(u"template"_s)->setCurrentIndex(1);
    dialog.findChild<QSpinBox *>(u"retries"_s)->setValue(2);
    dialog.findChild<QSpinBox *>(u"deadline"_s)->setValue(90);
    dialog.findChild<QLineEdit *>(u"failCodes"_s)->setText(u"2, 42"_s);
    dialog.findChild<QSpinBox *>(u"ttl"_s)->setValue(60);
    const sb::JobSpec spec = dialog.spec();
    QCOMPARE(spec.target, u"lab"_s);
    QCOMPARE(spec.backend, u"kubernetes"_s);
    QCOMPARE(spec.kube.image, u"pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime"_s);
    QCOMPARE(spec.command, QStringList({u"torchrun"_s, u"train.py"_s, u"--lr"_s, u"1e-3"_s}));
    QCOMPARE(spec.gpus, 8);
    QCOMPARE(spec.workers, 4);
    QVERIFY(spec.kube.tfConfig);
    QCOMPARE(spec.kube.memory, u"64Gi"_s);
    QCOMPARE(spec.kube.jobTemplate, u"h100"_s);
    QCOMPARE(spec.kube.backoffLimit, 2);
    QCOMPARE(spec.kube.deadlineSeconds, 5400);
    QCOMPARE(spec.kube.failExitCodes, QList<int>({2, 42}));
    QCOMPARE(spec.kube.ttlSeconds, 3600);
    // Resubmitting a cluster run opens on its cluster, with everything it had.
    sb::NewRunDialog again(spec, {u"gpu-box"_s}, &m_backends);
    QCOMPARE(again.spec().toJson(), spec.toJson());
}

// A Slurm cluster beside the Kubernetes one: its own fields, and the batch script they become.
void TestClusterJobs::dialogOffersASlurmCluster() {
    QTemporaryDir data;
    sb::NodeMonitor monitor;
    sb::SlurmBackend slurm(&monitor, {data.path(), 60000});
    slurm.setClusters({{.name = u"hpc"_s, .login = u"login"_s, .account = u"lab-ml"_s}});
    sb::BackendRegistry withSlurm;
    withSlurm.add(m_kube.get());
    withSlurm.add(&slurm);
    sb::NewRunDialog dialog({}, {}, &withSlurm);
    auto *where = dialog.findChild<QComboBox *>(u"where"_s);
    auto *partition = dialog.findChild<QLineEdit *>(u"partition"_s);
    auto *script = dialog.findChild<QPlainTextEdit *>(u"batchScript"_s);
    QVERIFY(where && partition && script);
    QCOMPARE(where->itemText(2), u"Slurm cluster hpc"_s);
    dialog.show();
    QVERIFY(!partition->isVisible() && !script->isVisible());
    where->setCurrentIndex(2);
    QVERIFY(partition->isVisible() && script->isVisible());
    QVERIFY(!dialog.findChild<QLineEdit *>(u"image"_s)->isVisible());
    dialog.findChild<QLineEdit *>(u"command"_s)->setText(u"python3 train.py --note \"it's\""_s);
    partition->setText(u"h100"_s);
    dialog.findChild<QLineEdit *>(u"timeLimit"_s)->setText(u"4:00:00"_s);
    dialog.findChild<QSpinBox *>(u"gpus"_s)->setValue(4);
    dialog.findChild<QSpinBox *>(u"workers"_s)->setValue(2);
    const sb::JobSpec spec = dialog.spec();
    QCOMPARE(spec.backend, u"slurm"_s);
    QCOMPARE(spec.target, u"hpc"_s);
    QCOMPARE(spec.slurm.partition, u"h100"_s);
    QCOMPARE(spec.workers, 2);
    for (const QString &line :
         {u"#SBATCH --partition=h100"_s, u"#SBATCH --account=lab-ml"_s, u"#SBATCH --time=4:00:00"_s,
          u"#SBATCH --nodes=2"_s, u"#SBATCH --gpus-per-node=4"_s, u"exec srun"_s,
          u"python3 train.py --note 'it'\\''s'"_s})
        QVERIFY2(script->toPlainText().contains(line), qPrintable(script->toPlainText()));
    partition->setText(u"h100 --uid=0"_s); // the script says why it cannot be
    QVERIFY2(script->toPlainText().startsWith(u"# partition: "_s),
             qPrintable(script->toPlainText()));
    // Run asks the cluster first; here the script itself is refused, and the dialog stays open.
    dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
    auto *verdict = dialog.findChild<QLabel *>(u"verdict"_s);
    QTRY_VERIFY(verdict->isVisible() &&
                verdict->text().startsWith(u"The cluster would refuse it: partition"_s));
    QVERIFY(dialog.isVisible() && dialog.result() != QDialog::Accepted);
    sb::NewRunDialog again(spec, {}, &withSlurm);
    QCOMPARE(again.spec().toJson(), spec.toJson());

    // The cluster's free GPUs are asked for; without a login node it says so.
    auto *state = dialog.findChild<QLabel *>(u"clusterState"_s);
    QVERIFY(state->isVisible());
    QTRY_VERIFY2(state->text().contains(u"did not say"_s), qPrintable(state->text()));
    // A dependency, and code copied to the cluster.
    partition->setText(u"h100"_s);
    dialog.findChild<QLineEdit *>(u"dependency"_s)->setText(u"afterok:12"_s);
    QVERIFY(script->toPlainText().contains(u"#SBATCH --dependency=afterok:12\n"_s));
    QCOMPARE(dialog.spec().slurm.dependency, u"afterok:12"_s);
    // The script edited by hand goes as written, and the form no longer rewrites it.
    const QString mine = u"#!/bin/bash\n#SBATCH --exclusive\nsrun python3 train.py\n"_s;
    script->setPlainText(mine);
    partition->setText(u"a100"_s);
    QCOMPARE(script->toPlainText(), mine);
    QCOMPARE(dialog.spec().slurm.script, mine);
    sb::NewRunDialog edited(dialog.spec(), {}, &withSlurm); // resubmitted as edited
    QCOMPARE(edited.findChild<QPlainTextEdit *>(u"batchScript"_s)->toPlainText(), mine);
    QCOMPARE(edited.spec().slurm.script, mine);
    auto *reset = [&] {
        for (auto *button : dialog.findChildren<QPushButton *>()) {
            if (button->text() == u"Reset to the form"_s)
                return button;
        }
        return static_cast<QPushButton *>(nullptr);
    }();
    QVERIFY(reset && reset->isVisible());
    reset->click();
    QVERIFY(script->toPlainText().contains(u"#SBATCH --partition=a100\n"_s));
    QVERIFY(dialog.spec().slurm.script.isEmpty());
}

void TestClusterJobs::dialogChecksTheManifestWithTheApiServer() {
    sb::JobSpec preset;
    preset.backend = sb::BackendName::kKubernetes;
    preset.target = u"lab"_s;
    preset.name = u"checked"_s;
    preset.kube.image = u"python:3.12-slim"_s;
    preset.command = {u"python3"_s, u"train.py"_s};
    preset.kube.memory = u"lots"_s; // not a quantity
    sb::NewRunDialog dialog(preset, {}, &m_backends);
    dialog.show();
    auto *manifest = dialog.findChild<QPlainTextEdit *>(u"manifest"_s);
    auto *verdict = dialog.findChild<QLabel *>(u"verdict"_s);
    QVERIFY(!manifest->isVisible());
    dialog.findChild<QPushButton *>(u"showManifest"_s)->click();
    QVERIFY(manifest->isVisible());
    QVERIFY2(manifest->toPlainText().contains(u"kind: Job"_s), qPrintable(manifest->toPlainText()));
    QVERIFY(manifest->toPlainText().contains(u"memory: lots"_s));
    auto run = [&] {
        dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
    };
    run();
    QTRY_VERIFY_WITH_TIMEOUT(verdict->text().startsWith(u"The API server refused it"_s), 30000);
    QVERIFY2(verdict->text().contains(u"quantities"_s), qPrintable(verdict->text()));
    QVERIFY(dialog.isVisible()); // still open, nothing lost
    QVERIFY(dialog.draft().accepted.value<sb::KubeManifests>().objects.isEmpty());

    // The form drives the manifest until it is edited by hand; then the edit is what runs.
    dialog.findChild<QLineEdit *>(u"memory"_s)->setText(u"4Gi"_s);
    QVERIFY(manifest->toPlainText().contains(u"memory: 4Gi"_s));
    const QString shots = QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots"_s;
    QDir().mkpath(shots);
    dialog.resize(760, 1000);
    QVERIFY(dialog.grab().save(shots + u"/new-run-cluster-manifest.png"_s));
    QString text = manifest->toPlainText();
    text.replace(u"restartPolicy: Never"_s, u"restartPolicy: Never\n      hostname: edited"_s);
    manifest->setPlainText(text);
    dialog.findChild<QLineEdit *>(u"memory"_s)->setText(u"8Gi"_s);
    QVERIFY(manifest->toPlainText().contains(u"hostname: edited"_s));
    manifest->setPlainText(u"kind: [Job"_s);
    run(); // parsed off the GUI thread
    QTRY_VERIFY2(verdict->text().startsWith(u"The manifest:1: "_s), qPrintable(verdict->text()));
    manifest->setPlainText(text);
    run();
    QTRY_VERIFY2_WITH_TIMEOUT(dialog.result() == QDialog::Accepted, qPrintable(verdict->text()),
                              30000);
    const auto accepted = dialog.draft().accepted.value<sb::KubeManifests>();
    QCOMPARE(accepted.objects.size(), 1);
    QCOMPARE(accepted.objects[0][u"spec"_s][u"template"_s][u"spec"_s][u"hostname"_s].toString(),
             u"edited"_s);
    const auto id = m_kube->submitManifests(dialog.spec(), accepted);
    QVERIFY2(id, qPrintable(id.error()));
    auto jobOf = [&](const QString &name) {
        for (const sb::Job &job : m_kube->jobs()) {
            if (job.id == name)
                return job;
        }
        return sb::Job{};
    };
    QTRY_COMPARE_WITH_TIMEOUT(jobOf(*id).state, sb::JobState::Succeeded, 60000);
    QCOMPARE(jobOf(*id).spec.name, u"checked"_s);
}

void TestClusterJobs::dialogPacksTheCodeBeforeRun() {
    QTemporaryDir project;
    QFile script(project.filePath(u"train.py"_s));
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write("print('hi')\n");
    script.close();
    sb::JobSpec preset;
    preset.backend = sb::BackendName::kKubernetes;
    preset.target = u"lab"_s;
    preset.kube.image = u"python:3.12-slim"_s;
    preset.command = {u"python3"_s, u"train.py"_s};
    preset.codeDirectory = project.path();
    sb::NewRunDialog dialog(preset, {}, &m_backends);
    dialog.show();
    auto *status = dialog.findChild<QLabel *>(u"codeStatus"_s);
    auto *manifest = dialog.findChild<QPlainTextEdit *>(u"manifest"_s);
    QVERIFY(status && status->isVisible());
    // Packed on a thread of the backend's: the dialog says so meanwhile, then what went in.
    QTRY_VERIFY_WITH_TIMEOUT(status->text().startsWith(u"1 file, "_s), 30000);
    QVERIFY2(status->text().contains(u"into a ConfigMap"_s), qPrintable(status->text()));
    QVERIFY2(manifest->toPlainText().contains(u"signalbox-code-"_s),
             qPrintable(manifest->toPlainText()));
    // Run with another directory typed in and never left: packed first, then checked.
    QDir().mkpath(project.filePath(u"sub"_s));
    QFile other(project.filePath(u"sub/eval.py"_s));
    QVERIFY(other.open(QIODevice::WriteOnly));
    other.write("print('eval')\n");
    other.close();
    const QString firstManifest = manifest->toPlainText();
    QLineEdit *code = nullptr;
    for (auto *edit : dialog.findChildren<QLineEdit *>()) {
        if (edit->text() == project.path())
            code = edit;
    }
    QVERIFY(code);
    code->setText(project.filePath(u"sub"_s));
    dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
    QTRY_VERIFY_WITH_TIMEOUT(dialog.result() == QDialog::Accepted, 30000);
    const QList<QJsonObject> accepted = dialog.draft().accepted.value<sb::KubeManifests>().objects;
    QCOMPARE(accepted.size(), 1);
    const QString configMap =
        accepted[0][u"spec"_s][u"template"_s][u"spec"_s][u"volumes"_s][1][u"configMap"_s][u"name"_s]
            .toString();
    QVERIFY2(configMap.startsWith(u"signalbox-code-"_s) && !firstManifest.contains(configMap),
             qPrintable(configMap));
}

void TestClusterJobs::tableShowsClusterAndLocalRuns() {
    sb::KubeBackend &kube = *m_kube;
    QTemporaryDir dir;
    sb::Collector::Options options;
    options.dataDir = dir.filePath(u"collector"_s);
    auto embedded = sb::EmbeddedCollector::start(options);
    QVERIFY2(embedded, qPrintable(embedded.error()));
    sb::CollectorClient client((*embedded)->url(), (*embedded)->token());
    sb::LocalBackend local({dir.path(), 10000, {}});
    // An SSH node with a free H100 (a real sshd on loopback replaying captured nvidia-smi).
    SshNodes nodes({u"gpu=linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt@free"_s});
    QVERIFY2(nodes.error().isEmpty() && nodes.trustAll(), qPrintable(nodes.error()));
    sb::NodeMonitor monitor({nodes.knownHostsFile()});
    monitor.setNodes({nodes.config(u"gpu"_s)});
    sb::SshBackend ssh(&monitor, {dir.filePath(u"ssh"_s), 2000, 300, {}});
    sb::BackendRegistry registry;
    sb::JobsModel jobs{&registry};
    registry.add(&local);
    registry.add(&ssh);
    registry.add(&kube);
    sb::MainWindow window(&client, &jobs, &monitor, dir.filePath(u"config.yaml"_s));
    window.resize(1400, 700);
    window.showView(u"jobs"_s);
    window.show();

    sb::JobSpec run;
    run.name = u"baseline on this laptop"_s;
    run.command = {u"sh"_s, u"-c"_s, u"echo step 1 loss 0.9; sleep 60"_s};
    QVERIFY(local.submit(run));
    sb::JobSpec onNode;
    onNode.name = u"lr 3e-4 on the lab box"_s;
    onNode.backend = sb::BackendName::kSsh;
    onNode.target = u"gpu"_s;
    onNode.gpus = 1;
    onNode.command = {u"sh"_s, u"-c"_s, u"echo step 1 loss 0.8; sleep 60"_s};
    const auto nodeRun = ssh.submit(onNode);
    QVERIFY2(nodeRun, qPrintable(nodeRun.error()));
    sb::JobSpec spec;
    spec.backend = sb::BackendName::kKubernetes;
    spec.target = u"lab"_s;
    spec.kube.image = u"pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime"_s;
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
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            for (const sb::Job &job : ssh.jobs()) {
                if (job.id == *nodeRun)
                    return job.state == sb::JobState::Running;
            }
            return false;
        }(),
        60000);
    QCOMPARE(jobs.rowCount(), 6); // with the one the dialog test submitted
    QStringList backends;
    for (int row = 0; row < jobs.rowCount(); ++row)
        backends << jobs.data(jobs.index(row, sb::JobsModel::Backend)).toString();
    QCOMPARE(backends.count(u"kubernetes"_s), 4);
    QCOMPARE(backends.count(u"local"_s), 1);
    QCOMPARE(backends.count(u"ssh"_s), 1);

    const QString shots = QStringLiteral(SIGNALBOX_BINARY_DIR) + u"/screenshots"_s;
    QDir().mkpath(shots);
    QVERIFY(window.grab().save(shots + u"/jobs-cluster-and-local.png"_s));

    // The dashboard: the cluster's free GPUs under the fleet's sentence, and the running DDP
    // job's GPUs read inside its two pods as rows of the compact view.
    sb::ClusterGpuWatch clusterGpus({&kube}, 1000);
    window.nodes()->setClusterGpus(&clusterGpus);
    window.nodes()->setLayoutMode(u"compact"_s);
    window.showView(u"nodes"_s);
    QTRY_VERIFY2_WITH_TIMEOUT(window.nodes()->fleetSummaryText().contains(
                                  u"cluster lab: H100: 0 of 16 free on 2 nodes"_s),
                              qPrintable(window.nodes()->fleetSummaryText()), 90000);
    auto podRows = [&] {
        return window.nodes()->fleetTable()->rowTexts().filter(u"job %1 on "_s.arg(*ddp));
    };
    QTRY_COMPARE_WITH_TIMEOUT(podRows().size(), 2, 30000);
    const QStringList rows = window.nodes()->fleetTable()->rowTexts();
    const qsizetype first = rows.indexOf(podRows().front());
    QVERIFY2(rows.value(first).contains(u"2 × NVIDIA H100 80GB HBM3"_s),
             qPrintable(rows.value(first)));
    QVERIFY2(rows.value(first + 1).contains(u"run %1"_s.arg(*ddp)),
             qPrintable(rows.value(first + 1)));
    QVERIFY(window.grab().save(shots + u"/nodes-compact-clusters.png"_s));

    // Describe asks the cluster for the pods and events: why the big one waits.
    window.jobs()->selectRun(*big);
    auto *describe = [&]() -> QPushButton * {
        for (auto *button : window.jobs()->findChildren<QPushButton *>()) {
            if (button->text() == u"Describe"_s)
                return button;
        }
        return nullptr;
    }();
    QVERIFY(describe && describe->isEnabled());
    describe->click();
    auto *dialog = window.jobs()->findChild<QDialog *>(u"describe"_s);
    QVERIFY(dialog);
    auto *text = dialog->findChild<QPlainTextEdit *>();
    QTRY_VERIFY_WITH_TIMEOUT(text->toPlainText().contains(u"FailedScheduling"_s), 30000);
    QVERIFY(dialog->grab().save(shots + u"/describe-cluster-job.png"_s));
    dialog->close();
    QVERIFY(kube.stop(*ddp));
    // Stopped: its pods' rows leave the dashboard.
    QTRY_COMPARE_WITH_TIMEOUT(podRows().size(), 0, 30000);
    for (const sb::Job &job : local.jobs())
        (void)local.stop(job.id);
    (void)ssh.stop(*nodeRun);
}

QTEST_MAIN(TestClusterJobs)
#include "tst_clusterjobs.moc"
