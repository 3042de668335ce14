#pragma once

#include <QString>
#include <QVariant>

#include <optional>

// Every QSettings key the app keeps, in one table (Settings.cpp): its key, its default and its
// scope. A family (one key per kind of notification, per chart option, per remembered widget)
// has a key ending in '/' that a name completes.
namespace sb {

enum class SettingScope {
    Preference, // chosen in Settings or a menu: how the user wants Signalbox to behave
    Layout,     // how the window was left: sizes, tabs, the curves' choices, the last dialog
};

enum class Setting {
    WindowGeometry,
    WindowTab,
    Theme,
    Language,
    Notify, // family: the Notifier::Kind's number, on or off
    NotifyWaitMinutes,
    NotifyStallMinutes,
    CurvesXMetric,
    CurvesGroupBy,
    CurvesGroupKeys,
    CurvesGroupPattern,
    CurvesGroupCenter,
    CurvesGroupBand,
    CurvesExportSize,
    CurvesColumns,     // charts a row
    CurvesChartHeight, // pixels
    CurvesSyncZoom,    // a chart's x zoom taken by the others
    RunsHiddenColumns, // the runs table's columns put away, by title
    CurvesViews,       // family: the saved views of a collector (its address), as JSON
    Chart,             // family: chartSettingName()
    Remembered,        // family: a remembered widget's object name (see Remembered.h)
    NewRunLast,
};

// A chart option's name in the Chart family: "METRIC/OPTION", the metric percent-encoded (a
// metric's name may hold '/', as train/loss does).
QString chartSettingName(const QString &metric, const QString &option);

// The key in QSettings; `name` completes a family's.
QString settingKey(Setting setting, const QString &name = {});
QVariant settingDefault(Setting setting);
SettingScope settingScope(Setting setting);

// The stored value, or the table's default.
QVariant readSetting(Setting setting, const QString &name = {});
// The stored value, or nullopt: for a default that is not fixed (another choice's).
std::optional<QVariant> storedSetting(Setting setting, const QString &name = {});
void writeSetting(Setting setting, const QVariant &value, const QString &name = {});
void removeSetting(Setting setting, const QString &name = {});
// Every chart's own choice of this option, charted now or not: the toolbar's choice for all.
void removeChartOption(const QString &option);

} // namespace sb
