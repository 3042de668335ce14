#pragma once

// YAML as JSON objects, for code that never touches yaml-cpp (the UI's manifest editor).
#include "util/Result.h"

#include <QJsonObject>
#include <QList>

namespace sb {

// Every document of a multi-document stream (---) that is not empty, each a mapping read the
// way Kubernetes reads YAML; or "FILE:LINE: what is wrong" (limits as in parseYaml).
Result<QList<QJsonObject>> parseYamlObjects(const QByteArray &yaml, const QString &fileName);
// JSON as block YAML; strings that would read back as something else are quoted.
QByteArray jsonToYaml(const QJsonValue &value);

} // namespace sb
