// Health: the one colour and word per actor state that every view uses (tree, graph, table,
// inspector), tuned for both light and dark palettes.
#pragma once

#include <actorscope/observe/system_state.hpp>

#include <QColor>
#include <QIcon>
#include <QPalette>
#include <QString>

namespace actorscope::views {

/// An actor's state as the observatory shows it: its status, and for a dead actor how it died.
enum class Health { starting, running, draining, stopping, stopped, failed, killed };

Health healthOf(const observe::ActorRecord& actor);
/// "running", "failed", ...
QString healthText(Health health);
/// The status colour on this palette (brighter on dark backgrounds).
QColor healthColor(Health health, const QPalette& palette);
/// A small round dot in the status colour, for item views.
QIcon healthIcon(Health health, const QPalette& palette);

/// True when the palette's window background is dark.
bool isDark(const QPalette& palette);
/// `color` blended over the palette's base colour: soft backgrounds for badges and rows.
QColor tint(const QColor& color, const QPalette& palette, qreal amount);

/// Accents shared by the views: warnings (amber), errors (red), links (palette link colour).
QColor warningColor(const QPalette& palette);
QColor errorColor(const QPalette& palette);
/// A mailbox-depth colour: neutral when empty, amber, then red as the depth grows (log scale).
QColor mailboxColor(std::uint64_t depth, const QPalette& palette);

}  // namespace actorscope::views
