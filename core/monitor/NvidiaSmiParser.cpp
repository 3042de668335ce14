#include "NvidiaSmiParser.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QList>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

struct Table {
    QStringList columns;
    QList<QStringList> rows;
};

// Renamed fields across drivers, mapped to the current names.
QString canonicalField(QString name) {
    name = name.trimmed();
    if (const qsizetype unit = name.indexOf(u" ["_s); unit > 0)
        name.truncate(unit); // "memory.used [MiB]"
    static const QString throttle = u"clocks_throttle_reasons."_s;
    static const QString event = u"clocks_event_reasons."_s;
    if (name.startsWith(throttle))
        name.replace(0, throttle.size(), event);
    static const QHash<QString, QString> aliases{{u"clocks.sm"_s, u"clocks.current.sm"_s},
                                                 {u"clocks.mem"_s, u"clocks.current.memory"_s},
                                                 {u"clocks.gr"_s, u"clocks.current.graphics"_s}};
    return aliases.value(name, name);
}

// Splits nvidia-smi's ", "-separated rows. It does not quote, so a free-text column (a process
// or GPU name) with commas in it makes a row too long: the surplus is given back to that column.
Result<Table> readTable(QByteArrayView csv, const QStringList &freeText) {
    Table table;
    int lineNumber = 0;
    for (const QByteArray &raw : csv.toByteArray().split('\n')) {
        ++lineNumber;
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.isEmpty())
            continue;
        if (line.contains(u"Failed to initialize NVML"_s) ||
            line.startsWith(u"NVIDIA-SMI has failed"_s))
            return fail(u"nvidia-smi: %1"_s.arg(line));
        QStringList fields = line.split(u',');
        for (QString &f : fields)
            f = f.trimmed();
        if (table.columns.isEmpty()) {
            for (const QString &f : std::as_const(fields))
                table.columns << canonicalField(f);
            if (!table.columns.contains(u"index"_s) && !table.columns.contains(u"uuid"_s) &&
                !table.columns.contains(u"pid"_s) && !table.columns.contains(u"name"_s))
                return fail(
                    u"line %1: expected the CSV header nvidia-smi prints first, found \"%2\""_s
                        .arg(lineNumber)
                        .arg(line.left(80)));
            continue;
        }
        const qsizetype surplus = fields.size() - table.columns.size();
        if (surplus > 0) {
            qsizetype column = -1;
            for (const QString &name : freeText) {
                if ((column = table.columns.indexOf(name)) >= 0)
                    break;
            }
            if (column < 0)
                return fail(u"line %1: %2 fields, but the header names %3"_s.arg(lineNumber)
                                .arg(fields.size())
                                .arg(table.columns.size()));
            const QStringList merged = fields.mid(column, surplus + 1);
            fields.erase(fields.begin() + column, fields.begin() + column + surplus + 1);
            fields.insert(column, merged.join(u", "_s));
        } else if (surplus < 0) {
            return fail(u"line %1: %2 fields, but the header names %3"_s.arg(lineNumber)
                            .arg(fields.size())
                            .arg(table.columns.size()));
        }
        table.rows << fields;
    }
    if (table.columns.isEmpty())
        return fail(u"nvidia-smi printed nothing"_s);
    return table;
}

bool isUnavailable(const QString &value) {
    return (value.startsWith(u'[') && value.endsWith(u']')) || value == u"N/A"_s;
}

// "80 %", "2296 MiB", "350.00 W", "1980 MHz", "45" -> the number; anything else -> nullopt.
std::optional<double> numberOf(const QString &value) {
    static const QRegularExpression number(
        u"^(-?[0-9]+(?:\\.[0-9]+)?)\\s*(?:%|MiB|GiB|KiB|W|MHz|C|RPM)?$"_s);
    const auto match = number.match(value);
    if (!match.hasMatch())
        return std::nullopt;
    return match.captured(1).toDouble();
}

} // namespace

QJsonObject GpuReading::toJson() const {
    auto number = [](const std::optional<double> &v) {
        return v ? QJsonValue(*v) : QJsonValue();
    };
    return {{u"index"_s, index ? QJsonValue(*index) : QJsonValue()},
            {u"name"_s, name},
            {u"uuid"_s, uuid},
            {u"bus_id"_s, busId},
            {u"pstate"_s, pstate},
            {u"utilization_gpu"_s, number(utilizationGpu)},
            {u"utilization_memory"_s, number(utilizationMemory)},
            {u"memory_used_mib"_s, number(memoryUsedMiB)},
            {u"memory_total_mib"_s, number(memoryTotalMiB)},
            {u"temperature_c"_s, number(temperatureC)},
            {u"power_draw_w"_s, number(powerDrawW)},
            {u"power_limit_w"_s, number(powerLimitW)},
            {u"sm_clock_mhz"_s, number(smClockMHz)},
            {u"memory_clock_mhz"_s, number(memoryClockMHz)},
            {u"fan_percent"_s, number(fanPercent)},
            {u"ecc_uncorrected_volatile"_s, number(eccUncorrectedVolatile)},
            {u"clock_event_reasons"_s, QJsonArray::fromStringList(clockEventReasons)},
            {u"fields"_s, fields},
            {u"unavailable"_s, unavailable}};
}

namespace NvidiaSmi {

Result<std::vector<GpuReading>> parseQueryGpu(QByteArrayView csv) {
    auto table = readTable(csv, {u"name"_s});
    if (!table)
        return fail(table.error());
    std::vector<GpuReading> gpus;
    for (const QStringList &row : std::as_const(table->rows)) {
        GpuReading gpu;
        QHash<QString, double> numbers;
        for (qsizetype i = 0; i < row.size(); ++i) {
            const QString &field = table->columns[i];
            const QString &value = row[i];
            if (isUnavailable(value)) {
                gpu.fields[field] = QJsonValue();
                gpu.unavailable[field] = value;
            } else if (const auto n = numberOf(value)) {
                gpu.fields[field] = *n;
                numbers.insert(field, *n);
            } else {
                gpu.fields[field] = value;
            }
            if (field.startsWith(u"clocks_event_reasons."_s) && value == u"Active"_s)
                gpu.clockEventReasons << field.section(u'.', 1);
        }
        auto pick = [&](std::initializer_list<const char16_t *> names) -> std::optional<double> {
            for (const char16_t *name : names) {
                const auto it = numbers.constFind(QString::fromUtf16(name));
                if (it != numbers.constEnd())
                    return *it;
            }
            return std::nullopt;
        };
        if (const auto index = pick({u"index"}))
            gpu.index = static_cast<int>(*index);
        gpu.name = gpu.fields.value(u"name"_s).toString();
        gpu.uuid = gpu.fields.value(u"uuid"_s).toString();
        gpu.busId = gpu.fields.value(u"pci.bus_id"_s).toString();
        gpu.pstate = gpu.fields.value(u"pstate"_s).toString();
        gpu.utilizationGpu = pick({u"utilization.gpu"});
        gpu.utilizationMemory = pick({u"utilization.memory"});
        gpu.memoryUsedMiB = pick({u"memory.used"});
        gpu.memoryTotalMiB = pick({u"memory.total"});
        gpu.temperatureC = pick({u"temperature.gpu"});
        gpu.powerDrawW = pick({u"power.draw", u"power.draw.instant", u"power.draw.average"});
        gpu.powerLimitW = pick({u"power.limit", u"enforced.power.limit"});
        gpu.smClockMHz = pick({u"clocks.current.sm"});
        gpu.memoryClockMHz = pick({u"clocks.current.memory"});
        gpu.fanPercent = pick({u"fan.speed"});
        gpu.eccUncorrectedVolatile = pick({u"ecc.errors.uncorrected.volatile.total"});
        gpus.push_back(std::move(gpu));
    }
    return gpus;
}

Result<std::vector<GpuProcess>> parseComputeApps(QByteArrayView csv) {
    auto table = readTable(csv, {u"process_name"_s, u"name"_s});
    if (!table)
        return fail(table.error());
    const qsizetype pid = table->columns.indexOf(u"pid"_s);
    if (pid < 0)
        return fail(u"the compute-apps header has no pid column"_s);
    const qsizetype uuid = table->columns.indexOf(u"gpu_uuid"_s);
    const qsizetype bus = table->columns.indexOf(u"gpu_bus_id"_s);
    const qsizetype name =
        std::max(table->columns.indexOf(u"process_name"_s), table->columns.indexOf(u"name"_s));
    const qsizetype memory = table->columns.indexOf(u"used_gpu_memory"_s) >= 0
                                 ? table->columns.indexOf(u"used_gpu_memory"_s)
                                 : table->columns.indexOf(u"used_memory"_s);
    std::vector<GpuProcess> processes;
    for (const QStringList &row : std::as_const(table->rows)) {
        GpuProcess process;
        bool ok = false;
        process.pid = row[pid].toLongLong(&ok);
        if (!ok)
            return fail(u"compute-apps: \"%1\" is not a process id"_s.arg(row[pid]));
        process.gpuUuid = uuid >= 0 ? row[uuid] : QString();
        process.gpuBusId = bus >= 0 ? row[bus] : QString();
        process.processName = name >= 0 ? row[name] : QString();
        if (memory >= 0)
            process.usedMemoryMiB = numberOf(row[memory]);
        processes.push_back(std::move(process));
    }
    return processes;
}

Result<std::vector<PmonRow>> parsePmon(QByteArrayView text) {
    QStringList columns;
    std::vector<PmonRow> rows;
    for (const QByteArray &raw : text.toByteArray().split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.isEmpty())
            continue;
        if (line.startsWith(u'#')) {
            if (columns.isEmpty()) // the names; the second comment line has their units
                columns = line.mid(1).split(u' ', Qt::SkipEmptyParts);
            continue;
        }
        const qsizetype gpu = columns.indexOf(u"gpu"_s);
        const qsizetype pid = columns.indexOf(u"pid"_s);
        if (gpu < 0 || pid < 0 || columns.last() != u"command"_s)
            return fail(u"pmon: no header with gpu, pid and command columns before \"%1\""_s.arg(
                line.left(80)));
        // The command is last and may hold spaces ("NVIDIA Share.exe").
        QStringList cells = line.split(u' ', Qt::SkipEmptyParts);
        if (cells.size() < columns.size())
            return fail(u"pmon: \"%1\" has fewer columns than its header"_s.arg(line.left(80)));
        const QString command = cells.mid(columns.size() - 1).join(u' ');
        cells = cells.mid(0, columns.size() - 1);
        PmonRow row;
        bool gpuOk = false;
        bool pidOk = false;
        row.gpuIndex = cells[gpu].toInt(&gpuOk);
        row.pid = cells[pid].toLongLong(&pidOk);
        if (!gpuOk)
            return fail(u"pmon: \"%1\" is not a GPU index"_s.arg(cells[gpu].left(40)));
        if (!pidOk || row.pid <= 0)
            continue; // an idle GPU's row
        auto percent = [&](const QString &name) -> std::optional<double> {
            const qsizetype at = columns.indexOf(name);
            bool ok = false;
            const double value = at >= 0 ? cells[at].toDouble(&ok) : 0;
            return ok && std::isfinite(value) ? std::optional(value) : std::nullopt;
        };
        const qsizetype type = columns.indexOf(u"type"_s);
        row.type = type >= 0 ? cells[type] : QString();
        row.smPercent = percent(u"sm"_s);
        row.memoryPercent = percent(u"mem"_s);
        row.command = command == u"-"_s ? QString() : command;
        const auto same = std::find_if(rows.begin(), rows.end(), [&](const PmonRow &r) {
            return r.pid == row.pid && r.gpuIndex == row.gpuIndex;
        });
        if (same != rows.end())
            *same = std::move(row);
        else
            rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace NvidiaSmi

} // namespace sb
