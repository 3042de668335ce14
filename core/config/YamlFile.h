#pragma once

// yaml-cpp with errors a person can act on: the file, the line and the key.
#include "util/Result.h"

#include <QJsonValue>

#include <yaml-cpp/yaml.h>

namespace sb {

// The parsed document, or "FILE:LINE: what is wrong".
Result<YAML::Node> parseYaml(const QByteArray &yaml, const QString &fileName);
// "FILE:LINE: KEY" for a message about `node`.
QString yamlWhere(const QString &fileName, const YAML::Node &node, const QString &key);

// YAML as JSON, the way Kubernetes reads it: a plain scalar that spells a boolean, null or
// number is one; a quoted scalar is always a string.
QJsonValue yamlToJson(const YAML::Node &node);
// JSON as block YAML; strings that would read back as something else are quoted.
QByteArray jsonToYaml(const QJsonValue &value);

} // namespace sb
