// Health: the one colour and word per actor state that every view uses (tree, graph, table,
// inspector), tuned for both light and dark palettes.
#pragma once

#include <actorscope/observe/system_state.hpp>

#include <QColor>
#include <QIcon>
#include <QPalette>
#include <QString>
#include <QVariant>

#include <string>

namespace actorscope::views {

/// An actor's state as the observatory shows it: its status, and for a dead actor how it died.
enum class Health { starting, running, draining, stopping, stopped, failed, killed };

Health healthOf(const observe::ActorRecord& actor);
/// True for an actor that has exited, however (stopped, failed, killed): its figures are history.
constexpr bool hasExited(Health health) noexcept {
  return health == Health::stopped || health == Health::failed || health == Health::killed;
}
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

/// The kinds of cell that a row about one actor shows, in the actors table and the supervision
/// tree alike: what actorCellData styles. `other`: a figure with no rule of its own (a rate).
enum class ActorCell { name, id, type, status, mailbox, failures, other };

/// What actorCellData needs of the row's actor. `failing`: the failures cell is red (the table
/// counts every failure, the tree only recent ones: each model says which).
struct ActorCellFacts {
  ActorId id;
  Health health = Health::running;
  std::uint64_t mailbox = 0;
  bool failing = false;
  const std::string& name;  ///< what a search matches, with the type and the id
  const std::string& type;
};

/// The rules every model of actor rows follows, for the roles they govern: the status dot on the
/// name (Qt::DecorationRole); the colours (Qt::ForegroundRole: the status in its health colour, an
/// exited actor's row greyed, the mailbox by depth, failures red while failing, ids and types
/// grey); ActorIdRole, HealthRole and SearchRole ("name type id"). An invalid QVariant for the
/// other roles and where no rule applies: the model decides (text, sorting, tooltips).
QVariant actorCellData(ActorCell cell, int role, const ActorCellFacts& facts);

}  // namespace actorscope::views
