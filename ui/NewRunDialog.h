#pragma once

#include "jobs/Job.h"

#include <QDialog>

class QLineEdit;
class QPlainTextEdit;

namespace sb {

// Asks for a run: name, command line, working directory and environment. The command line is
// split into arguments here, the way a shell would, and is never handed to a shell.
class NewRunDialog final : public QDialog {
    Q_OBJECT
public:
    explicit NewRunDialog(const JobSpec &preset, QWidget *parent = nullptr);
    JobSpec spec() const;

private:
    QLineEdit *m_name;
    QLineEdit *m_command;
    QLineEdit *m_directory;
    QPlainTextEdit *m_environment;
};

} // namespace sb
