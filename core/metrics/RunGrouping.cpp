#include "RunGrouping.h"

#include "ConfigDiff.h"

#include <QHash>
#include <QRegularExpression>

namespace sb {

using namespace Qt::StringLiterals;

QString RunGrouping::groupOf(const RunInfo &run) const {
    switch (by) {
    case By::Nothing:
        return {};
    case By::Sweep:
        return run.sweep;
    case By::Pattern: {
        // One expression for every run of a grouping (compiled once, on its first match).
        thread_local QRegularExpression expression;
        if (expression.pattern() != pattern)
            expression = QRegularExpression(pattern);
        const QRegularExpressionMatch match =
            expression.isValid() ? expression.match(run.name) : QRegularExpressionMatch();
        if (!match.hasMatch())
            return {};
        return expression.captureCount() > 0 ? match.captured(1) : match.captured(0);
    }
    case By::Keys: {
        if (keys.isEmpty())
            return {};
        const QJsonObject config = flattenConfig(run.config);
        QStringList parts;
        for (const QString &key : keys) {
            const auto value = config.constFind(key);
            parts << key + u'=' + (value == config.constEnd() ? u"–"_s : configValueText(*value));
        }
        return parts.join(u", "_s);
    }
    }
    return {};
}

QString RunGrouping::describe() const {
    switch (by) {
    case By::Nothing:
        return {};
    case By::Sweep:
        return u"sweep"_s;
    case By::Pattern:
        return u'/' + pattern + u'/';
    case By::Keys:
        return keys.join(u", "_s);
    }
    return {};
}

GroupedRuns groupRuns(const QList<RunInfo> &runs, const RunGrouping &grouping) {
    GroupedRuns out;
    QHash<QString, qsizetype> index;
    for (const RunInfo &run : runs) {
        const QString group = grouping.groupOf(run);
        if (group.isEmpty()) {
            out.alone << run.name;
            continue;
        }
        const auto it = index.constFind(group);
        if (it != index.constEnd()) {
            out.groups[*it].runs << run.name;
            continue;
        }
        index.insert(group, out.groups.size());
        out.groups.append({group, {run.name}});
    }
    return out;
}

} // namespace sb
