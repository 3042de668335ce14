#include "SettingsDialog.h"

#include "Notifier.h"
#include "Settings.h"
#include "util/Log.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QUrl>
#include <QVBoxLayout>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// Minutes, from one to a week.
QSpinBox *minutesBox(int minutes) {
    auto *box = new QSpinBox;
    box->setRange(1, 7 * 24 * 60);
    box->setSingleStep(5);
    box->setSuffix(SettingsDialog::tr(" min"));
    box->setValue(minutes);
    return box;
}

} // namespace

bool SettingsDialog::openLogFolder() {
    const QString path = LogFile::path();
    return !path.isEmpty() &&
           QDesktopServices::openUrl(QUrl::fromLocalFile(QFileInfo(path).absolutePath()));
}

QString SettingsDialog::language() {
    return readSetting(Setting::Language).toString();
}

SettingsDialog::SettingsDialog(Notifier *notifier, const QList<QAction *> &themes, QWidget *parent)
    : QDialog(parent) {
    setObjectName(u"settings"_s);
    setWindowTitle(tr("Settings"));

    auto *theme = new QComboBox;
    theme->setObjectName(u"theme"_s);
    for (QAction *action : themes) {
        theme->addItem(action->text().remove(u'&'));
        if (action->isChecked())
            theme->setCurrentIndex(theme->count() - 1);
    }
    connect(theme, &QComboBox::currentIndexChanged, this, [themes](int index) {
        if (index >= 0 && index < themes.size())
            themes[index]->trigger();
    });
    auto *language = new QComboBox;
    language->setObjectName(u"language"_s);
    // Each language in its own words, so that whoever reads them finds theirs.
    for (const auto &[name, code] :
         {std::pair{tr("As the system"), QString()}, std::pair{u"English"_s, u"en"_s},
          std::pair{u"简体中文"_s, u"zh_CN"_s}}) {
        language->addItem(name, code);
        if (code == SettingsDialog::language())
            language->setCurrentIndex(language->count() - 1);
    }
    auto *languageNote = new QLabel;
    languageNote->setForegroundRole(QPalette::PlaceholderText);
    languageNote->setWordWrap(true);
    connect(language, &QComboBox::currentIndexChanged, this, [language, languageNote] {
        writeSetting(Setting::Language, language->currentData());
        languageNote->setText(tr("Signalbox speaks it from its next start."));
    });
    auto *look = new QGroupBox(tr("Appearance"));
    auto *lookForm = new QFormLayout(look);
    lookForm->addRow(tr("Theme"), theme);
    lookForm->addRow(tr("Language"), language);
    lookForm->addRow(QString(), languageNote);

    auto *notifications = new QGroupBox(tr("Desktop notifications"));
    auto *notifyForm = new QFormLayout(notifications);
    for (const Notifier::Kind kind : Notifier::kinds()) {
        auto *box = new QCheckBox(Notifier::describe(kind));
        box->setChecked(notifier->isEnabled(kind));
        notifyForm->addRow(box);
        connect(box, &QCheckBox::toggled, this, [notifier, kind](bool on) {
            writeSetting(Setting::Notify, on, QString::number(static_cast<int>(kind)));
            notifier->loadSettings();
        });
    }
    // As the notifier has them now: one source for their defaults.
    const Notifier::Options &now = notifier->options();
    for (const auto &time :
         {std::tuple{Setting::NotifyWaitMinutes, tr("A wait is long after"), now.waitMinutes},
          std::tuple{Setting::NotifyStallMinutes, tr("A silence is a stall after"),
                     now.stallMinutes}}) {
        const Setting setting = std::get<0>(time);
        QSpinBox *box = minutesBox(std::get<2>(time));
        box->setObjectName(settingKey(setting).section(u'/', 1));
        notifyForm->addRow(std::get<1>(time), box);
        connect(box, &QSpinBox::valueChanged, this, [notifier, setting](int minutes) {
            writeSetting(setting, minutes);
            notifier->loadSettings();
        });
    }

    auto *logs = new QGroupBox(tr("Log"));
    auto *logsForm = new QFormLayout(logs);
    const QString path = LogFile::path();
    auto *where = new QLabel(path.isEmpty() ? tr("none in this session") : path);
    where->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *open = new QPushButton(tr("Open log folder"));
    open->setEnabled(!path.isEmpty());
    connect(open, &QPushButton::clicked, this, &SettingsDialog::openLogFolder);
    logsForm->addRow(tr("Written to"), where);
    logsForm->addRow(QString(), open);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::accept);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(look);
    layout->addWidget(notifications);
    layout->addWidget(logs);
    layout->addWidget(buttons);
    setMinimumWidth(480);
}

} // namespace sb
