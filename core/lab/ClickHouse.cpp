#include "ClickHouse.h"

#include "net/CurlRequest.h"

#include <QRegularExpression>
#include <QUrlQuery>
#include <QtEndian>

#include <bit>
#include <cstring>

namespace sb {

using namespace Qt::StringLiterals;

void RowBinary::string(QStringView text) {
    const QByteArray utf8 = text.toUtf8();
    auto length = static_cast<quint64>(utf8.size());
    do { // LEB128: seven bits a byte, the high bit saying more follow
        const auto byte = static_cast<char>((length & 0x7f) | (length > 0x7f ? 0x80 : 0));
        m_out.append(byte);
        length >>= 7;
    } while (length > 0);
    m_out.append(utf8);
}

void RowBinary::uint64(quint64 value) {
    const quint64 little = qToLittleEndian(value);
    m_out.append(reinterpret_cast<const char *>(&little), sizeof little);
}

void RowBinary::float64(double value) {
    quint64 bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    uint64(bits);
}

QByteArrayView RowBinaryReader::take(qsizetype length) {
    if (m_failed || length < 0 || length > m_bytes.size() - m_at) {
        m_failed = true;
        return {};
    }
    const QByteArrayView out = m_bytes.sliced(m_at, length);
    m_at += length;
    return out;
}

QString RowBinaryReader::string() {
    quint64 length = 0;
    for (int shift = 0;; shift += 7) {
        const QByteArrayView byte = take(1);
        if (byte.isEmpty() || shift > 56) {
            m_failed = true;
            return {};
        }
        const auto bits = static_cast<unsigned char>(byte.front());
        length |= quint64(bits & 0x7f) << shift;
        if ((bits & 0x80) == 0)
            break;
    }
    if (length > quint64(m_bytes.size()))
        m_failed = true;
    return m_failed ? QString() : QString::fromUtf8(take(qsizetype(length)));
}

quint64 RowBinaryReader::uint64() {
    const QByteArrayView bytes = take(8);
    return bytes.size() == 8 ? qFromLittleEndian<quint64>(bytes.data()) : 0;
}

double RowBinaryReader::float64() {
    const quint64 bits = uint64();
    double value = 0;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

ClickHouse::ClickHouse(Options options)
    : m_options(std::move(options)) {
    if (m_options.user.isEmpty())
        m_options.user = m_options.url.userName();
    if (m_options.password.isEmpty())
        m_options.password = m_options.url.password();
    if (m_options.user.isEmpty() && !m_options.password.isEmpty())
        m_options.user = u"default"_s; // ClickHouse's user when none is named
    m_options.url.setUserInfo({});
}

QString ClickHouse::quoted(QStringView text) {
    QString out = u"'"_s;
    for (const QChar c : text) {
        if (c == u'\'' || c == u'\\')
            out += u'\\';
        out += c;
    }
    return out + u'\'';
}

QStringList ClickHouse::quotedLists(const QStringList &names) {
    QStringList lists{QString()};
    for (const QString &name : names) {
        if (lists.back().size() > 65536)
            lists << QString();
        lists.back() += (lists.back().isEmpty() ? QString() : u", "_s) + quoted(name);
    }
    return lists;
}

QString ClickHouse::float64(double value) {
    const auto little = qToLittleEndian(std::bit_cast<quint64>(value));
    const QByteArray bytes(reinterpret_cast<const char *>(&little), sizeof little);
    return u"reinterpretAsFloat64(unhex('%1'))"_s.arg(QLatin1StringView(bytes.toHex()));
}

Result<QByteArray> ClickHouse::post(const QString &statement, const QByteArray &body,
                                    const QString &queryId) const {
    QUrl url = m_options.url;
    QUrlQuery query;
    if (!m_options.database.isEmpty())
        query.addQueryItem(u"database"_s, m_options.database);
    if (!queryId.isEmpty())
        query.addQueryItem(u"query_id"_s, queryId);
    // An answer is whole or an error, never cut short by a profile's overflow modes; an INSERT
    // is one block however large.
    query.addQueryItem(u"wait_end_of_query"_s, u"1"_s);
    for (const char *limit : {"result_overflow_mode", "group_by_overflow_mode",
                              "timeout_overflow_mode", "read_overflow_mode"})
        query.addQueryItem(QLatin1StringView(limit), u"throw"_s);
    if (!body.isEmpty())
        query.addQueryItem(u"max_insert_block_size"_s, u"100000000"_s);
    if (!m_options.cluster.isEmpty()) {
        // A read misses no shard (a profile may skip those down), a write waits for each.
        query.addQueryItem(u"skip_unavailable_shards"_s, u"0"_s);
        query.addQueryItem(u"insert_distributed_sync"_s, u"1"_s);
    }
    for (const auto &[name, value] : m_options.settings)
        query.addQueryItem(name, value);
    // With a body, the statement goes in the URL (the body is its rows).
    if (!body.isEmpty() || statement.isEmpty())
        query.addQueryItem(u"query"_s, QString::fromUtf8(QUrl::toPercentEncoding(statement)));
    url.setQuery(query);
    CurlRequest request;
    request.method = "POST";
    request.url = url;
    const QByteArray text = statement.toUtf8();
    request.body = body.isEmpty() ? &text : &body;
    if (!m_options.user.isEmpty())
        request.credentials = m_options.user.toUtf8() + ':' + m_options.password.toUtf8();
    request.stalledAfterS = m_options.timeoutS;
    auto reply = perform(request);
    if (!reply)
        return fail(u"ClickHouse at %1"_s.arg(reply.error()));
    if (reply->status != 200) {
        // Its exception's text, one line, as long as a message should be.
        QString message = QString::fromUtf8(reply->body.left(2000)).simplified();
        if (message.isEmpty())
            message = u"HTTP %1"_s.arg(reply->status);
        return fail(u"ClickHouse at %1: %2"_s.arg(
                        m_options.url.toString(QUrl::RemoveUserInfo | QUrl::RemoveQuery), message),
                    reply->status >= 500 ? ErrorCode::Failed : ErrorCode::InvalidInput);
    }
    return std::move(reply).value().body;
}

Result<QByteArray> ClickHouse::query(const QString &sql) const {
    return post(sql, {});
}

Status ClickHouse::insert(const QString &table, const QStringList &columns, const QByteArray &rows,
                          const QString &queryId) const {
    if (rows.isEmpty())
        return success();
    auto answer = post(u"INSERT INTO %1 (%2) FORMAT RowBinary"_s.arg(table, columns.join(u", "_s)),
                       rows, queryId);
    if (!answer)
        return answer.failure();
    return success();
}

Result<ClickHouse::Version> ClickHouse::version() const {
    auto answer = query(u"SELECT version()"_s);
    if (!answer)
        return answer.failure();
    static const QRegularExpression number(uR"(^(\d+)\.(\d+))"_s);
    const auto match = number.match(QString::fromUtf8(answer->trimmed()));
    if (!match.hasMatch())
        return fail(u"ClickHouse answered its version as %1"_s.arg(
            QString::fromUtf8(answer->left(40).trimmed())));
    return Version{match.captured(1).toInt(), match.captured(2).toInt()};
}

} // namespace sb
