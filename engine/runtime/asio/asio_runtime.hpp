// AsioRuntime ("asio"): actors on a Boost.Asio thread pool. A drain is one posted handler per
// idle-to-ready change of a mailbox (no strand per actor); drains scheduled from outside the pool
// are coalesced through one lock-free inbox that a single posted handler empties; timers share one
// steady_timer driven from a deadline map; blocking work goes to a separate, lazily created pool.
#pragma once

#include <actorscope/runtime.hpp>

#include <memory>

namespace actorscope {

class AsioRuntime final : public Runtime {
 public:
  explicit AsioRuntime(const RuntimeOptions& options);
  ~AsioRuntime() override;

  std::string_view name() const noexcept override { return "asio"; }
  unsigned thread_count() const noexcept override;
  Placement place(const PlacementRequest& request) override;
  void schedule(Runnable& work, Placement where, Urgency urgency) noexcept override;
  TimePoint now() const noexcept override { return Clock::now(); }
  TimerToken arm(Runnable& work, TimePoint deadline, Placement where) noexcept override;
  void disarm(TimerToken token) noexcept override;
  void run_blocking(Runnable& work) noexcept override;
  bool on_runtime_thread() const noexcept override;
  Duration idle_spin() const noexcept override;
  Duration wait_spin() const noexcept override;
  void shutdown() noexcept override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorscope
