#pragma once

#include "jobs/Job.h"

#include <QDialog>

class QComboBox;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace sb {

// Asks for a run: where (this computer, an SSH node, any node with enough free GPUs, or a
// Kubernetes cluster), how many GPUs, name, command line, working directory, environment, a code
// directory to copy to the node first, and on a cluster the image, workers, CPU, memory and
// Kueue queue. The command line is split into arguments here, the way a shell would, and
// is never handed to a shell as text.
class NewRunDialog final : public QDialog {
    Q_OBJECT
public:
    NewRunDialog(const JobSpec &preset, const QStringList &nodes, const QStringList &clusters = {},
                 QWidget *parent = nullptr);
    JobSpec spec() const;

private:
    QComboBox *m_where;
    QSpinBox *m_gpus;
    QLineEdit *m_code;
    QLineEdit *m_name;
    QLineEdit *m_command;
    QLineEdit *m_directory;
    QPlainTextEdit *m_environment;
    QLineEdit *m_image;
    QSpinBox *m_workers;
    QLineEdit *m_cpu;
    QLineEdit *m_memory;
    QLineEdit *m_queue;
};

} // namespace sb
