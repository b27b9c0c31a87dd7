// Timers: the timers of one System, indexed by target so that an exiting actor ends its own. Every
// timer starts, fires and ends through one function each (where an observer hook would go).
#pragma once

#include <actorscope/detail/sticky_flag.hpp>
#include <actorscope/observe/event.hpp>
#include <actorscope/ref_counted.hpp>
#include <actorscope/timer.hpp>

#include <boost/intrusive/list.hpp>

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace actorscope::detail {

class SystemCore;

class Timers {
 public:
  /// Why a timer ended.
  enum class End : std::uint8_t { done, cancelled, target_stopped, failed };

  explicit Timers(SystemCore& system) noexcept : system_(system) {}
  Timers(const Timers&) = delete;
  Timers& operator=(const Timers&) = delete;

  /// Registers the timer under its target and arms its first deadline. If the target has already
  /// stopped, the timer ends at once. @thread any
  void start(TimerCore& t);
  /// A deadline has come: delivers, then re-arms an interval or ends a one-shot timer. @thread runtime
  void fire(TimerCore& t) noexcept;
  /// Ends the timer; once this returns, fire() delivers nothing more for it. False if it had already
  /// ended. @thread any
  bool end(TimerCore& t, End why) noexcept;

  /// `target` has exited: ends every timer aimed at it. Called once per cell by the System.
  void cell_exited(CellCore& target) noexcept;

  /// Timers that have not ended. @thread any
  std::size_t active_count() const;

  /// What an observer attaching to a running System is told about the timers already running.
  struct Active {
    std::uint64_t id;
    std::string kind;
    ActorId target;
    Duration period;  ///< intervals only
    TimePoint next;
  };
  std::vector<Active> active() const;

 private:
  // What ending a timer leaves to do once its lock is released.
  struct Ending {
    bool ended = false;
    End why = End::done;
    TimerToken token = 0;
    Ref<CellCore> target;
    Ref<CellCore> target_alive;   // kept until after the lock by fire()
    Ref<TimerCore> registration;  // the registry's reference, if it was registered
  };
  Ending end_locked(TimerCore& t) noexcept;  // holds t's lock
  void finish(TimerCore& t, Ending ending) noexcept;
  // Observation hooks, each called from the one place a timer starts, fires or ends (the callers
  // test observing() first). `scheduled`: the deadline the firing was for.
  void observe_started(const TimerCore& t) noexcept;
  void observe_fired(const TimerCore& t, TimePoint scheduled) noexcept;
  void observe_cancelled(const TimerCore& t, End why) noexcept;
  bool unregister(TimerCore& t) noexcept;  // holds t's lock

  SystemCore& system_;
  StickyFlag used_;
  std::atomic<std::uint64_t> next_id_{1};
  // The registry lock. Taken under a timer's own lock (never the other way round); nothing else
  // is taken under it.
  mutable std::mutex m_;
  using TargetList =
      boost::intrusive::list<TimerCore,
                             boost::intrusive::member_hook<TimerCore, boost::intrusive::list_member_hook<>,
                                                           &TimerCore::target_hook_>,
                             boost::intrusive::constant_time_size<false>>;
  // The registered timers of each target, in start order; an entry goes with its last timer.
  // Mutable as m_ is: active() lists them.
  mutable std::unordered_map<const CellCore*, TargetList> by_target_;
  std::size_t count_ = 0;
};

}  // namespace actorscope::detail
