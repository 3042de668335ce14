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

NewRunDialog::NewRunDialog(const JobSpec &preset, const QStringList &nodes, QWidget *parent)
    : QDialog(parent)
    , m_where(new QComboBox)
    , m_gpus(new QSpinBox)
    , m_code(new QLineEdit(preset.codeDirectory))
    , m_name(new QLineEdit(preset.name))
    , m_command(new QLineEdit(joinCommand(preset.command)))
    , m_directory(new QLineEdit(preset.workingDirectory.isEmpty() && preset.node.isEmpty()
                                    ? QDir::homePath()
                                    : preset.workingDirectory))
    , m_environment(new QPlainTextEdit) {
    setWindowTitle(tr("New run"));
    m_where->addItem(tr("This computer"), QString());
    if (!nodes.isEmpty())
        m_where->addItem(tr("Any node with enough free GPUs"), JobSpec::kAnyNode.toString());
    for (const QString &node : nodes)
        m_where->addItem(tr("Node %1").arg(node), node);
    m_where->setCurrentIndex(std::max(0, m_where->findData(preset.node)));
    m_gpus->setRange(0, 64);
    m_gpus->setValue(preset.gpus);
    m_gpus->setToolTip(tr("Picked among the node's free GPUs and passed as CUDA_VISIBLE_DEVICES"));
    m_code->setPlaceholderText(tr("optional: a local directory copied to the node first"));
    m_directory->setPlaceholderText(tr("on the node: the copied code, else the home directory"));
    auto onNode = [this] {
        const bool remote = !m_where->currentData().toString().isEmpty();
        m_gpus->setEnabled(remote);
        m_code->setEnabled(remote);
    };
    connect(m_where, &QComboBox::currentIndexChanged, this, onNode);
    onNode();
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
    form->addRow(buttons);
    resize(620, sizeHint().height());
}

JobSpec NewRunDialog::spec() const {
    JobSpec spec;
    spec.name = m_name->text().trimmed();
    spec.command = QProcess::splitCommand(m_command->text());
    spec.workingDirectory = m_directory->text().trimmed();
    spec.node = m_where->currentData().toString();
    if (!spec.node.isEmpty()) {
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
