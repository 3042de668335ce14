#include "Settings.h"

#include "Notifier.h"

#include <QSettings>
#include <QSize>
#include <QUrl>

#include <array>

namespace sb {

namespace {

struct Entry {
    Setting setting;
    const char *key;
    QVariant fallback;
    SettingScope scope;
};

const std::array<Entry, 22> &table() {
    using enum SettingScope;
    static const std::array<Entry, 22> entries{{
        {Setting::WindowGeometry, "window/geometry", QByteArray(), Layout},
        {Setting::WindowTab, "window/tab", 0, Layout},
        {Setting::Theme, "window/theme", 0, Preference},               // Theme::System
        {Setting::Language, "window/language", QString(), Preference}, // as the system
        {Setting::Notify, "notify/", true, Preference},
        {Setting::NotifyWaitMinutes, "notify/waitMinutes", Notifier::Options{}.waitMinutes,
         Preference},
        {Setting::NotifyStallMinutes, "notify/stallMinutes", Notifier::Options{}.stallMinutes,
         Preference},
        {Setting::CurvesXMetric, "curves/xMetric", QString(), Layout},
        {Setting::CurvesGroupBy, "curves/groupBy", 0, Layout},
        {Setting::CurvesGroupKeys, "curves/groupKeys", QStringList(), Layout},
        {Setting::CurvesGroupPattern, "curves/groupPattern", QString(), Layout},
        {Setting::CurvesGroupCenter, "curves/groupCenter", QString(), Layout},
        {Setting::CurvesGroupBand, "curves/groupBand", QString(), Layout},
        {Setting::CurvesExportSize, "curves/exportSize", QSize(1200, 750), Layout},
        {Setting::CurvesColumns, "curves/columns", 2, Layout},
        {Setting::CurvesChartHeight, "curves/chartHeight", 260, Layout},
        {Setting::CurvesSyncZoom, "curves/syncZoom", true, Layout},
        {Setting::RunsHiddenColumns, "curves/hiddenColumns", QStringList(), Layout},
        {Setting::CurvesViews, "curves/views/", QByteArray(), Preference},
        {Setting::Chart, "charts/", false, Layout},
        {Setting::Remembered, "remembered/", QVariant(), Layout},
        {Setting::NewRunLast, "newRun/last", QByteArray(), Layout},
    }};
    return entries;
}

const Entry &entryOf(Setting setting) {
    return table()[static_cast<std::size_t>(setting)];
}

} // namespace

QString chartSettingName(const QString &metric, const QString &option) {
    return QString::fromLatin1(QUrl::toPercentEncoding(metric)) + u'/' + option;
}

QString settingKey(Setting setting, const QString &name) {
    Q_ASSERT(entryOf(setting).setting == setting); // the table in the enum's order
    return QString::fromLatin1(entryOf(setting).key) + name;
}

QVariant settingDefault(Setting setting) {
    return entryOf(setting).fallback;
}

SettingScope settingScope(Setting setting) {
    return entryOf(setting).scope;
}

QVariant readSetting(Setting setting, const QString &name) {
    return QSettings().value(settingKey(setting, name), settingDefault(setting));
}

std::optional<QVariant> storedSetting(Setting setting, const QString &name) {
    const QSettings settings;
    const QString key = settingKey(setting, name);
    return settings.contains(key) ? std::optional(settings.value(key)) : std::nullopt;
}

void writeSetting(Setting setting, const QVariant &value, const QString &name) {
    QSettings().setValue(settingKey(setting, name), value);
}

void removeSetting(Setting setting, const QString &name) {
    QSettings().remove(settingKey(setting, name));
}

void removeChartOption(const QString &option) {
    QSettings settings;
    settings.beginGroup(settingKey(Setting::Chart).chopped(1)); // "charts", without its slash
    for (const QString &key : settings.allKeys()) {
        if (key.endsWith(u'/' + option))
            settings.remove(key);
    }
}

} // namespace sb
