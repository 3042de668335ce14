#pragma once

#include "util/Result.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QUrl>

namespace sb {

// Rows in ClickHouse's RowBinary format: each value's bytes in the table's column order.
class RowBinary {
public:
    void string(QStringView text);
    void uint64(quint64 value);
    void float64(double value);
    void bytes(const QByteArray &encoded) { m_out.append(encoded); } // values encoded before
    void reserve(qint64 bytes) { m_out.reserve(bytes); }
    qint64 size() const { return m_out.size(); }
    bool isEmpty() const { return m_out.isEmpty(); }
    QByteArray take() { return std::move(m_out); }

private:
    QByteArray m_out;
};

// Reads what RowBinary holds, value by value; a value cut short sets failed() and reads as empty.
class RowBinaryReader {
public:
    explicit RowBinaryReader(QByteArrayView bytes)
        : m_bytes(bytes) {}
    QString string();
    quint64 uint64();
    double float64();
    bool atEnd() const { return m_at >= m_bytes.size(); }
    bool failed() const { return m_failed; }

private:
    QByteArrayView take(qsizetype length);

    QByteArrayView m_bytes;
    qsizetype m_at = 0;
    bool m_failed = false;
};

// A ClickHouse server over its HTTP interface (libcurl; TLS verified). Calls block: run them off
// the GUI thread.
class ClickHouse {
public:
    struct Options {
        QUrl url; // http(s)://HOST:PORT, its user and password in the URL or below
        QString database;
        QString user;
        QString password;
        int timeoutS = 30; // a server that sends nothing for this long fails the call
        // Settings sent with every statement (a reader's limits: max_execution_time, ...).
        QList<std::pair<QString, QString>> settings;
        // The cluster (in ClickHouse's remote_servers) a lab's tables are spread over, one shard
        // a server, and the URL of each server (this one's among them): the lab's tables are
        // then `Distributed` over each server's `_local` ones (LabSchema), and an INSERT is
        // answered once every shard stored its part. Empty: this server alone.
        QString cluster;
        QList<QUrl> servers;
    };
    struct Version {
        int major = 0;
        int minor = 0;
        bool atLeast(int wantedMajor, int wantedMinor) const {
            return major > wantedMajor || (major == wantedMajor && minor >= wantedMinor);
        }
    };

    explicit ClickHouse(Options options);

    const Options &options() const { return m_options; }
    // A statement's answer, as the server writes it (TabSeparated unless it says FORMAT).
    Result<QByteArray> query(const QString &sql) const;
    // Rows (RowBinary, in `columns`' order) added to a table in one INSERT: one block, stored
    // whole or not at all. `queryId` names it on the server (KILL QUERY finds it by that).
    Status insert(const QString &table, const QStringList &columns, const QByteArray &rows,
                  const QString &queryId = {}) const;
    Result<Version> version() const;

    // A string as a SQL literal, quoted and escaped.
    static QString quoted(QStringView text);
    // Names quoted for SQL, joined with commas, in lists of at most about 64 kB each: a
    // statement stays well within ClickHouse's max_query_size (256 kB).
    static QStringList quotedLists(const QStringList &names);
    // A double as a SQL expression of exactly its value (its bits: ClickHouse 18's parser of
    // decimal text may be a unit off in the last place).
    static QString float64(double value);

private:
    Result<QByteArray> post(const QString &statement, const QByteArray &body,
                            const QString &queryId = {}) const;

    Options m_options;
};

} // namespace sb
