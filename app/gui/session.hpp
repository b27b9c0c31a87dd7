// Session: what the main window shows, live or replayed. The window hosts one session at a time and
// asks it only for this: the SystemState to show, whether it is a running system or a recording,
// what to say about it (title, banner), whether its actors can be controlled, and, for a replay,
// the time range and the cursor. The views never see a Session: they are given its state.
#pragma once

#include "common/actor_selection.hpp"

#include <actorscope/observe/system_state.hpp>

#include <QObject>
#include <QString>

#include <optional>

namespace actorscope::gui {

class Session : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;
  ~Session() override = default;

  /// The state to show now. A live session's stays at one address and is folded forward; a replay's
  /// is a new object after each cursor move (the window then resets the views it did not refresh).
  virtual const observe::SystemState& state() const = 0;
  /// A running (or stopped) System of this process, as opposed to a recording read back.
  virtual bool isLive() const = 0;
  /// For the window title: "supervision on asio", "incident.db · session 2".
  virtual QString title() const = 0;
  /// The banner over the views (rich text); "" shows none. A replay says plainly that it is one.
  virtual QString banner() const = 0;
  /// What the views' actor actions (stop, kill, send) go to; nullptr when read-only.
  virtual views::ActorControl* control() = 0;

  /// The span of a recording on the runtime's clock, and where the cursor is in it. A live session
  /// has no timeline (nullopt).
  struct TimeRange {
    TimePoint start{};
    TimePoint end{};
  };
  virtual std::optional<TimeRange> timeRange() const { return std::nullopt; }
  virtual TimePoint cursor() const { return state().time(); }

 signals:
  /// state() changed: the views should show it.
  void updated();
};

}  // namespace actorscope::gui
