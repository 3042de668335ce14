#pragma once

#include "SweepSpec.h"

#include <QJsonObject>
#include <QStringList>

namespace sb {

// Where a trial on a node finds its parameters as JSON (${args_json_file}); `run` is its run.
QString trialParametersFile(const QString &run);

// A parameter's value as the program reads it on its command line: numbers in their shortest
// exact form (whole numbers without a point), booleans and null as Python spells them (as W&B
// passes them), strings as they are, nested groups as compact JSON.
QString argumentValue(const QJsonValue &value);

// The trial's argument vector: the sweep's command with its macros expanded. ${args} becomes
// one "--name=value" argument per parameter, ${args_no_hyphens} "name=value", ${args_json} one
// argument holding the JSON object, ${args_json_file} `jsonFile` (where the caller puts that
// JSON). Values are never shell text: each stays inside its own argument.
QStringList trialCommand(const SweepSpec &spec, const QJsonObject &parameters,
                         const QString &jsonFile);

} // namespace sb
