// Timers that act on an actor: send_interval, send_after, exit_after and kill_after (on an ActorRef,
// an ActorCell or a Context) each return a TimerHandle that cancels the timer. A timer ends by
// itself when its target stops running.
#pragma once

#include <actorscope/actor_id.hpp>
#include <actorscope/interval.hpp>
#include <actorscope/ref_counted.hpp>
#include <actorscope/runtime.hpp>

#include <boost/intrusive/list_hook.hpp>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

namespace actorscope {

namespace detail {
class CellCore;
class SystemCore;
class Timers;
struct CoreAccess;

/// One timer: its schedule, its target, and the lock that decides the race between firing and
/// cancelling. The Runtime only wakes it up; everything else happens in Timers.
class TimerCore : public RefCounted, public Runnable {
 public:
  enum class Kind : std::uint8_t {
    interval,  ///< send_interval: a message every period
    once,      ///< send_after: one message
    exit,      ///< exit_after: a graceful stop
    kill,      ///< kill_after: a kill
  };

  Kind kind() const noexcept { return kind_; }
  /// Unique within its System, from 1; 0 until started.
  std::uint64_t id() const noexcept { return id_; }
  ActorId target_id() const noexcept { return target_id_; }
  /// The period (interval) or the delay (the others).
  Duration period() const noexcept { return period_; }
  /// How many times it has acted: messages queued, or the stop or kill requested. @thread any
  std::uint64_t fired() const noexcept { return fired_.load(std::memory_order_acquire); }
  /// Not yet ended (by cancel, by its target stopping, or, for a one-shot timer, by firing). @thread any
  bool is_active() const noexcept { return active_.load(std::memory_order_acquire); }
  /// Ends the timer (see TimerHandle::cancel). @thread any
  bool cancel() noexcept;

  // -- Runnable: the runtime's wake-up at a deadline --
  void run() noexcept override;
  void discard() noexcept override { release(); }

 protected:
  TimerCore(Kind kind, Ref<CellCore> target, Duration period, MissedTick policy);
  ~TimerCore() override;

  /// Builds what the next firing delivers, with no lock held (it may run user code). False if that
  /// failed; `error` then says why.
  virtual bool stage(std::string& error) noexcept {
    (void)error;
    return true;
  }
  /// Delivers what was staged to `target`, under the timer's lock. False if the target no longer
  /// takes it; the timer then ends.
  virtual bool deliver(CellCore& target) noexcept;
  /// Destroys whatever was staged and not delivered, with no lock held.
  virtual void drop_staged() noexcept {}

 private:
  friend class Timers;
  friend Ref<TimerCore> start_timer(Ref<TimerCore> timer);

  SystemCore& sys_;
  const Kind kind_;
  const Duration period_;
  const MissedTick policy_;
  const ActorId target_id_;
  std::uint64_t id_ = 0;  // set by Timers::start before the timer is armed or shared
  std::atomic<std::uint64_t> fired_{0};
  std::atomic<bool> active_{true};

  // -- guarded by m_: firing and ending exclude each other, so once an end has taken m_ nothing
  // is delivered any more --
  std::mutex m_;
  bool ended_ = false;
  Ref<CellCore> target_;  // dropped when the timer ends
  TimerToken token_ = 0;  // the armed deadline, if any
  TimePoint start_{};
  TimePoint next_{};

  // -- guarded by Timers' registry lock --
  const CellCore* registered_under_ = nullptr;  // the target whose list holds it, while registered
  boost::intrusive::list_member_hook<> target_hook_;
};

/// Registers and arms a new timer (the one place a timer starts); returns it for the handle.
Ref<TimerCore> start_timer(Ref<TimerCore> timer);
}  // namespace detail

/// The handle of a timer. Copies refer to the same timer. Destroying a handle does not cancel it: a
/// timer runs until cancelled, until its target stops, or (one-shot) until it has fired.
class TimerHandle {
 public:
  TimerHandle() noexcept = default;
  explicit TimerHandle(Ref<detail::TimerCore> timer) noexcept : t_(std::move(timer)) {}

  explicit operator bool() const noexcept { return static_cast<bool>(t_); }

  /// Stops the timer. Once this returns the timer delivers nothing more: a message it sent before
  /// is already queued, ahead of anything this thread sends next (so inside the target's own
  /// handler, at most the ticks already queued are still handled). True if the timer was active.
  /// @thread any
  bool cancel() const noexcept { return t_ && t_->cancel(); }
  /// @thread any
  bool is_active() const noexcept { return t_ && t_->is_active(); }
  /// How many times it has fired. @thread any
  std::uint64_t fired() const noexcept { return t_ ? t_->fired() : 0; }
  /// Unique within its System (0 for an empty handle).
  std::uint64_t id() const noexcept { return t_ ? t_->id() : 0; }

 private:
  friend struct detail::CoreAccess;  // the engine's way to the timer (detail/core_access.hpp)
  Ref<detail::TimerCore> t_;
};

}  // namespace actorscope
