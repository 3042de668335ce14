#pragma once

class QWidget;

namespace sb {

// What a researcher set up stays as it was at the next start: every named QSplitter under
// `root` (its sizes) and every named widget marked with remember(): a slider's value, a combo
// box's choice, a check box's state. Stored under the widgets' object names (Setting::Remembered).
void remember(QWidget *widget);
void restoreRemembered(QWidget *root);
void saveRemembered(QWidget *root);

} // namespace sb
