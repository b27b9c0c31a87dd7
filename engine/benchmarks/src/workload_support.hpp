// What the benchmark definitions share: clocks, spawning that reports failure as a WorkloadError,
// waiting on actors' exits with a deadline, and a countdown that completes an engine Completion.
// Every wait here is for an event (an exit, a completion); nothing sleeps.
#pragma once

#include <actorscope/actorscope.hpp>
#include <actorscope/benchmarks/benchmark.hpp>
#include <actorscope/detail/core_access.hpp>

#include <atomic>
#include <chrono>
#include <span>
#include <string>
#include <vector>

namespace actorscope::bench::detail {

namespace as = actorscope;

inline double ns_between(TimePoint from, TimePoint to) noexcept {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(to - from).count());
}

inline double mean_of(const std::vector<double>& v) noexcept {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
}

/// A sample of `value`, with individual observations if the benchmark has them.
inline Sample measured(double value, std::vector<double> observations = {}) {
  Sample s;
  s.value = value;
  s.observations = std::move(observations);
  return s;
}

/// spawn(...).value(), but a failure names the benchmark's actor and becomes a WorkloadError.
template <class R>
auto spawned(R&& result) {
  if (!result) throw WorkloadError(std::string("spawn failed: ") + result.error().what());
  return std::move(*result);
}

/// Waits until every actor in `cells` has exited, within kQuiescenceDeadline of the call.
template <class Cell>
void wait_all(std::span<const Cell> cells) {
  const TimePoint deadline = Clock::now() + kQuiescenceDeadline;
  for (const Cell& c : cells) {
    if (actorscope::detail::CoreAccess::cell(c)->is_finished()) continue;  // most have, by the time we look
    const TimePoint now = Clock::now();
    if (now >= deadline || !c.wait(deadline - now))
      throw WorkloadError("actor " + c.id().to_string() + " did not exit within " +
                          std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kQuiescenceDeadline).count()) +
                          " s");
  }
}
template <class Cell>
void wait_all(const std::vector<Cell>& cells) {
  wait_all(std::span<const Cell>(cells));
}

/// Counts down from n; the last count_down() completes the event a driver thread waits on.
class Countdown {
 public:
  explicit Countdown(std::size_t n) noexcept : left_(static_cast<std::ptrdiff_t>(n)) {}
  /// @thread any
  void count_down() noexcept {
    if (left_.fetch_sub(1, std::memory_order_acq_rel) == 1) done_.complete();
  }
  /// Blocks the (driver) thread until the count reaches zero; throws WorkloadError after the deadline.
  void wait(Runtime& rt, const char* what) {
    if (!done_.wait_until(rt, Clock::now() + kQuiescenceDeadline, what))
      throw WorkloadError(std::string(what) + " did not complete within " +
                          std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kQuiescenceDeadline).count()) +
                          " s");
  }

 private:
  std::atomic<std::ptrdiff_t> left_;
  Completion done_;
};

// Sets of benchmarks, one function per source file; registry.cpp puts them in run order.
void add_core_benchmarks(std::vector<Benchmark>& out);
void add_messaging_benchmarks(std::vector<Benchmark>& out);
void add_lifecycle_benchmarks(std::vector<Benchmark>& out);
void add_timer_benchmarks(std::vector<Benchmark>& out);
void add_memory_benchmarks(std::vector<Benchmark>& out);
void add_mailbox_benchmarks(std::vector<Benchmark>& out);
void add_factory_benchmarks(std::vector<Benchmark>& out);
void add_scaling_benchmarks(std::vector<Benchmark>& out);
void add_idle_benchmarks(std::vector<Benchmark>& out);
void add_observe_benchmarks(std::vector<Benchmark>& out);

}  // namespace actorscope::bench::detail
