#pragma once

#include <QObject>

class QCoreApplication;
class QLabel;
class QWidget;

namespace sb {

// Every item view's tooltips (runs, jobs, trials, processes, column headers) come from models
// whose text is from outside: shown as written, never as the markup Qt would guess it to be. An
// application-wide filter, so a view or model added later cannot forget it.
class PlainTips final : public QObject {
    Q_OBJECT
public:
    static void install(QCoreApplication *app); // once; later calls do nothing

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    using QObject::QObject;
};

// A label for text from outside (a message, a host, a path): plain text, never guessed markup.
QLabel *plainLabel(const QString &text = {}, QWidget *parent = nullptr);

} // namespace sb
