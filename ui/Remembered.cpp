#include "Remembered.h"

#include "Settings.h"

#include <QAbstractButton>
#include <QAbstractSlider>
#include <QComboBox>
#include <QSplitter>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr const char *kRemember = "signalboxRemember";

QVariant storedFor(const QWidget *widget) {
    return readSetting(Setting::Remembered, widget->objectName());
}

void storeFor(const QWidget *widget, const QVariant &value) {
    writeSetting(Setting::Remembered, value, widget->objectName());
}

} // namespace

void remember(QWidget *widget) {
    widget->setProperty(kRemember, true);
}

void restoreRemembered(QWidget *root) {
    for (QSplitter *splitter : root->findChildren<QSplitter *>()) {
        if (!splitter->objectName().isEmpty())
            splitter->restoreState(storedFor(splitter).toByteArray());
    }
    for (QWidget *widget : root->findChildren<QWidget *>()) {
        const QVariant value = storedFor(widget);
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

void saveRemembered(QWidget *root) {
    for (QSplitter *splitter : root->findChildren<QSplitter *>()) {
        if (!splitter->objectName().isEmpty())
            storeFor(splitter, splitter->saveState());
    }
    for (QWidget *widget : root->findChildren<QWidget *>()) {
        if (!widget->property(kRemember).toBool())
            continue;
        if (auto *slider = qobject_cast<QAbstractSlider *>(widget))
            storeFor(widget, slider->value());
        else if (auto *combo = qobject_cast<QComboBox *>(widget))
            storeFor(widget, combo->currentIndex());
        else if (auto *button = qobject_cast<QAbstractButton *>(widget))
            storeFor(widget, button->isChecked());
    }
}

} // namespace sb
