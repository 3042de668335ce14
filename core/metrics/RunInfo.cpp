#include "RunInfo.h"

namespace sb {

using namespace Qt::StringLiterals;

QJsonObject RunInfo::toJson() const {
    QJsonObject json{{u"name"_s, name}};
    if (!config.isEmpty())
        json[u"config"_s] = config;
    if (!host.isEmpty())
        json[u"host"_s] = host;
    if (!status.isEmpty())
        json[u"status"_s] = status;
    if (start)
        json[u"start"_s] = *start;
    if (end)
        json[u"end"_s] = *end;
    return json;
}

RunInfo RunInfo::fromJson(const QString &name, const QJsonObject &json) {
    RunInfo info;
    info.name = name;
    info.config = json.value(u"config"_s).toObject();
    info.host = json.value(u"host"_s).toString();
    info.status = json.value(u"status"_s).toString();
    if (json.value(u"start"_s).isDouble())
        info.start = json.value(u"start"_s).toDouble();
    if (json.value(u"end"_s).isDouble())
        info.end = json.value(u"end"_s).toDouble();
    return info;
}

void RunInfo::merge(const RunInfo &update) {
    for (auto it = update.config.begin(); it != update.config.end(); ++it)
        config[it.key()] = it.value();
    if (!update.host.isEmpty())
        host = update.host;
    if (!update.status.isEmpty())
        status = update.status;
    if (update.start && !start)
        start = update.start;
    if (update.end)
        end = update.end;
}

} // namespace sb
