#include "NewRunDialog.h"

#include "OutsideText.h"
#include "Theme.h"
#include "jobs/BackendRegistry.h"
#include "newrun/KubeRunPage.h"
#include "newrun/NodeRunPages.h"
#include "newrun/SlurmRunPage.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QScreen>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr int kBackendRole = Qt::UserRole + 1; // beside the target, the item's data

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

// A page per backend: this computer and the SSH nodes always (the node list names those), the
// registry's clusters as it has them.
QList<NewRunPage *> makePages(const JobSpec &preset, const QStringList &nodes,
                              const BackendRegistry *backends, QObject *parent) {
    const auto named = [backends](QLatin1StringView name) {
        return backends ? backends->backend(name) : nullptr;
    };
    QList<NewRunPage *> pages;
    pages << new LocalRunPage(named(BackendName::kLocal), parent)
          << new SshRunPage(named(BackendName::kSsh), nodes, parent);
    for (JobBackend *backend : backends ? backends->backends() : QList<JobBackend *>()) {
        const QString name = backend->name();
        if (name == BackendName::kKubernetes)
            pages << new KubeRunPage(backend, preset, parent);
        else if (name == BackendName::kSlurm)
            pages << new SlurmRunPage(backend, preset, parent);
        else if (name != BackendName::kLocal && name != BackendName::kSsh)
            pages << new NewRunPage(name, backend, {}, parent);
    }
    return pages;
}

} // namespace

NewRunDialog::NewRunDialog(const JobSpec &preset, const QStringList &nodes,
                           const BackendRegistry *backends, QWidget *parent)
    : QDialog(parent)
    , m_pages(makePages(preset, nodes, backends, this))
    , m_form(new QFormLayout)
    , m_where(new QComboBox)
    , m_gpus(new QSpinBox)
    , m_workers(new QSpinBox)
    , m_code(new QLineEdit(preset.codeDirectory))
    , m_browseCode(new QPushButton(tr("Browse…")))
    , m_name(new QLineEdit(preset.name))
    , m_command(new QLineEdit(joinCommand(preset.command)))
    , m_directory(
          new QLineEdit(preset.workingDirectory.isEmpty() && preset.backend == BackendName::kLocal
                            ? QDir::homePath()
                            : preset.workingDirectory))
    , m_environment(new QPlainTextEdit)
    , m_edited(new QLabel(tr("Edited by hand: changes in the form no longer apply")))
    , m_reset(new QPushButton(tr("Reset to the form")))
    , m_verdict(plainLabel())
    , m_codeStatus(plainLabel()) {
    setWindowTitle(tr("New run"));
    for (auto [widget, name] : {std::pair<QWidget *, const char *>{m_where, "where"},
                                {m_gpus, "gpus"},
                                {m_workers, "workers"},
                                {m_name, "name"},
                                {m_command, "command"},
                                {m_verdict, "verdict"},
                                {m_codeStatus, "codeStatus"}})
        widget->setObjectName(QString::fromLatin1(name));
    addTargets(preset);
    m_gpus->setRange(0, 64);
    m_gpus->setValue(preset.gpus);
    m_gpus->setToolTip(tr("Picked among the node's free GPUs and passed as CUDA_VISIBLE_DEVICES"));
    m_workers->setRange(1, 1024);
    m_workers->setValue(preset.workers);
    m_command->setPlaceholderText(u"python3 train.py --lr 0.01"_s);
    m_environment->setPlaceholderText(tr("KEY=value, one per line"));
    QStringList env;
    for (auto it = preset.environment.begin(); it != preset.environment.end(); ++it)
        env << it.key() + u'=' + it.value();
    m_environment->setPlainText(env.join(u'\n'));
    m_environment->setMaximumHeight(90);

    layOut();
    connectPages();
    // The code directory is packed (off this thread) once its path is complete, not per key.
    connect(m_code, &QLineEdit::editingFinished, this, [this] {
        page()->codeEntered(m_code->text().trimmed());
        update();
    });
    connect(m_where, &QComboBox::currentIndexChanged, this, &NewRunDialog::targetChanged);
    for (QLineEdit *field : {m_name, m_command, m_directory})
        connect(field, &QLineEdit::textChanged, this, &NewRunDialog::update);
    for (QSpinBox *field : {m_gpus, m_workers})
        connect(field, &QSpinBox::valueChanged, this, &NewRunDialog::update);
    connect(m_where, &QComboBox::currentIndexChanged, this, &NewRunDialog::update);
    connect(m_environment, &QPlainTextEdit::textChanged, this, &NewRunDialog::update);
    connect(m_reset, &QPushButton::clicked, this, [this] { page()->resetPreview(); });
    targetChanged();
    update();
    resize(680, sizeHint().height());
    m_command->setFocus(); // what one types first; the rest keeps the last run's choices
    m_command->selectAll();
}

void NewRunDialog::addTargets(const JobSpec &preset) {
    for (const NewRunPage *page : std::as_const(m_pages)) {
        for (const auto &[target, text] : page->targets()) {
            m_where->addItem(text, target);
            m_where->setItemData(m_where->count() - 1, page->backendName(), kBackendRole);
        }
    }
    for (int i = 0; i < m_where->count(); ++i) {
        if (m_where->itemData(i, kBackendRole).toString() == preset.backend &&
            m_where->itemData(i).toString() == preset.target)
            m_where->setCurrentIndex(i);
    }
    for (NewRunPage *page : std::as_const(m_pages)) {
        page->describeTargets(
            [this, backend = page->backendName()](const QString &target, const QString &text) {
                for (int i = 0; i < m_where->count(); ++i) {
                    if (m_where->itemData(i, kBackendRole).toString() == backend &&
                        m_where->itemData(i).toString() == target)
                        m_where->setItemText(i, text);
                }
            });
    }
}

void NewRunDialog::layOut() {
    auto browse = [this](QLineEdit *field, const QString &title) {
        const QString dir = QFileDialog::getExistingDirectory(this, title, field->text());
        if (!dir.isEmpty())
            field->setText(dir);
        return !dir.isEmpty();
    };
    auto *browseDirectory = new QPushButton(tr("Browse…"));
    connect(browseDirectory, &QPushButton::clicked, this,
            [this, browse] { browse(m_directory, tr("Working directory")); });
    connect(m_browseCode, &QPushButton::clicked, this, [this, browse] {
        if (browse(m_code, tr("Code directory")))
            Q_EMIT m_code->editingFinished();
    });
    auto *codeField = new QHBoxLayout;
    codeField->addWidget(m_code);
    codeField->addWidget(m_browseCode);
    auto *codeRow = new QVBoxLayout;
    codeRow->addLayout(codeField);
    codeRow->addWidget(m_codeStatus);
    m_codeStatus->setVisible(false);
    auto *directoryRow = new QHBoxLayout;
    directoryRow->addWidget(m_directory);
    directoryRow->addWidget(browseDirectory);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_run = buttons->button(QDialogButtonBox::Ok);
    m_run->setText(tr("Run"));
    connect(buttons, &QDialogButtonBox::accepted, this, &NewRunDialog::run);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    m_form->addRow(tr("Where"), m_where);
    m_form->addRow(tr("GPUs"), m_gpus);
    m_form->addRow(tr("Workers"), m_workers);
    m_form->addRow(tr("Name"), m_name);
    m_form->addRow(tr("Command"), m_command);
    m_form->addRow(tr("Directory"), directoryRow);
    m_form->addRow(tr("Environment"), m_environment);
    m_form->addRow(tr("Copy code from"), codeRow);
    auto *previewRow = new QHBoxLayout;
    for (const NewRunPage *page : std::as_const(m_pages)) {
        page->addRowsTo(m_form);
        if (page->previewToggle())
            previewRow->addWidget(page->previewToggle());
    }
    previewRow->addWidget(m_edited);
    previewRow->addStretch();
    previewRow->addWidget(m_reset);
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdict->setVisible(false);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(m_form);
    layout->addLayout(previewRow);
    for (const NewRunPage *page : std::as_const(m_pages)) {
        if (page->preview())
            layout->addWidget(page->preview(), 1);
    }
    layout->addWidget(m_verdict);
    layout->addWidget(buttons);
}

void NewRunDialog::connectPages() {
    for (NewRunPage *page : std::as_const(m_pages)) {
        connect(page, &NewRunPage::changed, this, &NewRunDialog::update);
        connect(page, &NewRunPage::verdict, this, &NewRunDialog::showVerdict);
        connect(page, &NewRunPage::ready, this, &QDialog::accept);
        connect(page, &NewRunPage::runAgain, this, &NewRunDialog::run);
        connect(page, &NewRunPage::checking, this, [this](bool busy) {
            m_checking = busy;
            m_run->setEnabled(!busy);
        });
        connect(page, &NewRunPage::codeStatus, this, [this](const QString &text, bool problem) {
            m_codeStatus->setText(text);
            m_codeStatus->setStyleSheet(problem ? u"color: %1"_s.arg(problemColor(palette()).name())
                                                : QString());
        });
    }
}

NewRunPage *NewRunDialog::pageOf(int where) const {
    const QString backend = m_where->itemData(where, kBackendRole).toString();
    for (NewRunPage *page : m_pages) {
        if (page->backendName() == backend)
            return page;
    }
    return m_pages.front();
}

NewRunPage *NewRunDialog::page() const {
    return pageOf(m_where->currentIndex());
}

void NewRunDialog::targetChanged() {
    NewRunPage *current = page();
    const QString target = m_where->currentData().toString();
    for (NewRunPage *page : std::as_const(m_pages))
        page->activate(page == current, target);
    current->codeEntered(m_code->text().trimmed());
    // "Any node with enough free GPUs" means at least one.
    if (target == JobSpec::kAnyNode && m_gpus->value() == 0)
        m_gpus->setValue(1);
    QTimer::singleShot(0, this, &NewRunDialog::keepOnScreen);
}

void NewRunDialog::update() {
    NewRunPage *current = page();
    const JobBackend::Capabilities &can = current->capabilities();
    m_gpus->setEnabled(can.gpusAndCode);
    m_code->setEnabled(can.gpusAndCode);
    m_browseCode->setEnabled(can.gpusAndCode);
    m_code->setPlaceholderText(current->codeHint());
    for (const NewRunPage *page : std::as_const(m_pages)) {
        page->setRowsVisible(m_form, page == current);
        if (page->previewToggle())
            page->previewToggle()->setVisible(page == current);
        if (page->preview())
            page->preview()->setVisible(page == current && page->previewShown());
    }
    m_form->setRowVisible(m_workers, can.workers);
    m_workers->setToolTip(current->workersTip());
    // This computer's home directory, filled in for a local run, means nothing elsewhere.
    if (current->backendName() != BackendName::kLocal && m_directory->text() == QDir::homePath())
        m_directory->clear();
    m_directory->setPlaceholderText(current->directoryHint());
    m_edited->setVisible(current->previewEdited());
    m_reset->setVisible(current->previewEdited());
    const JobSpec spec = this->spec();
    m_run->setEnabled(!spec.command.isEmpty() && !m_checking);
    m_codeStatus->setVisible(can.packsCode && !m_code->text().trimmed().isEmpty());
    m_verdict->setVisible(false);
    current->formChanged(spec);
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

void NewRunDialog::showVerdict(const QString &text, bool problem) {
    m_verdict->setText(text);
    m_verdict->setStyleSheet(problem ? u"color: %1"_s.arg(problemColor(palette()).name())
                                     : QString());
    m_verdict->setVisible(true);
}

void NewRunDialog::run() {
    page()->run(spec());
}

RunDraft NewRunDialog::draft() const {
    return page()->draft(spec());
}

JobSpec NewRunDialog::spec() const {
    JobSpec spec;
    spec.name = m_name->text().trimmed();
    spec.command = QProcess::splitCommand(m_command->text());
    spec.workingDirectory = m_directory->text().trimmed();
    spec.backend = m_where->currentData(kBackendRole).toString();
    spec.target = m_where->currentData().toString();
    const NewRunPage *current = page();
    if (current->capabilities().gpusAndCode) {
        spec.gpus = m_gpus->value();
        spec.codeDirectory = m_code->text().trimmed();
    }
    if (current->capabilities().workers)
        spec.workers = m_workers->value();
    current->fill(spec);
    for (const QString &line : m_environment->toPlainText().split(u'\n', Qt::SkipEmptyParts)) {
        const qsizetype eq = line.indexOf(u'=');
        if (eq > 0)
            spec.environment[line.left(eq).trimmed()] = line.mid(eq + 1);
    }
    return spec;
}

} // namespace sb
