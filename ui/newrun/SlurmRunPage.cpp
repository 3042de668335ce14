#include "SlurmRunPage.h"

#include "OutsideText.h"

#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSpinBox>

namespace sb {

using namespace Qt::StringLiterals;

SlurmRunPage::SlurmRunPage(JobBackend *backend, const JobSpec &preset, QObject *parent)
    : NewRunPage(BackendName::kSlurm, backend, {}, parent)
    , m_clusterState(plainLabel())
    , m_partition(new QLineEdit(preset.slurm.partition))
    , m_account(new QLineEdit(preset.slurm.account))
    , m_qos(new QLineEdit(preset.slurm.qos))
    , m_timeLimit(new QLineEdit(preset.slurm.timeLimit))
    , m_cpusPerTask(optionalSpin(0, 1024, preset.slurm.cpusPerTask, tr("default"), QString()))
    , m_memory(new QLineEdit(preset.slurm.memory))
    , m_gpuType(new QLineEdit(preset.slurm.gpuType))
    , m_dependency(new QLineEdit(preset.slurm.dependency)) {
    for (auto [widget, name] : {std::pair<QWidget *, const char *>{m_partition, "partition"},
                                {m_timeLimit, "timeLimit"},
                                {m_dependency, "dependency"},
                                {m_clusterState, "clusterState"}})
        widget->setObjectName(QString::fromLatin1(name));
    m_clusterState->setWordWrap(true);
    m_clusterState->setTextInteractionFlags(Qt::TextSelectableByMouse);
    addRow(QString(), m_clusterState);
    addRow(tr("Partition"), m_partition);
    addRow(tr("Account"), m_account);
    addRow(tr("QoS"), m_qos);
    addRow(tr("Time limit"), m_timeLimit);
    addRow(tr("CPUs per node"), m_cpusPerTask);
    addRow(tr("Memory per node"), m_memory);
    addRow(tr("GPU type"), m_gpuType);
    addRow(tr("After"), m_dependency);
    m_dependency->setPlaceholderText(tr("e.g. afterok:1234 (sbatch --dependency); empty: none"));
    m_partition->setPlaceholderText(tr("the cluster's default"));
    m_account->setPlaceholderText(tr("the cluster's default"));
    m_qos->setPlaceholderText(tr("the cluster's default"));
    m_timeLimit->setPlaceholderText(tr("e.g. 4:00:00 or 2-00:00:00; empty: the partition's"));
    m_memory->setPlaceholderText(tr("e.g. 64G; empty: the partition's"));
    m_gpuType->setPlaceholderText(tr("e.g. h100; empty: any"));
    QPlainTextEdit *script = addPreview(u"batchScript"_s, preset.slurm.script);
    script->setMinimumHeight(140);
    script->setToolTip(tr("What sbatch receives, editable; sbatch adds the job name, the output "
                          "file and SIGNALBOX_RUN"));
    for (QLineEdit *field :
         {m_partition, m_account, m_qos, m_timeLimit, m_memory, m_gpuType, m_dependency})
        connect(field, &QLineEdit::textChanged, this, &NewRunPage::changed);
    connect(m_cpusPerTask, &QSpinBox::valueChanged, this, &NewRunPage::changed);
}

QList<std::pair<QString, QString>> SlurmRunPage::targets() const {
    QList<std::pair<QString, QString>> entries;
    for (const QString &cluster : backend() ? backend()->targets() : QStringList())
        entries.append({cluster, tr("Slurm cluster %1").arg(cluster)});
    return entries;
}

QString SlurmRunPage::codeHint() const {
    return tr("optional: a local directory copied to the cluster's workspace, where the job "
              "starts");
}

QString SlurmRunPage::directoryHint() const {
    return tr("on the cluster: the run's directory in the workspace");
}

QString SlurmRunPage::workersTip() const {
    return tr("Nodes, one task each under srun, with MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK "
              "and NODE_RANK for torchrun");
}

void SlurmRunPage::fill(JobSpec &spec) const {
    SlurmOptions &slurm = spec.slurm;
    slurm.partition = m_partition->text().trimmed();
    slurm.account = m_account->text().trimmed();
    slurm.qos = m_qos->text().trimmed();
    slurm.timeLimit = m_timeLimit->text().trimmed();
    slurm.cpusPerTask = m_cpusPerTask->value();
    slurm.memory = m_memory->text().trimmed();
    slurm.gpuType = m_gpuType->text().trimmed();
    slurm.dependency = m_dependency->text().trimmed();
    if (previewEdited())
        slurm.script = preview()->toPlainText();
}

void SlurmRunPage::activate(bool active, const QString &target) {
    m_target = active ? target : QString();
    if (!active || !backend())
        return;
    m_clusterState->setText(tr("Asking %1 for its free GPUs…").arg(target));
    backend()->askAvailability(target, this, [this, target](const Result<QString> &offers) {
        if (m_target != target)
            return; // another target was chosen meanwhile
        m_clusterState->setText(offers ? *offers
                                       : tr("%1 did not say (%2)").arg(target, offers.error()));
    });
}

void SlurmRunPage::run(const JobSpec &spec) {
    validate(spec, tr("Checking with the cluster (sbatch --test-only)…"));
}

} // namespace sb
