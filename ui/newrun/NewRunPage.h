#pragma once

#include "jobs/JobBackend.h"

#include <QObject>
#include <QVariant>

#include <functional>
#include <utility>

class QAbstractButton;
class QFormLayout;
class QLabel;
class QPlainTextEdit;
class QSpinBox;
class QWidget;

namespace sb {

// One backend's part of the New-run dialog (NewRunDialog is the shell): the places it adds to
// Where, rows of its own in the form, the editable preview of what Run submits, and the check
// before the dialog closes. It reaches its backend through JobBackend and its capabilities alone.
class NewRunPage : public QObject {
    Q_OBJECT
public:
    // `backend` may be null (none of that name here): the page still offers its places.
    // `fallback`: the capabilities assumed then.
    NewRunPage(const QString &backendName, JobBackend *backend,
               JobBackend::Capabilities fallback = {}, QObject *parent = nullptr);

    const QString &backendName() const { return m_name; }
    JobBackend *backend() const { return m_backend; }
    const JobBackend::Capabilities &capabilities() const { return m_capabilities; }

    // Where's entries: JobSpec::target and its words.
    virtual QList<std::pair<QString, QString>> targets() const;
    // Says beside a target what it offers now, through `setText(target, words)`; may be later.
    virtual void
    describeTargets(const std::function<void(const QString &, const QString &)> &setText) {
        Q_UNUSED(setText);
    }
    // The shared fields' hints here.
    virtual QString codeHint() const;
    virtual QString directoryHint() const;
    virtual QString workersTip() const { return {}; }
    // Sets its own part of `spec`; the shell has set the shared fields.
    virtual void fill(JobSpec &spec) const { Q_UNUSED(spec); }

    // Its rows, in order, added to the shell's form; shown while the page is current.
    void addRowsTo(QFormLayout *form) const;
    void setRowsVisible(QFormLayout *form, bool visible) const;
    // The page became the current one (`target` chosen) or another did.
    virtual void activate(bool active, const QString &target);
    // The code directory's path was entered (or the page became current with it).
    virtual void codeEntered(const QString &directory) { Q_UNUSED(directory); }
    // The form changed while it is current: the check is void, the preview follows the form.
    virtual void formChanged(const JobSpec &spec);

    // The editor of what Run submits and the button that shows it; null: none.
    QPlainTextEdit *preview() const { return m_preview; }
    QAbstractButton *previewToggle() const { return m_toggle; }
    bool previewShown() const;
    bool previewEdited() const { return m_edited; }
    void resetPreview();
    // What Run would submit, as the backend checked it (validate()) where it did.
    RunDraft draft(const JobSpec &spec) const;
    // Run: checks `spec` as the backend can, then ready(); or a verdict.
    virtual void run(const JobSpec &spec);

Q_SIGNALS:
    void changed(); // a field of its own, or the preview, was edited
    void verdict(const QString &text, bool problem);
    void checking(bool busy);
    void ready(); // Run may close the dialog
    void codeStatus(const QString &text, bool problem);
    void runAgain(); // what Run waited for is done

protected:
    void addRow(const QString &label, QWidget *field);
    // A preview editor named `objectName`, filled with `text` (edited by hand when not empty).
    QPlainTextEdit *addPreview(const QString &objectName, const QString &text);
    // A button that shows the preview while checked; without one it always shows.
    void setPreviewToggle(QAbstractButton *toggle) { m_toggle = toggle; }
    void showPreview(const Result<QString> &text);
    // What the preview shows for `spec` (the backend's preview()).
    virtual Result<QString> previewOf(const JobSpec &spec) const;
    // The check with the backend (validate()); its words while it runs.
    void validate(const JobSpec &spec, const QString &checkingText);

private:
    QString m_name;
    JobBackend *m_backend;
    JobBackend::Capabilities m_capabilities;
    QList<std::pair<QString, QWidget *>> m_rows;
    QPlainTextEdit *m_preview = nullptr;
    QAbstractButton *m_toggle = nullptr;
    bool m_edited = false;
    bool m_settingPreview = false;
    QVariant m_accepted; // what validate() accepted; void once the form changes
};

// A spin box whose lowest value means "not set", shown as `none`.
QSpinBox *optionalSpin(int minimum, int maximum, int value, const QString &none,
                       const QString &suffix);

} // namespace sb
