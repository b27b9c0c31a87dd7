// The benchmark registry: what each benchmark is (name, group, unit, what it measures, ractor's
// reference figure) and how to run one sample of it on a System. The Runner, the CLI and the
// app's Benchmarks view all read this one list.
#pragma once

#include <actorscope/runtime.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace actorscope {
class System;
}

namespace actorscope::bench {

/// What a sample's value is.
enum class Measure : std::uint8_t {
  time,     ///< the duration of the timed region, in ns
  latency,  ///< a duration in ns per sample, plus individual latencies pooled into a distribution
  memory,   ///< bytes (heap growth per actor)
  rate,     ///< things per second (unit "events/s"): higher is better; no per-element figure
  ratio,    ///< one measured time over another (unit "×"), such as a slowdown; no per-element figure
};

/// The name a measure is stored and reported under ("time", "latency", ...): the JSON report and
/// the history's `measure` column both use it.
constexpr const char* measure_name(Measure m) noexcept {
  switch (m) {
    case Measure::time: return "time";
    case Measure::latency: return "latency";
    case Measure::memory: return "memory";
    case Measure::rate: return "rate";
    case Measure::ratio: return "ratio";
  }
  return "time";
}

/// A figure measured elsewhere, for comparison: ractor 0.9.3 on tokio on this project's machine
/// class (../shared/bench-reference.md), as the range of criterion medians over several runs.
struct ReferenceRange {
  std::string label;  ///< "ractor 0.9.3 / tokio"
  double low = 0;     ///< in the benchmark's unit
  double high = 0;
};

struct BenchmarkInfo {
  /// Unique. The five core benchmarks carry ractor's exact criterion names.
  std::string name;
  /// "core" (ractor's five, ractor's timing), "core-quiescent" (the same, timed from the first spawn
  /// to the last exit), "messaging", "idle" (waking idle actors, creating a batch), "lifecycle", "timers",
  /// "memory", "mailbox", "factory", "scaling", "observe"; programs that add
  /// their own benchmarks name theirs ("recording").
  std::string group;
  /// One or two sentences: what is timed and what is not.
  std::string description;
  Measure measure = Measure::time;
  /// The unit of a sample's value: "ns", "B", "events/s" or "×".
  std::string unit = "ns";
  /// Work items per sample (actors spawned, messages handled, ...). The per-unit figure of a sample
  /// is value / elements.
  double elements = 1;
  /// What one element is: "actor", "message", "round trip", "timer".
  std::string element;
  /// Counts towards the target "Qt within 2× of Asio on every throughput benchmark".
  bool throughput = false;
  /// ractor's figure for the same benchmark, when there is one.
  std::optional<ReferenceRange> reference;
  /// Worker threads of the case's System when the benchmark is defined on a given number (the
  /// single-actor loops run on 1), whatever RunOptions::threads says; 0: RunOptions::threads.
  unsigned threads = 0;
  /// The workload does not use the case's runtime at all (it feeds a recorder directly, or reads a
  /// file): it runs once, under the first runtime named, instead of once per runtime.
  bool runs_once = false;
  /// Samples and warm-up, in a full run and with --quick.
  unsigned samples = 30;
  unsigned quick_samples = 10;
  std::chrono::milliseconds warm_up{1000};
  std::chrono::milliseconds quick_warm_up{150};
};

/// What one sample measured.
struct Sample {
  /// In BenchmarkInfo::unit.
  double value = 0;
  /// Individual observations in ns (round trips, timer firing errors), pooled over all samples into
  /// the result's distribution. Empty for benchmarks without one.
  std::vector<double> observations;
  /// Named parts of the timed region in ns (a tree's spawn and its shutdown), summarised per part.
  std::vector<std::pair<std::string, double>> phases;
};

/// Thrown by a workload that could not do its work (a spawn failed, the actors did not quiesce
/// within the generous deadline). It marks that result as failed; it is never a timing verdict.
class WorkloadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One benchmark on one System: made once per (benchmark, runtime) case, then asked for samples.
/// Its constructor may set up state that lives across samples (receivers, a partner actor); its
/// destructor must leave no actor running. All calls come from one driver thread, which is never a
/// runtime thread, so blocking waits are allowed.
class Workload {
 public:
  virtual ~Workload() = default;
  /// Runs the untimed setup, the timed region and the untimed teardown of one sample.
  virtual Sample sample() = 0;
  /// What a reader of the result should know about how it ran (a smaller file in a quick run,
  /// events dropped), asked once after the last sample; empty for nothing.
  virtual std::string note() const { return {}; }
};

struct Benchmark {
  BenchmarkInfo info;
  std::function<std::unique_ptr<Workload>(System&)> make;
  /// Made instead of `make` in a quick run when the full workload cannot be quick (a file of a
  /// million events to build first); its note() says what it does differently. Empty: `make`.
  std::function<std::unique_ptr<Workload>(System&)> make_quick{};
};

/// Every built-in benchmark, in the order they run and are reported. A program can run more:
/// see Runner's catalogue.
std::span<const Benchmark> benchmarks();

/// The benchmark called `name`, or nullptr.
const Benchmark* find_benchmark(std::string_view name);

/// How long a workload waits for its actors to finish before it gives up with a WorkloadError.
inline constexpr Duration kQuiescenceDeadline = std::chrono::seconds(60);

}  // namespace actorscope::bench
