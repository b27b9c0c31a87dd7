// Theme: the system palette by default, or an explicit light or dark one (Fusion style) for
// desktops where Qt does not pick up the system's dark mode. The views read their colours from
// the palette, so switching repaints everything consistently.
#pragma once

#include <QString>

#include <optional>

namespace actorscope::gui {

enum class Theme { system, light, dark };

/// "system", "light", "dark" (what --theme and the settings store).
QString themeName(Theme theme);
std::optional<Theme> themeFromName(const QString& name);
/// Applies a theme to the running application. Call once a QApplication exists.
void applyTheme(Theme theme);

}  // namespace actorscope::gui
