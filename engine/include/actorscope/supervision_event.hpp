// Supervision events: what a supervisor, a monitor or a process-group monitor hears about the actors
// it watches.
#pragma once

#include <actorscope/actor_cell.hpp>
#include <actorscope/detail/type_info.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace actorscope {

/// The final state of an actor that exited cleanly, handed to its supervisor. It can be taken out
/// only as the actor's own State type.
class BoxedState {
 public:
  BoxedState() noexcept = default;
  template <class T>
  static BoxedState make(T&& value) {
    using V = std::decay_t<T>;
    BoxedState b;
    b.ptr_ = Ptr(new V(std::forward<T>(value)), [](void* p) { delete static_cast<V*>(p); });
    b.tag_ = detail::type_tag<V>();
    b.type_name_ = detail::type_name<V>();
    return b;
  }

  bool has_value() const noexcept { return ptr_ != nullptr; }
  /// The state's type, as the compiler spells it ("" when empty).
  std::string_view type_name() const noexcept { return type_name_; }

  /// A pointer to the state if it is a T, otherwise nullptr.
  template <class T>
  T* get() noexcept {
    return tag_ == detail::type_tag<T>() ? static_cast<T*>(ptr_.get()) : nullptr;
  }
  /// Moves the state out if it is a T (leaving this box empty), otherwise nullopt.
  template <class T>
  std::optional<T> take() {
    T* p = get<T>();
    if (p == nullptr) return std::nullopt;
    std::optional<T> out(std::move(*p));
    ptr_.reset();
    tag_ = nullptr;
    return out;
  }

 private:
  using Ptr = std::unique_ptr<void, void (*)(void*)>;
  Ptr ptr_{nullptr, [](void*) {}};
  const void* tag_ = nullptr;
  std::string_view type_name_;
};

/// A child (or monitored actor) has started: post_start returned.
struct ActorStarted {
  ActorCell actor;
};

/// A child exited without failing: stopped, drained or killed. `state` holds its final State when
/// it stopped cleanly or was killed while running; it is empty after a kill during post_start or
/// post_stop. `reason` is the stop reason ("" if none was given). `kind` says how it ended
/// (ExitKind::stopped or ::killed); read it here rather than from `actor.exit()`, which the child
/// sets just after it sends this event, so a supervisor may see the event first.
struct ActorTerminated {
  ActorCell actor;
  BoxedState state;
  std::string reason;
  ExitKind kind = ExitKind::stopped;
};

/// A child failed: post_start, handle, handle_supervisor_event or post_stop threw.
struct ActorFailed {
  ActorCell actor;
  std::string error;
};

/// A process-group membership changed (delivered to group monitors).
struct ProcessGroupChanged {
  enum class Change : std::uint8_t { joined, left };
  Change change = Change::joined;
  std::string scope;
  std::string group;
  std::vector<ActorCell> members;
};

/// A monitored actor has exited (delivered to its monitors, not to its supervisor): how it ended and
/// why, without its state. A monitor of an actor that had already exited gets this at once.
struct ActorDown {
  ActorCell actor;
  ActorExit exit;
};

class SupervisionEvent
    : public std::variant<ActorStarted, ActorTerminated, ActorFailed, ProcessGroupChanged, ActorDown> {
 public:
  using variant::variant;

  template <class E>
  bool is() const noexcept {
    return std::holds_alternative<E>(*this);
  }
  template <class E>
  E* get() noexcept {
    return std::get_if<E>(this);
  }
  template <class E>
  const E* get() const noexcept {
    return std::get_if<E>(this);
  }
  /// The actor the event is about (empty for a group change).
  ActorCell actor() const;
  /// One line for logs: "actor 0.4 (worker) failed: boom".
  std::string describe() const;
};

}  // namespace actorscope
