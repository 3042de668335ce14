#include "Resume.h"

#include "MetricPoint.h"

namespace sb {

using namespace Qt::StringLiterals;

Result<Resume> Resume::fromJson(const QJsonValue &json) {
    const QJsonObject object = json.toObject();
    const QString mode = object.value(u"mode"_s).toString();
    const QJsonValue step = object.value(u"step"_s);
    const QJsonValue inclusive = object.value(u"inclusive"_s);
    const QJsonValue from = object.value(u"from"_s);
    if (!json.isObject() || (mode != u"rewind"_s && mode != u"fork"_s) || !step.isDouble() ||
        !validCoordinate(step.toDouble()) || !(inclusive.isUndefined() || inclusive.isBool()) ||
        !(from.isUndefined() || from.isString()))
        return fail(u"\"resume\" must be {\"mode\": \"rewind\" or \"fork\", \"step\": a number "
                    "within +-2^53, \"inclusive\": true or false, \"from\": a run's name}"_s,
                    ErrorCode::InvalidInput);
    Resume resume;
    resume.mode = mode == u"fork"_s ? Mode::Fork : Mode::Rewind;
    resume.step = step.toDouble();
    resume.inclusive = inclusive.toBool();
    resume.from = from.toString();
    if (resume.mode == Mode::Fork && resume.from.isEmpty())
        return fail(u"a fork names the run it starts from: \"resume\": {\"from\": RUN}"_s,
                    ErrorCode::InvalidInput);
    if (resume.mode == Mode::Rewind && !resume.from.isEmpty())
        return fail(u"a rewind goes back in its own run: \"from\" is for a fork"_s,
                    ErrorCode::InvalidInput);
    return resume;
}

QJsonObject Resume::toJson() const {
    QJsonObject json{{u"mode"_s, mode == Mode::Fork ? u"fork"_s : u"rewind"_s},
                     {u"step"_s, step},
                     {u"inclusive"_s, inclusive}};
    if (!from.isEmpty())
        json[u"from"_s] = from;
    return json;
}

} // namespace sb
