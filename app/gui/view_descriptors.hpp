// The observatory's views, in one table: what each is called, where it sits, how often it is
// refreshed and how it is made. The main window builds its tabs, docks, View menu, refresh list
// and screenshots from this table alone, so a view (or a dock of a new mode) is added with one
// entry here and nothing else.
#pragma once

#include "common/actor_selection.hpp"

#include <QString>

#include <functional>
#include <vector>

class QWidget;

namespace actorscope::gui {

class MainWindow;

/// What a view's factory is given.
struct ViewContext {
  MainWindow* window = nullptr;
  views::ActorSelection* selection = nullptr;
  /// The actor actions of whatever session the window shows (a replay's are disabled).
  views::ActorControl* control = nullptr;
};

struct ViewDescriptor {
  /// Where the view lives: a tab of the centre, or a dock. Docks of one area are tabbed together,
  /// the first one in the table on top.
  enum class Place { central, left, right, top, bottom };
  /// In which sessions the view is offered (a replay's timeline means nothing live).
  enum Modes : unsigned { live = 1, replay = 2, both = 3 };

  QString id;     ///< "supervision-tree": the dock's object name stem, the screenshot's file name
  QString title;  ///< "Supervision tree"
  QString icon;   ///< a name for views::icon()
  Place place = Place::bottom;
  /// At most one refresh per this many ms (a view that renders a SystemState, a views::StateView).
  /// Figures that change 30 times a second cannot be read, and a table of thousands of rows need
  /// not be re-sorted that often.
  int intervalMs = 100;
  /// Slow on a big system (10,000 rows or nodes): refreshed at most one per frame, half as often.
  bool heavy = false;
  unsigned modes = both;
  /// Makes the widget (parented by the window later). If it is a views::StateView, the window
  /// gives it the session's state; otherwise it manages itself (the benchmarks, the timeline).
  std::function<QWidget*(const ViewContext&)> make;
  /// In a replay, centred on the cursor: given the state a little past it (ReplaySession::aheadState)
  /// and the cursor's time (StateView::setFocusTime), to show what came before and after.
  bool centred = false;
};

/// Every view, in order: central tabs in tab order, docks in the order they are tabbed.
const std::vector<ViewDescriptor>& viewDescriptors();

}  // namespace actorscope::gui
