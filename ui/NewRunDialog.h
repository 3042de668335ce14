#pragma once

#include "jobs/Job.h"
#include "jobs/KubeJobs.h"

#include <QDialog>
#include <QJsonObject>

#include <functional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace sb {

class KubeBackend;
class SlurmBackend;

// Asks for a run: where (this computer, an SSH node, any node with enough free GPUs, or a
// Kubernetes cluster), how many GPUs, name, command line, working directory, environment, a code
// directory to copy to the node first, and on a cluster the job template, image, workers, CPU,
// memory, Kueue queue, retries and deadlines; on a Slurm cluster the partition, account, QoS,
// time limit, nodes, CPUs, memory and GPU type, with the batch script it becomes. The command line
// is split into arguments here, the way a shell would, and is never handed to a shell as text.
//
// For a cluster the dialog shows the manifests it will submit as YAML, editable; Run first has
// the API server check them (a server-side dry run) and stays open with its verdict if refused.
class NewRunDialog final : public QDialog {
    Q_OBJECT
public:
    NewRunDialog(const JobSpec &preset, const QStringList &nodes, KubeBackend *kube = nullptr,
                 SlurmBackend *slurm = nullptr, QWidget *parent = nullptr);
    JobSpec spec() const;
    // Says beside each SSH node what it offers now ("3 of 8 GPUs free", "unreachable: ...").
    void describeNodes(const std::function<QString(const QString &node)> &availability);
    // For a cluster: the manifests the API server accepted in its dry run, to submit as they are.
    // What the API server accepted in a dry run (perhaps edited), with the code it fetches.
    KubeManifests manifests() const { return {m_accepted, m_shownCode}; }

private:
    bool onCluster() const;
    bool onSlurm() const;
    void regenerateManifest();
    void askClusterState();
    // A target with more fields (a Slurm cluster's) grows the dialog: it stays on the screen.
    void keepOnScreen();
    void prepareCode();
    void run();

    KubeBackend *m_kube;
    SlurmBackend *m_slurm;
    QComboBox *m_where;
    QSpinBox *m_gpus;
    QLineEdit *m_code;
    QLineEdit *m_name;
    QLineEdit *m_command;
    QLineEdit *m_directory;
    QPlainTextEdit *m_environment;
    QComboBox *m_template;
    QLineEdit *m_image;
    QSpinBox *m_workers;
    QCheckBox *m_tfConfig;
    QLineEdit *m_cpu;
    QLineEdit *m_memory;
    QLineEdit *m_queue;
    QSpinBox *m_retries;
    QSpinBox *m_deadline;
    QLineEdit *m_failCodes;
    QSpinBox *m_ttl;
    QLineEdit *m_partition;
    QLineEdit *m_account;
    QLineEdit *m_qos;
    QLineEdit *m_timeLimit;
    QSpinBox *m_cpusPerTask;
    QLineEdit *m_slurmMemory;
    QLineEdit *m_gpuType;
    QLineEdit *m_dependency;
    QLabel *m_clusterState;   // a Slurm cluster's free GPUs and the user's fair share
    QPlainTextEdit *m_script; // the batch script the form becomes, editable
    QPushButton *m_showManifest;
    QPlainTextEdit *m_manifest;
    QLabel *m_verdict;
    QLabel *m_codeStatus;
    QPushButton *m_run;
    QString m_jobName;
    bool m_manifestEdited = false;
    bool m_settingManifest = false;
    bool m_scriptEdited = false;
    bool m_settingScript = false;
    bool m_checking = false;
    QString m_preparedCode; // the code directory packed (or being packed) for the manifest
    bool m_packing = false; // off the GUI thread, by the backend
    bool m_runAfterPacking = false;
    QList<QJsonObject> m_accepted;
    CodeDelivery m_shownCode; // the code of the manifest last shown
};

} // namespace sb
