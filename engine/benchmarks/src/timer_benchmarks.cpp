// Timers: 10,000 coroutines sleeping at once (as::sleep_until) with deadlines spread over 100 ms;
// the firing error is how late each one resumed.
#include "workload_support.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace actorscope::bench::detail {

namespace {

struct TimerShared {
  explicit TimerShared(std::size_t n) : errors(n, 0.0), done(n) {}
  std::vector<double> errors;  // one slot per timer: no contention
  Countdown done;
};

// A task that sleeps until its deadline and records how late it woke up.
Task<> sleeper(TimePoint deadline, TimerShared* shared, std::size_t slot) {
  co_await as::sleep_until(deadline);
  shared->errors[slot] = ns_between(deadline, Clock::now());
  shared->done.count_down();
}

class ConcurrentTimers final : public Workload {
 public:
  ConcurrentTimers(System& sys, std::size_t n, Duration lead, Duration spread)
      : sys_(sys), n_(n), lead_(lead), spread_(spread) {}

  Sample sample() override {
    // Every timer must be armed before the first deadline, or its error would measure the spawning.
    // A loaded machine can take longer than the lead to spawn 10,000 tasks: then the attempt is
    // thrown away (its tasks still finish) and made again with twice the lead.
    Duration lead = lead_;
    for (int attempt = 1;; ++attempt, lead *= 2) {
      if (std::optional<Sample> s = attempt_with(lead)) return std::move(*s);
      if (attempt == 4)
        throw WorkloadError("spawning the timers took longer than their lead time (up to " +
                            std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(lead).count()) +
                            " ms) four times; the errors would be meaningless");
    }
  }

 private:
  std::optional<Sample> attempt_with(Duration lead) {
    auto shared = std::make_unique<TimerShared>(n_);
    std::vector<JoinHandle<void>> tasks;
    tasks.reserve(n_);
    const TimePoint t0 = Clock::now();
    const TimePoint base = t0 + lead;
    const Duration step = spread_ / static_cast<std::int64_t>(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      const TimePoint deadline = base + step * static_cast<std::int64_t>(i);
      tasks.push_back(sys_.spawn_task([deadline, s = shared.get(), i] { return sleeper(deadline, s, i); }));
    }
    const TimePoint armed = Clock::now();
    shared->done.wait(sys_.runtime(), "the timers");
    for (auto& t : tasks)
      if (!t.wait(kQuiescenceDeadline)) throw WorkloadError("a timer task did not finish");
    if (armed >= base) return std::nullopt;
    const double mean = mean_of(shared->errors);  // before the move below
    Sample s = measured(mean, std::move(shared->errors));
    s.phases = {{"spawning the sleepers", ns_between(t0, armed)}};
    return s;
  }

  System& sys_;
  std::size_t n_;
  Duration lead_, spread_;
};

Benchmark concurrent_timers() {
  using namespace std::chrono_literals;
  BenchmarkInfo i;
  i.name = "10000 concurrent timers: firing error";
  i.group = "timers";
  i.description = "10,000 spawned tasks each co_await as::sleep_until a deadline; the deadlines are spread evenly "
                  "over 100 ms, starting 150 ms after the first spawn so that every timer is armed before any is "
                  "due (on a machine too loaded for that, the sample is taken again with twice the lead). The error is how late each task resumed (it is never early). The sample value is the mean "
                  "error; the distribution pools every timer of every sample.";
  i.measure = Measure::latency;
  i.element = "timer";
  i.samples = 10;
  i.quick_samples = 4;
  i.warm_up = 300ms;
  i.quick_warm_up = 0ms;
  return {i, [](System& s) { return std::make_unique<ConcurrentTimers>(s, 10000, 150ms, 100ms); }};
}

}  // namespace

void add_timer_benchmarks(std::vector<Benchmark>& out) { out.push_back(concurrent_timers()); }

}  // namespace actorscope::bench::detail
