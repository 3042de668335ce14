#pragma once

#include <QDialog>

class QAction;

namespace sb {

class Notifier;

// What the YAML config does not hold: this desktop's theme and language, which notifications
// come and when, and where the log is. A change applies at once (the language at the next start)
// and is remembered (QSettings).
class SettingsDialog final : public QDialog {
    Q_OBJECT
public:
    // themes: View ▸ Theme's actions (system, light, dark), triggered so that the menu agrees.
    SettingsDialog(Notifier *notifier, const QList<QAction *> &themes, QWidget *parent = nullptr);

    // The language chosen here ("" for the system's), for main() to load before any window.
    static QString language();
    // Shows the log's folder in the desktop's file manager; false when there is no log file.
    static bool openLogFolder();
};

} // namespace sb
