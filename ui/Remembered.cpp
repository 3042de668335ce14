#include "Remembered.h"

#include <QAbstractButton>
#include <QAbstractSlider>
#include <QComboBox>
#include <QSettings>
#include <QSplitter>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr const char *kRemember = "signalboxRemember";

QString keyOf(const QWidget *widget) {
    return u"remembered/"_s + widget->objectName();
}

} // namespace

void remember(QWidget *widget) {
    widget->setProperty(kRemember, true);
}

void restoreRemembered(QWidget *root, QSettings &settings) {
    for (QSplitter *splitter : root->findChildren<QSplitter *>()) {
        if (!splitter->objectName().isEmpty())
            splitter->restoreState(settings.value(keyOf(splitter)).toByteArray());
    }
    for (QWidget *widget : root->findChildren<QWidget *>()) {
        const QVariant value = settings.value(keyOf(widget));
        if (!widget->property(kRemember).toBool() || !value.isValid())
            continue;
        // Through the widgets' own setters, so their views follow as if the user had set them.
        if (auto *slider = qobject_cast<QAbstractSlider *>(widget))
            slider->setValue(value.toInt());
        else if (auto *combo = qobject_cast<QComboBox *>(widget);
                 combo && value.toInt() >= 0 && value.toInt() < combo->count())
            combo->setCurrentIndex(value.toInt());
        else if (auto *button = qobject_cast<QAbstractButton *>(widget);
                 button && button->isCheckable())
            button->setChecked(value.toBool());
    }
}

void saveRemembered(QWidget *root, QSettings &settings) {
    for (QSplitter *splitter : root->findChildren<QSplitter *>()) {
        if (!splitter->objectName().isEmpty())
            settings.setValue(keyOf(splitter), splitter->saveState());
    }
    for (QWidget *widget : root->findChildren<QWidget *>()) {
        if (!widget->property(kRemember).toBool())
            continue;
        if (auto *slider = qobject_cast<QAbstractSlider *>(widget))
            settings.setValue(keyOf(widget), slider->value());
        else if (auto *combo = qobject_cast<QComboBox *>(widget))
            settings.setValue(keyOf(widget), combo->currentIndex());
        else if (auto *button = qobject_cast<QAbstractButton *>(widget))
            settings.setValue(keyOf(widget), button->isChecked());
    }
}

} // namespace sb
