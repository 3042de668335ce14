#include "SweepSpec.h"

#include "config/Config.h"
#include "config/YamlFile.h"
#include "util/EnumNames.h"
#include "util/Files.h"

#include <QFile>
#include <QRegularExpression>

#include <cmath>
#include <set>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr EnumNames<SweepSpec::Method, 3> kMethodNames{{{SweepSpec::Method::Grid, "grid"},
                                                        {SweepSpec::Method::Random, "random"},
                                                        {SweepSpec::Method::Bayes, "bayes"}}};

} // namespace

QString sweepMethodName(SweepSpec::Method method) {
    return nameOf(kMethodNames, method);
}

namespace {

const QStringList kDistributions{u"constant"_s,
                                 u"categorical"_s,
                                 u"int_uniform"_s,
                                 u"uniform"_s,
                                 u"q_uniform"_s,
                                 u"log_uniform"_s,
                                 u"log_uniform_values"_s,
                                 u"q_log_uniform"_s,
                                 u"q_log_uniform_values"_s,
                                 u"inv_log_uniform_values"_s,
                                 u"normal"_s,
                                 u"q_normal"_s,
                                 u"log_normal"_s,
                                 u"q_log_normal"_s};
const QStringList kMacros{u"${env}"_s,           u"${interpreter}"_s,     u"${program}"_s,
                          u"${args}"_s,          u"${args_no_hyphens}"_s, u"${args_json}"_s,
                          u"${args_json_file}"_s};

// Reads one file's nodes, with "FILE:LINE: KEY" in every refusal.
class Reader {
public:
    explicit Reader(QString file)
        : m_file(std::move(file)) {}

    Error error(const YAML::Node &node, const QString &key, const QString &what) const {
        return fail(u"%1 %2"_s.arg(yamlWhere(m_file, node, key), what));
    }
    // A missing node (a key not there) is refused like a wrong one, never touched.
    Result<QString> text(const YAML::Node &node, const QString &key) const {
        if (!node || !node.IsScalar())
            return error(node, key, u"must be a single value"_s);
        return QString::fromStdString(node.Scalar());
    }
    Result<double> number(const YAML::Node &node, const QString &key) const {
        const QJsonValue value = node && node.IsScalar() ? yamlToJson(node) : QJsonValue();
        if (!value.isDouble())
            return error(node, key, u"must be a number"_s);
        return value.toDouble();
    }
    Result<int> count(const YAML::Node &node, const QString &key, int least) const {
        auto value = number(node, key);
        if (!value)
            return Error{value.error()};
        if (*value != std::trunc(*value) || *value < least || *value > 1e9)
            return error(node, key, u"must be a whole number, at least %1"_s.arg(least));
        return static_cast<int>(*value);
    }
    Status keys(const YAML::Node &map, const QString &at, const QStringList &known) const {
        for (const auto &entry : map) {
            const QString key = QString::fromStdString(entry.first.Scalar());
            if (!known.contains(key))
                return error(entry.first, at.isEmpty() ? key : at + u'.' + key,
                             u"is not a sweep key (expected one of %1)"_s.arg(known.join(u", ")));
        }
        return success();
    }
    const QString &file() const { return m_file; }

private:
    QString m_file;
};

// A scalar written as a whole number ("3", not "3.0"): W&B infers int_uniform from min/max so.
bool wholeNumber(const YAML::Node &node) {
    static const QRegularExpression integer(u"^[-+]?[0-9]+$"_s);
    return node && node.IsScalar() && node.Tag() == "?" &&
           integer.match(QString::fromStdString(node.Scalar())).hasMatch();
}

// One parameter; `grid`: it must be one a grid can list (values, value, int_uniform, q_uniform).
Result<SweepParameter> parseParameter(const Reader &in, const QString &name, const YAML::Node &node,
                                      const QString &at, bool grid) {
    if (!node.IsMap())
        return in.error(node, at,
                        u"must be a mapping (values, value, min/max, distribution or "
                        "parameters)"_s);
    if (Status known = in.keys(node, at,
                               {u"values"_s, u"value"_s, u"distribution"_s, u"min"_s, u"max"_s,
                                u"q"_s, u"mu"_s, u"sigma"_s, u"probabilities"_s, u"parameters"_s});
        !known)
        return Error{known.error()};
    SweepParameter parameter;
    parameter.name = name;
    QString distribution;
    if (const YAML::Node d = node["distribution"]) {
        auto text = in.text(d, at + u".distribution"_s);
        if (!text)
            return Error{text.error()};
        if (!kDistributions.contains(*text))
            return in.error(d, at + u".distribution"_s,
                            u"\"%1\" is not a distribution (expected one of %2)"_s.arg(
                                *text, kDistributions.join(u", ")));
        distribution = *text;
    }
    if (const YAML::Node nested = node["parameters"]) {
        if (!nested.IsMap() || nested.size() == 0)
            return in.error(nested, at + u".parameters"_s, u"must be a mapping of parameters"_s);
        parameter.kind = SweepParameter::Kind::Nested;
        for (const auto &entry : nested) {
            const QString child = QString::fromStdString(entry.first.Scalar());
            auto parsed = parseParameter(in, child, entry.second, at + u'.' + child, grid);
            if (!parsed)
                return parsed;
            parameter.children << std::move(parsed).value();
        }
        return parameter;
    }
    if (const YAML::Node value = node["value"]) {
        parameter.kind = SweepParameter::Kind::Constant;
        parameter.value = yamlToJson(value);
        return parameter;
    }
    if (const YAML::Node values = node["values"]) {
        if (!values.IsSequence() || values.size() == 0)
            return in.error(values, at + u".values"_s, u"must be a non-empty list"_s);
        parameter.kind = SweepParameter::Kind::Categorical;
        parameter.values = yamlToJson(values).toArray();
        if (const YAML::Node p = node["probabilities"]) {
            if (!p.IsSequence() || p.size() != values.size())
                return in.error(p, at + u".probabilities"_s,
                                u"must be a list as long as values (%1)"_s.arg(values.size()));
            double sum = 0;
            for (std::size_t i = 0; i < p.size(); ++i) {
                auto weight = in.number(p[i], u"%1.probabilities[%2]"_s.arg(at).arg(i));
                if (!weight)
                    return Error{weight.error()};
                if (*weight < 0)
                    return in.error(p[i], u"%1.probabilities[%2]"_s.arg(at).arg(i),
                                    u"must not be negative"_s);
                parameter.probabilities << *weight;
                sum += *weight;
            }
            if (std::abs(sum - 1) > 1e-6)
                return in.error(p, at + u".probabilities"_s,
                                u"must add up to 1 (they add up to %1)"_s.arg(sum));
        }
        return parameter;
    }
    parameter.kind = SweepParameter::Kind::Distribution;
    for (const char *key : {"min", "max", "q", "mu", "sigma"}) {
        const YAML::Node field = node[key];
        if (!field)
            continue;
        auto number = in.number(field, at + u'.' + QLatin1String(key));
        if (!number)
            return Error{number.error()};
        double &slot = std::string_view(key) == "min"   ? parameter.min
                       : std::string_view(key) == "max" ? parameter.max
                       : std::string_view(key) == "q"   ? parameter.q
                       : std::string_view(key) == "mu"  ? parameter.mu
                                                        : parameter.sigma;
        slot = *number;
    }
    const bool bounded = node["min"] && node["max"];
    if (distribution.isEmpty()) {
        if (!bounded)
            return in.error(node, at, u"needs values, value, min and max, or a distribution"_s);
        distribution =
            wholeNumber(node["min"]) && wholeNumber(node["max"]) ? u"int_uniform"_s : u"uniform"_s;
    }
    if (distribution == "constant"_L1 || distribution == "categorical"_L1)
        return in.error(node, at + u".distribution"_s,
                        u"%1 needs %2"_s.arg(distribution, distribution == "constant"_L1
                                                               ? u"value"_s
                                                               : u"values"_s));
    parameter.distribution = distribution;
    const bool normal = distribution.endsWith("normal"_L1);
    if (!normal) {
        if (!bounded)
            return in.error(node, at, u"%1 needs min and max"_s.arg(distribution));
        if (!(parameter.min < parameter.max))
            return in.error(node["max"], at + u".max"_s, u"must be greater than min"_s);
        if (distribution.endsWith("_values"_L1) && parameter.min <= 0)
            return in.error(node["min"], at + u".min"_s,
                            u"must be positive for %1"_s.arg(distribution));
    } else if (!(parameter.sigma > 0)) {
        return in.error(node["sigma"], at + u".sigma"_s, u"must be positive"_s);
    }
    if (distribution.startsWith("q_"_L1) && !(parameter.q > 0))
        return in.error(node["q"], at + u".q"_s, u"must be positive"_s);
    if (grid && distribution != "int_uniform"_L1 && distribution != "q_uniform"_L1)
        return in.error(node, at,
                        u"is %1, which a grid cannot list (use values, value, int_uniform or "
                        "q_uniform)"_s.arg(distribution));
    return parameter;
}

Status parseEarlyTerminate(const Reader &in, const YAML::Node &node, Hyperband &out) {
    if (!node.IsMap())
        return in.error(node, u"early_terminate"_s, u"must be a mapping (type: hyperband, ...)"_s);
    if (Status known =
            in.keys(node, u"early_terminate"_s,
                    {u"type"_s, u"min_iter"_s, u"max_iter"_s, u"s"_s, u"eta"_s, u"strict"_s});
        !known)
        return known;
    auto type = in.text(node["type"], u"early_terminate.type"_s);
    if (!type)
        return Error{type.error()};
    if (*type != "hyperband"_L1)
        return in.error(node["type"], u"early_terminate.type"_s,
                        u"\"%1\" is not supported (expected hyperband)"_s.arg(*type));
    if (const YAML::Node eta = node["eta"]) {
        auto value = in.number(eta, u"early_terminate.eta"_s);
        if (!value)
            return Error{value.error()};
        if (!(*value > 1))
            return in.error(eta, u"early_terminate.eta"_s, u"must be greater than 1"_s);
        out.eta = *value;
    }
    if (const YAML::Node minIter = node["min_iter"]) {
        auto first = in.count(minIter, u"early_terminate.min_iter"_s, 1);
        if (!first)
            return Error{first.error()};
        // Bands grow by eta up to a million logged values: more than any run logs.
        for (double band = *first; band < 1e6; band *= out.eta)
            out.bands << static_cast<int>(band);
        return success();
    }
    if (const YAML::Node maxIter = node["max_iter"]) {
        auto last = in.count(maxIter, u"early_terminate.max_iter"_s, 1);
        if (!last)
            return Error{last.error()};
        if (!node["s"])
            return in.error(node, u"early_terminate.s"_s, u"is needed with max_iter"_s);
        auto brackets = in.count(node["s"], u"early_terminate.s"_s, 1);
        if (!brackets)
            return Error{brackets.error()};
        double band = *last;
        for (int i = 0; i < *brackets && band / out.eta >= 1; ++i) {
            band /= out.eta;
            out.bands.prepend(static_cast<int>(band));
        }
        if (out.bands.isEmpty())
            return in.error(maxIter, u"early_terminate.max_iter"_s,
                            u"leaves no band (max_iter / eta is below 1)"_s);
        return success();
    }
    return in.error(node, u"early_terminate"_s, u"needs min_iter, or max_iter and s"_s);
}

Status parseCommand(const Reader &in, const YAML::Node &node, QStringList &out) {
    if (!node.IsSequence() || node.size() == 0)
        return in.error(node, u"command"_s, u"must be a non-empty list"_s);
    static const QRegularExpression macro(u"\\$\\{[^}]*\\}"_s);
    for (std::size_t i = 0; i < node.size(); ++i) {
        const QString at = u"command[%1]"_s.arg(i);
        auto part = in.text(node[i], at);
        if (!part)
            return Error{part.error()};
        for (auto it = macro.globalMatch(*part); it.hasNext();) {
            const QString found = it.next().captured();
            if (!kMacros.contains(found))
                return in.error(
                    node[i], at,
                    u"%1 is not a macro (expected one of %2)"_s.arg(found, kMacros.join(u", ")));
            if ((found == "${args}"_L1 || found == "${args_no_hyphens}"_L1) && *part != found)
                return in.error(node[i], at,
                                u"%1 stands alone in its list item: it becomes one argument per "
                                "parameter"_s.arg(found));
        }
        out << *part;
    }
    return success();
}

Status parseSignalbox(const Reader &in, const YAML::Node &node, SweepSpec &spec) {
    const QString at = u"signalbox"_s;
    if (!node.IsMap())
        return in.error(node, at, u"must be a mapping (nodes or cluster, parallelism, ...)"_s);
    if (Status known =
            in.keys(node, at,
                    {u"nodes"_s, u"cluster"_s, u"job_template"_s, u"image"_s, u"slurm"_s,
                     u"partition"_s, u"time_limit"_s, u"parallelism"_s, u"gpus_per_trial"_s,
                     u"interpreter"_s, u"working_directory"_s, u"code"_s, u"environment"_s});
        !known)
        return known;
    for (const auto &entry : node) {
        const std::string key = entry.first.Scalar();
        const QString keyAt = at + u'.' + QString::fromStdString(key);
        const YAML::Node &value = entry.second;
        if (key == "nodes") {
            if (value.IsScalar() && value.Scalar() == "any") {
                spec.nodes = {u"*"_s};
                continue;
            }
            if (!value.IsSequence() || value.size() == 0)
                return in.error(value, keyAt, u"must be a list of node names, or \"any\""_s);
            for (std::size_t i = 0; i < value.size(); ++i) {
                auto name = in.text(value[i], u"%1[%2]"_s.arg(keyAt).arg(i));
                if (!name)
                    return Error{name.error()};
                spec.nodes << *name;
            }
        } else if (key == "environment") {
            if (!value.IsMap())
                return in.error(value, keyAt, u"must be a mapping of names to values"_s);
            for (const auto &variable : value) {
                auto text = in.text(variable.second,
                                    keyAt + u'.' + QString::fromStdString(variable.first.Scalar()));
                if (!text)
                    return Error{text.error()};
                spec.environment.insert(QString::fromStdString(variable.first.Scalar()), *text);
            }
        } else if (key == "parallelism" || key == "gpus_per_trial") {
            auto number = in.count(value, keyAt, key == "parallelism" ? 1 : 0);
            if (!number)
                return Error{number.error()};
            (key == "parallelism" ? spec.parallelism : spec.gpusPerTrial) = *number;
        } else {
            auto text = in.text(value, keyAt);
            if (!text)
                return Error{text.error()};
            QString &slot = key == "cluster"             ? spec.cluster
                            : key == "slurm"             ? spec.slurmCluster
                            : key == "partition"         ? spec.partition
                            : key == "time_limit"        ? spec.timeLimit
                            : key == "job_template"      ? spec.jobTemplate
                            : key == "image"             ? spec.image
                            : key == "interpreter"       ? spec.interpreter
                            : key == "working_directory" ? spec.workingDirectory
                                                         : spec.codeDirectory;
            slot = *text;
        }
    }
    if (!spec.cluster.isEmpty() && !spec.nodes.isEmpty())
        return in.error(node, at, u"names nodes and a cluster; trials run on one or the other"_s);
    if (!spec.slurmCluster.isEmpty() && (!spec.cluster.isEmpty() || !spec.nodes.isEmpty()))
        return in.error(node, at,
                        u"names a Slurm cluster and nodes or a cluster; trials run on "
                        "one"_s);
    spec.backend = !spec.cluster.isEmpty()        ? BackendName::kKubernetes
                   : !spec.slurmCluster.isEmpty() ? BackendName::kSlurm
                   : !spec.nodes.isEmpty()        ? BackendName::kSsh
                                                  : BackendName::kLocal;
    if (spec.slurmCluster.isEmpty() && (!spec.partition.isEmpty() || !spec.timeLimit.isEmpty()))
        return in.error(node, at, u"partition and time_limit are for a Slurm cluster (slurm:)"_s);
    if (spec.cluster.isEmpty() && (!spec.jobTemplate.isEmpty() || !spec.image.isEmpty()))
        return in.error(node, at, u"job_template and image are for a cluster"_s);
    if (!spec.cluster.isEmpty() && spec.image.isEmpty() && spec.jobTemplate.isEmpty())
        return in.error(node, at, u"a cluster's trials need an image (or a job template)"_s);
    return success();
}

} // namespace

Result<SweepSpec> SweepSpec::parse(const QByteArray &yaml, const QString &fileName) {
    auto document = parseYaml(yaml, fileName);
    if (!document)
        return Error{document.error()};
    const YAML::Node &root = *document;
    const Reader in(fileName);
    if (!root.IsMap())
        return in.error(root, u"sweep"_s, u"must be a mapping (method, metric, parameters, ...)"_s);
    if (Status known = in.keys(root, {},
                               {u"method"_s, u"metric"_s, u"parameters"_s, u"early_terminate"_s,
                                u"run_cap"_s, u"program"_s, u"command"_s, u"name"_s,
                                u"description"_s, u"project"_s, u"entity"_s, u"signalbox"_s});
        !known)
        return Error{known.error()};
    SweepSpec spec;
    spec.fileName = fileName;
    spec.yaml = yaml;
    if (const YAML::Node name = root["name"]) {
        auto text = in.text(name, u"name"_s);
        if (!text)
            return Error{text.error()};
        spec.name = *text;
    }
    const YAML::Node method = root["method"];
    if (!method)
        return in.error(root, u"method"_s, u"is missing (grid, random or bayes)"_s);
    auto methodName = in.text(method, u"method"_s);
    if (!methodName)
        return Error{methodName.error()};
    if (!parseName(kMethodNames, *methodName, &spec.method))
        return in.error(
            method, u"method"_s,
            u"\"%1\" is not a method (expected grid, random or bayes)"_s.arg(*methodName));
    if (const YAML::Node metric = root["metric"]) {
        if (!metric.IsMap())
            return in.error(metric, u"metric"_s, u"must be a mapping (name, goal)"_s);
        if (Status known = in.keys(metric, u"metric"_s, {u"name"_s, u"goal"_s, u"target"_s});
            !known)
            return Error{known.error()};
        auto name = in.text(metric["name"], u"metric.name"_s);
        if (!name || name->isEmpty())
            return in.error(metric, u"metric.name"_s, u"is missing"_s);
        spec.metric = *name;
        if (const YAML::Node goal = metric["goal"]) {
            auto text = in.text(goal, u"metric.goal"_s);
            if (!text || (*text != "minimize"_L1 && *text != "maximize"_L1))
                return in.error(goal, u"metric.goal"_s, u"is minimize or maximize"_s);
            spec.maximize = *text == "maximize"_L1;
        }
        if (const YAML::Node target = metric["target"]) {
            auto value = in.number(target, u"metric.target"_s);
            if (!value)
                return Error{value.error()};
            spec.target = *value;
        }
    }
    const YAML::Node params = root["parameters"];
    if (!params || !params.IsMap() || params.size() == 0)
        return in.error(params ? params : root, u"parameters"_s,
                        u"must be a mapping of at least one parameter"_s);
    for (const auto &entry : params) {
        const QString name = QString::fromStdString(entry.first.Scalar());
        auto parameter = parseParameter(in, name, entry.second, u"parameters."_s + name,
                                        spec.method == Method::Grid);
        if (!parameter)
            return Error{parameter.error()};
        spec.parameters << std::move(parameter).value();
    }
    if (const YAML::Node early = root["early_terminate"]) {
        if (Status ok = parseEarlyTerminate(in, early, spec.earlyTerminate); !ok)
            return Error{ok.error()};
        if (spec.metric.isEmpty())
            return in.error(early, u"early_terminate"_s, u"needs a metric to compare trials"_s);
    }
    if (spec.method == Method::Bayes && spec.metric.isEmpty())
        return in.error(method, u"method"_s, u"bayes needs a metric (metric.name)"_s);
    if (const YAML::Node cap = root["run_cap"]) {
        auto number = in.count(cap, u"run_cap"_s, 1);
        if (!number)
            return Error{number.error()};
        spec.runCap = *number;
    }
    if (const YAML::Node program = root["program"]) {
        auto text = in.text(program, u"program"_s);
        if (!text)
            return Error{text.error()};
        spec.program = *text;
    }
    if (const YAML::Node command = root["command"]) {
        if (Status ok = parseCommand(in, command, spec.command); !ok)
            return Error{ok.error()};
    } else {
        spec.command = {u"${env}"_s, u"${interpreter}"_s, u"${program}"_s, u"${args}"_s};
    }
    if (spec.program.isEmpty() &&
        std::any_of(spec.command.begin(), spec.command.end(),
                    [](const QString &part) { return part.contains("${program}"_L1); }))
        return in.error(root, u"program"_s, u"is missing (the command runs ${program})"_s);
    if (const YAML::Node signalbox = root["signalbox"])
        if (Status ok = parseSignalbox(in, signalbox, spec); !ok)
            return Error{ok.error()};
    if (spec.name.isEmpty())
        spec.name = u"sweep"_s;
    return spec;
}

Result<SweepSpec> SweepSpec::load(const QString &path) {
    auto bytes = readRegularFile(path, kMaxConfigBytes);
    if (!bytes)
        return fail(u"cannot read the sweep: %1"_s.arg(bytes.error()));
    return parse(*bytes, path);
}

} // namespace sb
