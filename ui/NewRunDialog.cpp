#include "NewRunDialog.h"

#include "OutsideText.h"
#include "Theme.h"

#include "config/YamlJson.h"
#include "jobs/KubeBackend.h"
#include "jobs/KubeJobs.h"
#include "jobs/SlurmBackend.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <utility>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// The inverse of QProcess::splitCommand: quotes what has spaces, a literal quote is tripled.
QString joinCommand(const QStringList &arguments) {
    QStringList quoted;
    for (QString argument : arguments) {
        if (argument.isEmpty() || argument.contains(u' ') || argument.contains(u'"') ||
            argument.contains(u'\t')) {
            argument.replace(u"\""_s, u"\"\"\""_s);
            argument = u'"' + argument + u'"';
        }
        quoted << argument;
    }
    return quoted.join(u' ');
}

// "3, 42" as exit codes, or the text that is not one.
Result<QList<int>> exitCodes(const QString &text) {
    QList<int> codes;
    for (const QString &word : text.split(QRegularExpression(u"[,\\s]+"_s), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int code = word.toInt(&ok);
        if (!ok || code < 1 || code > 255)
            return fail(QObject::tr("\"%1\" is not an exit code (1 to 255)").arg(word));
        codes << code;
    }
    return codes;
}

QString joinCodes(const QList<int> &codes) {
    QStringList words;
    for (int code : codes)
        words << QString::number(code);
    return words.join(u", "_s);
}

} // namespace

namespace {

constexpr int kBackendRole = Qt::UserRole + 1; // beside the target, the item's data

// A spin box whose lowest value means "not set", shown as `none`.
QSpinBox *optionalSpin(int minimum, int maximum, int value, const QString &none,
                       const QString &suffix) {
    auto *spin = new QSpinBox;
    spin->setRange(minimum, maximum);
    spin->setSpecialValueText(none);
    spin->setSuffix(suffix);
    spin->setValue(value);
    return spin;
}

} // namespace

NewRunDialog::NewRunDialog(const JobSpec &preset, const QStringList &nodes, KubeBackend *kube,
                           SlurmBackend *slurm, QWidget *parent)
    : QDialog(parent)
    , m_kube(kube)
    , m_slurm(slurm)
    , m_where(new QComboBox)
    , m_gpus(new QSpinBox)
    , m_code(new QLineEdit(preset.codeDirectory))
    , m_name(new QLineEdit(preset.name))
    , m_command(new QLineEdit(joinCommand(preset.command)))
    , m_directory(new QLineEdit(preset.workingDirectory.isEmpty() && preset.backend == "local"_L1
                                    ? QDir::homePath()
                                    : preset.workingDirectory))
    , m_environment(new QPlainTextEdit)
    , m_template(new QComboBox)
    , m_image(new QLineEdit(preset.kube.image))
    , m_workers(new QSpinBox)
    , m_tfConfig(new QCheckBox(tr("also set TF_CONFIG (TensorFlow)")))
    , m_cpu(new QLineEdit(preset.kube.cpu))
    , m_memory(new QLineEdit(preset.kube.memory))
    , m_queue(new QLineEdit(preset.kube.queue))
    , m_retries(new QSpinBox)
    , m_deadline(
          optionalSpin(0, 43200, (preset.kube.deadlineSeconds + 59) / 60, tr("none"), tr(" min")))
    , m_failCodes(new QLineEdit(joinCodes(preset.kube.failExitCodes)))
    , m_ttl(optionalSpin(-1, 43200, preset.kube.ttlSeconds < 0 ? -1 : preset.kube.ttlSeconds / 60,
                         tr("keep"), tr(" min")))
    , m_partition(new QLineEdit(preset.slurm.partition))
    , m_account(new QLineEdit(preset.slurm.account))
    , m_qos(new QLineEdit(preset.slurm.qos))
    , m_timeLimit(new QLineEdit(preset.slurm.timeLimit))
    , m_cpusPerTask(optionalSpin(0, 1024, preset.slurm.cpusPerTask, tr("default"), QString()))
    , m_slurmMemory(new QLineEdit(preset.slurm.memory))
    , m_gpuType(new QLineEdit(preset.slurm.gpuType))
    , m_dependency(new QLineEdit(preset.slurm.dependency))
    , m_clusterState(plainLabel())
    , m_script(new QPlainTextEdit(preset.slurm.script))
    , m_showManifest(new QPushButton(tr("Manifest")))
    , m_manifest(new QPlainTextEdit)
    , m_verdict(plainLabel())
    , m_codeStatus(plainLabel())
    , m_run(nullptr) {
    setWindowTitle(tr("New run"));
    for (auto [widget, name] : {std::pair<QWidget *, const char *>{m_where, "where"},
                                {m_gpus, "gpus"},
                                {m_name, "name"},
                                {m_command, "command"},
                                {m_template, "template"},
                                {m_image, "image"},
                                {m_workers, "workers"},
                                {m_tfConfig, "tfConfig"},
                                {m_memory, "memory"},
                                {m_retries, "retries"},
                                {m_deadline, "deadline"},
                                {m_failCodes, "failCodes"},
                                {m_ttl, "ttl"},
                                {m_partition, "partition"},
                                {m_timeLimit, "timeLimit"},
                                {m_script, "batchScript"},
                                {m_dependency, "dependency"},
                                {m_clusterState, "clusterState"},
                                {m_showManifest, "showManifest"},
                                {m_manifest, "manifest"},
                                {m_verdict, "verdict"}})
        widget->setObjectName(QString::fromLatin1(name));
    auto addWhere = [this](const QString &text, const QString &backend, const QString &target) {
        m_where->addItem(text, target);
        m_where->setItemData(m_where->count() - 1, backend, kBackendRole);
    };
    addWhere(tr("This computer"), u"local"_s, {});
    if (!nodes.isEmpty())
        addWhere(tr("Any node with enough free GPUs"), u"ssh"_s, JobSpec::kAnyNode.toString());
    for (const QString &node : nodes)
        addWhere(tr("Node %1").arg(node), u"ssh"_s, node);
    for (const QString &cluster : kube ? kube->clusters() : QStringList())
        addWhere(tr("Cluster %1").arg(cluster), kube->name(), cluster);
    for (const QString &cluster : slurm ? slurm->clusters() : QStringList())
        addWhere(tr("Slurm cluster %1").arg(cluster), slurm->name(), cluster);
    for (int i = 0; i < m_where->count(); ++i) {
        if (m_where->itemData(i, kBackendRole).toString() == preset.backend &&
            m_where->itemData(i).toString() == preset.target)
            m_where->setCurrentIndex(i);
    }
    m_template->addItem(tr("none"), QString());
    for (const JobTemplate &t : kube ? kube->jobTemplates() : QList<JobTemplate>())
        m_template->addItem(t.name, t.name);
    m_template->setCurrentIndex(std::max(0, m_template->findData(preset.kube.jobTemplate)));
    m_template->setToolTip(tr("Node selector, tolerations, priority class and service account "
                              "from job_templates in the config"));
    m_workers->setRange(1, 1024);
    m_workers->setValue(preset.workers);
    m_workers->setToolTip(tr("More than one: an Indexed Job; each pod gets MASTER_ADDR, "
                             "MASTER_PORT, WORLD_SIZE, RANK and NODE_RANK for torchrun"));
    m_tfConfig->setChecked(preset.kube.tfConfig);
    m_image->setPlaceholderText(u"pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime"_s);
    m_cpu->setPlaceholderText(tr("per worker, e.g. 8"));
    m_memory->setPlaceholderText(tr("per worker, e.g. 32Gi"));
    m_queue->setPlaceholderText(tr("optional: a Kueue LocalQueue"));
    m_retries->setRange(0, 100);
    m_retries->setValue(preset.kube.backoffLimit);
    m_retries->setToolTip(tr("How often a failed pod is retried (backoffLimit); evictions and "
                             "preemptions never count"));
    m_deadline->setToolTip(tr("The job fails when it has run this long (activeDeadlineSeconds)"));
    m_failCodes->setPlaceholderText(tr("e.g. 2, 42: exit codes retries would not help"));
    m_ttl->setToolTip(tr("Delete the finished job from the cluster after this long "
                         "(ttlSecondsAfterFinished)"));
    m_gpus->setRange(0, 64);
    m_gpus->setValue(preset.gpus);
    m_gpus->setToolTip(tr("Picked among the node's free GPUs and passed as CUDA_VISIBLE_DEVICES"));
    m_command->setPlaceholderText(u"python3 train.py --lr 0.01"_s);
    m_environment->setPlaceholderText(tr("KEY=value, one per line"));
    QStringList env;
    for (auto it = preset.environment.begin(); it != preset.environment.end(); ++it)
        env << it.key() + u'=' + it.value();
    m_environment->setPlainText(env.join(u'\n'));
    m_environment->setMaximumHeight(90);

    auto *browse = new QPushButton(tr("Browse…"));
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Working directory"), m_directory->text());
        if (!dir.isEmpty())
            m_directory->setText(dir);
    });
    auto *browseCode = new QPushButton(tr("Browse…"));
    connect(browseCode, &QPushButton::clicked, this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Code directory"), m_code->text());
        if (!dir.isEmpty()) {
            m_code->setText(dir);
            Q_EMIT m_code->editingFinished();
        }
    });
    auto *codeField = new QHBoxLayout;
    codeField->addWidget(m_code);
    codeField->addWidget(browseCode);
    auto *codeRow = new QVBoxLayout;
    codeRow->addLayout(codeField);
    codeRow->addWidget(m_codeStatus);
    m_codeStatus->setObjectName(u"codeStatus"_s);
    m_codeStatus->setVisible(false);
    auto *directoryRow = new QHBoxLayout;
    directoryRow->addWidget(m_directory);
    directoryRow->addWidget(browse);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_run = buttons->button(QDialogButtonBox::Ok);
    m_run->setText(tr("Run"));
    connect(buttons, &QDialogButtonBox::accepted, this, &NewRunDialog::run);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *form = new QFormLayout;
    form->addRow(tr("Where"), m_where);
    form->addRow(QString(), m_clusterState);
    m_clusterState->setWordWrap(true);
    m_clusterState->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(tr("GPUs"), m_gpus);
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Command"), m_command);
    form->addRow(tr("Directory"), directoryRow);
    form->addRow(tr("Environment"), m_environment);
    form->addRow(tr("Copy code from"), codeRow);
    form->addRow(tr("Template"), m_template);
    form->addRow(tr("Image"), m_image);
    form->addRow(tr("Workers"), m_workers);
    form->addRow(QString(), m_tfConfig);
    form->addRow(tr("CPU"), m_cpu);
    form->addRow(tr("Memory"), m_memory);
    form->addRow(tr("Queue"), m_queue);
    form->addRow(tr("Retries"), m_retries);
    form->addRow(tr("Deadline"), m_deadline);
    form->addRow(tr("Fail at once on"), m_failCodes);
    form->addRow(tr("Delete when done"), m_ttl);
    form->addRow(tr("Partition"), m_partition);
    form->addRow(tr("Account"), m_account);
    form->addRow(tr("QoS"), m_qos);
    form->addRow(tr("Time limit"), m_timeLimit);
    form->addRow(tr("CPUs per node"), m_cpusPerTask);
    form->addRow(tr("Memory per node"), m_slurmMemory);
    form->addRow(tr("GPU type"), m_gpuType);
    form->addRow(tr("After"), m_dependency);
    m_dependency->setPlaceholderText(tr("e.g. afterok:1234 (sbatch --dependency); empty: none"));
    m_partition->setPlaceholderText(tr("the cluster's default"));
    m_account->setPlaceholderText(tr("the cluster's default"));
    m_qos->setPlaceholderText(tr("the cluster's default"));
    m_timeLimit->setPlaceholderText(tr("e.g. 4:00:00 or 2-00:00:00; empty: the partition's"));
    m_slurmMemory->setPlaceholderText(tr("e.g. 64G; empty: the partition's"));
    m_gpuType->setPlaceholderText(tr("e.g. h100; empty: any"));
    m_scriptEdited = !preset.slurm.script.isEmpty();
    m_script->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_script->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_script->setMinimumHeight(140);
    m_script->setToolTip(tr("What sbatch receives, editable; sbatch adds the job name, the output "
                            "file and SIGNALBOX_RUN"));

    m_showManifest->setCheckable(true);
    m_showManifest->setToolTip(tr("The objects Run submits, as YAML; edit them freely"));
    auto *reset = new QPushButton(tr("Reset to the form"));
    auto *edited = new QLabel(tr("Edited by hand: changes in the form no longer apply"));
    auto *manifestRow = new QHBoxLayout;
    manifestRow->addWidget(m_showManifest);
    manifestRow->addWidget(edited);
    manifestRow->addStretch();
    manifestRow->addWidget(reset);
    m_manifest->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_manifest->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_manifest->setMinimumHeight(260);
    m_manifest->setVisible(false);
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdict->setVisible(false);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(manifestRow);
    layout->addWidget(m_manifest, 1);
    layout->addWidget(m_script, 1);
    layout->addWidget(m_verdict);
    layout->addWidget(buttons);

    auto update = [this, form, reset, edited, browseCode] {
        const bool cluster = onCluster();
        const bool slurmCluster = onSlurm();
        const bool node = m_where->currentData(kBackendRole).toString() == "ssh"_L1;
        m_gpus->setEnabled(node || cluster || slurmCluster);
        m_code->setEnabled(node || cluster || slurmCluster);
        browseCode->setEnabled(node || cluster || slurmCluster);
        m_code->setPlaceholderText(
            cluster ? tr("optional: a local directory unpacked in the pods at %1")
                          .arg(QString::fromLatin1(kCodeDirectory))
            : slurmCluster ? tr("optional: a local directory copied to the cluster's workspace, "
                                "where the job starts")
                           : tr("optional: a local directory copied to the node first"));
        for (QWidget *field : std::initializer_list<QWidget *>{
                 m_template, m_image, m_workers, m_tfConfig, m_cpu, m_memory, m_queue, m_retries,
                 m_deadline, m_failCodes, m_ttl})
            form->setRowVisible(field, cluster);
        for (QWidget *field : std::initializer_list<QWidget *>{
                 m_clusterState, m_partition, m_account, m_qos, m_timeLimit, m_cpusPerTask,
                 m_slurmMemory, m_gpuType, m_dependency})
            form->setRowVisible(field, slurmCluster);
        form->setRowVisible(m_workers, cluster || slurmCluster);
        m_workers->setToolTip(slurmCluster
                                  ? tr("Nodes, one task each under srun, with MASTER_ADDR, "
                                       "MASTER_PORT, WORLD_SIZE, RANK and NODE_RANK for torchrun")
                                  : tr("More than one: an Indexed Job; each pod gets MASTER_ADDR, "
                                       "MASTER_PORT, WORLD_SIZE, RANK and NODE_RANK for torchrun"));
        m_script->setVisible(slurmCluster);
        if (slurmCluster && !m_scriptEdited) {
            const auto script = m_slurm->batchScript(spec());
            m_settingScript = true;
            m_script->setPlainText(script ? *script : tr("# %1").arg(script.error()));
            m_settingScript = false;
        }
        m_tfConfig->setEnabled(m_workers->value() > 1);
        // This computer's home directory, filled in for a local run, means nothing elsewhere.
        if (m_where->currentData(kBackendRole).toString() != "local"_L1 &&
            m_directory->text() == QDir::homePath())
            m_directory->clear();
        m_directory->setPlaceholderText(cluster ? tr("in the container: the image's own")
                                        : slurmCluster
                                            ? tr("on the cluster: the run's directory in the "
                                                 "workspace")
                                            : tr("on the node: the copied code, else the "
                                                 "home directory"));
        m_showManifest->setVisible(cluster);
        m_manifest->setVisible(cluster && m_showManifest->isChecked());
        const bool handEdited = (cluster && m_manifestEdited) || (slurmCluster && m_scriptEdited);
        edited->setVisible(handEdited);
        reset->setVisible(handEdited);
        m_run->setEnabled(!spec().command.isEmpty() && !m_checking);
        m_codeStatus->setVisible(cluster && !m_code->text().trimmed().isEmpty());
        m_verdict->setVisible(false);
        m_accepted.clear();
        if (cluster && !m_manifestEdited)
            regenerateManifest();
    };
    // The code directory is packed (off this thread) once its path is complete, not per key.
    connect(m_code, &QLineEdit::editingFinished, this, [this, update] {
        prepareCode();
        update();
    });
    connect(m_where, &QComboBox::currentIndexChanged, this, &NewRunDialog::prepareCode);
    if (kube) {
        connect(kube, &KubeBackend::codePacked, this,
                [this, update](const QString &directory, const QString &error) {
                    if (directory != m_preparedCode || !m_packing)
                        return;
                    m_packing = false;
                    m_codeStatus->setText(error.isEmpty() ? m_kube->packedSummary(directory)
                                                          : error);
                    m_codeStatus->setStyleSheet(
                        error.isEmpty() ? QString()
                                        : u"color: %1"_s.arg(problemColor(palette()).name()));
                    update();
                    if (std::exchange(m_runAfterPacking, false) && error.isEmpty())
                        run();
                });
    }
    for (QLineEdit *field :
         {m_name, m_command, m_directory, m_image, m_cpu, m_memory, m_queue, m_failCodes,
          m_partition, m_account, m_qos, m_timeLimit, m_slurmMemory, m_gpuType, m_dependency})
        connect(field, &QLineEdit::textChanged, this, update);
    for (QSpinBox *field : {m_gpus, m_workers, m_retries, m_deadline, m_ttl, m_cpusPerTask})
        connect(field, &QSpinBox::valueChanged, this, update);
    for (QComboBox *field : {m_where, m_template})
        connect(field, &QComboBox::currentIndexChanged, this, update);
    connect(m_tfConfig, &QCheckBox::toggled, this, update);
    connect(m_environment, &QPlainTextEdit::textChanged, this, update);
    connect(m_showManifest, &QPushButton::toggled, this, update);
    connect(m_manifest, &QPlainTextEdit::textChanged, this, [this, update] {
        if (m_settingManifest)
            return;
        m_manifestEdited = true;
        update();
    });
    connect(m_script, &QPlainTextEdit::textChanged, this, [this, update] {
        if (m_settingScript)
            return;
        m_scriptEdited = true;
        update();
    });
    connect(reset, &QPushButton::clicked, this, [this, update] {
        m_manifestEdited = false;
        m_scriptEdited = false;
        update();
    });
    connect(m_where, &QComboBox::currentIndexChanged, this, &NewRunDialog::askClusterState);
    // "Any node with enough free GPUs" means at least one.
    connect(m_where, &QComboBox::currentIndexChanged, this, [this] {
        if (m_where->currentData().toString() == JobSpec::kAnyNode && m_gpus->value() == 0)
            m_gpus->setValue(1);
    });
    connect(m_where, &QComboBox::currentIndexChanged, this,
            [this] { QTimer::singleShot(0, this, &NewRunDialog::keepOnScreen); });
    askClusterState();
    connect(m_name, &QLineEdit::textChanged, this, [this] { m_jobName.clear(); });
    prepareCode();
    update();
    resize(680, sizeHint().height());
    m_command->setFocus(); // what one types first; the rest keeps the last run's choices
    m_command->selectAll();
}

void NewRunDialog::describeNodes(const std::function<QString(const QString &)> &availability) {
    for (int i = 0; i < m_where->count(); ++i) {
        const QString node = m_where->itemData(i).toString();
        if (m_where->itemData(i, kBackendRole).toString() != "ssh"_L1 || node == JobSpec::kAnyNode)
            continue;
        const QString now = availability(node);
        m_where->setItemText(i, now.isEmpty() ? tr("Node %1").arg(node)
                                              : tr("Node %1 — %2").arg(node, now));
    }
}

void NewRunDialog::keepOnScreen() {
    if (!isVisible() || !screen())
        return;
    const QRect room = screen()->availableGeometry();
    const QRect frame = frameGeometry();
    const int top = std::max(room.top(), std::min(frame.top(), room.bottom() - frame.height()));
    if (top != frame.top())
        move(pos().x(), pos().y() + top - frame.top());
}

void NewRunDialog::askClusterState() {
    if (!onSlurm())
        return;
    const QString cluster = m_where->currentData().toString();
    m_clusterState->setText(tr("Asking %1 for its free GPUs…").arg(cluster));
    m_slurm->clusterState(cluster, this, [this, cluster](const Result<SlurmClusterState> &state) {
        if (m_where->currentData().toString() != cluster || !onSlurm())
            return; // another target was chosen meanwhile
        m_clusterState->setText(state ? state->summary()
                                      : tr("%1 did not say (%2)").arg(cluster, state.error()));
    });
}

bool NewRunDialog::onSlurm() const {
    return m_slurm && m_where->currentData(kBackendRole).toString() == m_slurm->name();
}

bool NewRunDialog::onCluster() const {
    return m_kube && m_where->currentData(kBackendRole).toString() == m_kube->name();
}

void NewRunDialog::prepareCode() {
    const QString directory = m_code->text().trimmed();
    if (!m_kube || !onCluster() || directory.isEmpty()) {
        m_preparedCode.clear();
        return;
    }
    m_preparedCode = directory;
    m_packing = true;
    m_codeStatus->setStyleSheet({});
    m_codeStatus->setText(tr("Packing the code…"));
    m_kube->prepareCode(directory);
}

void NewRunDialog::regenerateManifest() {
    JobSpec spec = this->spec();
    spec.codeDirectory = m_preparedCode; // as packed, never a path half typed
    if (m_packing) {
        m_settingManifest = true;
        m_manifest->setPlainText(tr("# Packing the code of %1…\n").arg(m_preparedCode));
        m_settingManifest = false;
        return;
    }
    if (m_jobName.isEmpty()) // kept while the name stays: its random suffix would flicker
        m_jobName = kubeJobName(spec);
    const auto made = m_kube ? m_kube->manifests(spec, m_jobName)
                             : Result<KubeManifests>(fail(tr("no Kubernetes backend")));
    QByteArray yaml;
    if (!made) {
        yaml = "# " + made.error().toUtf8() + '\n';
    } else {
        m_shownCode = made->code;
        for (const QJsonObject &object : made->objects)
            yaml += (yaml.isEmpty() ? QByteArray() : QByteArray("---\n")) + jsonToYaml(object);
    }
    m_settingManifest = true;
    m_manifest->setPlainText(QString::fromUtf8(yaml));
    m_settingManifest = false;
}

void NewRunDialog::run() {
    auto showVerdict = [this](const QString &text) {
        m_verdict->setText(text);
        m_verdict->setStyleSheet(u"color: %1"_s.arg(problemColor(palette()).name()));
        m_verdict->setVisible(true);
    };
    if (onSlurm()) { // sbatch --test-only first; the dialog stays open with its answer if refused
        m_checking = true;
        m_run->setEnabled(false);
        m_verdict->setStyleSheet({});
        m_verdict->setText(tr("Checking with the cluster (sbatch --test-only)…"));
        m_verdict->setVisible(true);
        m_slurm->check(spec(), this, [this, showVerdict](const QString &error, const QString &) {
            m_checking = false;
            m_run->setEnabled(true);
            if (!error.isEmpty())
                return showVerdict(tr("The cluster would refuse it: %1").arg(error));
            accept();
        });
        return;
    }
    if (!onCluster()) {
        accept();
        return;
    }
    if (const auto codes = exitCodes(m_failCodes->text()); !codes)
        return showVerdict(tr("Fail at once on: %1").arg(codes.error()));
    if (m_code->text().trimmed() != m_preparedCode)
        prepareCode();
    if (m_packing) { // Run again once the code is packed
        m_runAfterPacking = true;
        m_verdict->setStyleSheet({});
        m_verdict->setText(tr("Packing the code first…"));
        m_verdict->setVisible(true);
        return;
    }
    const auto parsed = parseYamlObjects(m_manifest->toPlainText().toUtf8(), tr("The manifest"));
    if (!parsed)
        return showVerdict(parsed.error());
    const QList<QJsonObject> &objects = *parsed;
    if (objects.isEmpty() || objects.last()[u"kind"_s].toString() != "Job"_L1)
        return showVerdict(m_manifest->toPlainText().startsWith(u'#')
                               ? m_manifest->toPlainText().mid(2).trimmed()
                               : tr("The manifest: the last document must be the Job (kind: Job)"));
    m_checking = true;
    m_run->setEnabled(false);
    m_verdict->setStyleSheet({});
    m_verdict->setText(tr("Checking with the API server (dry run)…"));
    m_verdict->setVisible(true);
    m_kube->apply(spec().target, objects, true, this,
                  [this, objects, showVerdict](const QString &error) {
                      m_checking = false;
                      m_run->setEnabled(true);
                      if (!error.isEmpty())
                          return showVerdict(tr("The API server refused it: %1").arg(error));
                      m_accepted = objects;
                      accept();
                  });
}

JobSpec NewRunDialog::spec() const {
    JobSpec spec;
    spec.name = m_name->text().trimmed();
    spec.command = QProcess::splitCommand(m_command->text());
    spec.workingDirectory = m_directory->text().trimmed();
    spec.backend = m_where->currentData(kBackendRole).toString();
    spec.target = m_where->currentData().toString();
    if (onCluster()) {
        spec.gpus = m_gpus->value();
        spec.workers = m_workers->value();
        spec.codeDirectory = m_code->text().trimmed();
        KubeOptions &kube = spec.kube;
        kube.jobTemplate = m_template->currentData().toString();
        kube.image = m_image->text().trimmed();
        kube.tfConfig = spec.workers > 1 && m_tfConfig->isChecked();
        kube.cpu = m_cpu->text().trimmed();
        kube.memory = m_memory->text().trimmed();
        kube.queue = m_queue->text().trimmed();
        kube.backoffLimit = m_retries->value();
        kube.deadlineSeconds = m_deadline->value() * 60;
        if (const auto codes = exitCodes(m_failCodes->text()))
            kube.failExitCodes = *codes;
        kube.ttlSeconds = m_ttl->value() < 0 ? -1 : m_ttl->value() * 60;
    } else if (onSlurm()) {
        spec.gpus = m_gpus->value();
        spec.workers = m_workers->value();
        SlurmOptions &slurm = spec.slurm;
        slurm.partition = m_partition->text().trimmed();
        slurm.account = m_account->text().trimmed();
        slurm.qos = m_qos->text().trimmed();
        slurm.timeLimit = m_timeLimit->text().trimmed();
        slurm.cpusPerTask = m_cpusPerTask->value();
        slurm.memory = m_slurmMemory->text().trimmed();
        slurm.gpuType = m_gpuType->text().trimmed();
        slurm.dependency = m_dependency->text().trimmed();
        if (m_scriptEdited)
            slurm.script = m_script->toPlainText();
        spec.codeDirectory = m_code->text().trimmed();
    } else if (spec.backend == "ssh"_L1) {
        spec.gpus = m_gpus->value();
        spec.codeDirectory = m_code->text().trimmed();
    }
    for (const QString &line : m_environment->toPlainText().split(u'\n', Qt::SkipEmptyParts)) {
        const qsizetype eq = line.indexOf(u'=');
        if (eq > 0)
            spec.environment[line.left(eq).trimmed()] = line.mid(eq + 1);
    }
    return spec;
}

} // namespace sb
