#pragma once

#include <QColor>

class QPalette;

namespace sb {

// Light or dark: the system's palette (as the desktop gave it at start), or one chosen in
// View ▸ Theme. Every view takes its colours from the palette, charts and node cards included.
enum class Theme { System, Light, Dark };
void applyTheme(Theme theme);
bool isDark(const QPalette &palette);
// Text that says something went wrong, readable on `palette`'s background.
QColor problemColor(const QPalette &palette);
// Text that warns (an insight about a GPU), likewise.
QColor warningColor(const QPalette &palette);

} // namespace sb
