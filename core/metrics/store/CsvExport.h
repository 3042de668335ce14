#pragma once

#include "metrics/PointSource.h"

#include <QByteArray>
#include <QString>

#include <memory>

namespace sb {

// Every point of a series as CSV (step,value,wall_time), a piece at a time: the points there when
// it was made, whatever is appended after. Reads its point source (the series' extents in the
// data files) on its own: no store needed.
class CsvExport final {
public:
    explicit CsvExport(std::unique_ptr<PointSource> source)
        : m_source(std::move(source)) {}
    // The next piece of text (about 400 KB); empty once everything was given, or once a read
    // failed (error() then says why: the text so far is not the whole series).
    QByteArray next();
    // Why the points could not all be read; empty while they could.
    const QString &error() const { return m_error; }

private:
    std::unique_ptr<PointSource> m_source;
    qint64 m_next = -1; // the next point; -1 before the header line
    QString m_error;
};

} // namespace sb
