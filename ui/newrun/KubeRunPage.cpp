#include "KubeRunPage.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>

#include <utility>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// "3, 42" as exit codes, or the text that is not one.
Result<QList<int>> exitCodes(const QString &text) {
    QList<int> codes;
    for (const QString &word : text.split(QRegularExpression(u"[,\\s]+"_s), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int code = word.toInt(&ok);
        if (!ok || code < 1 || code > 255)
            return fail(KubeRunPage::tr("\"%1\" is not an exit code (1 to 255)").arg(word));
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

KubeRunPage::KubeRunPage(JobBackend *backend, const JobSpec &preset, QObject *parent)
    : NewRunPage(BackendName::kKubernetes, backend, {}, parent)
    , m_template(new QComboBox)
    , m_image(new QLineEdit(preset.kube.image))
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
    , m_showManifest(new QPushButton(tr("Manifest"))) {
    for (auto [widget, name] : {std::pair<QWidget *, const char *>{m_template, "template"},
                                {m_image, "image"},
                                {m_tfConfig, "tfConfig"},
                                {m_memory, "memory"},
                                {m_retries, "retries"},
                                {m_deadline, "deadline"},
                                {m_failCodes, "failCodes"},
                                {m_ttl, "ttl"},
                                {m_showManifest, "showManifest"}})
        widget->setObjectName(QString::fromLatin1(name));
    m_template->addItem(tr("none"), QString());
    for (const QString &name : backend ? backend->templateNames() : QStringList())
        m_template->addItem(name, name);
    m_template->setCurrentIndex(std::max(0, m_template->findData(preset.kube.jobTemplate)));
    m_template->setToolTip(tr("Node selector, tolerations, priority class and service account "
                              "from job_templates in the config"));
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
    addRow(tr("Template"), m_template);
    addRow(tr("Image"), m_image);
    addRow(QString(), m_tfConfig);
    addRow(tr("CPU"), m_cpu);
    addRow(tr("Memory"), m_memory);
    addRow(tr("Queue"), m_queue);
    addRow(tr("Retries"), m_retries);
    addRow(tr("Deadline"), m_deadline);
    addRow(tr("Fail at once on"), m_failCodes);
    addRow(tr("Delete when done"), m_ttl);

    m_showManifest->setCheckable(true);
    m_showManifest->setToolTip(tr("The objects Run submits, as YAML; edit them freely"));
    setPreviewToggle(m_showManifest);
    QPlainTextEdit *manifest = addPreview(u"manifest"_s, QString());
    manifest->setMinimumHeight(260);

    for (QLineEdit *field : {m_image, m_cpu, m_memory, m_queue, m_failCodes})
        connect(field, &QLineEdit::textChanged, this, &NewRunPage::changed);
    for (QSpinBox *field : {m_retries, m_deadline, m_ttl})
        connect(field, &QSpinBox::valueChanged, this, &NewRunPage::changed);
    connect(m_template, &QComboBox::currentIndexChanged, this, &NewRunPage::changed);
    connect(m_tfConfig, &QCheckBox::toggled, this, &NewRunPage::changed);
    connect(m_showManifest, &QPushButton::toggled, this, &NewRunPage::changed);
    if (backend) {
        connect(backend, &JobBackend::codePrepared, this,
                [this](const QString &directory, const QString &error) {
                    if (directory != m_preparedCode || !m_packing)
                        return;
                    m_packing = false;
                    Q_EMIT codeStatus(error.isEmpty() ? this->backend()->codeSummary(directory)
                                                      : error,
                                      !error.isEmpty());
                    Q_EMIT changed();
                    if (std::exchange(m_runAfterPacking, false) && error.isEmpty())
                        Q_EMIT runAgain();
                });
    }
}

QList<std::pair<QString, QString>> KubeRunPage::targets() const {
    QList<std::pair<QString, QString>> entries;
    for (const QString &cluster : backend() ? backend()->targets() : QStringList())
        entries.append({cluster, tr("Cluster %1").arg(cluster)});
    return entries;
}

QString KubeRunPage::codeHint() const {
    return tr("optional: a local directory unpacked in the pods at %1")
        .arg(QString::fromLatin1(capabilities().codeLandsIn));
}

QString KubeRunPage::directoryHint() const {
    return tr("in the container: the image's own");
}

QString KubeRunPage::workersTip() const {
    return tr("More than one: an Indexed Job; each pod gets MASTER_ADDR, MASTER_PORT, WORLD_SIZE, "
              "RANK and NODE_RANK for torchrun");
}

void KubeRunPage::fill(JobSpec &spec) const {
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
}

void KubeRunPage::codeEntered(const QString &directory) {
    if (!backend() || directory.isEmpty()) {
        m_preparedCode.clear();
        return;
    }
    m_preparedCode = directory;
    m_packing = true;
    Q_EMIT codeStatus(tr("Packing the code…"), false);
    backend()->prepareCode(directory);
}

void KubeRunPage::formChanged(const JobSpec &spec) {
    m_tfConfig->setEnabled(spec.workers > 1);
    NewRunPage::formChanged(spec);
}

Result<QString> KubeRunPage::previewOf(const JobSpec &spec) const {
    if (m_packing)
        return fail(tr("Packing the code of %1…").arg(m_preparedCode));
    JobSpec packed = spec;
    packed.codeDirectory = m_preparedCode; // as packed, never a path half typed
    return NewRunPage::previewOf(packed);
}

void KubeRunPage::run(const JobSpec &spec) {
    if (const auto codes = exitCodes(m_failCodes->text()); !codes)
        return Q_EMIT verdict(tr("Fail at once on: %1").arg(codes.error()), true);
    if (spec.codeDirectory != m_preparedCode)
        codeEntered(spec.codeDirectory);
    if (m_packing) { // Run again once the code is packed
        m_runAfterPacking = true;
        return Q_EMIT verdict(tr("Packing the code first…"), false);
    }
    validate(spec, tr("Checking with the API server (dry run)…"));
}

} // namespace sb
