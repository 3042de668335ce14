#pragma once

// yaml-cpp with errors a person can act on: the file, the line and the key.
#include "util/Result.h"

#include <yaml-cpp/yaml.h>

namespace sb {

// The parsed document, or "FILE:LINE: what is wrong".
Result<YAML::Node> parseYaml(const QByteArray &yaml, const QString &fileName);
// "FILE:LINE: KEY" for a message about `node`.
QString yamlWhere(const QString &fileName, const YAML::Node &node, const QString &key);

} // namespace sb
