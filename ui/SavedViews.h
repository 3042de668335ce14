#pragma once

#include "util/Result.h"

#include <QJsonObject>
#include <QObject>

#include <functional>

class QToolButton;

namespace sb {

// Named views of the curves (what the table filters and shows, how the charts are drawn), saved
// for the collector they were made on, so each metrics service (a project) has its own, and put
// back from the Views menu. Kept in the app's settings as one JSON object per collector.
class SavedViews final : public QObject {
    Q_OBJECT
public:
    static constexpr qsizetype kMostViews = 200;
    static constexpr qsizetype kLongestName = 200;

    // `scope`: the collector's address. `capture` says the view now; `apply` puts one back.
    SavedViews(const QString &scope, std::function<QJsonObject()> capture,
               std::function<void(const QJsonObject &)> apply, QObject *parent = nullptr);

    // The Views button: the saved views, then save and delete.
    QToolButton *button() const { return m_button; }
    QStringList names() const;
    // Saves the view now under this name (replacing one of that name).
    Status save(const QString &name);
    // Puts a saved view back; false if there is none of that name.
    bool apply(const QString &name);
    void remove(const QString &name);

Q_SIGNALS:
    void problem(const QString &message);

private:
    QJsonObject stored() const;
    void store(const QJsonObject &views);
    void fillMenu();

    QString m_scope;
    std::function<QJsonObject()> m_capture;
    std::function<void(const QJsonObject &)> m_apply;
    QToolButton *m_button;
    QString m_current; // the view last saved or put back
};

} // namespace sb
