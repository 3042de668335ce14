#pragma once

// yaml-cpp with errors a person can act on: the file, the line and the key.
#include "YamlJson.h"
#include "util/Result.h"

#include <QJsonValue>

#include <yaml-cpp/yaml.h>

#include <vector>

namespace sb {

// The parsed document, or "FILE:LINE: what is wrong". Nothing throws: a document is refused
// when it expands (through anchors and aliases) past what any reader should walk, nests too deep,
// or has a key that is a list or mapping.
Result<YAML::Node> parseYaml(const QByteArray &yaml, const QString &fileName);
// Every document of a multi-document stream (---), checked the same way.
Result<std::vector<YAML::Node>> parseYamlDocuments(const QByteArray &yaml, const QString &fileName);
// "FILE:LINE: KEY" for a message about `node`.
QString yamlWhere(const QString &fileName, const YAML::Node &node, const QString &key);

// YAML as JSON, the way Kubernetes reads it: a plain scalar that spells a boolean, null or
// number is one; a quoted scalar is always a string.
QJsonValue yamlToJson(const YAML::Node &node);

} // namespace sb
