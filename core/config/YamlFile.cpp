#include "YamlFile.h"

namespace sb {

using namespace Qt::StringLiterals;

Result<YAML::Node> parseYaml(const QByteArray &yaml, const QString &fileName) {
    try {
        return YAML::Load(yaml.toStdString());
    } catch (const YAML::Exception &e) {
        return fail(
            u"%1:%2: %3"_s.arg(fileName).arg(e.mark.line + 1).arg(QString::fromStdString(e.msg)));
    }
}

QString yamlWhere(const QString &fileName, const YAML::Node &node, const QString &key) {
    return u"%1:%2: %3"_s.arg(fileName).arg(node.Mark().line + 1).arg(key);
}

} // namespace sb
