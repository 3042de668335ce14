#pragma once

// A sweep as researchers already write it: the Weights & Biases sweep YAML (method, metric,
// parameters, early_terminate, run_cap, program, command), plus a `signalbox:` section saying
// where the trials run.
#include "jobs/BackendName.h"
#include "util/Result.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QStringList>

#include <optional>

namespace sb {

// One hyperparameter: a constant, a list of values (optionally weighted), a distribution, or a
// group of nested parameters (which reaches the program as one JSON object).
struct SweepParameter {
    enum class Kind { Constant, Categorical, Distribution, Nested };
    QString name;
    Kind kind = Kind::Constant;
    QJsonValue value;            // Constant
    QJsonArray values;           // Categorical
    QList<double> probabilities; // Categorical; empty: equally likely
    // Distribution: int_uniform, uniform, q_uniform, log_uniform (min/max are exponents of e),
    // log_uniform_values, q_log_uniform, q_log_uniform_values, inv_log_uniform_values, normal,
    // q_normal, log_normal, q_log_normal.
    QString distribution;
    double min = 0;
    double max = 0;
    double q = 1;
    double mu = 0;
    double sigma = 1;
    QList<SweepParameter> children; // Nested
};

// Hyperband early termination: a running trial whose metric at a band (a number of logged
// values) is not in the best 1/eta of all trials' values there is stopped.
struct Hyperband {
    QList<int> bands; // ascending; empty: no early termination
    double eta = 3;
};

struct SweepSpec {
    enum class Method { Grid, Random, Bayes };

    QString fileName; // for messages
    QByteArray yaml;  // the text it was read from, kept with the sweep's state
    QString name;
    Method method = Method::Random;
    QString metric; // empty: none (grid and random need none)
    bool maximize = false;
    std::optional<double> target; // no new trials once a trial reaches it
    QList<SweepParameter> parameters;
    Hyperband earlyTerminate;
    int runCap = 0; // 0: none (random and bayes run until stopped)
    QString program;
    QStringList command; // with ${...} macros; the default runs the program with ${args}

    // The `signalbox:` section: where and how trials run.
    QString backend = BackendName::kLocal; // as JobSpec::backend, from the keys below
    QStringList nodes;    // SSH nodes; ["*"]: any node. Empty with no cluster: this computer
    QString cluster;      // a kubeconfig context instead
    QString jobTemplate;  // of the config, for cluster trials
    QString image;        // for cluster trials
    QString slurmCluster; // a Slurm cluster of the config instead; each trial a job of its own
    QString partition;    // for Slurm trials; empty: the cluster's default
    QString timeLimit;    // for Slurm trials, as sbatch --time takes it
    int parallelism = 1;  // trials running at once
    int gpusPerTrial = 0;
    QString interpreter = QStringLiteral("python3");
    QString workingDirectory;
    QString codeDirectory; // copied to the node or cluster before the trial (honouring .gitignore)
    QMap<QString, QString> environment; // added to every trial's

    static Result<SweepSpec> parse(const QByteArray &yaml, const QString &fileName);
    static Result<SweepSpec> load(const QString &path);
};

QString sweepMethodName(SweepSpec::Method method);

} // namespace sb
