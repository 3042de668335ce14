#pragma once

#include "util/Result.h"

#include <QHash>
#include <QObject>
#include <QStringList>
#include <QTimer>

#include <optional>

namespace sb {

// Each run's colour, the same in every view and every session. A run gets one when it is first
// drawn: the palette's least used colour, in an order that keeps the first runs far apart, from
// Paul Tol's colour-blind-safe schemes ("bright", then "muted"). A colour the user picks stays.
// Kept as "#rrggbb" in a small JSON file in the data dir. Lives on the GUI thread.
class RunColors final : public QObject {
    Q_OBJECT
public:
    // The one table of the process: a run's colour is the same in every view.
    static RunColors &shared();

    // Reads (and from now on writes) the colours at `path`; a missing file starts empty, a broken
    // one is said and set aside (nothing else is lost: runs get colours anew).
    Status load(const QString &path);
    // The run's colour, handed out now if it has none.
    QString colorOf(const QString &run);
    // The run's colour if it has one (a table's swatch shows only runs that were drawn).
    std::optional<QString> existing(const QString &run) const;
    // The user's choice; "#rrggbb" only.
    Status setColor(const QString &run, const QString &color);
    // Writes what changed now rather than in a moment (at exit).
    Status flush();

    // In the order colours are handed out.
    static const QStringList &palette();

Q_SIGNALS:
    void changed(const QString &run); // a colour the user picked
    void handedOut(); // runs got their first colours (once for many, after they did)

private:
    RunColors();
    void saveSoon();

    QHash<QString, QString> m_colors;
    QHash<QString, int> m_uses; // by palette colour, among runs that have one
    QString m_path;
    QTimer m_save;     // coalesces many new runs into one write
    QTimer m_announce; // and into one handedOut()
};

} // namespace sb
