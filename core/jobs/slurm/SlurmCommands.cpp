#include "SlurmCommands.h"

#include "monitor/SampleScript.h"
#include "ssh/ShellQuote.h"

#include <QHash>
#include <QRandomGenerator>
#include <QRegularExpression>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// squeue's fields (space-separated: the poll script ends each with the key) and sacct's; the
// name last, as the one field anyone may fill.
constexpr auto kSqueueFields = "%i %T %r %u %P %N %b %M %L %S %V %j";
constexpr qsizetype kSqueueFieldCount = 12;
constexpr auto kSacctFields = "JobID,State,User,Partition,NodeList,AllocTRES,Elapsed,Start,"
                              "Submit,End,ExitCode,JobName";
constexpr qsizetype kSacctFieldCount = 12;
constexpr qsizetype kKeyBytes = 16;

QDateTime slurmTime(const QString &text) {
    QDateTime time = QDateTime::fromString(text, Qt::ISODate); // "N/A", "Unknown": invalid
    return time;
}

// The records of a section whose fields each end in "|KEY|" and whose records end in a newline
// after that: each one's fields, when it has exactly `count` of them and its first is a job id
// ("12", "12_3", "12_[4-9%2]", "7+1"); every other record, and a record cut off at the end,
// counts in `unreadable`.
QList<QStringList> keyedRecords(QByteArrayView section, QByteArrayView key, qsizetype count,
                                int *unreadable) {
    const QByteArray separator = '|' + key.toByteArray() + '|';
    const QByteArray end = separator + '\n';
    static const QRegularExpression jobId(u"^[0-9]+(?:[_+][0-9A-Za-z\\[\\],%-]*)?$"_s);
    QList<QStringList> records;
    int bad = 0;
    qsizetype from = 0;
    for (qsizetype at; (at = section.indexOf(end, from)) >= 0; from = at + end.size()) {
        QStringList fields;
        fields.reserve(count);
        const QByteArrayView record = section.sliced(from, at - from + separator.size());
        for (qsizetype field = 0, next; (next = record.indexOf(separator, field)) >= 0;
             field = next + separator.size())
            fields << QString::fromUtf8(record.sliced(field, next - field));
        if (fields.size() == count && jobId.match(fields.front()).hasMatch())
            records << fields;
        else
            ++bad;
    }
    if (!section.sliced(from).trimmed().isEmpty())
        ++bad; // cut off, or text that is no record
    if (unreadable)
        *unreadable += bad;
    return records;
}

QByteArray marker(QByteArrayView key, const char *section) {
    return "@@" + key.toByteArray() + ' ' + section;
}

} // namespace

QByteArray slurmPollKey() {
    quint32 words[kKeyBytes / sizeof(quint32)];
    QRandomGenerator::system()->fillRange(words);
    return QByteArray(reinterpret_cast<const char *>(words), kKeyBytes).toHex();
}

QStringList slurmPollArguments(const QString &workspace, bool allUsers,
                               const QStringList &accountingIds, bool askQueue) {
    return {u"sh"_s,
            u"-c"_s,
            slurmPollScript(),
            u"signalbox-slurm-poll"_s,
            workspace,
            allUsers ? u"1"_s : u"0"_s,
            askQueue ? QString::fromLatin1(kSqueueFields) : u"-"_s,
            QString::fromLatin1(kSacctFields),
            accountingIds.isEmpty() ? u"-"_s : accountingIds.join(u',')};
}

QByteArray slurmPollInput(QByteArrayView key) {
    return key.toByteArray() + '\n';
}

QList<SlurmJobRow> parseSqueue(const QByteArray &output, QByteArrayView key, int *unreadable) {
    QList<SlurmJobRow> rows;
    for (const QStringList &f : keyedRecords(output, key, kSqueueFieldCount, unreadable)) {
        SlurmJobRow row;
        row.jobId = f[0];
        row.state = f[1].trimmed();
        row.reason = f[2].trimmed();
        row.user = f[3].trimmed();
        row.partition = f[4].trimmed();
        row.nodes = f[5].trimmed();
        row.gres = f[6].trimmed() == "N/A"_L1 ? QString() : f[6].trimmed();
        row.elapsed = f[7].trimmed();
        row.timeLeft = f[8].trimmed();
        row.start = slurmTime(f[9].trimmed());
        row.submitted = slurmTime(f[10].trimmed());
        row.name = f[11];
        rows << row;
    }
    return rows;
}

QList<SlurmJobRow> parseSacct(const QByteArray &output, QByteArrayView key, int *unreadable) {
    QList<SlurmJobRow> rows;
    for (const QStringList &f : keyedRecords(output, key, kSacctFieldCount, unreadable)) {
        SlurmJobRow row;
        row.jobId = f[0];
        row.state = f[1].section(u' ', 0, 0); // "CANCELLED by 1000"
        row.user = f[2];
        row.partition = f[3];
        row.nodes = f[4] == "None assigned"_L1 ? QString() : f[4];
        static const QRegularExpression gpus(u"gres/gpu(?::[^=,]+)?=(\\d+)"_s);
        if (const auto match = gpus.match(f[5]); match.hasMatch())
            row.gres = u"gpu:"_s + match.captured(1);
        row.elapsed = f[6];
        row.start = slurmTime(f[7]);
        row.submitted = slurmTime(f[8]);
        row.end = slurmTime(f[9]);
        bool ok = false;
        const int code = f[10].section(u':', 0, 0).toInt(&ok);
        if (ok)
            row.exitCode = code;
        row.signal = f[10].section(u':', 1, 1).toInt();
        row.name = f[11];
        rows << row;
    }
    return rows;
}

JobState slurmJobState(const QString &state) {
    static const QStringList queued{u"PENDING"_s,     u"REQUEUED"_s,      u"REQUEUE_HOLD"_s,
                                    u"REQUEUE_FED"_s, u"RESV_DEL_HOLD"_s, u"SUSPENDED"_s};
    static const QStringList running{u"RUNNING"_s,   u"CONFIGURING"_s, u"COMPLETING"_s,
                                     u"STAGE_OUT"_s, u"SIGNALING"_s,   u"RESIZING"_s};
    if (queued.contains(state))
        return JobState::Queued;
    if (running.contains(state))
        return JobState::Running;
    if (state == "COMPLETED"_L1)
        return JobState::Succeeded;
    if (state == "CANCELLED"_L1 || state == "PREEMPTED"_L1 || state == "REVOKED"_L1)
        return JobState::Stopped;
    return JobState::Failed; // FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, BOOT_FAIL, DEADLINE
}

QString pendingReasonInWords(const QString &reason) {
    static const QHash<QString, QString> words{
        {u"Resources"_s, u"waiting for free nodes or GPUs"_s},
        {u"Priority"_s, u"waiting behind jobs of higher priority"_s},
        {u"Dependency"_s, u"waiting for the jobs it depends on"_s},
        {u"DependencyNeverSatisfied"_s, u"its dependency can never be met (cancel it)"_s},
        {u"BeginTime"_s, u"waiting for its start time"_s},
        {u"JobHeldUser"_s, u"held by its owner (scontrol release)"_s},
        {u"JobHeldAdmin"_s, u"held by an administrator"_s},
        {u"ReqNodeNotAvail"_s, u"a node it asked for is down, drained or reserved"_s},
        {u"PartitionDown"_s, u"its partition is down"_s},
        {u"PartitionInactive"_s, u"its partition is inactive"_s},
        {u"PartitionNodeLimit"_s, u"asks for more nodes than its partition allows"_s},
        {u"PartitionTimeLimit"_s, u"asks for more time than its partition allows"_s},
        {u"QOSMaxGRESPerUser"_s, u"you already use all the GPUs your QoS allows"_s},
        {u"QOSMaxJobsPerUserLimit"_s, u"you already run all the jobs your QoS allows"_s},
        {u"QOSMaxCpuPerUserLimit"_s, u"you already use all the CPUs your QoS allows"_s},
        {u"QOSGrpGRES"_s, u"your QoS group's GPUs are all in use"_s},
        {u"AssocGrpGRES"_s, u"your account's GPUs are all in use"_s},
        {u"AssocMaxJobsLimit"_s, u"your account runs all the jobs it may"_s},
        {u"AssocGrpCPULimit"_s, u"your account's CPUs are all in use"_s},
        {u"Reservation"_s, u"waiting for its reservation"_s},
        {u"NodeDown"_s, u"a node it needs is down"_s},
        {u"BadConstraints"_s, u"no node has the features it asks for"_s},
        {u"InvalidAccount"_s, u"its account is not valid"_s},
        {u"InvalidQOS"_s, u"its QoS is not valid"_s},
        {u"launch failed requeued held"_s, u"its launch failed; held (scontrol release)"_s},
        {u"JobArrayTaskLimit"_s, u"waiting: its array runs only so many tasks at once"_s},
        {u"None"_s, u"waiting to be scheduled"_s},
    };
    const auto it = words.find(reason);
    return it != words.end() ? it.value() : u"waiting (%1)"_s.arg(reason);
}

QString slurmMessage(const SlurmJobRow &row) {
    const QString state = row.state;
    if (state == "PENDING"_L1) {
        QString text = pendingReasonInWords(row.reason);
        if (row.start.isValid())
            text += u" (estimated start %1)"_s.arg(row.start.toString(u"yyyy-MM-dd HH:mm"_s));
        return text;
    }
    if (slurmJobState(state) == JobState::Running) {
        QString text = u"on %1"_s.arg(row.nodes);
        if (!row.timeLeft.isEmpty() && row.timeLeft != "UNLIMITED"_L1 &&
            row.timeLeft != "INVALID"_L1)
            text += u", %1 left"_s.arg(row.timeLeft);
        return state == "RUNNING"_L1 ? text : u"%1 (%2)"_s.arg(text, state.toLower());
    }
    static const QHash<QString, QString> ended{
        {u"TIMEOUT"_s, u"hit its time limit"_s},
        {u"OUT_OF_MEMORY"_s, u"ran out of memory (raise --mem)"_s},
        {u"NODE_FAIL"_s, u"a node it ran on failed"_s},
        {u"BOOT_FAIL"_s, u"its node failed to boot"_s},
        {u"DEADLINE"_s, u"missed its deadline"_s},
        {u"PREEMPTED"_s, u"preempted by a job of higher priority"_s},
        {u"CANCELLED"_s, u"cancelled"_s},
    };
    if (const auto words = ended.find(state); words != ended.end())
        return words.value();
    if (state == "FAILED"_L1 && row.signal > 0)
        return u"killed by signal %1"_s.arg(row.signal);
    if (state == "FAILED"_L1 && row.exitCode)
        return u"exit code %1"_s.arg(*row.exitCode);
    return state == "FAILED"_L1 ? u"failed (Slurm gave no exit code)"_s : QString();
}

QString slurmBaseJobId(const QString &jobId) {
    return jobId.section(u'_', 0, 0);
}

QList<int> slurmArrayTasks(const QString &jobId) {
    const qsizetype underscore = jobId.indexOf(u'_');
    if (underscore < 0)
        return {};
    QString tasks = jobId.mid(underscore + 1).section(u'%', 0, 0); // "[0-9%2]": at most 2 at once
    tasks.remove(u'[').remove(u']');
    return parseIndexes(tasks);
}

Result<QString> slurmBatchScript(const JobSpec &spec, const SlurmClusterConfig &cluster,
                                 const QList<QString> &trials) {
    if (!spec.slurm.script.isEmpty() && trials.isEmpty())
        return spec.slurm.script; // edited by hand: the user's own words, as sbatch reads them
    // One #SBATCH line is one option: no whitespace or quotes inside a value.
    static const QRegularExpression safe(u"^[A-Za-z0-9_.,:=+/@%*()\\[\\]-]+$"_s);
    QStringList lines{u"#!/bin/bash"_s,
                      u"# Written by Signalbox. sbatch adds --job-name, --output and "
                      "SIGNALBOX_RUN."_s};
    QString problem;
    auto option = [&](const QString &name, const QString &value) {
        if (value.isEmpty())
            return;
        if (!safe.match(value).hasMatch()) {
            problem = u"%1: \"%2\" is not a single Slurm value"_s.arg(name, value);
            return;
        }
        lines << u"#SBATCH --%1=%2"_s.arg(name, value);
    };
    const SlurmOptions &o = spec.slurm;
    option(u"partition"_s, o.partition.isEmpty() ? cluster.partition : o.partition);
    option(u"account"_s, o.account.isEmpty() ? cluster.account : o.account);
    option(u"qos"_s, o.qos.isEmpty() ? cluster.qos : o.qos);
    option(u"time"_s, o.timeLimit.isEmpty() ? cluster.timeLimit : o.timeLimit);
    // A job of trials is an array: one task per trial, `workers` of them at once.
    const int workers = trials.isEmpty() ? std::max(1, spec.workers) : 1;
    if (!trials.isEmpty())
        option(u"array"_s, u"0-%1"_s.arg(trials.size() - 1) + u'%' +
                               QString::number(std::max(1, spec.workers)));
    option(u"nodes"_s, QString::number(workers));
    option(u"ntasks-per-node"_s, u"1"_s);
    if (spec.gpus > 0)
        option(u"gpus-per-node"_s, o.gpuType.isEmpty() ? QString::number(spec.gpus)
                                                       : u"%1:%2"_s.arg(o.gpuType).arg(spec.gpus));
    if (o.cpusPerTask > 0)
        option(u"cpus-per-task"_s, QString::number(o.cpusPerTask));
    option(u"mem"_s, o.memory);
    option(u"constraint"_s, o.constraint);
    option(u"dependency"_s, o.dependency);
    for (const QString &extra : o.extraArgs) {
        static const QRegularExpression flag(
            u"^--[a-z][a-z-]*(=[A-Za-z0-9_.,:=+/@%*()\\[\\]-]+)?$"_s);
        if (!flag.match(extra).hasMatch())
            problem = u"\"%1\" is not a single sbatch option (--name or --name=value)"_s.arg(extra);
        else
            lines << u"#SBATCH "_s + extra;
    }
    if (!problem.isEmpty())
        return fail(problem, ErrorCode::InvalidInput);
    if (spec.command.isEmpty())
        return fail(u"the job has no command"_s, ErrorCode::InvalidInput);

    lines << QString();
    static const QRegularExpression identifier(u"^[A-Za-z_][A-Za-z0-9_]*$"_s);
    for (auto it = spec.environment.cbegin(); it != spec.environment.cend(); ++it) {
        if (!identifier.match(it.key()).hasMatch())
            return fail(u"\"%1\" is not an environment variable name"_s.arg(it.key()),
                        ErrorCode::InvalidInput);
        lines << u"export %1=%2"_s.arg(it.key(), shellQuote(it.value()));
    }
    if (!spec.workingDirectory.isEmpty())
        lines << u"cd -- %1 || exit 1"_s.arg(shellQuote(spec.workingDirectory));
    if (!trials.isEmpty()) { // each task runs its trial's script, which ends in exec
        lines << u"export SIGNALBOX_TRIAL_INDEX=\"$SLURM_ARRAY_TASK_ID\""_s
              << u"case $SLURM_ARRAY_TASK_ID in"_s;
        for (qsizetype i = 0; i < trials.size(); ++i)
            lines << u"%1)"_s.arg(i) << trials[i].trimmed() << u";;"_s;
        lines << u"esac"_s << u"echo \"no trial $SLURM_ARRAY_TASK_ID in this job\" >&2"_s
              << u"exit 1"_s;
    } else if (workers == 1) {
        lines << u"exec "_s + shellCommand(spec.command);
    } else { // one task per node; torchrun and Lightning read these
        lines << u"export MASTER_ADDR=\"$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | "
                 "head -n 1)\""_s
              << u"export MASTER_PORT=$((29500 + SLURM_JOB_ID % 1000))"_s
              << u"export WORLD_SIZE=\"$SLURM_NNODES\""_s
              << u"exec srun --kill-on-bad-exit=1 sh -c 'export RANK=\"$SLURM_PROCID\" "
                 "NODE_RANK=\"$SLURM_NODEID\" LOCAL_RANK=\"$SLURM_LOCALID\"; exec \"$@\"' "
                 "signalbox-worker "_s +
                     shellCommand(spec.command);
    }
    return QString(lines.join(u'\n') + u'\n');
}

QString slurmSubmitScript() {
    return uR"sh(ws=$1 id=$2 log=$3 dir=$4 mode=$5
case $ws in "~/"*) ws="$HOME/${ws#"~/"}";; esac
case $dir in "~/"*) dir="$HOME/${dir#"~/"}";; esac
d="$ws/$id"
mkdir -p -- "$d" && cat > "$d/job.sh" || exit 1
if [ "$mode" = prepare ]; then
  case $d in /*) ;; *) d="$PWD/$d";; esac
  printf '%s\n' "$d" "${dir:-$HOME}" "$PATH"
  exit 0
fi
set -- --parsable --job-name="$id" --output="$d/$log" --error="$d/$log" \
  --export=ALL,SIGNALBOX_RUN="$id"
if [ -n "$dir" ]; then set -- "$@" --chdir="$dir"; fi
job=$(sbatch "$@" "$d/job.sh") || exit 1
echo "${job%%;*}"
echo "$d"
)sh"_s;
}

QString slurmPollScript() {
    return uR"sh(ws=$1 all=$2 format=$3 fields=$4 ids=$5
shift 5
IFS= read -r k || k=
case $k in ""|*[!0-9a-f]*) echo "signalbox-slurm-poll: no key on stdin" >&2; exit 2;; esac
case $ws in "~/"*) ws="$HOME/${ws#"~/"}";; esac
unset SQUEUE_FORMAT2 SLURM_TIME_FORMAT # the user's own settings would change the fields
if [ "$all" = 1 ]; then me=; else me=--me; fi
if [ "$format" != - ]; then
  set -f; f=
  for field in $format; do f="$f$field|$k|"; done
  set +f
  SQUEUE_FORMAT=$f squeue --noheader --states=all $me || echo "@@$k squeue-failed"
fi
echo "@@$k sacct"
if [ "$ids" != - ]; then
  sacct --noheader --parsable --delimiter="|$k|" --allocations --jobs="$ids" \
    --format="$fields" || echo "@@$k sacct-failed"
fi
i=0
while [ $# -ge 2 ]; do
  f="$ws/$1" off=$2
  shift 2
  size=$(wc -c < "$f" 2>/dev/null || echo 0)
  n=$((size - off)); [ $n -lt 0 ] && n=0; [ $n -gt 1048576 ] && n=1048576
  if [ $n -gt 0 ]; then echo "@@$k log $i $n"; tail -c +$((off + 1)) "$f" | head -c $n; fi
  i=$((i + 1))
done
exit 0
)sh"_s;
}

SlurmPoll parseSlurmPoll(const QByteArray &output, QByteArrayView key) {
    SlurmPoll poll;
    const QByteArray sacct = marker(key, "sacct\n");
    const qsizetype sacctAt = key.isEmpty() ? -1 : output.indexOf(sacct);
    if (sacctAt < 0) { // squeue's rows may be cut off: none is taken for the queue's word
        poll.queueFailed = true;
        poll.error = u"the login node's answer was cut off"_s;
        return poll;
    }
    // A failed command's marker ends its section: what it printed before is read all the same.
    const auto failed = [&key](QByteArray *section, const char *what) {
        const QByteArray mark = marker(key, what);
        const bool found = section->contains(mark);
        section->replace(mark, QByteArray());
        return found;
    };
    QByteArray queue = output.first(sacctAt);
    poll.queueFailed = failed(&queue, "squeue-failed\n");
    poll.queue = parseSqueue(queue, key, &poll.unreadable);
    const QByteArray logMarker = marker(key, "log ");
    const qsizetype at = sacctAt + sacct.size();
    qsizetype logAt = output.indexOf(logMarker, at);
    QByteArray accounting = output.mid(at, logAt < 0 ? -1 : logAt - at);
    poll.accountingFailed = failed(&accounting, "sacct-failed\n");
    poll.accounting = parseSacct(accounting, key, &poll.unreadable);
    while (logAt >= 0) {
        const qsizetype eol = output.indexOf('\n', logAt);
        if (eol < 0)
            break;
        const qsizetype from = logAt + logMarker.size();
        const QList<QByteArray> header = output.mid(from, eol - from).split(' ');
        const qsizetype size = header.size() == 2 ? header[1].toLongLong() : -1;
        if (size < 0 || eol + 1 + size > output.size())
            break; // a cut-off answer: read again next time from the same offset
        poll.logs.append({header[0].toInt(), output.mid(eol + 1, size)});
        const qsizetype next = eol + 1 + size;
        logAt = QByteArrayView(output).sliced(next).startsWith(logMarker) ? next : -1;
    }
    return poll;
}

namespace {

// "gpu:h100:4(S:0-1),gpu:a100:2" or "gpu:h100:2(IDX:0,2)" as (type, count) of its GPUs.
QList<std::pair<QString, int>> gpuGres(const QString &gres) {
    QList<std::pair<QString, int>> gpus;
    QString entry;
    int depth = 0;
    auto take = [&] {
        const QStringList parts = entry.section(u'(', 0, 0).split(u':');
        if (parts.size() >= 2 && parts.first() == "gpu"_L1)
            gpus.append({parts.size() > 2 ? parts[1] : QString(), parts.last().toInt()});
        entry.clear();
    };
    for (const QChar c : gres) {
        depth += c == u'(' ? 1 : c == u')' ? -1 : 0;
        if (c == u',' && depth == 0)
            take();
        else
            entry += c;
    }
    take();
    return gpus;
}

} // namespace

QString slurmClusterStateScript() {
    return uR"sh(sinfo --noheader --Node --Format="PartitionName:|,NodeList:|,StateLong:|,Gres:|,GresUsed:|" ||
  echo "@@sinfo-failed"
echo "@@sshare"
sshare --noheader --parsable2 --users="$(id -un)" --format=Account,FairShare 2>/dev/null
exit 0
)sh"_s;
}

SlurmClusterState parseSlurmClusterState(const QByteArray &output) {
    SlurmClusterState state;
    const qsizetype shareAt = output.indexOf("@@sshare\n");
    QMap<std::pair<QString, QString>, SlurmPartitionGpus> gpus;
    for (const QByteArray &raw : output.left(shareAt).split('\n')) {
        const QStringList f = QString::fromUtf8(raw).split(u'|');
        if (f.size() < 5)
            continue;
        const QString nodeState = f[2].trimmed();
        static const QRegularExpression takesJobs(
            u"^(idle|mixed|allocated|completing)[~#%+$@^-]*$"_s);
        const bool usable = takesJobs.match(nodeState).hasMatch();
        QHash<QString, int> used;
        for (const auto &[type, count] : gpuGres(f[4].trimmed()))
            used[type] += count;
        for (const auto &[type, count] : gpuGres(f[3].trimmed())) {
            SlurmPartitionGpus &entry = gpus[{f[0].trimmed(), type}];
            entry.partition = f[0].trimmed();
            entry.type = type;
            entry.total += count;
            if (usable)
                entry.free += std::max(0, count - used.value(type));
        }
    }
    state.gpus = gpus.values();
    if (shareAt >= 0) {
        for (const QByteArray &raw : output.mid(shareAt + 9).split('\n')) {
            const QStringList f = QString::fromUtf8(raw).split(u'|');
            // The user's rows carry a value; their accounts' rows above them do not.
            if (f.size() >= 2 && !f[0].trimmed().isEmpty() && !f[1].trimmed().isEmpty())
                state.fairShare << u"%1 %2"_s.arg(f[0].trimmed()).arg(f[1].toDouble(), 0, 'f', 2);
        }
    }
    return state;
}

QString SlurmClusterState::summary() const {
    QStringList parts;
    for (const SlurmPartitionGpus &g : gpus)
        parts << u"%1: %2 of %3%4 GPUs free"_s.arg(g.partition)
                     .arg(g.free)
                     .arg(g.total)
                     .arg(g.type.isEmpty() ? QString() : u' ' + g.type);
    if (parts.isEmpty())
        parts << u"no GPUs in any partition"_s;
    if (!fairShare.isEmpty())
        parts << u"fair share "_s + fairShare.join(u", "_s);
    return parts.join(u" · "_s);
}

QStringList expandSlurmHostlist(const QString &hostlist) {
    static constexpr int kMostNames = 10000;
    QStringList names;
    // Split at commas outside brackets.
    QStringList parts;
    int depth = 0;
    QString part;
    for (const QChar c : hostlist) {
        depth += c == u'[' ? 1 : c == u']' ? -1 : 0;
        if (c == u',' && depth == 0) {
            parts << part;
            part.clear();
        } else {
            part += c;
        }
    }
    parts << part;
    static const QRegularExpression bracket(u"^([^\\[]*)\\[([0-9,\\-]+)\\](.*)$"_s);
    for (const QString &p : std::as_const(parts)) {
        const auto match = bracket.match(p.trimmed());
        if (!match.hasMatch()) {
            if (!p.trimmed().isEmpty())
                names << p.trimmed();
            continue;
        }
        for (const QString &range : match.captured(2).split(u',', Qt::SkipEmptyParts)) {
            const QString from = range.section(u'-', 0, 0);
            const QString to = range.contains(u'-') ? range.section(u'-', 1, 1) : from;
            bool okFrom = false;
            bool okTo = false;
            const int first = from.toInt(&okFrom);
            const int last = to.toInt(&okTo);
            if (!okFrom || !okTo || last < first || last - first >= kMostNames ||
                names.size() + (last - first) >= kMostNames)
                return {};
            for (int i = first; i <= last; ++i) // zero padding as written ("gpu[01-02]")
                names << match.captured(1) +
                             u"%1"_s.arg(i, static_cast<int>(from.size()), 10, QChar(u'0')) +
                             match.captured(3);
        }
    }
    return names;
}

QStringList slurmJobGpusCommand(const QString &job) {
    static const QString script = uR"sh(j=$1; shift
scontrol show job -d "$j" 2>&1 | grep -E '^ +Nodes='
echo @@steps
n=$(squeue -h -j "$j" -t R -o %D 2>/dev/null)
if [ -z "$n" ]; then echo @@not-running; exit 0; fi
exec srun --overlap --jobid="$j" -N "$n" --ntasks-per-node=1 -l --quiet \
  sh -c 'echo "@sb:host ${SLURMD_NODENAME:-$(hostname)}"; exec "$@"' sb-host "$@" 2>&1
)sh"_s;
    return QStringList{u"sh"_s, u"-c"_s, script, u"signalbox-job-gpus"_s, job} +
           SampleScript::command(0);
}

Result<std::vector<JobNodeSample>> parseSlurmJobGpus(const QByteArray &output,
                                                     const SampleBuilderFor &builderFor) {
    const qsizetype steps = output.indexOf("@@steps\n");
    if (steps < 0)
        return fail(u"no answer from scontrol: %1"_s.arg(QString::fromUtf8(output.left(200))));
    if (output.indexOf("@@not-running", steps) >= 0)
        return fail(u"the job is not running"_s);
    // The job's GPU indices per node: "Nodes=gpu[1-2] CPU_IDs=0 Mem=4000 GRES=gpu:h100:2(IDX:0-1)".
    QHash<QString, QSet<int>> indices;
    static const QRegularExpression gres(u"Nodes=(\\S+).*GRES=\\S*\\(IDX:([0-9,\\-]+)\\)"_s);
    for (const QByteArray &line : output.left(steps).split('\n')) {
        const auto match = gres.match(QString::fromUtf8(line));
        if (!match.hasMatch())
            continue;
        QSet<int> set;
        for (const QString &range : match.captured(2).split(u',', Qt::SkipEmptyParts)) {
            const int first = range.section(u'-', 0, 0).toInt();
            const int last = range.contains(u'-') ? range.section(u'-', 1, 1).toInt() : first;
            for (int i = first; i <= last && i - first < 4096; ++i)
                set.insert(i);
        }
        for (const QString &node : expandSlurmHostlist(match.captured(1)))
            indices[node] = set;
    }
    // Each task's lines, by its label.
    static const QRegularExpression labelled(u"^\\s*(\\d+): ?(.*)$"_s);
    QMap<int, QByteArray> tasks;
    QStringList unlabelled;
    for (const QByteArray &line : output.mid(steps + 8).split('\n')) {
        const auto match = labelled.match(QString::fromUtf8(line));
        if (match.hasMatch())
            tasks[match.captured(1).toInt()] += match.captured(2).toUtf8() + '\n';
        else if (!line.trimmed().isEmpty())
            unlabelled << QString::fromUtf8(line.trimmed());
    }
    if (tasks.isEmpty())
        return fail(unlabelled.isEmpty() ? u"srun printed nothing"_s
                                         : u"srun: %1"_s.arg(unlabelled.join(u' ').left(300)));
    std::vector<JobNodeSample> samples;
    for (const QByteArray &text : std::as_const(tasks)) {
        const qsizetype host = text.indexOf("@sb:host ");
        JobNodeSample node;
        node.where =
            host < 0 ? QString()
                     : QString::fromUtf8(text.mid(host + 9, text.indexOf('\n', host) - host - 9))
                           .trimmed();
        SampleFrameReader reader;
        reader.feed(text);
        const auto frame = reader.next();
        if (!frame) {
            node.sample.error = u"no sample came back from %1"_s.arg(node.where);
            samples.push_back(std::move(node));
            continue;
        }
        NodeSampleBuilder alone;
        node.sample = (builderFor ? builderFor(node.where) : alone).build(*frame);
        if (const auto mine = indices.constFind(node.where); mine != indices.constEnd()) {
            std::erase_if(node.sample.gpus, [&](const GpuReading &gpu) {
                return !gpu.index || !mine->contains(*gpu.index);
            });
            std::erase_if(node.sample.gpuProcesses, [&](const GpuProcess &p) {
                return std::none_of(node.sample.gpus.begin(), node.sample.gpus.end(),
                                    [&](const GpuReading &gpu) { return gpu.uuid == p.gpuUuid; });
            });
        }
        samples.push_back(std::move(node));
    }
    return samples;
}

} // namespace sb
