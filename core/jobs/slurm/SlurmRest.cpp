#include "SlurmRest.h"

#include "net/HttpReply.h"
#include "util/OffThread.h"
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QTimer>

#include <memory>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr int kRequestTimeoutMs = 30000;
constexpr int kNothingFound = 9003; // slurmdb's error for a job it holds no record of
constexpr qint64 kYearMinutes = 365 * 24 * 60;

// A number as v0.0.38 writes it, or as later versions do: {"set", "infinite", "number"}.
std::optional<qint64> restNumber(const QJsonValue &value) {
    if (value.isDouble())
        return value.toInteger();
    const QJsonObject object = value.toObject();
    if (!object.value("set"_L1).toBool(true) || object.value("infinite"_L1).toBool() ||
        !object.value("number"_L1).isDouble())
        return std::nullopt;
    return object.value("number"_L1).toInteger();
}

QDateTime restTime(const QJsonValue &value) {
    const auto seconds = restNumber(value);
    return seconds && *seconds > 0 ? QDateTime::fromSecsSinceEpoch(*seconds) : QDateTime();
}

// "RUNNING" (v0.0.38), ["RUNNING", "COMPLETING"] (later), "CANCELLED by 0" (accounting).
QString restState(const QJsonValue &value) {
    const QString state = value.isArray() ? value.toArray().first().toString() : value.toString();
    return state.section(u' ', 0, 0);
}

// As squeue writes a duration: "4:05", "2:04:05", "1-02:04:05".
QString slurmDuration(qint64 seconds) {
    seconds = std::max<qint64>(0, seconds);
    const qint64 days = seconds / 86400, hours = seconds / 3600 % 24, minutes = seconds / 60 % 60;
    const QString clock = u"%1:%2"_s.arg(minutes, hours || days ? 2 : 1, 10, QChar(u'0'))
                              .arg(seconds % 60, 2, 10, QChar(u'0'));
    if (days)
        return u"%1-%2:%3"_s.arg(days).arg(hours, 2, 10, QChar(u'0')).arg(clock);
    return hours ? u"%1:%2"_s.arg(hours).arg(clock) : clock;
}

// Accounting names an array's pending tasks as a bitmap, "0xC" for tasks 2 and 3: as a range.
QString taskRanges(const QString &tasks) {
    if (!tasks.startsWith("0x"_L1, Qt::CaseInsensitive))
        return tasks; // "2-3%2", as the controller writes it
    QStringList ranges;
    int first = -1;
    const QString hex = tasks.mid(2);
    const int bits = static_cast<int>(hex.size()) * 4;
    for (int bit = 0; bit <= bits; ++bit) {
        const int digit =
            bit < bits ? QString(hex[hex.size() - 1 - bit / 4]).toInt(nullptr, 16) : 0;
        const bool set = bit < bits && (digit >> (bit % 4) & 1);
        if (set && first < 0)
            first = bit;
        if (!set && first >= 0) {
            ranges << (first == bit - 1 ? QString::number(first)
                                        : u"%1-%2"_s.arg(first).arg(bit - 1));
            first = -1;
        }
    }
    return ranges.join(u',');
}

// The job id squeue and sacct would write for a job that may be an array's task.
QString rowJobId(qint64 jobId, const QJsonValue &arrayJob, const QJsonValue &task,
                 const QString &pendingTasks) {
    const qint64 array = restNumber(arrayJob).value_or(0);
    if (array <= 0)
        return QString::number(jobId);
    if (const auto index = restNumber(task))
        return u"%1_%2"_s.arg(array).arg(*index);
    return pendingTasks.isEmpty() ? QString::number(array)
                                  : u"%1_[%2]"_s.arg(array).arg(taskRanges(pendingTasks));
}

Result<QJsonObject> parseAnswer(const QByteArray &body) {
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (!document.isObject())
        return fail(u"slurmrestd's answer is not a JSON object (%1)"_s.arg(
            error.error != QJsonParseError::NoError ? error.errorString() : u"another value"_s));
    return document.object();
}

// The errors of an answer but "nothing found", which means an empty list.
QString realErrors(const QJsonObject &answer) {
    QStringList said;
    for (const QJsonValue value : answer.value("errors"_L1).toArray()) {
        const QJsonObject error = value.toObject();
        if (error.value("error_number"_L1).toInt() == kNothingFound ||
            error.value("error_code"_L1).toInt() == kNothingFound)
            continue;
        QString text = error.value("description"_L1).toString();
        if (text.isEmpty())
            text = error.value("error"_L1).toString();
        const QString source = error.value("source"_L1).toString();
        said << (source.isEmpty() ? text : u"%1 (%2)"_s.arg(text, source));
    }
    return said.join(u"; "_s);
}

} // namespace

QStringList slurmRestVersions() {
    return {u"v0.0.44"_s, u"v0.0.43"_s, u"v0.0.42"_s, u"v0.0.41"_s,
            u"v0.0.40"_s, u"v0.0.39"_s, u"v0.0.38"_s};
}

QString slurmRestErrors(const QByteArray &body) {
    const auto answer = parseAnswer(body);
    return answer ? realErrors(*answer) : answer.error();
}

Result<QList<SlurmJobRow>> parseSlurmRestJobs(const QByteArray &body, const QString &user,
                                              const QDateTime &now) {
    const auto answer = parseAnswer(body);
    if (!answer)
        return answer.failure();
    if (!answer->value("jobs"_L1).isArray())
        return fail(u"slurmrestd listed no jobs: %1"_s.arg(realErrors(*answer)));
    QList<SlurmJobRow> rows;
    for (const QJsonValue value : answer->value("jobs"_L1).toArray()) {
        const QJsonObject job = value.toObject();
        SlurmJobRow row;
        row.user = job.value("user_name"_L1).toString();
        if (!user.isEmpty() && row.user != user)
            continue;
        row.jobId =
            rowJobId(restNumber(job.value("job_id"_L1)).value_or(0), job.value("array_job_id"_L1),
                     job.value("array_task_id"_L1), job.value("array_task_string"_L1).toString());
        row.state = restState(job.value("job_state"_L1));
        row.reason = job.value("state_reason"_L1).toString();
        row.partition = job.value("partition"_L1).toString();
        row.nodes = job.value("nodes"_L1).toString();
        row.gres = job.value("tres_per_node"_L1).toString();
        row.start = restTime(job.value("start_time"_L1));
        row.submitted = restTime(job.value("submit_time"_L1));
        row.name = job.value("name"_L1).toString();
        const JobState state = slurmJobState(row.state);
        if (isFinished(state))
            row.end = restTime(job.value("end_time"_L1));
        if (state == JobState::Running && row.start.isValid()) {
            const qint64 elapsed = row.start.secsTo(now);
            row.elapsed = slurmDuration(elapsed);
            // Minutes; a running job without a limit reads as a year (Slurm's YEAR_MINUTES).
            const auto limit = restNumber(job.value("time_limit"_L1));
            row.timeLeft = limit && *limit < kYearMinutes ? slurmDuration(*limit * 60 - elapsed)
                                                          : u"UNLIMITED"_s;
        }
        if (row.jobId != "0"_L1)
            rows << row;
    }
    return rows;
}

Result<QList<SlurmJobRow>> parseSlurmRestAccounting(const QByteArray &body) {
    const auto answer = parseAnswer(body);
    if (!answer)
        return answer.failure();
    if (const QString errors = realErrors(*answer); !errors.isEmpty())
        return fail(errors);
    QList<SlurmJobRow> rows;
    for (const QJsonValue value : answer->value("jobs"_L1).toArray()) {
        const QJsonObject job = value.toObject();
        const QJsonObject array = job.value("array"_L1).toObject();
        SlurmJobRow row;
        row.jobId =
            rowJobId(restNumber(job.value("job_id"_L1)).value_or(0), array.value("job_id"_L1),
                     array.value("task_id"_L1), array.value("task"_L1).toString());
        row.state = restState(job.value("state"_L1).toObject().value("current"_L1));
        row.user = job.value("user"_L1).toString();
        row.partition = job.value("partition"_L1).toString();
        row.nodes = job.value("nodes"_L1).toString();
        if (row.nodes == "None assigned"_L1)
            row.nodes.clear();
        row.name = job.value("name"_L1).toString();
        const QJsonObject time = job.value("time"_L1).toObject();
        row.start = restTime(time.value("start"_L1));
        row.end = restTime(time.value("end"_L1));
        row.submitted = restTime(time.value("submission"_L1));
        row.elapsed = slurmDuration(restNumber(time.value("elapsed"_L1)).value_or(0));
        const QJsonObject exit = job.value("exit_code"_L1).toObject();
        const QString status = restState(exit.value("status"_L1));
        if (status == "SIGNALED"_L1) {
            const QJsonObject signal = exit.value("signal"_L1).toObject(); // v0.0.38: signal_id
            row.signal = static_cast<int>(
                restNumber(signal.value(signal.contains("id"_L1) ? "id"_L1 : "signal_id"_L1))
                    .value_or(0));
        } else if (const auto code = restNumber(exit.value("return_code"_L1));
                   code && !(*code == 0 && row.state == "FAILED"_L1))
            row.exitCode = static_cast<int>(*code); // 22.05 writes 0 for a failed job's code
        qint64 gpus = 0;
        for (const QJsonValue tres :
             job.value("tres"_L1).toObject().value("allocated"_L1).toArray()) {
            const QJsonObject t = tres.toObject();
            if (t.value("type"_L1).toString() == "gres"_L1 &&
                t.value("name"_L1).toString() == "gpu"_L1)
                gpus += restNumber(t.value("count"_L1)).value_or(0);
        }
        if (gpus > 0)
            row.gres = u"gpu:%1"_s.arg(gpus);
        rows << row;
    }
    return rows;
}

namespace {

enum class Kind { Text, Integer, Minutes, Megabytes, Nodes, FromCommandLine };
struct BatchOption {
    const char *name;
    char letter; // 0: none
    const char *field;
    Kind kind;
};
constexpr BatchOption kBatchOptions[] = {
    {"partition", 'p', "partition", Kind::Text},
    {"account", 'A', "account", Kind::Text},
    {"qos", 'q', "qos", Kind::Text},
    {"time", 't', "time_limit", Kind::Minutes},
    {"array", 'a', "array", Kind::Text},
    {"nodes", 'N', "nodes", Kind::Nodes},
    {"ntasks", 'n', "tasks", Kind::Integer},
    {"ntasks-per-node", 0, "tasks_per_node", Kind::Integer},
    {"cpus-per-task", 'c', "cpus_per_task", Kind::Integer},
    {"gpus", 'G', "gpus", Kind::Text},
    {"gpus-per-node", 0, "gpus_per_node", Kind::Text},
    {"gpus-per-task", 0, "gpus_per_task", Kind::Text},
    {"gres", 0, "gres", Kind::Text},
    {"mem", 0, "memory_per_node", Kind::Megabytes},
    {"mem-per-cpu", 0, "memory_per_cpu", Kind::Megabytes},
    {"constraint", 'C', "constraints", Kind::Text},
    {"dependency", 'd', "dependency", Kind::Text},
    {"reservation", 0, "reservation", Kind::Text},
    {"comment", 0, "comment", Kind::Text},
    {"nice", 0, "nice", Kind::Integer},
    {"job-name", 'J', "", Kind::FromCommandLine},
    {"output", 'o', "", Kind::FromCommandLine},
    {"error", 'e', "", Kind::FromCommandLine},
    {"chdir", 'D', "", Kind::FromCommandLine},
};

// Slurm's time forms: "MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS".
std::optional<qint64> minutesOf(const QString &text) {
    static const QRegularExpression form(u"^(?:(\\d+)-)?(\\d+)(?::(\\d+))?(?::(\\d+))?$"_s);
    const auto m = form.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    const qint64 a = m.captured(2).toLongLong(), b = m.captured(3).toLongLong(),
                 c = m.captured(4).toLongLong();
    qint64 seconds = 0;
    if (m.hasCaptured(1)) // days-hours[:minutes[:seconds]]
        seconds = m.captured(1).toLongLong() * 86400 + a * 3600 + b * 60 + c;
    else if (m.hasCaptured(4))
        seconds = a * 3600 + b * 60 + c;
    else
        seconds = a * 60 + b;
    return (seconds + 59) / 60;
}

std::optional<qint64> megabytesOf(const QString &text) {
    static const QRegularExpression form(u"^(\\d+)([KMGT]?)B?$"_s,
                                         QRegularExpression::CaseInsensitiveOption);
    const auto m = form.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    const qint64 n = m.captured(1).toLongLong();
    const QString unit = m.captured(2).toUpper();
    switch (unit.isEmpty() ? u'M' : unit.front().unicode()) {
    case 'K':
        return (n + 1023) / 1024;
    case 'G':
        return n * 1024;
    case 'T':
        return n * 1024 * 1024;
    default:
        return n;
    }
}

} // namespace

Result<QJsonObject> slurmRestSubmitBody(const QString &script, const SlurmRestSubmission &job,
                                        const QString &version) {
    const bool v38 = version == "v0.0.38"_L1;
    // From v0.0.39 on, a number may be unset or infinite: it is an object.
    const auto number = [v38](qint64 n) -> QJsonValue {
        if (v38)
            return n;
        return QJsonObject{{u"set"_s, true}, {u"infinite"_s, false}, {u"number"_s, n}};
    };
    QJsonObject description;
    QString directory = job.directory;
    // sbatch reads #SBATCH lines up to the first command.
    const QStringList lines = script.split(u'\n');
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QString line = lines[i].trimmed();
        if (!line.isEmpty() && !line.startsWith(u'#'))
            break;
        if (!line.startsWith("#SBATCH"_L1))
            continue;
        static const QRegularExpression space(u"\\s+"_s);
        const QStringList words = line.mid(7).split(space, Qt::SkipEmptyParts);
        for (qsizetype w = 0; w < words.size(); ++w) {
            const QString &word = words[w];
            const BatchOption *option = nullptr;
            QString value;
            bool inline_ = false;
            for (const BatchOption &o : kBatchOptions) {
                const QString name = u"--"_s + QLatin1StringView(o.name);
                if (word == name || word.startsWith(name + u'=')) {
                    option = &o;
                    inline_ = word.size() > name.size();
                    value = word.mid(name.size() + 1);
                } else if (o.letter && word.size() >= 2 && word[0] == u'-' &&
                           word[1] == QLatin1Char(o.letter)) {
                    option = &o;
                    inline_ = word.size() > 2;
                    value = word.mid(2);
                }
                if (option)
                    break;
            }
            if (!option)
                return fail(u"slurmrestd cannot carry the batch script's option \"%1\"; remove "
                            "it, or submit through the login node (no rest_url)"_s.arg(word),
                            ErrorCode::InvalidInput);
            if (!inline_) {
                if (w + 1 >= words.size())
                    return fail(u"the batch script's option \"%1\" has no value"_s.arg(word),
                                ErrorCode::InvalidInput);
                value = words[++w];
            }
            const QString field = QLatin1StringView(option->field);
            const auto bad = [&] {
                return fail(u"the batch script's option %1 has a value slurmrestd cannot read: "
                            "\"%2\""_s.arg(word, value),
                            ErrorCode::InvalidInput);
            };
            switch (option->kind) {
            case Kind::Text:
                description.insert(field, value);
                break;
            case Kind::Integer: {
                bool ok = false;
                const int n = value.toInt(&ok);
                if (!ok)
                    return bad();
                description.insert(field, n);
                break;
            }
            case Kind::Minutes: {
                if (value.compare("UNLIMITED"_L1, Qt::CaseInsensitive) == 0 ||
                    value.compare("infinite"_L1, Qt::CaseInsensitive) == 0)
                    break; // the partition's limit
                const auto minutes = minutesOf(value);
                if (!minutes)
                    return bad();
                description.insert(field, number(*minutes));
                break;
            }
            case Kind::Megabytes: {
                const auto megabytes = megabytesOf(value);
                if (!megabytes)
                    return bad();
                description.insert(field, number(*megabytes));
                break;
            }
            case Kind::Nodes: {
                static const QRegularExpression range(u"^(\\d+)(?:-(\\d+))?$"_s);
                const auto m = range.match(value);
                if (!m.hasMatch())
                    return bad();
                if (v38)
                    description.insert(
                        field,
                        QJsonArray{m.captured(1).toInt(),
                                   (m.hasCaptured(2) ? m.captured(2) : m.captured(1)).toInt()});
                else
                    description.insert(field, value);
                break;
            }
            case Kind::FromCommandLine:
                if (option->letter == 'D' && directory.isEmpty())
                    directory = value;
                break;
            }
        }
    }
    // As sbatch does: nodes × tasks per node tasks, without which 22.05 gives the job one node.
    if (!description.contains("tasks"_L1) && description.contains("tasks_per_node"_L1)) {
        const QJsonValue nodes = description.value("nodes"_L1);
        const int least = nodes.isArray() ? nodes.toArray().first().toInt()
                                          : nodes.toString().section(u'-', 0, 0).toInt();
        if (least > 0)
            description.insert(u"tasks"_s, least * description.value("tasks_per_node"_L1).toInt());
    }
    description.insert(u"name"_s, job.name);
    description.insert(u"standard_output"_s, job.output);
    description.insert(u"standard_error"_s, job.output);
    description.insert(u"current_working_directory"_s, directory);
    // v0.0.38 takes the environment as a dictionary, later versions as "NAME=value" strings.
    QJsonObject dictionary;
    QJsonArray list;
    for (auto it = job.environment.cbegin(); it != job.environment.cend(); ++it) {
        dictionary.insert(it.key(), it.value());
        list.append(QString(it.key() + u'=' + it.value()));
    }
    description.insert(u"environment"_s, v38 ? QJsonValue(dictionary) : QJsonValue(list));
    if (version < "v0.0.40"_L1)
        return QJsonObject{{u"script"_s, script}, {u"job"_s, description}};
    description.insert(u"script"_s, script);
    return QJsonObject{{u"job"_s, description}};
}

SlurmRestClient::SlurmRestClient(const QUrl &base, const QString &user, QObject *parent)
    : QObject(parent)
    , m_base(base)
    , m_user(user) {
    m_network.setAutoDeleteReplies(true);
}

void SlurmRestClient::setTunnel(Tunnel tunnel) {
    m_tunnel = std::move(tunnel);
}

QString SlurmRestClient::refusal() const {
    const QString scheme = m_base.scheme();
    if (scheme == "unix"_L1 && m_tunnel)
        return {};
    if (!m_base.isValid() || (scheme != "https"_L1 && scheme != "http"_L1))
        return u"rest_url \"%1\" is not an http(s) URL%2"_s.arg(
            m_base.toString(), m_tunnel ? QString() : u" (unix: is through the login node only)"_s);
    if (scheme == "https"_L1 && m_tunnel)
        return u"rest_url %1: through the login node, use http:// (the SSH connection encrypts "
               "it)"_s.arg(m_base.toString());
    const QHostAddress host(m_base.host());
    if (scheme == "http"_L1 && !m_tunnel && !host.isLoopback() && m_base.host() != "localhost"_L1)
        return u"rest_url %1 would send the token in clear: use https, or reach it through the "
               "login node (rest_via_login)"_s.arg(m_base.toString());
    return {};
}

void SlurmRestClient::transmit(const QByteArray &verb, const QString &path, const QByteArray &body,
                               Answer done) {
    // A line break in a header value would start a header of its own.
    static const QRegularExpression control(u"[\\x00-\\x1f\\x7f]"_s);
    if (m_user.contains(control) || m_token.contains(control)) {
        QTimer::singleShot(0, this, [done = std::move(done)] {
            done(0, {}, u"the user name or token holds control characters"_s);
        });
        return;
    }
    const bool socket = m_base.scheme() == "unix"_L1;
    const QString prefix = socket ? QString() : m_base.path().chopped(m_base.path().endsWith(u'/'));
    if (m_tunnel) { // the same request as bytes, over the login node's SSH connection
        const QByteArray request =
            verb + ' ' + (prefix + path).toUtf8() +
            " HTTP/1.1\r\nHost: " + (socket ? "localhost"_ba : m_base.authority().toUtf8()) +
            "\r\nX-SLURM-USER-NAME: " + m_user.toUtf8() +
            "\r\nX-SLURM-USER-TOKEN: " + m_token.toUtf8() +
            "\r\nContent-Type: application/json\r\nContent-Length: " +
            QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
        m_tunnel(request, [done = std::move(done)](const Result<QByteArray> &raw) {
            const auto reply =
                raw ? parseHttpReply(*raw, true) : Result<std::optional<HttpReply>>(raw.failure());
            if (!reply || !*reply)
                return done(0, {}, reply ? u"no whole reply"_s : reply.error());
            done((*reply)->status, (*reply)->body, {});
        });
        return;
    }
    QUrl url = m_base;
    url.setPath(prefix + path.section(u'?', 0, 0));
    if (path.contains(u'?'))
        url.setQuery(path.section(u'?', 1));
    QNetworkRequest request(url);
    request.setTransferTimeout(kRequestTimeoutMs);
    request.setRawHeader("X-SLURM-USER-NAME", m_user.toUtf8());
    request.setRawHeader("X-SLURM-USER-TOKEN", m_token.toUtf8());
    request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json"_ba);
    QNetworkReply *reply = m_network.sendCustomRequest(request, verb, body);
    connect(reply, &QNetworkReply::finished, this, [reply, done = std::move(done)] {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        done(status, reply->readAll(), status == 0 ? reply->errorString() : QString());
    });
}

Result<QByteArray> SlurmRestClient::answer(int status, const QByteArray &body,
                                           const QString &networkError) {
    Result<QByteArray> result = body; // 2xx, or a 4xx whose JSON says why
    const bool json = body.trimmed().startsWith('{');
    if (status == 401 || status == 403)
        result = fail(
            u"slurmrestd refused the token of %1 (HTTP %2)"_s.arg(m_user, QString::number(status)),
            ErrorCode::Unauthorized);
    else if (status == 0)
        result = fail(u"cannot reach slurmrestd at %1: %2"_s.arg(m_base.toString(), networkError));
    // Slurm 22.05 passes the token on to the controller: a wrong or expired one comes back as
    // a 500, like a controller that is down. Both are worth a new token.
    else if (status >= 500)
        result = fail(
            u"slurmrestd could not answer (HTTP %1: %2); a token that has expired or is "
            "not %3's reads the same"_s.arg(status)
                .arg(json ? slurmRestErrors(body) : QString::fromUtf8(body.left(200)).trimmed())
                .arg(m_user),
            ErrorCode::Unauthorized);
    else if (status >= 400 && !json)
        result = fail(u"slurmrestd answered HTTP %1: %2"_s.arg(status).arg(
            QString::fromUtf8(body.left(200)).trimmed()));
    if (!result && result.errorCode() == ErrorCode::Unauthorized)
        m_token.clear(); // the owner fetches a new one
    return result;
}

void SlurmRestClient::detectVersion(int next, std::function<void(const Status &)> done) {
    const QStringList versions = slurmRestVersions();
    if (next >= versions.size())
        return done(fail(u"slurmrestd at %1 serves none of the API versions %2"_s.arg(
            m_base.toString(), versions.join(u", "_s))));
    transmit("GET", u"/slurm/%1/ping"_s.arg(versions[next]), {},
             [this, next, done = std::move(done)](int status, const QByteArray &body,
                                                  const QString &error) {
                 if (status == 404)
                     return detectVersion(next + 1, done);
                 const auto result = answer(status, body, error);
                 if (!result)
                     return done(result.failure());
                 m_version = slurmRestVersions()[next];
                 done(success());
             });
}

void SlurmRestClient::whenReady(std::function<void(const Status &)> then) {
    if (const QString refused = refusal(); !refused.isEmpty()) {
        QTimer::singleShot(0, this, [refused, then = std::move(then)] { then(fail(refused)); });
        return;
    }
    if (!m_version.isEmpty())
        return then(success());
    m_waiting << std::move(then);
    if (m_waiting.size() == 1)
        detectVersion(0, [this](const Status &found) {
            const auto waiting = std::exchange(m_waiting, {});
            for (const auto &request : waiting)
                request(found);
        });
}

void SlurmRestClient::send(const QByteArray &verb, const QString &path, const QByteArray &body,
                           Done done) {
    whenReady([this, verb, path, body, done = std::move(done)](const Status &ready) {
        if (!ready)
            return done(ready.failure());
        transmit(verb, path.arg(m_version), body,
                 [this, done](int status, const QByteArray &answered, const QString &error) {
                     done(answer(status, answered, error));
                 });
    });
}

void SlurmRestClient::poll(bool allUsers, const QStringList &accountingIds,
                           std::function<void(const Result<SlurmPoll> &)> done) {
    send("GET", u"/slurm/%1/jobs"_s, {},
         [this, allUsers, accountingIds, done = std::move(done)](const Result<QByteArray> &body) {
             if (!body)
                 return done(body.failure());
             // A long queue is megabytes of JSON (5,000 jobs: about 17 MB): read off this thread.
             runOffThread(
                 this,
                 [body = *body, user = allUsers ? QString() : m_user] {
                     return parseSlurmRestJobs(body, user, QDateTime::currentDateTime());
                 },
                 [this, accountingIds, done](const Result<QList<SlurmJobRow>> &queue) {
                     if (!queue)
                         return done(queue.failure());
                     ask(*queue, accountingIds, done);
                 });
         });
}

void SlurmRestClient::ask(const QList<SlurmJobRow> &queue, const QStringList &accountingIds,
                          const std::function<void(const Result<SlurmPoll> &)> &done) {
    auto poll = std::make_shared<SlurmPoll>();
    poll->queue = queue;
    if (accountingIds.isEmpty())
        return done(*poll);
    // One question per job, all at once: few jobs leave the queue between two polls.
    auto left = std::make_shared<qsizetype>(accountingIds.size());
    for (const QString &id : accountingIds) {
        send("GET", u"/slurmdb/%1/job/"_s + QString::fromLatin1(QUrl::toPercentEncoding(id)), {},
             [poll, left, done](const Result<QByteArray> &answer) {
                 const auto rows = answer ? parseSlurmRestAccounting(*answer)
                                          : Result<QList<SlurmJobRow>>(answer.failure());
                 if (rows)
                     poll->accounting << *rows;
                 else
                     poll->accountingFailed = true;
                 if (--*left == 0)
                     done(*poll);
             });
    }
}

void SlurmRestClient::submit(const QString &script, const SlurmRestSubmission &job,
                             std::function<void(const Result<QString> &)> done) {
    // The body depends on the version: built once it is known.
    whenReady([this, script, job, done = std::move(done)](const Status &ready) {
        if (!ready)
            return done(ready.failure());
        const auto body = slurmRestSubmitBody(script, job, m_version);
        if (!body)
            return done(body.failure());
        send("POST", u"/slurm/%1/job/submit"_s, QJsonDocument(*body).toJson(),
             [done](const Result<QByteArray> &answer) {
                 if (!answer)
                     return done(answer.failure());
                 const auto object = parseAnswer(*answer);
                 const auto id = object ? restNumber(object->value("job_id"_L1)) : std::nullopt;
                 if (!id || *id <= 0) {
                     const QString why = slurmRestErrors(*answer);
                     return done(fail(why.isEmpty() ? u"slurmrestd gave no job id"_s : why));
                 }
                 done(QString::number(*id));
             });
    });
}

void SlurmRestClient::cancel(const QString &jobId, std::function<void(const Status &)> done) {
    // As scancel: the controller sends SIGTERM, then SIGKILL after the cluster's KillWait.
    send("DELETE", u"/slurm/%1/job/"_s + QString::fromLatin1(QUrl::toPercentEncoding(jobId)), {},
         [done = std::move(done)](const Result<QByteArray> &answer) {
             if (!answer)
                 return done(answer.failure());
             const QString errors = slurmRestErrors(*answer);
             done(errors.isEmpty() ? success() : Status(fail(errors)));
         });
}

} // namespace sb
