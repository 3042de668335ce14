#include "RunInfo.h"

#include <QJsonArray>

#include <algorithm>

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
    if (lastSeen)
        json[u"last_seen"_s] = *lastSeen;
    if (!sweep.isEmpty())
        json[u"sweep"_s] = sweep;
    if (tags)
        json[u"tags"_s] = QJsonArray::fromStringList(*tags);
    if (note)
        json[u"note"_s] = *note;
    if (archived)
        json[u"archived"_s] = *archived;
    if (!code.isEmpty())
        json[u"code"_s] = code;
    if (!environment.isEmpty())
        json[u"environment"_s] = environment;
    if (!forkedFrom.isEmpty())
        json[u"forked_from"_s] = forkedFrom;
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
    if (json.value(u"last_seen"_s).isDouble())
        info.lastSeen = json.value(u"last_seen"_s).toDouble();
    info.sweep = json.value(u"sweep"_s).toString();
    if (json.value(u"tags"_s).isArray()) {
        QStringList tags;
        for (const auto &tag : json.value(u"tags"_s).toArray()) {
            if (const QString text = tag.toString().trimmed(); !text.isEmpty())
                tags << text;
        }
        tags.removeDuplicates();
        info.tags = tags;
    }
    if (json.value(u"note"_s).isString())
        info.note = json.value(u"note"_s).toString();
    if (json.value(u"archived"_s).isBool())
        info.archived = json.value(u"archived"_s).toBool();
    info.code = json.value(u"code"_s).toObject();
    info.environment = json.value(u"environment"_s).toObject();
    info.forkedFrom = json.value(u"forked_from"_s).toObject();
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
    else if (update.status == u"running"_s)
        end.reset();
    if (update.lastSeen)
        lastSeen = std::max(lastSeen.value_or(*update.lastSeen), *update.lastSeen);
    if (!update.sweep.isEmpty())
        sweep = update.sweep;
    if (update.tags)
        tags = update.tags;
    if (update.note)
        note = update.note;
    if (update.archived)
        archived = update.archived;
    if (!update.code.isEmpty())
        code = update.code;
    if (!update.environment.isEmpty())
        environment = update.environment;
    if (!update.forkedFrom.isEmpty())
        forkedFrom = update.forkedFrom;
}

bool RunInfo::ended() const {
    return !status.isEmpty() && status != u"running"_s && status != u"lost"_s;
}

} // namespace sb
