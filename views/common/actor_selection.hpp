// ActorSelection: the one "current actor" every view shares, so that picking an actor in the
// tree, the table, the flow chart or a warning selects it everywhere. ActorControl: what a view
// may ask of a live actor (stop, kill, a demo message); the app implements it over a System.
#pragma once

#include <actorscope/actor_id.hpp>

#include <QMetaType>
#include <QObject>
#include <QString>

class QMenu;
class QWidget;

Q_DECLARE_METATYPE(actorscope::ActorId)

namespace actorscope::views {

class ActorSelection : public QObject {
  Q_OBJECT
 public:
  explicit ActorSelection(QObject* parent = nullptr);

  ActorId current() const noexcept { return current_; }
  /// Selects `id` (an invalid id clears the selection); emits changed() if it is new.
  void select(ActorId id);

 signals:
  void changed(actorscope::ActorId id);

 private:
  ActorId current_{};
};

/// Interactive control of live actors, as in the Erlang observer. Views call it from their context
/// menus; they never see the System behind it.
class ActorControl {
 public:
  virtual ~ActorControl() = default;
  /// Whether `id` is a live actor of a running session (otherwise the actions are disabled).
  virtual bool canControl(ActorId id) const = 0;
  /// Graceful stop: the current handler finishes, post_stop runs.
  virtual void stopActor(ActorId id) = 0;
  /// Immediate kill: post_stop is skipped, the supervisor hears about it.
  virtual void killActor(ActorId id) = 0;
  /// The scenario's demo message for this actor ("" if the scenario has none for it).
  virtual QString demoMessageName(ActorId id) const = 0;
  virtual void sendDemoMessage(ActorId id) = 0;
};

/// The context menu every view shows for an actor: Inspect, Stop, Kill, Send <demo message>,
/// Copy id. Actions have object names ("inspect", "stop", "kill", "send", "copy-id") so tests and
/// shortcuts can find them. `control` may be null (no live session: actions disabled).
QMenu* makeActorMenu(QWidget* parent, ActorId id, const QString& label, ActorSelection* selection,
                     ActorControl* control);

}  // namespace actorscope::views
