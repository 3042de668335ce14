#include "SavedViews.h"

#include "CurvesView.h" // its translations: these words were its own
#include "MenuButton.h"
#include "Settings.h"

#include <QInputDialog>
#include <QJsonDocument>
#include <QMenu>
#include <QToolButton>
#include <QUrl>

namespace sb {

using namespace Qt::StringLiterals;

SavedViews::SavedViews(const QString &scope, std::function<QJsonObject()> capture,
                       std::function<void(const QJsonObject &)> apply, QObject *parent)
    : QObject(parent)
    , m_scope(QString::fromLatin1(QUrl::toPercentEncoding(scope)))
    , m_capture(std::move(capture))
    , m_apply(std::move(apply))
    , m_button(menuButton(u"views"_s, CurvesView::tr("Views"),
                          CurvesView::tr("Save the filter, columns, grouping and charts' layout "
                                         "by name, and put them back"))) {
    connect(m_button->menu(), &QMenu::aboutToShow, this, &SavedViews::fillMenu);
}

QJsonObject SavedViews::stored() const {
    return QJsonDocument::fromJson(readSetting(Setting::CurvesViews, m_scope).toByteArray())
        .object();
}

void SavedViews::store(const QJsonObject &views) {
    writeSetting(Setting::CurvesViews, QJsonDocument(views).toJson(QJsonDocument::Compact),
                 m_scope);
}

QStringList SavedViews::names() const {
    return stored().keys();
}

Status SavedViews::save(const QString &name) {
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty() || trimmed.size() > kLongestName)
        return fail(CurvesView::tr("A view's name is 1 to %1 characters").arg(kLongestName));
    QJsonObject views = stored();
    if (!views.contains(trimmed) && views.size() >= kMostViews)
        return fail(CurvesView::tr("%1 views are kept at most: delete one first").arg(kMostViews));
    views.insert(trimmed, m_capture());
    store(views);
    m_current = trimmed;
    return success();
}

bool SavedViews::apply(const QString &name) {
    const QJsonValue view = stored().value(name);
    if (!view.isObject())
        return false;
    m_apply(view.toObject());
    m_current = name;
    return true;
}

void SavedViews::remove(const QString &name) {
    QJsonObject views = stored();
    views.remove(name);
    store(views);
    if (m_current == name)
        m_current.clear();
}

void SavedViews::fillMenu() {
    QMenu *menu = m_button->menu();
    menu->clear();
    const QStringList saved = names();
    if (saved.isEmpty())
        menu->addAction(CurvesView::tr("No saved views yet"))->setEnabled(false);
    for (const QString &name : saved) {
        QAction *action = menu->addAction(QString(name).replace(u'&', u"&&"_s));
        action->setObjectName(u"view:"_s + name);
        action->setCheckable(true);
        action->setChecked(name == m_current);
        connect(action, &QAction::triggered, this, [this, name] { apply(name); });
    }
    menu->addSeparator();
    menu->addAction(CurvesView::tr("Save this view as…"), this, [this] {
        bool ok = false;
        const QString name =
            QInputDialog::getText(m_button->window(), CurvesView::tr("Save this view"),
                                  CurvesView::tr("Name (a view of that name is replaced):"),
                                  QLineEdit::Normal, m_current, &ok);
        if (!ok)
            return;
        if (Status kept = save(name); !kept)
            Q_EMIT problem(kept.error());
    });
    if (!m_current.isEmpty()) {
        menu->addAction(CurvesView::tr("Delete the view “%1”")
                            .arg(QString(m_current).replace(u'&', u"&&"_s)),
                        this, [this] { remove(m_current); })
            ->setObjectName(u"deleteView"_s);
    }
}

} // namespace sb
