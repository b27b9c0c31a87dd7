// StateView: what the main window asks of every view: show this state, or forget everything
// because a new session starts. Views that are hidden are not refreshed (only the visible ones
// pay for an update), and catch up when they are shown.
#pragma once

#include <actorscope/observe/system_state.hpp>

#include <optional>

namespace actorscope::views {

class StateView {
 public:
  virtual ~StateView() = default;
  /// Brings the view to `state`. The state outlives the call and stays at this address until the
  /// next setState or resetSession (the view may keep a pointer to re-filter).
  virtual void setState(const observe::SystemState& state) = 0;
  /// A new session: forget rows, selections inside the view, and remembered history.
  virtual void resetSession() = 0;
  /// A replay's cursor, for the views that centre on it (the message flow, the event log): they are
  /// then given a state that runs a little past the cursor and show what is around it. nullopt (live):
  /// the newest. Called before setState; the default ignores it.
  virtual void setFocusTime(std::optional<TimePoint> t) { (void)t; }
};

}  // namespace actorscope::views
