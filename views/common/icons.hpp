// Icons: the app's own SVG set (resources/icons), drawn in the palette's text colour at paint
// time, so one file serves light and dark themes and every size and state.
#pragma once

#include <QIcon>
#include <QString>

namespace actorscope::views {

/// The icon `name` (resources/icons/<name>.svg). Monochrome icons follow the palette; icons whose
/// name starts with "c-" keep their own colours (record dot, start triangle).
QIcon icon(const QString& name);

}  // namespace actorscope::views
