#pragma once

#include "SeriesTable.h"
#include "storage/DataFiles.h"
#include "storage/StoreDirectory.h"
#include "util/Result.h"

#include <QHash>
#include <QStringList>

#include <functional>

namespace sb {

// The store's first layout (format 1): a file per series, series/<id>.pts (a 16-byte header,
// then its points). Read as that layout's recovery did, then moved into data files under a new
// journal; the series files are removed only once that journal is in place.
class LegacySeriesFiles {
public:
    LegacySeriesFiles(const StoreDirectory &directory, SeriesTable &series,
                      QStringList *recoveryNotes, QStringList *lossNotes)
        : m_directory(directory)
        , m_series(series)
        , m_recoveryNotes(recoveryNotes)
        , m_lossNotes(lossNotes) {}
    bool present() const;
    // Sets each series' count and last point from its file and the committed counts; files no
    // record names are kept in lost+found. `byId`: the series (SeriesTable::byId()).
    Status load(const QHash<quint32, qint64> &committed,
                const QHash<quint32, StoredSeries *> &byId);
    // Copies every series' points into room `allocate` gives it (an extent of a data file).
    using Allocate = std::function<Result<Extent>(StoredSeries *, qint64 points)>;
    Status copyInto(DataFiles &files, const Allocate &allocate);
    // Once the new journal names the copies: the series files go.
    void removeMoved();
    // A store of data files: series files a migration left (its journal already in place) go;
    // any other is kept in lost+found.
    Status clearLeftovers(const QHash<quint32, StoredSeries *> &byId);

private:
    QString path(quint32 id) const;

    const StoreDirectory &m_directory;
    SeriesTable &m_series;
    QStringList *m_recoveryNotes;
    QStringList *m_lossNotes;
};

} // namespace sb
