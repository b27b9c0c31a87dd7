// The handoff events: how work and requests cross to a Host's thread in the qt runtime. One QEvent
// type for all of them; each kind is a class that delivers itself (HandoffEvent::deliver), and the
// host counts the ones in flight with one tally indexed by kind. Private to engine/runtime/qt.
//
// To add a kind: name it in `Handoff`, declare its class below, and define its deliver() beside
// the others in qt_host.cpp. Host::event() and the tally do not change.
#pragma once

#include <actorscope/runtime.hpp>

#include <QEvent>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace actorscope::detail::qt {

class Host;

/// The kinds of handoff event; the tally keeps one count per kind.
enum class Handoff : std::uint8_t {
  slice,   // a turn of the host's run list
  urgent,  // a turn of the host's urgent list
  arm,     // start a timer on the host's thread
  disarm,  // cancel one
  stop,    // drop the timers and leave the thread's event loop
  count_
};
inline constexpr std::size_t kHandoffKinds = static_cast<std::size_t>(Handoff::count_);

// The events a Host receives. (Qt's queues are not built with ThreadSanitizer, so the Host itself
// carries the happens-before edge from poster to receiver: see HandoffTally, Host::post and
// Host::event.)
class HandoffEvent : public QEvent {
 public:
  /// The one QEvent type of every kind (registered once, in qt_host.cpp).
  static const QEvent::Type type;

  Handoff kind() const noexcept { return kind_; }
  /// The priority the event is posted at.
  int priority() const noexcept { return priority_; }
  /// Posted above the normal priority: ends a slice of the run list in progress, and goes first.
  bool overtakes() const noexcept { return priority_ > Qt::NormalEventPriority; }

  /// Does on the host's thread what the event was posted for. @thread the host's
  virtual void deliver(Host& host) = 0;

 protected:
  HandoffEvent(Handoff kind, Qt::EventPriority priority) : QEvent(type), kind_(kind), priority_(priority) {}

 private:
  Handoff kind_;
  int priority_;
};

// A turn of the host's run list. Carries nothing: what it runs stays in the host's inbox, which
// the host discards if it goes away first.
class SliceEvent final : public HandoffEvent {
 public:
  SliceEvent() : HandoffEvent(Handoff::slice, Qt::NormalEventPriority) {}
  void deliver(Host& host) override;
};

// A turn of the host's urgent list (kills, stops, a suspended handler's wake-ups), posted at high
// priority. Like a SliceEvent it carries nothing.
class UrgentEvent final : public HandoffEvent {
 public:
  UrgentEvent() : HandoffEvent(Handoff::urgent, Qt::HighEventPriority) {}
  void deliver(Host& host) override;
};

// Timers belong to their host's thread; arm and disarm requests travel at the same priority so
// they are handled in the order they were made.
class ArmEvent final : public HandoffEvent {
 public:
  ArmEvent(TimerToken t, Runnable* r, TimePoint d)
      : HandoffEvent(Handoff::arm, Qt::HighEventPriority), token(t), work(r), deadline(d) {}
  ~ArmEvent() override {
    if (work != nullptr) work->discard();
  }
  void deliver(Host& host) override;

  TimerToken token;
  Runnable* work;
  TimePoint deadline;
};

class DisarmEvent final : public HandoffEvent {
 public:
  explicit DisarmEvent(TimerToken t) : HandoffEvent(Handoff::disarm, Qt::HighEventPriority), token(t) {}
  void deliver(Host& host) override;

  TimerToken token;
};

class StopEvent final : public HandoffEvent {
 public:
  StopEvent() : HandoffEvent(Handoff::stop, Qt::HighEventPriority) {}
  void deliver(Host& host) override;
};

// A host's count of its handoff events posted and not yet received: per kind, in all, and of
// those that overtake the run list. The count in all lets the host tell an idle thread from one
// whose events are stuck (Host::keep_nested_loops_fed); the overtaking ones end a slice early;
// the per-kind counts keep a second SliceEvent or UrgentEvent from being posted while one is on
// its way. The release in posted() and the acquire at the top of Host::event() also make
// everything the poster did before posting visible to the receiver, in a way ThreadSanitizer can
// see.
class HandoffTally {
 public:
  /// Just before `e` is posted (after it is made). @thread any
  void posted(const HandoffEvent& e) noexcept {
    of_[index(e.kind())].fetch_add(1, std::memory_order_relaxed);
    if (e.overtakes()) overtaking_.fetch_add(1, std::memory_order_relaxed);
    in_flight_.fetch_add(1, std::memory_order_release);
  }

  /// When `e` arrives, before it is delivered. @thread the host's
  void received(const HandoffEvent& e) noexcept {
    in_flight_.fetch_sub(1, std::memory_order_acq_rel);
    if (e.overtakes()) overtaking_.fetch_sub(1, std::memory_order_relaxed);
    of_[index(e.kind())].fetch_sub(1, std::memory_order_acq_rel);
  }

  /// Posted and not yet received, of every kind (acquire).
  int in_flight() const noexcept { return in_flight_.load(std::memory_order_acquire); }
  /// Of which those that overtake the run list (relaxed: a hint to end a slice).
  int overtaking() const noexcept { return overtaking_.load(std::memory_order_relaxed); }
  /// Of which those of kind `k` (acquire).
  int pending(Handoff k) const noexcept { return of_[index(k)].load(std::memory_order_acquire); }

 private:
  static constexpr std::size_t index(Handoff k) noexcept { return static_cast<std::size_t>(k); }

  std::atomic<int> in_flight_{0};
  std::atomic<int> overtaking_{0};
  std::array<std::atomic<int>, kHandoffKinds> of_{};
};

}  // namespace actorscope::detail::qt
