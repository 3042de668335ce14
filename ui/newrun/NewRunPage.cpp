#include "NewRunPage.h"

#include <QAbstractButton>
#include <QFontDatabase>
#include <QFormLayout>
#include <QPlainTextEdit>
#include <QSpinBox>

namespace sb {

using namespace Qt::StringLiterals;

NewRunPage::NewRunPage(const QString &backendName, JobBackend *backend,
                       JobBackend::Capabilities fallback, QObject *parent)
    : QObject(parent)
    , m_name(backendName)
    , m_backend(backend)
    , m_capabilities(backend ? backend->capabilities() : fallback) {
}

QList<std::pair<QString, QString>> NewRunPage::targets() const {
    QList<std::pair<QString, QString>> entries;
    for (const QString &target : m_backend ? m_backend->targets() : QStringList())
        entries.append({target, u"%1 %2"_s.arg(m_name, target)});
    return entries;
}

QString NewRunPage::codeHint() const {
    return tr("optional: a local directory copied to the node first");
}

QString NewRunPage::directoryHint() const {
    return tr("on the node: the copied code, else the home directory");
}

void NewRunPage::addRow(const QString &label, QWidget *field) {
    m_rows.append({label, field});
}

void NewRunPage::addRowsTo(QFormLayout *form) const {
    for (const auto &[label, field] : m_rows)
        form->addRow(label, field);
}

void NewRunPage::setRowsVisible(QFormLayout *form, bool visible) const {
    for (const auto &row : m_rows)
        form->setRowVisible(row.second, visible);
}

void NewRunPage::activate(bool active, const QString &target) {
    Q_UNUSED(active);
    Q_UNUSED(target);
}

QPlainTextEdit *NewRunPage::addPreview(const QString &objectName, const QString &text) {
    m_preview = new QPlainTextEdit(text);
    m_preview->setObjectName(objectName);
    m_preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_preview->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_edited = !text.isEmpty();
    connect(m_preview, &QPlainTextEdit::textChanged, this, [this] {
        if (m_settingPreview)
            return;
        m_edited = true;
        Q_EMIT changed();
    });
    return m_preview;
}

bool NewRunPage::previewShown() const {
    return m_preview && (!m_toggle || m_toggle->isChecked());
}

void NewRunPage::resetPreview() {
    m_edited = false;
    Q_EMIT changed();
}

void NewRunPage::showPreview(const Result<QString> &text) {
    m_settingPreview = true;
    m_preview->setPlainText(text ? *text : u"# "_s + text.error() + u'\n');
    m_settingPreview = false;
}

void NewRunPage::formChanged(const JobSpec &spec) {
    m_accepted.clear();
    if (m_preview && m_backend && !m_edited)
        showPreview(previewOf(spec));
}

Result<QString> NewRunPage::previewOf(const JobSpec &spec) const {
    return m_backend->preview(spec);
}

RunDraft NewRunPage::draft(const JobSpec &spec) const {
    return {spec, m_preview ? m_preview->toPlainText() : QString(), m_accepted};
}

void NewRunPage::run(const JobSpec &spec) {
    Q_UNUSED(spec);
    Q_EMIT ready();
}

void NewRunPage::validate(const JobSpec &spec, const QString &checkingText) {
    if (!m_backend || !m_capabilities.validate)
        return Q_EMIT ready();
    Q_EMIT checking(true);
    Q_EMIT verdict(checkingText, false);
    m_backend->validate(draft(spec), this, [this](const Result<QVariant> &accepted) {
        Q_EMIT checking(false);
        if (!accepted)
            return Q_EMIT verdict(accepted.error(), true);
        m_accepted = *accepted;
        Q_EMIT ready();
    });
}

QSpinBox *optionalSpin(int minimum, int maximum, int value, const QString &none,
                       const QString &suffix) {
    auto *spin = new QSpinBox;
    spin->setRange(minimum, maximum);
    spin->setSpecialValueText(none);
    spin->setSuffix(suffix);
    spin->setValue(value);
    return spin;
}

} // namespace sb
