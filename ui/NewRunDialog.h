#pragma once

#include "jobs/JobBackend.h"

#include <QDialog>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace sb {

class BackendRegistry;
class NewRunPage;

// Asks for a run: where (this computer, an SSH node, any node with enough free GPUs, a cluster),
// how many GPUs and workers, name, command line, working directory, environment and a code
// directory to take along; each backend's own fields, the preview of what it submits and its
// check before Run closes the dialog are a page of its own (ui/newrun/). The command line is
// split into arguments here, the way a shell would, and is never handed to a shell as text.
class NewRunDialog final : public QDialog {
    Q_OBJECT
public:
    // `nodes`: the SSH nodes a run may go to; `backends`: where the other places come from.
    NewRunDialog(const JobSpec &preset, const QStringList &nodes, const BackendRegistry *backends,
                 QWidget *parent = nullptr);
    JobSpec spec() const;
    // What Run submits (JobBackend::submitDraft): the spec, the preview as edited, and what the
    // backend's check accepted.
    RunDraft draft() const;

private:
    // Where's entries, each page's places; the preset's chosen.
    void addTargets(const JobSpec &preset);
    void layOut();
    void connectPages();
    NewRunPage *page() const; // the current target's
    NewRunPage *pageOf(int where) const;
    void update();
    // A target with more fields (a Slurm cluster's) grows the dialog: it stays on the screen.
    void keepOnScreen();
    void targetChanged();
    void run();
    void showVerdict(const QString &text, bool problem);

    QList<NewRunPage *> m_pages;
    QFormLayout *m_form;
    QComboBox *m_where;
    QSpinBox *m_gpus;
    QSpinBox *m_workers;
    QLineEdit *m_code;
    QPushButton *m_browseCode;
    QLineEdit *m_name;
    QLineEdit *m_command;
    QLineEdit *m_directory;
    QPlainTextEdit *m_environment;
    QLabel *m_edited;
    QPushButton *m_reset;
    QLabel *m_verdict;
    QLabel *m_codeStatus;
    QPushButton *m_run = nullptr;
    bool m_checking = false;
};

} // namespace sb
