#pragma once

#include "NewRunPage.h"

class QLineEdit;

namespace sb {

// A Slurm cluster: its free GPUs and the user's fair share under Where, the partition, account,
// QoS, time limit, CPUs, memory, GPU type and dependency, and the batch script they become
// (editable; sbatch --test-only checks it first).
class SlurmRunPage final : public NewRunPage {
    Q_OBJECT
public:
    SlurmRunPage(JobBackend *backend, const JobSpec &preset, QObject *parent = nullptr);

    QList<std::pair<QString, QString>> targets() const override;
    QString codeHint() const override;
    QString directoryHint() const override;
    QString workersTip() const override;
    void fill(JobSpec &spec) const override;
    void activate(bool active, const QString &target) override;
    void run(const JobSpec &spec) override;

private:
    QLabel *m_clusterState; // the cluster's free GPUs and the user's fair share
    QLineEdit *m_partition;
    QLineEdit *m_account;
    QLineEdit *m_qos;
    QLineEdit *m_timeLimit;
    QSpinBox *m_cpusPerTask;
    QLineEdit *m_memory;
    QLineEdit *m_gpuType;
    QLineEdit *m_dependency;
    QString m_target; // while current: the cluster chosen
};

} // namespace sb
