// ManualRuntime ("manual"): a deterministic runtime with a virtual clock, stepped by the caller.
// Nothing runs until the test says so, which makes exact interleavings testable; it is the oracle
// the real runtimes are checked against. Blocking waits on it drive it instead of sleeping.
#pragma once

#include <actorscope/runtime.hpp>

#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

namespace actorscope {

class ManualRuntime final : public Runtime {
 public:
  explicit ManualRuntime(const RuntimeOptions& options = {});
  ~ManualRuntime() override;

  // -- Runtime --
  std::string_view name() const noexcept override { return "manual"; }
  unsigned thread_count() const noexcept override { return 1; }
  Placement place(const PlacementRequest& request) override;
  void schedule(Runnable& work, Placement where, Urgency urgency) noexcept override;
  TimePoint now() const noexcept override;
  TimerToken arm(Runnable& work, TimePoint deadline, Placement where) noexcept override;
  void disarm(TimerToken token) noexcept override;
  void run_blocking(Runnable& work) noexcept override;
  bool on_runtime_thread() const noexcept override;
  bool drives_waits() const noexcept override { return true; }
  bool drive_until(const std::function<bool()>& done, TimePoint deadline) override;
  void shutdown() noexcept override;

  // -- stepping (the test's API; call from one thread) --
  /// Runs the next ready work item (high urgency first). False if nothing is ready.
  bool run_one();
  /// Runs ready work until there is none; returns how many items ran.
  std::size_t run_until_idle();
  /// Moves the clock forward by `d`, firing due timers in deadline order and running until idle
  /// after each; the clock ends at now + d.
  void advance(Duration d);
  void advance_to(TimePoint t);
  /// Jumps the clock to the next timer and fires it (and everything then ready). False if none.
  bool advance_to_next_timer();

  std::size_t ready_count() const;
  std::size_t timer_count() const;
  std::optional<TimePoint> next_deadline() const;

 private:
  void run_here(Runnable& r);
  Runnable* pop_ready();
  Runnable* pop_due(TimePoint t);

  mutable std::mutex m_;
  std::deque<Runnable*> urgent_;
  std::deque<Runnable*> ready_;
  std::map<std::pair<TimePoint, TimerToken>, Runnable*> timers_;
  std::unordered_map<TimerToken, TimePoint> deadlines_;
  TimerToken next_token_ = 1;
  TimePoint now_;
  bool stopped_ = false;
};

}  // namespace actorscope
