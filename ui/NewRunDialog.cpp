#include "NewRunDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>

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

} // namespace

namespace {

constexpr int kClusterRole = Qt::UserRole + 1;

} // namespace

NewRunDialog::NewRunDialog(const JobSpec &preset, const QStringList &nodes,
                           const QStringList &clusters, QWidget *parent)
    : QDialog(parent)
    , m_where(new QComboBox)
    , m_gpus(new QSpinBox)
    , m_code(new QLineEdit(preset.codeDirectory))
    , m_name(new QLineEdit(preset.name))
    , m_command(new QLineEdit(joinCommand(preset.command)))
    , m_directory(new QLineEdit(preset.workingDirectory.isEmpty() && preset.node.isEmpty()
                                    ? QDir::homePath()
                                    : preset.workingDirectory))
    , m_environment(new QPlainTextEdit)
    , m_image(new QLineEdit(preset.image))
    , m_workers(new QSpinBox)
    , m_cpu(new QLineEdit(preset.cpu))
    , m_memory(new QLineEdit(preset.memory))
    , m_queue(new QLineEdit(preset.queue)) {
    setWindowTitle(tr("New run"));
    for (auto [widget, name] : {std::pair<QWidget *, const char *>{m_where, "where"},
                                {m_gpus, "gpus"},
                                {m_command, "command"},
                                {m_image, "image"},
                                {m_workers, "workers"},
                                {m_memory, "memory"}})
        widget->setObjectName(QString::fromLatin1(name));
    m_where->addItem(tr("This computer"), QString());
    if (!nodes.isEmpty())
        m_where->addItem(tr("Any node with enough free GPUs"), JobSpec::kAnyNode.toString());
    for (const QString &node : nodes)
        m_where->addItem(tr("Node %1").arg(node), node);
    for (const QString &cluster : clusters) {
        m_where->addItem(tr("Cluster %1").arg(cluster), QString());
        m_where->setItemData(m_where->count() - 1, cluster, kClusterRole);
    }
    m_where->setCurrentIndex(std::max(0, preset.cluster.isEmpty()
                                             ? m_where->findData(preset.node)
                                             : m_where->findData(preset.cluster, kClusterRole)));
    m_workers->setRange(1, 1024);
    m_workers->setValue(preset.workers);
    m_workers->setToolTip(tr("More than one: an Indexed Job; each pod gets MASTER_ADDR, "
                             "MASTER_PORT, WORLD_SIZE, RANK and NODE_RANK for torchrun"));
    m_image->setPlaceholderText(u"pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime"_s);
    m_cpu->setPlaceholderText(tr("per worker, e.g. 8"));
    m_memory->setPlaceholderText(tr("per worker, e.g. 32Gi"));
    m_queue->setPlaceholderText(tr("optional: a Kueue LocalQueue"));
    m_gpus->setRange(0, 64);
    m_gpus->setValue(preset.gpus);
    m_gpus->setToolTip(tr("Picked among the node's free GPUs and passed as CUDA_VISIBLE_DEVICES"));
    m_code->setPlaceholderText(tr("optional: a local directory copied to the node first"));
    m_command->setPlaceholderText(u"python3 train.py --lr 0.01"_s);
    m_environment->setPlaceholderText(u"KEY=value, one per line"_s);
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
    auto *directoryRow = new QHBoxLayout;
    directoryRow->addWidget(m_directory);
    directoryRow->addWidget(browse);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Run"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_command, &QLineEdit::textChanged, this, [this, buttons] {
        buttons->button(QDialogButtonBox::Ok)->setEnabled(!spec().command.isEmpty());
    });
    buttons->button(QDialogButtonBox::Ok)->setEnabled(!spec().command.isEmpty());

    auto *form = new QFormLayout(this);
    form->addRow(tr("Where"), m_where);
    form->addRow(tr("GPUs"), m_gpus);
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Command"), m_command);
    form->addRow(tr("Directory"), directoryRow);
    form->addRow(tr("Environment"), m_environment);
    form->addRow(tr("Copy code from"), m_code);
    form->addRow(tr("Image"), m_image);
    form->addRow(tr("Workers"), m_workers);
    form->addRow(tr("CPU"), m_cpu);
    form->addRow(tr("Memory"), m_memory);
    form->addRow(tr("Queue"), m_queue);
    form->addRow(buttons);
    auto onWhere = [this, form] {
        const bool cluster = !m_where->currentData(kClusterRole).toString().isEmpty();
        const bool node = !m_where->currentData().toString().isEmpty();
        m_gpus->setEnabled(node || cluster);
        form->setRowVisible(m_code, !cluster);
        m_code->setEnabled(node);
        for (QWidget *field :
             std::initializer_list<QWidget *>{m_image, m_workers, m_cpu, m_memory, m_queue})
            form->setRowVisible(field, cluster);
        m_directory->setPlaceholderText(cluster ? tr("in the container: the image's own")
                                                : tr("on the node: the copied code, else the "
                                                     "home directory"));
    };
    connect(m_where, &QComboBox::currentIndexChanged, this, onWhere);
    onWhere();
    resize(620, sizeHint().height());
}

JobSpec NewRunDialog::spec() const {
    JobSpec spec;
    spec.name = m_name->text().trimmed();
    spec.command = QProcess::splitCommand(m_command->text());
    spec.workingDirectory = m_directory->text().trimmed();
    spec.node = m_where->currentData().toString();
    spec.cluster = m_where->currentData(kClusterRole).toString();
    if (!spec.cluster.isEmpty()) {
        spec.gpus = m_gpus->value();
        spec.image = m_image->text().trimmed();
        spec.workers = m_workers->value();
        spec.cpu = m_cpu->text().trimmed();
        spec.memory = m_memory->text().trimmed();
        spec.queue = m_queue->text().trimmed();
    } else if (!spec.node.isEmpty()) {
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
