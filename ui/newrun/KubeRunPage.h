#pragma once

#include "NewRunPage.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPushButton;

namespace sb {

// A Kubernetes cluster: the job template, image, TF_CONFIG, CPU, memory, Kueue queue, retries and
// deadlines, and the manifests Run submits as YAML (editable; the API server checks them in a
// dry run first). The code directory is packed off the GUI thread once its path is entered.
class KubeRunPage final : public NewRunPage {
    Q_OBJECT
public:
    KubeRunPage(JobBackend *backend, const JobSpec &preset, QObject *parent = nullptr);

    QList<std::pair<QString, QString>> targets() const override;
    QString codeHint() const override;
    QString directoryHint() const override;
    QString workersTip() const override;
    void fill(JobSpec &spec) const override;
    void codeEntered(const QString &directory) override;
    void formChanged(const JobSpec &spec) override;
    void run(const JobSpec &spec) override;

protected:
    Result<QString> previewOf(const JobSpec &spec) const override;

private:
    QComboBox *m_template;
    QLineEdit *m_image;
    QCheckBox *m_tfConfig;
    QLineEdit *m_cpu;
    QLineEdit *m_memory;
    QLineEdit *m_queue;
    QSpinBox *m_retries;
    QSpinBox *m_deadline;
    QLineEdit *m_failCodes;
    QSpinBox *m_ttl;
    QPushButton *m_showManifest;
    QString m_preparedCode; // the code directory packed (or being packed) for the manifest
    bool m_packing = false; // off the GUI thread, by the backend
    bool m_runAfterPacking = false;
};

} // namespace sb
